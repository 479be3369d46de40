"""Service verbs: serve, config."""

from __future__ import annotations

import argparse

from server.commands import Subparsers, not_available
from server.config import load_config


def register(sub: Subparsers) -> None:
    p = sub.add_parser("serve", help="run the table service (simulated tower by default)")
    p.add_argument("--sim", action="store_true", help="simulated tower whatever the config says")
    p.add_argument("--host", help="address to listen on")
    p.add_argument("--port", type=int, help="TCP port")
    p.add_argument("--config", metavar="FILE", help="configuration file")
    p.add_argument("--seed", type=int, help="seed of the simulated tower")
    p.add_argument("--state-dir", metavar="DIR", help="state directory")
    p.set_defaults(func=_todo("serve"))

    p = sub.add_parser("config", help="print the effective configuration")
    p.add_argument("--config", metavar="FILE", help="configuration file")
    p.set_defaults(func=run_config)


def run_config(args: argparse.Namespace) -> int:
    print(load_config(args.config).to_toml(), end="")
    return 0


def _todo(verb: str):  # type: ignore[no-untyped-def]
    def run(args: argparse.Namespace) -> int:
        raise not_available(verb)

    return run
