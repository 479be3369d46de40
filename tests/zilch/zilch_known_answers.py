"""Reading the known-answer data files of ``tests/data/rules``."""

from __future__ import annotations

from pathlib import Path

from zilch import RuleSet, find_preset

DATA = Path(__file__).resolve().parent.parent / "data" / "rules"


# cardgames.io Farkle as domsleee/farkle scores it (src/precompute.rs), as house rules
# on dicenow; docs/strategy.md solves it for the published 53.3% first-player figure.
FARKLE_HOUSE_RULES = {
    "straight": "2500",
    "multiples": "flat",
    "flat_values": "1000-2000-3000",
    "three_pairs": "1500",
    "entry_minimum": "0",
    "bank_minimum": "0",
    "zilch_penalty": "0",
}


def rules_named(spec: str) -> RuleSet:
    """``"dicenow+three_ones=300+multiples=flat"``: a preset with house rules."""
    name, *overrides = spec.split("+")
    house = dict(item.split("=", 1) for item in overrides)
    return find_preset(name).with_house_rules(house)


def dice(text: str) -> tuple[int, ...]:
    """``"1 2 5"`` -> ``(1, 2, 5)``; ``"-"`` -> ``()``."""
    return () if text.strip() == "-" else tuple(int(word) for word in text.split())


def table(name: str, columns: int) -> list[tuple[str, ...]]:
    """The rows of a ``|``-separated data file, comments and blank lines skipped."""
    rows = []
    for number, line in enumerate((DATA / name).read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = tuple(cell.strip() for cell in line.split("|"))
        assert len(cells) == columns, f"{name}:{number}: expected {columns} cells: {line}"
        rows.append((f"{name}:{number}", *cells))
    return rows


ACTION_WORDS = {
    "r": "roll",
    "k": "keep",
    "b": "bank",
    "s": "skip",
    "j": "join",
    "c": "challenge",
    "x": "correct",
}


def action(text: str) -> dict[str, object]:
    """``"r 1 2 3"`` -> ``{"roll": [1, 2, 3]}``, ``"b"`` -> ``{"bank": True}``, ..."""
    word, _, rest = text.strip().partition(" ")
    kind = ACTION_WORDS[word]
    if kind in ("roll", "keep", "correct"):
        return {kind: [int(v) for v in rest.split()]}
    if kind in ("join", "challenge"):
        return {kind: rest.strip()}
    return {kind: True}


def games(name: str = "games.txt") -> list[tuple[str, list[tuple[str, str]]]]:
    """Blocks of a games file: (title, [(key, value), ...]) in file order."""
    blocks: list[tuple[str, list[tuple[str, str]]]] = []
    for line in (DATA / name).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("["):
            blocks.append((line.strip("[] "), []))
            continue
        key, _, value = line.partition(":")
        blocks[-1][1].append((key.strip(), value.strip()))
    return blocks
