"""The ``zilch-tower`` command line.

Each family of verbs lives in a module of :mod:`server.commands` with a
``register(subparsers)`` function; every verb sets ``func(args) -> int``.

Conventions for every verb: ``--json`` where the contract asks for it; a
usage error exits 2 with one line; bad input exits 1 with one line naming
what was wrong; ``-v`` turns on debug logging and, for an unexpected error,
the traceback.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import NoReturn

from server import __version__
from server.commands import hardware, rules, service, strategy, vision
from server.errors import UserError

COMMAND_MODULES = (service, rules, strategy, vision, hardware)

log = logging.getLogger("zilch-tower")


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="zilch-tower",
        description="Zilch Tower: a dice tower that runs a table game of Zilch.",
    )
    parser.add_argument("--version", action="version", version=f"zilch-tower {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        return int(args.func(args) or 0)
    except (UserError, ValueError, OSError) as exc:
        print(f"zilch-tower {args.command}: error: {one_line(exc)}", file=sys.stderr)
        if args.verbose:
            log.exception("details")
        return 1
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:
        print(
            f"zilch-tower {args.command}: internal error: {one_line(exc)}"
            + ("" if args.verbose else " (run with -v for the traceback)"),
            file=sys.stderr,
        )
        if args.verbose:
            log.exception("traceback")
        return 3


def one_line(exc: BaseException) -> str:
    """The exception's message folded onto one line."""
    text = " ".join(str(exc).split())
    if isinstance(exc, OSError) and exc.filename and str(exc.filename) not in text:
        text = f"{exc.filename}: {text}"
    return text or type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())
