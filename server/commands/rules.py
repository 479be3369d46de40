"""Rules verbs: score, odds, replay, play."""

from __future__ import annotations

import argparse

from server.commands import Subparsers, add_rule_arguments, not_available


def register(sub: Subparsers) -> None:
    p = sub.add_parser("score", help="legal set-asides of a roll and the best one")
    add_rule_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("dice", nargs="+", metavar="D", help="die values 1-6")
    p.set_defaults(func=_todo("score"))

    p = sub.add_parser("odds", help="exact zilch chance and average best points for 1-6 dice")
    add_rule_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_todo("odds"))

    p = sub.add_parser("replay", help="replay a game record and print the final state")
    p.add_argument("file", metavar="FILE", help="game record (JSON); - for stdin")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_todo("replay"))

    p = sub.add_parser("play", help="play a game in the terminal with virtual dice")
    add_rule_arguments(p)
    p.add_argument("--players", required=True, help='comma-separated names, e.g. "Ann,Ben"')
    p.add_argument("--seed", type=int, help="seed of the virtual dice")
    p.set_defaults(func=_todo("play"))


def _todo(verb: str):  # type: ignore[no-untyped-def]
    def run(args: argparse.Namespace) -> int:
        raise not_available(verb)

    return run
