"""Verb families of the ``zilch-tower`` command line, one module each."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from server.errors import UserError
from zilch import RuleSet, find_preset

if TYPE_CHECKING:
    from server.solver_cache import WinTableCache
    from zilch.strategy.winchance import WinTable

Subparsers = Any  # argparse's _SubParsersAction is private


def print_json(value: Any) -> None:
    """Write one JSON document (one line) to stdout."""
    sys.stdout.write(json.dumps(value, separators=(", ", ": ")) + "\n")


def win_table(cache: WinTableCache, rules: RuleSet, who: str = "") -> WinTable:
    """The win table of ``rules``, saying on stderr first when it must be solved (minutes)."""
    if cache.cached(rules) is None:
        note = (
            f"solving the win table of {rules.name} first (once, minutes of CPU; "
            f"kept in {cache.directory} for next time)..."
        )
        print(who + note if who else note[0].upper() + note[1:], file=sys.stderr, flush=True)
    return cache.table(rules)


def add_rule_arguments(parser: argparse.ArgumentParser) -> None:
    """``--preset NAME`` and repeatable ``--rule K=V`` house rules."""
    parser.add_argument("--preset", default="dicenow", help="rule preset (default: dicenow)")
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="K=V",
        help="house rule on top of the preset, e.g. --rule three_pairs=750 (repeatable)",
    )


def parse_pairs(options: list[str], flag: str, shape: str, example: str) -> dict[str, str]:
    """Turn ``["K=V", ...]`` given to ``flag`` into a dict; a malformed one is a one-line error."""
    pairs: dict[str, str] = {}
    for option in options:
        key, sep, value = option.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise UserError(f"{flag} {option!r} is not {shape}; write e.g. {flag} {example}")
        pairs[key.strip()] = value.strip()
    return pairs


def parse_rule_options(options: list[str]) -> dict[str, str]:
    """Turn ``["three_pairs=750"]`` into ``{"three_pairs": "750"}``."""
    return parse_pairs(options, "--rule", "K=V", "three_pairs=750")


def rules_from_args(args: argparse.Namespace) -> RuleSet:
    """The preset named by ``--preset`` with the ``--rule`` house rules on top."""
    return find_preset(args.preset).with_house_rules(parse_rule_options(args.rule))


def not_available(verb: str) -> UserError:
    """The error a verb raises until its work has been built."""
    return UserError(f"`zilch-tower {verb}` is not available yet in this version")
