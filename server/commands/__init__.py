"""Verb families of the ``zilch-tower`` command line, one module each."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from server.errors import UserError

Subparsers = Any  # argparse's _SubParsersAction is private


def print_json(value: Any) -> None:
    """Write one JSON document (one line) to stdout."""
    sys.stdout.write(json.dumps(value, separators=(", ", ": ")) + "\n")


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


def parse_rule_options(options: list[str]) -> dict[str, str]:
    """Turn ``["three_pairs=750"]`` into ``{"three_pairs": "750"}``."""
    rules: dict[str, str] = {}
    for option in options:
        key, sep, value = option.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise UserError(f"--rule {option!r} is not K=V; write e.g. --rule three_pairs=750")
        rules[key.strip()] = value.strip()
    return rules


def not_available(verb: str) -> UserError:
    """The error a verb raises until its work has been built."""
    return UserError(f"`zilch-tower {verb}` is not available yet in this version")
