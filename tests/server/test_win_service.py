"""The background win solve never outlives the service that asked for it."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys

from server.win_service import _solve_into
from zilch import find_preset


def test_a_solve_whose_service_is_already_gone_stops_at_once(tmp_path):
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead_pid = int(gone.stdout)
    context = multiprocessing.get_context("spawn")
    process = context.Process(
        target=_solve_into,
        args=(str(tmp_path), find_preset("dicenow").to_dict(), dead_pid),
        daemon=True,
    )
    process.start()
    process.join(timeout=60)
    alive = process.is_alive()
    if alive:
        process.kill()
        process.join()
    assert not alive, "the solve went on with its service gone"
    assert process.exitcode == 0
    assert not list(tmp_path.glob("*win*")), "no table is written for nobody"
