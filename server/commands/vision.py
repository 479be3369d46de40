"""Vision verbs: read, calibrate, vision-bench."""

from __future__ import annotations

import argparse

from server.commands import Subparsers, not_available


def register(sub: Subparsers) -> None:
    p = sub.add_parser("read", help="read the dice in images")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--calibration", metavar="FILE", help="calibration file")
    p.add_argument("--json", action="store_true", help="print JSON, one object per image")
    p.set_defaults(func=_todo("read"))

    p = sub.add_parser("calibrate", help="make a calibration file for the camera")
    p.add_argument("--source", required=True, help="camera source or image files")
    p.add_argument("--out", required=True, metavar="FILE")
    p.add_argument("--json", action="store_true", help="print the quality report as JSON")
    p.set_defaults(func=_todo("calibrate"))

    p = sub.add_parser("vision-bench", help="measure the dice reader")
    p.add_argument("folders", nargs="*", metavar="FOLDER", help="folders with labels.jsonl")
    p.add_argument("--synthetic", type=int, default=0, metavar="N", help="rendered frames")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_todo("vision-bench"))


def _todo(verb: str):  # type: ignore[no-untyped-def]
    def run(args: argparse.Namespace) -> int:
        raise not_available(verb)

    return run
