"""The one array cache behind the points solve and the win table."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from server.solver_cache import ArrayCache, CacheKind, SolverCache, WinTableCache
from zilch import find_preset


class Solved:
    def __init__(self, value: float) -> None:
        self.value = value


def _kind(started: threading.Event, release: threading.Event) -> CacheKind[Solved]:
    def slow_solve(rules: Any) -> Solved:
        started.set()
        assert release.wait(20), "the test never let the solve finish"
        return Solved(float(rules.target))

    def from_arrays(rules: Any, arrays: Mapping[str, Any]) -> Solved:
        if set(arrays) != {"value"}:
            raise KeyError("value")
        return Solved(float(arrays["value"]))

    return CacheKind(
        what="test cache",
        prefix="test-",
        version_field="test",
        version=1,
        solve=slow_solve,
        to_arrays=lambda solved: {"value": np.array(solved.value)},
        from_arrays=from_arrays,
        data_error=KeyError,
    )


def test_a_solve_in_progress_never_holds_up_a_cached_lookup(tmp_path: Path) -> None:
    started, release = threading.Event(), threading.Event()
    cache = ArrayCache(tmp_path, _kind(started, release))
    rules = find_preset("dicenow")
    results: list[tuple[Solved, bool]] = []
    solver = threading.Thread(target=lambda: results.append(cache.get(rules)), daemon=True)
    solver.start()
    assert started.wait(20)
    looked: list[Solved | None] = []
    lookup = threading.Thread(target=lambda: looked.append(cache.cached(rules)), daemon=True)
    lookup.start()
    lookup.join(10)
    alive = lookup.is_alive()
    release.set()
    solver.join(20)
    assert not alive, "cached() waited behind a solve"
    assert looked == [None]
    assert results and results[0][0].value == 10000 and results[0][1] is False
    assert cache.path_for(rules).name.startswith("test-dicenow-")
    again = ArrayCache(tmp_path, _kind(threading.Event(), threading.Event()))
    found = again.cached(rules)  # read back from disk, nothing solved
    assert found is not None and found.value == 10000


def test_an_unreadable_file_is_solved_again(tmp_path: Path) -> None:
    started, release = threading.Event(), threading.Event()
    release.set()
    cache = ArrayCache(tmp_path, _kind(started, release))
    rules = find_preset("dicenow")
    cache.path_for(rules).write_bytes(b"not a zip file")
    assert cache.cached(rules) is None
    solved, was_cached = cache.get(rules)
    assert not was_cached and solved.value == 10000 and started.is_set()


def test_the_two_kinds_keep_their_file_names(tmp_path: Path) -> None:
    """Files solved before the cache was one class are still found."""
    from zilch.strategy.solver import SOLVER_VERSION
    from zilch.strategy.winsolve import WIN_SOLVER_VERSION

    def key(field: str, version: int) -> str:
        text = json.dumps({"rules": rules.to_dict(), field: version}, sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

    rules = find_preset("playr")
    points = SolverCache(tmp_path).path_for(rules).name
    wins = WinTableCache(tmp_path).path_for(rules).name
    assert points == f"playr-{key('solver', SOLVER_VERSION)}.npz"
    assert wins == f"win-playr-{key('win', WIN_SOLVER_VERSION)}.npz"
