"""Benchmark: from ROLL to the new dice drawn on the TV, in a real browser.

Runs the real service on the simulated tower with no settle time, opens the
TV page in headless Chromium and, for each roll, measures from just before
``POST /api/roll`` to the moment the TV has drawn the state that shows the
roll (a MutationObserver timestamps every state the page draws). A watcher
thread notes when each state document is published, so the TV's own share
(published to drawn: event stream, parsing, drawing) is reported apart from
the tower's (shake, settle detection, reading). Prints medians, 95th
percentiles and maxima in milliseconds.

    .venv/bin/python tests/browser/bench_tv.py [--rolls N] [--seed S]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tower_pages import CHROMIUM, CHROMIUM_ARGS, served_table, write_config

WATCH = """
window.drawn = [];
new MutationObserver(() => {
  const tv = document.getElementById('tv');
  window.drawn.push([Number(tv.dataset.seq), Date.now(), tv.dataset.phase]);
}).observe(document.getElementById('tv'), {attributes: true, attributeFilter: ['data-seq']});
"""


class PublishWatch:
    """Notes the wall-clock time (ms) at which each state ``seq`` is first published."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self.first_seen: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            seq = int(self.service.state().get("seq", -1))
            self.first_seen.setdefault(seq, time.time() * 1000)
            time.sleep(0.0005)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def measure(rolls: int, seed: int) -> tuple[list[float], list[float]]:
    """Per roll: ms from the ROLL request to the TV drawing its dice, and from publish to draw."""
    from playwright.sync_api import sync_playwright

    from server.config import load_config

    with (
        tempfile.TemporaryDirectory() as tmp,
        served_table(
            load_config(write_config(Path(tmp)), env={}), seed=seed, keepalive_s=15.0
        ) as table,
    ):
        service = table.service
        latencies: list[float] = []
        shares: list[float] = []
        watch = PublishWatch(service)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
                )
                page = browser.new_page(viewport={"width": 1920, "height": 1080})
                table.post("/api/new-game", {"players": ["Ann", "Ben"]})
                service.wait_quiet(10)
                page.goto(table.url + "/")
                page.wait_for_selector("#game:not([hidden])")
                page.evaluate(WATCH)
                while len(latencies) < rolls:
                    state = service.state()
                    if state["phase"] == "choose":
                        table.post("/api/keep", {"keep": state["turn"]["best"]["dice"]})
                    elif state["turn"]["can_bank"] and state["turn"]["total"]:
                        table.post("/api/bank")
                    elif state["phase"] == "ready":
                        before = service.state()["seq"]
                        start = time.time() * 1000
                        table.post("/api/roll")
                        service.wait_quiet(15)
                        seq, drawn = _drawn_after(page, before)
                        latencies.append(drawn - start)
                        shares.append(drawn - watch.first_seen[seq])
                    service.wait_quiet(15)
                    page.wait_for_function(
                        "s => Number(document.getElementById('tv').dataset.seq) >= s",
                        arg=service.state()["seq"],
                    )
                browser.close()
        finally:
            watch.stop()
    return latencies, shares


def _drawn_after(page: Any, before: int) -> tuple[int, float]:
    """The first state after ``before`` that shows dice read, and when the page drew it."""
    page.wait_for_function(
        "b => window.drawn.some(d => d[0] > b && ['choose', 'ready', 'fix_tray'].includes(d[2]))",
        arg=before,
    )
    for seq, stamp, phase in page.evaluate("window.drawn"):
        if seq > before and phase in ("choose", "ready", "fix_tray"):
            return int(seq), float(stamp)
    raise RuntimeError("the TV never drew the roll")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rolls", type=int, default=30, help="rolls to measure (default 30)")
    parser.add_argument("--seed", type=int, default=3, help="simulator seed (default 3)")
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    if args.rolls < 1:
        parser.error("--rolls must be at least 1")
    latencies, shares = measure(args.rolls, args.seed)
    print(summary("roll request to TV drawn", latencies))
    print(summary("state published to TV drawn", shares))


def summary(what: str, values: list[float]) -> str:
    """``what``: median, p95 and max of ``values`` in ms."""
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"{what} over {len(ordered)} rolls: median {statistics.median(ordered):.0f} ms,"
        f" p95 {p95:.0f} ms, max {ordered[-1]:.0f} ms"
    )


if __name__ == "__main__":
    main()
