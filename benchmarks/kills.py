"""Kill the service with SIGKILL at random moments: is every acknowledged action still there?

Runs ``zilch-tower serve --sim`` on one state directory again and again. Each
run plays a few actions through the API (ROLL, keep the best, BANK now and
then) and is killed -9 at a random moment, often while the dice tumble or a
write is under way. After each restart it checks that the service came back
and that the table holds every action the API acknowledged: the state's seq
is at least the last acknowledged one and the game's record holds every
acknowledged action.

Run: ``.venv/bin/python benchmarks/kills.py [--kills 40] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service import Service


def act(service: Service, state: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """One play action fitting the state; the acknowledged state, or None if refused."""
    phase = state["phase"]
    try:
        if phase in ("idle", "over"):
            return service.request("POST", "/api/new-game", {"players": ["Ann", "Ben"]})
        if phase == "choose" and state["turn"]["best"]:
            return service.request("POST", "/api/keep", {"keep": state["turn"]["best"]["dice"]})
        if phase == "ready" and state["turn"]["can_bank"] and rng.random() < 0.4:
            return service.request("POST", "/api/bank", {})
        if phase in ("ready", "fix_tray"):
            return service.request("POST", "/api/roll", {})
    except RuntimeError:
        return None  # a 4xx: not acknowledged, nothing to keep
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    lost: list[str] = []
    restarts = failed_starts = acknowledged = 0
    last: dict[str, Any] | None = None  # the last acknowledged state
    with tempfile.TemporaryDirectory() as tmp:
        state_dir = Path(tmp) / "s"
        for _ in range(args.kills):
            try:
                service = Service(state_dir, args.seed, 0.3, threads=8)
            except SystemExit:
                failed_starts += 1
                continue
            restarts += 1
            try:
                shown = service.request("GET", "/api/state")
                if last is not None:
                    record = service.request("GET", f"/api/games/{last['game_id']}/record")
                    if shown["seq"] < last["seq"]:
                        lost.append(f"seq {shown['seq']} < acknowledged {last['seq']}")
                    if len(record["actions"]) < last["_actions"]:
                        lost.append(f"game {last['game_id']} lost actions")
                timer = threading.Timer(
                    rng.uniform(0.05, 2.5), os.kill, (service.proc.pid, signal.SIGKILL)
                )
                timer.start()
                state = shown
                while service.proc.poll() is None:
                    answer = act(service, state, rng)
                    if answer is not None and answer.get("game_id") is not None:
                        record = service.request("GET", f"/api/games/{answer['game_id']}/record")
                        last = {**answer, "_actions": len(record["actions"])}
                        acknowledged += 1
                    time.sleep(rng.uniform(0.0, 0.3))
                    state = service.request("GET", "/api/state")
            except (OSError, RuntimeError, ValueError, http.client.HTTPException):
                pass  # the kill landed mid-request or mid-answer: that one was not acknowledged
            finally:
                timer.cancel()
                service.proc.wait(10)
        service = Service(state_dir, args.seed, 0.3, threads=8)
        try:
            shown = service.request("GET", "/api/state")
            if last is not None and shown["seq"] < last["seq"]:
                lost.append("final restart lost the last acknowledged state")
        finally:
            service.stop()
    result = {
        "kills": args.kills,
        "restarts_ok": restarts,
        "failed_starts": failed_starts,
        "acknowledged_actions": acknowledged,
        "lost": lost,
    }
    print(json.dumps(result, indent=1))
    return 0 if not lost and not failed_starts else 1


if __name__ == "__main__":
    sys.exit(main())
