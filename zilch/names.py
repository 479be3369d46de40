"""Player names: the one place for what a name may hold and when two names are the same.

A name is compared in its normal form: Unicode NFKC (so a full-width "Ａｎｎ"
and a no-break space read as the plain characters they look like), trimmed,
and every run of spaces collapsed to one space. Two names are the same
player when their normal forms match ignoring case (:func:`name_key`).
Everything that takes a name (the engine, the JSON API, the configuration,
the terminal game) checks it with :func:`check_name` or :func:`name_problem`.
"""

from __future__ import annotations

import unicodedata

from zilch.errors import InvalidPlayer, cut

__all__ = ["NAME_MAX", "NAME_RULE", "check_name", "name_key", "name_problem", "normalize_name"]

NAME_MAX = 24
NAME_RULE = f"1 to {NAME_MAX} characters, without commas or control characters"


def _quoted(name: object) -> str:
    """``repr(name)`` cut to one short quote: a refused name may be kilobytes long."""
    return cut(repr(name))


def normalize_name(text: str) -> str:
    """``text`` in NFKC with spaces trimmed and each run of spaces made one space."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def name_key(name: str) -> str:
    """What two names are compared by: the normal form, case folded."""
    return normalize_name(name).casefold()


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a player's name, or None when it can."""
    if not isinstance(name, str):
        return f"a player's name must be non-empty text, got {_quoted(name)}"
    # Control characters are refused before spaces are collapsed, so a line
    # break inside a name is an error rather than silently a space.
    trimmed = unicodedata.normalize("NFKC", name).strip()
    if not trimmed:
        return f"a player's name must be non-empty text, got {_quoted(name)}"
    if any(unicodedata.category(ch).startswith("C") for ch in trimmed) or "," in trimmed:
        return f"player name {_quoted(name)} may not hold commas or control characters"
    normal = normalize_name(trimmed)
    if len(normal) > NAME_MAX:
        return f"player name {_quoted(normal)} is longer than {NAME_MAX} characters"
    return None


def check_name(name: object) -> str:
    """``name`` in its normal form; :class:`InvalidPlayer` says why it cannot be a name."""
    problem = name_problem(name)
    if problem is not None:
        raise InvalidPlayer(problem)
    assert isinstance(name, str)
    return normalize_name(name)
