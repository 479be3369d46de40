"""Benchmark the table service in the simulator, as browsers and phones see it.

1. Roll to TV update: time from ``POST /api/roll`` to the server-sent state
   event that shows the new roll, minus the simulated settle time (the dice
   tumbling in the simulator, ``--sim-settle``).
2. Fifty browsers on the event stream at once: each must receive every
   state event, while the API's latency (p95) is measured under that load.

3. With ``--win-table FILE`` instead: the time from a roll (and from a bank) to
   the TV's updated chance to win in a two-player game, against the same time
   from a service that shows no chance (``serve --no-win-chance``). Both
   services run at once with the same seed and play the same game; blocks of
   rolls alternate between them (A B B A ...), so a change in the machine's load
   falls on both. FILE is a solved win table (``win-<preset>-<key>.npz``) copied
   into the second service's solver cache, so nothing is solved.

The service runs as its own process (``zilch-tower serve --sim``), exactly as
deployed. Run: ``.venv/bin/python benchmarks/service.py [--rolls 40] [--clients 50]``
or ``.venv/bin/python benchmarks/service.py --win-table FILE [--rounds 10] [--rolls 10]``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

PIN = "2468"
BUSY = ("shaking", "settling", "reading", "remove_dice", "return_dice")


class Service:
    """``zilch-tower serve --sim`` in a subprocess on a free port."""

    def __init__(
        self, state_dir: Path, seed: int, settle: float, threads: int, *extra: str
    ) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("ZILCH_TOWER_PIN", None)
        command = [
            sys.executable, "-m", "server.cli", "serve", "--sim", "--seed", str(seed),
            "--state-dir", str(state_dir), "--host", "127.0.0.1", "--port", "0",
            "--threads", str(threads), "--sim-settle", str(settle), *extra,
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
        )
        assert self.proc.stdout is not None
        match = re.search(r":(\d+)/", self.proc.stdout.readline())
        if match is None:
            self.proc.kill()
            raise SystemExit("the service did not start")
        self.port = int(match[1])

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """One API call on a fresh connection, as a phone makes it; returns the JSON answer."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            headers = {"X-Table-Pin": PIN, "Content-Type": "application/json"}
            data = None if body is None else json.dumps(body)
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            answer = json.loads(response.read())
            if response.status >= 400:
                raise RuntimeError(f"{method} {path}: {response.status} {answer}")
            return answer
        finally:
            conn.close()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Watcher(threading.Thread):
    """One browser on ``/api/events``: records every state event's seq (and, if asked, state).

    Only the watcher that times rolls decodes the JSON: fifty decoders in the
    benchmark's own process would steal the CPU the service is measured on.
    """

    def __init__(self, port: int, decode: bool = False) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.decode = decode
        self.events: list[tuple[float, dict[str, Any]]] = []
        self.seqs: list[int] = []
        self.connected = threading.Event()
        self.changed = threading.Condition()
        self.stop = False

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request("GET", "/api/events")
        response = conn.getresponse()
        self.connected.set()
        data = None
        seq = None
        while not self.stop:
            line = response.fp.readline()
            if not line:
                break
            if line.startswith(b"id: "):
                seq = int(line[4:])
            elif line.startswith(b"data: "):
                data = line[6:]
            elif line == b"\n" and seq is not None:
                state = json.loads(data) if self.decode and data else {}
                with self.changed:
                    self.events.append((time.perf_counter(), state))
                    self.seqs.append(seq)
                    self.changed.notify_all()
                data = seq = None
        conn.close()

    def wait_for(
        self, check: Any, after: int, timeout: float = 30.0
    ) -> tuple[float, dict[str, Any]]:
        """The first event from index ``after`` on that passes ``check``."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for stamp, state in self.events[after:]:
                    if check(state):
                        return stamp, state
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no such state event")
                self.changed.wait(left)


def _last_roll_seq(state: dict[str, Any]) -> int:
    return max((e["seq"] for e in state["log"] if e["kind"] == "roll"), default=0)


def _next_move(service: Service, state: dict[str, Any]) -> None:
    """Get the table back to waiting for ROLL: keep the best, or bank a decent total."""
    if state["phase"] == "choose":
        service.request("POST", "/api/keep", {"keep": state["turn"]["best"]["dice"]})
    elif state["phase"] == "over":
        service.request("POST", "/api/new-game", {"players": ["Ann", "Ben"]})


class RollTimer:
    """Times rolls (and banks) on one service, from the request to the event showing it.

    ``shown`` says whether a state event shows everything wanted of the new
    roll or bank (by default: that it happened at all).
    """

    def __init__(self, service: Service, shown: Any = None) -> None:
        self.service = service
        self.shown = shown or (lambda state: True)
        self.watcher = Watcher(service.port, decode=True)
        self.watcher.start()
        self.watcher.connected.wait(10)
        service.request("POST", "/api/new-game", {"players": ["Ann", "Ben"]})

    def _wait_ready(self) -> dict[str, Any]:
        state = self.service.request("GET", "/api/state")
        while state["phase"] in BUSY:
            time.sleep(0.02)
            state = self.service.request("GET", "/api/state")
        return state

    def _timed(self, path: str, happened: Any) -> tuple[float, dict[str, Any]]:
        seen = len(self.watcher.events)
        start = time.perf_counter()
        self.service.request("POST", path, {})
        stamp, shown = self.watcher.wait_for(lambda s: happened(s) and self.shown(s), seen)
        return (stamp - start) * 1000, shown

    def rolls(self, count: int) -> tuple[list[float], list[float]]:
        """``count`` rolls: ms from each roll to its event minus the tumble; ms for each bank."""
        rolled: list[float] = []
        banked: list[float] = []
        for _ in range(count):
            state = self._wait_ready()
            if (
                state["phase"] == "ready"
                and state["turn"]["can_bank"]
                and state["turn"]["total"] >= 500
            ):
                banks = _banks(state)
                ms, _ = self._timed("/api/bank", lambda s, b=banks: _banks(s) > b)
                banked.append(ms)
                state = self._wait_ready()
            before = _last_roll_seq(state)
            ms, shown = self._timed("/api/roll", lambda s, b=before: _last_roll_seq(s) > b)
            tumble = shown["table"]["last_shake"]["tumble_s"]  # virtual coil time + settle time
            rolled.append(ms - tumble * 1000)
            _next_move(self.service, shown)
        return rolled, banked

    def stop(self) -> None:
        self.watcher.stop = True


def _banks(state: dict[str, Any]) -> int:
    return max((e["seq"] for e in state["log"] if e["kind"] == "bank"), default=0)


def roll_latency(service: Service, rolls: int) -> list[float]:
    """Milliseconds from POST /api/roll to the event showing the roll, minus the tumble.

    The simulated dice tumble for the shake's (virtual) coil pulses plus the
    simulated settle time; the service reports that time with each roll
    (``table.last_shake.tumble_s``) and it is taken off.
    """
    timer = RollTimer(service)
    timer.rolls(3)  # the first rolls warm up the solver and the reader
    times, _ = timer.rolls(rolls)
    timer.stop()
    return times


def _win_shown(state: dict[str, Any]) -> bool:
    """The event shows each player's chance to win for the player now at the table."""
    win = state.get("win_chance")
    if state["finished"]:
        return True  # nobody's chance to show
    return bool(win) and win["current"] == state["current"] and len(win["players"]) == 2


def win_latency(
    tmp: Path, table: Path, seed: int, settle: float, rounds: int, rolls: int
) -> dict[str, dict[str, list[float]]]:
    """Roll (and bank) to TV, plain against with the chance to win, in alternating blocks."""
    plain_dir, win_dir = tmp / "plain", tmp / "win"
    (win_dir / "solver").mkdir(parents=True)
    shutil.copy(table, win_dir / "solver" / table.name)
    services = {
        "plain": Service(plain_dir, seed, settle, 16, "--no-win-chance"),
        "win": Service(win_dir, seed, settle, 16),
    }
    times: dict[str, dict[str, list[float]]] = {k: {"roll": [], "bank": []} for k in services}
    try:
        timers = {
            "plain": RollTimer(services["plain"]),
            "win": RollTimer(services["win"], _win_shown),
        }
        for timer in timers.values():
            timer.rolls(3)  # warm up: solver, reader, the win table read from disk
        for index in range(rounds):
            order = ("plain", "win") if index % 2 == 0 else ("win", "plain")
            for name in order:
                rolled, banked = timers[name].rolls(rolls)
                times[name]["roll"] += rolled
                times[name]["bank"] += banked
        for timer in timers.values():
            timer.stop()
    finally:
        for service in services.values():
            service.stop()
    return times


def fan_out(service: Service, clients: int, actions: int) -> dict[str, Any]:
    """``clients`` event streams at once while a game is played; API latency meanwhile."""
    watchers = [Watcher(service.port) for _ in range(clients)]
    for watcher in watchers:
        watcher.start()
    for watcher in watchers:
        watcher.connected.wait(10)
    time.sleep(0.5)
    first = max(w.seqs[0] for w in watchers if w.seqs)
    latencies: list[float] = []
    by_endpoint: dict[str, list[float]] = {}

    def timed(method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        start = time.perf_counter()
        answer = service.request(method, path, body)
        ms = (time.perf_counter() - start) * 1000
        latencies.append(ms)
        by_endpoint.setdefault(f"{method} {path.split('?')[0]}", []).append(ms)
        return answer

    timed("POST", "/api/new-game", {"players": ["Ann", "Ben"]})
    for _ in range(actions):
        state = timed("GET", "/api/state")
        if state["phase"] == "choose":
            timed("POST", "/api/keep", {"keep": state["turn"]["best"]["dice"]})
        elif (
            state["phase"] == "ready"
            and state["turn"]["can_bank"]
            and state["turn"]["total"] >= 500
        ):
            timed("POST", "/api/bank", {})
        elif state["phase"] == "ready":
            timed("POST", "/api/roll", {})
        elif state["phase"] == "over":
            timed("POST", "/api/new-game", {"players": ["Ann", "Ben"]})
        timed("GET", "/api/games?limit=5")
        while timed("GET", "/api/state")["phase"] in BUSY:
            time.sleep(0.05)
    final = service.request("GET", "/api/state")["seq"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(not w.seqs or w.seqs[-1] < final for w in watchers):
        time.sleep(0.05)
    wanted = set(range(first, final + 1))
    published = set().union(*(set(w.seqs) for w in watchers)) & wanted
    complete = sum(1 for w in watchers if published <= set(w.seqs))
    for watcher in watchers:
        watcher.stop = True
    latencies.sort()
    return {
        "clients": clients,
        "events": len(published),
        "clients_with_every_event": complete,
        "api_calls": len(latencies),
        "api_p50_ms": round(statistics.median(latencies), 1),
        "api_p95_ms": round(latencies[int(0.95 * (len(latencies) - 1))], 1),
        "p95_by_endpoint": {k: round(_p95(v), 1) for k, v in sorted(by_endpoint.items())},
    }


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.95 * (len(ordered) - 1))]


def run_win(args: argparse.Namespace) -> int:
    """The ``--win-table`` mode: plain roll-to-TV against roll-to-TV-with-win-chance."""
    if not args.win_table.is_file() or not args.win_table.name.startswith("win-"):
        raise SystemExit(f"--win-table {args.win_table}: give a solved table, win-<preset>-*.npz")
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        times = win_latency(
            Path(tmp), args.win_table, args.seed, args.settle, args.rounds, args.rolls
        )
    after = os.getloadavg()
    print(f"load average before {load[0]:.2f} {load[1]:.2f}, after {after[0]:.2f} {after[1]:.2f}")
    for what in ("roll", "bank"):
        plain, win = times["plain"][what], times["win"][what]
        if not plain or not win:
            continue
        extra = statistics.median(win) - statistics.median(plain)
        print(
            f"{what} -> TV: plain median {statistics.median(plain):.1f} ms ({len(plain)}), "
            f"with the chance to win {statistics.median(win):.1f} ms ({len(win)}); "
            f"difference of medians {extra:+.1f} ms"
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=40, help="rolls timed (default 40)")
    parser.add_argument("--clients", type=int, default=50, help="event streams (default 50)")
    parser.add_argument("--actions", type=int, default=60, help="table actions under load")
    parser.add_argument("--settle", type=float, default=0.4, help="simulated settle time (s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--win-table",
        type=Path,
        metavar="FILE",
        help="time the chance to win instead: a solved win table (win-dicenow-*.npz)",
    )
    parser.add_argument("--rounds", type=int, default=10, help="A/B blocks each (--win-table)")
    args = parser.parse_args()
    if args.win_table is not None:
        return run_win(args)
    with tempfile.TemporaryDirectory() as tmp:
        service = Service(Path(tmp) / "a", args.seed, args.settle, threads=16)
        try:
            times = roll_latency(service, args.rolls)
        finally:
            service.stop()
        print(
            f"roll -> TV update (simulated tumble excluded), {len(times)} rolls: "
            f"median {statistics.median(times):.1f} ms, "
            f"p90 {sorted(times)[int(0.9 * (len(times) - 1))]:.1f} ms, max {max(times):.1f} ms"
        )
        service = Service(Path(tmp) / "b", args.seed, args.settle, threads=args.clients + 16)
        try:
            result = fan_out(service, args.clients, args.actions)
        finally:
            service.stop()
        print(
            f"{result['clients']} event streams: {result['clients_with_every_event']} received "
            f"all {result['events']} events; API p50 {result['api_p50_ms']} ms, "
            f"p95 {result['api_p95_ms']} ms over {result['api_calls']} calls"
        )
        print("  p95 by endpoint (ms):", json.dumps(result["p95_by_endpoint"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
