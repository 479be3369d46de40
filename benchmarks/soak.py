"""Soak the service for hours: computer players play game after game while pages come and go.

Starts ``zilch-tower serve --sim`` on the loopback and keeps it busy:

- a table of computer players (``dicenow`` bots), a new game whenever one ends;
- ``--pages`` live pages, each staying on ``/api/events`` for 5 to 60 seconds, then
  leaving and coming back;
- a phone and a TV polling ``/api/state``, ``/api/games``, ``/``, ``/play`` and
  ``/history`` now and then.

Every minute it prints one JSON line with the service's RSS, open file
descriptors and threads, and the games and events so far; at the end, the
figures at 0, 60 and 120 minutes (as far as it ran) and the RSS growth over
each half of the run. It stops by itself after ``--minutes``.

Run: ``nice -n 10 .venv/bin/python benchmarks/soak.py --minutes 120 [--out soak.jsonl]``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hostile import _proc_figures
from service import Service

BOTS = [{"name": "Ann", "bot": "dicenow"}, {"name": "Ben", "bot": "dicenow"}]


def _get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


class Counters:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.games = 0
        self.events = 0
        self.visits = 0
        self.errors: list[str] = []

    def add(self, **counts: int) -> None:
        with self.lock:
            for key, n in counts.items():
                setattr(self, key, getattr(self, key) + n)

    def error(self, text: str) -> None:
        with self.lock:
            if len(self.errors) < 20:
                self.errors.append(text)


def page_visitor(port: int, stop: threading.Event, counters: Counters, rng: random.Random) -> None:
    """A page that opens the event stream, stays a while, leaves, and comes back."""
    while not stop.is_set():
        stay = rng.uniform(5, 60)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            conn.request("GET", "/api/events")
            response = conn.getresponse()
            if response.status != 200:
                counters.error(f"events: {response.status}")
                response.read()
            else:
                counters.add(visits=1)
                end = time.monotonic() + stay
                while time.monotonic() < end and not stop.is_set():
                    line = response.fp.readline()
                    if not line:
                        break
                    if line.startswith(b"id: "):
                        counters.add(events=1)
        except OSError as exc:
            counters.error(f"events: {type(exc).__name__}")
        finally:
            conn.close()
        stop.wait(rng.uniform(0.5, 5))


def host(service: Service, stop: threading.Event, counters: Counters, rng: random.Random) -> None:
    """Starts a game of bots whenever none is running; visits the pages now and then."""
    paths = ["/api/state", "/api/games?limit=20", "/", "/play", "/history", "/api/records"]
    while not stop.is_set():
        try:
            state = service.request("GET", "/api/state")
            if state["phase"] in ("idle", "over"):
                service.request("POST", "/api/new-game", {"players": BOTS})
                counters.add(games=1)
            status, _ = _get(service.port, rng.choice(paths))
            if status != 200:
                counters.error(f"page: {status}")
        except (OSError, RuntimeError, ValueError) as exc:
            counters.error(f"host: {type(exc).__name__} {exc}"[:200])
        stop.wait(2.0)


def soak(minutes: float, pages: int, seed: int, out: Path | None) -> dict[str, Any]:
    samples: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        service = Service(Path(tmp) / "s", seed, 0.4, threads=64)
        stop = threading.Event()
        counters = Counters()
        rng = random.Random(seed)
        workers = [
            threading.Thread(target=host, args=(service, stop, counters, rng), daemon=True)
        ] + [
            threading.Thread(
                target=page_visitor,
                args=(service.port, stop, counters, random.Random(seed * 1000 + i)),
                daemon=True,
            )
            for i in range(pages)
        ]
        start = time.monotonic()
        try:
            for worker in workers:
                worker.start()
            minute = 0
            while minute <= minutes:
                figures = _proc_figures(service.proc.pid)
                sample = {
                    "minute": minute,
                    **figures,
                    "games": counters.games,
                    "events_seen": counters.events,
                    "page_visits": counters.visits,
                    "errors": len(counters.errors),
                }
                samples.append(sample)
                print(json.dumps(sample), flush=True)
                if out is not None:
                    with out.open("a") as handle:
                        handle.write(json.dumps(sample) + "\n")
                minute += 1
                next_at = start + 60 * minute
                while time.monotonic() < next_at and minute <= minutes:
                    if service.proc.poll() is not None:
                        raise SystemExit(f"the service exited ({service.proc.returncode})")
                    time.sleep(min(5.0, max(0.0, next_at - time.monotonic())))
        finally:
            stop.set()
            service.stop()
    by_minute = {s["minute"]: s for s in samples}
    last = samples[-1]["minute"]
    half = last // 2
    return {
        "minutes_run": last,
        "rss_mb": {m: by_minute[m]["rss_mb"] for m in (0, 60, 120) if m in by_minute},
        "rss_mb_last": samples[-1]["rss_mb"],
        "rss_growth_first_half_mb": by_minute[half]["rss_mb"] - by_minute[0]["rss_mb"],
        "rss_growth_second_half_mb": samples[-1]["rss_mb"] - by_minute[half]["rss_mb"],
        "fds": {m: by_minute[m]["fds"] for m in (0, 60, 120) if m in by_minute},
        "fds_max": max(s["fds"] for s in samples),
        "games": counters.games,
        "page_visits": counters.visits,
        "errors": counters.errors,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=120)
    parser.add_argument("--pages", type=int, default=20, help="pages coming and going")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="append each minute's JSON line here")
    args = parser.parse_args()
    result = soak(args.minutes, args.pages, args.seed, args.out)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
