"""A new game is one transaction: its row and its first journal row land together (item 6)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from server.store import Store

ROOT = Path(__file__).resolve().parents[2]


def _games(db: Path) -> list[tuple[int, str]]:
    store = Store(db)
    try:
        return [(g.id, g.status) for g in reversed(store.games(50))]
    finally:
        store.close()


def test_a_failed_first_write_leaves_no_ghost_game(service, monkeypatch) -> None:
    service.new_game(None, {}, ["Ann", "Ben"])
    assert service.controller.wait_quiet(10)
    before = [(g.id, g.status) for g in service.store.games(50)]
    real_append = service.store.append

    def failing(step, preset=None):  # type: ignore[no-untyped-def]
        if step.new_game is not None:
            raise OSError(28, "No space left on device")
        return real_append(step, preset)

    monkeypatch.setattr(service.store, "append", failing)
    with pytest.raises(OSError):
        service.new_game(None, {}, ["Cy", "Di"])
    assert [(g.id, g.status) for g in service.store.games(50)] == before  # no ghost, none abandoned


# The child starts a second game and is killed -9 once the game's first
# journal row is being written, before that transaction commits.
CHILD = textwrap.dedent(
    """
    import sys, time
    from server.config import load_config
    from server.service import TableService
    from server.store import Store
    from tests.server.conftest import FAST, make_config
    from pathlib import Path

    config = make_config(Path(sys.argv[1]))
    real = Store.append
    def append(self, step, preset=None):
        if step.new_game is not None and step.new_game.players[0] == "Cy":
            print("writing", flush=True)
            time.sleep(60)
        return real(self, step, preset)
    with TableService(config, sim=True, seed=3, timing=FAST, sim_settle_s=0) as table:
        table.new_game(None, {}, ["Ann", "Ben"])
        table.controller.wait_quiet(10)
        Store.append = append
        table.new_game(None, {}, ["Cy", "Di"])
    """
)


def test_a_kill_while_starting_a_game_resumes_the_old_game(tmp_path: Path) -> None:
    state = tmp_path / "state"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(state)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    line = child.stdout.readline().strip()
    os.kill(child.pid, signal.SIGKILL)
    child.wait(10)
    child.stdout.close()
    assert line == "writing"
    assert _games(state / "zilch.db") == [(1, "playing")]
    from server.service import TableService
    from tests.server.conftest import FAST, make_config

    with TableService(make_config(state), sim=True, seed=3, timing=FAST, sim_settle_s=0) as table:
        assert table.state()["game_id"] == 1
        assert [p["name"] for p in table.state()["players"]] == ["Ann", "Ben"]
