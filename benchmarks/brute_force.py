"""Guess the table PIN from many loopback addresses: how many guesses before the lock-out?

Starts ``zilch-tower serve --sim`` on the loopback and sends wrong PINs in
turn from ``--addresses`` source addresses (127.0.0.2, 127.0.0.3, ...: all of
127/8 is this machine), then the right PIN last, as a script on one phone
with many addresses would. Reports the wrong PINs answered 401 before the
first 429, how many guesses were refused outright, and whether the right
PIN got through.

Run: ``.venv/bin/python benchmarks/brute_force.py [--addresses 50] [--guesses 600]``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service import PIN, Service


def guess(port: int, pin: str, source: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        conn.request("POST", "/api/roll", body="{}", headers={"X-Table-Pin": pin})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--addresses", type=int, default=50)
    parser.add_argument("--guesses", type=int, default=600)
    args = parser.parse_args()
    wrong = [f"{n:04d}" for n in range(10000) if f"{n:04d}" != PIN][: args.guesses]
    with tempfile.TemporaryDirectory() as tmp:
        service = Service(Path(tmp) / "s", 1, 0.2, threads=16)
        try:
            codes = [
                guess(service.port, pin, f"127.0.0.{i % args.addresses + 2}")
                for i, pin in enumerate(wrong)
            ]
            right = guess(service.port, PIN, f"127.0.0.{args.addresses + 2}")
        finally:
            service.stop()
    first_429 = codes.index(429) if 429 in codes else None
    result = {
        "addresses": args.addresses,
        "wrong_guesses_sent": len(codes),
        "checked_before_lock_out": first_429 if first_429 is not None else len(codes),
        "checked_in_all": codes.count(401),
        "refused_429": codes.count(429),
        "right_pin_from_a_new_address": right,
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
