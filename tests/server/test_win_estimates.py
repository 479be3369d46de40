"""Chances to win with three or more players: simulated off the table's thread, never stale."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from server.config import Config
from server.service import TableService
from server.solver_cache import CACHE_FOLDER, WinTableCache
from server.win_estimates import Estimates, position_key
from tests.server.conftest import QUICK_SHAKE, make_config
from zilch import Game, RuleSet
from zilch.strategy.winchance import WinTable

SMALL_RULES = '[table.rules]\ntarget = "1000"\n'


@pytest.fixture
def config(tmp_path: Path, small_rules: RuleSet, small_win_table: WinTable) -> Config:
    """A table playing dicenow to 1,000 whose win table is already in its solver cache.

    It stands in for ``tests/server/conftest.py``'s ``config``, so that file's
    ``service`` runs this table.
    """
    config = make_config(tmp_path / "state", QUICK_SHAKE + SMALL_RULES)
    assert config.rules == small_rules
    WinTableCache(config.state_dir / CACHE_FOLDER)._store(small_rules, small_win_table)
    return config


def _until(check: Any, timeout: float = 240.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("the state wanted never came")


def test_three_players_get_a_simulated_chance(service: TableService) -> None:
    service.new_game(None, None, ["Ann", "Ben", "Cat"])
    service.wait_quiet(20)
    first = service.state()
    assert first["win_chance"]["method"] == "simulated"
    assert first["win_chance"]["current"] == first["current"]

    def estimated() -> dict[str, Any] | None:
        win = service.state()["win_chance"]
        return win if win and win["games"] > 0 else None

    win = _until(estimated)
    assert set(win["players"]) == {"Ann", "Ben", "Cat"} == set(win["margins"])
    assert sum(win["players"].values()) == pytest.approx(1.0, abs=2e-4)
    assert win["games"] >= 25 and win["advice"] == ""
    assert all(0 < m < 0.25 for m in win["margins"].values())
    # The table moves on: the old position's estimate is gone from the new state at once.
    service.roll()
    service.wait_quiet(20)
    now = service.state()
    assert now["win_chance"]["games"] == 0 and now["win_chance"]["players"] == {}
    _until(estimated)


def test_two_players_stay_exact(service: TableService) -> None:
    service.new_game(None, None, ["Ann", "Ben"])
    service.wait_quiet(20)
    win = service.state()["win_chance"]
    assert win["method"] == "exact" and set(win["players"]) == {"Ann", "Ben"}
    assert win["history"]["chances"] == [win["players"]["Ann"]]
    assert service.wins.estimates._process is None  # no worker for two players


def test_an_old_positions_estimate_is_never_kept(small_rules: RuleSet, tmp_path: Path) -> None:
    estimates = Estimates(tmp_path)
    estimates._closed = True  # no worker: the answers are handed in by the test
    old = Game(small_rules, ["Ann", "Ben", "Cat"])
    new = old.copy()
    new.roll([1, 2, 3, 4, 6, 6])
    assert estimates.latest(old) is None
    assert estimates.latest(new) is None
    answer = {"games": 25, "players": {"Ann": 0.4, "Ben": 0.3, "Cat": 0.3}, "margins": {}}
    assert not estimates._arrived(position_key(old, ()), answer, "")
    assert estimates.latest(new) is None
    assert estimates._arrived(position_key(new, ()), answer, "")
    assert estimates.latest(new) == answer
    assert position_key(new, ()) != position_key(new, ("Cat",))


class StuckPipe:
    """A connection to a worker that never reads: every send blocks until released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.sent: list[str] = []

    def send(self, job: Any) -> None:
        self.sent.append(job[0])
        self.release.wait(30)

    def recv(self) -> Any:
        self.release.wait(30)
        raise EOFError


def test_a_busy_worker_never_holds_up_the_table(small_rules: RuleSet, tmp_path: Path) -> None:
    estimates = Estimates(tmp_path)
    pipe = StuckPipe()

    def start() -> None:  # instead of a process: the stuck pipe with the real threads
        estimates._conn = pipe  # type: ignore[assignment]
        estimates._started += 1
        for target in (estimates._feed, estimates._read):
            threading.Thread(target=target, args=(pipe,), daemon=True).start()

    estimates._start = start  # type: ignore[method-assign]
    game = Game(small_rules, ["Ann", "Ben", "Cat"])
    done = threading.Event()

    def play_on() -> None:
        for values in ([1, 2, 3, 4, 6, 6], [5, 2, 3, 4, 6]):
            estimates.latest(game)
            if game.state.phase == "roll":
                game.roll(values)
            else:
                game.keep([game.set_asides()[0].dice[0]])
            estimates.latest(game)
        done.set()

    threading.Thread(target=play_on, daemon=True).start()
    finished = done.wait(10)
    _until(lambda: pipe.sent, 10)
    time.sleep(0.2)
    sent, pending = list(pipe.sent), estimates._pending
    pipe.release.set()
    assert finished, "asking for an estimate waited for the worker"
    # One position is stuck in the pipe; the ones after it wait folded into the newest.
    assert len(sent) == 1
    newest = sent[0] if pending is None else pending[0]
    assert newest == position_key(game, ())
