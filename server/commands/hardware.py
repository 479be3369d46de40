"""Hardware verbs: shake, hw-test."""

from __future__ import annotations

import argparse

from server.commands import Subparsers, not_available


def register(sub: Subparsers) -> None:
    p = sub.add_parser("shake", help="bring-up test of the solenoid")
    p.add_argument("--mock", action="store_true", help="drive gpiozero's mock pins")
    p.add_argument("--times", type=int, default=1, metavar="N", help="shakes to run")
    p.add_argument("--config", metavar="FILE", help="configuration file")
    p.add_argument("--json", action="store_true", help="print the pulses driven as JSON")
    p.set_defaults(func=_todo("shake"))

    p = sub.add_parser("hw-test", help="walk through the solenoid, the light and each button")
    p.add_argument("--mock", action="store_true", help="drive gpiozero's mock pins")
    p.add_argument("--config", metavar="FILE", help="configuration file")
    p.set_defaults(func=_todo("hw-test"))


def _todo(verb: str):  # type: ignore[no-untyped-def]
    def run(args: argparse.Namespace) -> int:
        raise not_available(verb)

    return run
