"""Strategy verbs: solve, decide, duel."""

from __future__ import annotations

import argparse

from server.commands import Subparsers, add_rule_arguments, not_available


def register(sub: Subparsers) -> None:
    p = sub.add_parser("solve", help="strategy that maximises long-run points per turn")
    add_rule_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_todo("solve"))

    p = sub.add_parser("decide", help="what a computer player does with a roll")
    add_rule_arguments(p)
    p.add_argument("--bot", required=True, help="dicenow or optimal")
    p.add_argument("--roll", nargs="+", required=True, metavar="D", help="die values 1-6")
    p.add_argument("--turn-total", type=int, default=0, metavar="T")
    p.add_argument("--score", type=int, default=0, metavar="S")
    p.add_argument("--opponent", type=int, default=0, metavar="O")
    p.add_argument("--streak", type=int, default=0, metavar="K")
    p.add_argument("--final", action="store_true", help="this is the bot's final turn")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_todo("decide"))

    p = sub.add_parser("duel", help="bot-against-bot games with win rates")
    add_rule_arguments(p)
    p.add_argument("--bots", required=True, help="two bots, e.g. optimal,dicenow")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_todo("duel"))


def _todo(verb: str):  # type: ignore[no-untyped-def]
    def run(args: argparse.Namespace) -> int:
        raise not_available(verb)

    return run
