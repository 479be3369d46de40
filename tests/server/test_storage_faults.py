"""A write the storage refuses never changes the table; damaged state databases are named.

Faults are real SQLite refusals on the service's own connection: read-only
(``PRAGMA query_only``) at a chosen phase of the table, a full database
(``PRAGMA max_page_count`` after the free space is used up), an immutable or
empty file at the start, and journal rows spoiled in place.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from server.app import create_app
from server.hands import multiset_minus
from server.service import DB_NAME, TableService
from server.store import CANNOT_SAVE, CorruptJournal, StorageError, StorageRefused, Store
from tests.server import storage_faults as faults
from tests.server.conftest import ADMIN, FAST, PIN, make_config


@pytest.fixture
def table(service: TableService) -> TableService:
    """``tests/server/conftest.py``'s running table (seed 7, no settle time)."""
    return service


@pytest.mark.parametrize("action", ["new_game", "roll", "keep", "bank", "skip"])
def test_an_action_the_storage_refuses_changes_nothing_and_answers_503(
    table: TableService, action: str
) -> None:
    client = create_app(table.config, table, test_config={"TESTING": True}).test_client()
    table.new_game("dicenow", {}, ["Ann", "Ben"])
    if action == "keep":
        faults.to_choose(table)
    if action == "bank":
        faults.to_bankable(table)
    assert table.wait_quiet()
    before, rows = table.state(), faults.journal_rows(table)
    bodies = {
        "new_game": ("/api/new-game", {"players": ["Cy", "Di"]}),
        "roll": ("/api/roll", {}),
        "keep": (
            "/api/keep",
            {"keep": before["turn"]["best"]["dice"] if before["turn"]["best"] else [1]},
        ),
        "bank": ("/api/bank", {}),
        "skip": ("/api/skip", {}),
    }
    path, body = bodies[action]
    # replacing the running game is the host's: the admin PIN as well
    headers = {**PIN, **ADMIN} if action == "new_game" else PIN
    with faults.read_only(table):
        response = client.post(path, json=body, headers=headers)
        assert response.status_code == 503
        assert response.get_json() == {"error": CANNOT_SAVE}
        assert response.headers["Retry-After"].isdigit()
        faults.shown_unchanged(before, table.state())
        assert faults.journal_rows(table) == rows
    # the same request, once the storage takes writes again, goes through
    response = client.post(path, json=body, headers=headers)
    assert response.status_code == 200, response.get_json()
    assert table.state()["table"]["cannot_save"] is False
    assert len(faults.journal_rows(table)) > len(rows)


@pytest.mark.parametrize("phase", ["shaking", "settling", "choose", "ready", "remove_dice"])
def test_a_step_of_the_table_the_storage_refuses_is_retried_and_never_half_done(
    tmp_path: Path, phase: str
) -> None:
    """Every phase the controller reaches by itself: refused, nothing adopted, done once allowed."""
    config = make_config(tmp_path / "state")
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as table:
        table.new_game("dicenow", {}, ["Ann", "Ben"])
        if phase in ("remove_dice", "ready"):
            state = faults.to_choose(table)
            best = state["turn"]["best"]["dice"]
            if len(best) == len(state["turn"]["roll"]):
                pytest.skip("hot dice: nothing to take out of the tray")
            fault = faults.FaultAt(table, {phase})
            with pytest.raises(StorageError) if phase == "remove_dice" else _no_error():
                table.keep(best)
        else:
            fault = faults.FaultAt(table, {phase})
            with pytest.raises(StorageError) if phase == "shaking" else _no_error():
                table.roll()
        # a command's step is the caller's to send again; the table's own steps retry
        faults.wait_for(lambda: fault.refused >= (1 if phase in COMMANDED else 2))
        refused = table.state()
        assert refused["table"]["cannot_save"] and refused["message"] == CANNOT_SAVE
        rows = faults.journal_rows(table)
        assert all(json.loads(r[5])["phase"] != phase for r in rows[-3:])  # never journaled
        fault.lift()
        if phase == "shaking":
            table.roll()
        elif phase == "remove_dice":
            table.keep(best)
        faults.wait_for(lambda: not table.state()["table"]["cannot_save"])
        assert table.wait_quiet()
        after = table.state()
        assert after["phase"] in ("choose", "ready", "over")
        seq = after["seq"]
    # the journal holds only states that were adopted: a restart shows the same table
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as again:
        assert again.state()["seq"] == seq
        assert again.state()["phase"] == after["phase"]
        assert again.state()["turn"] == after["turn"]


def _tray(table: TableService) -> tuple[list[int], int]:
    """The simulated tray's values and the number of dice out of it."""
    tower = table.controller.hands.tower  # type: ignore[attr-defined]
    return sorted(d["value"] for d in tower.tray()), tower.out_of_tray


def test_the_helper_hands_move_no_die_before_their_moves_are_journaled(tmp_path: Path) -> None:
    # the simulator's hands take out a set-aside: while the storage refuses the row that
    # records it, every die stays where it is; once it writes again the dice come out, and a
    # restart, replaying the journal, finds them out too
    config = make_config(tmp_path / "state")
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as table:
        table.new_game("dicenow", {}, ["Ann", "Ben"])
        state = faults.to_choose(table)
        best, roll = state["turn"]["best"]["dice"], state["turn"]["roll"]
        if len(best) == len(roll):
            pytest.skip("hot dice: nothing to take out of the tray")
        before = _tray(table)
        assert before == (sorted(roll), 0)
        fault = faults.FaultAt(table, {"remove_dice"}, moves=True)
        table.keep(best)
        faults.wait_for(lambda: fault.refused >= 2)  # the table's own step, retried
        assert table.state()["table"]["cannot_save"] is True
        assert _tray(table) == before
        fault.lift()
        faults.wait_for(lambda: not table.state()["table"]["cannot_save"])
        assert table.wait_quiet()
        assert table.state()["phase"] == "ready"
        after = _tray(table)
        assert after == (list(multiset_minus(roll, best) or ()), len(best))
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as again:
        assert _tray(again) == after


def test_a_refused_undo_leaves_the_simulated_dice_out(table: TableService) -> None:
    table.new_game("dicenow", {}, ["Ann", "Ben"])
    state = faults.to_choose(table)
    best, roll = state["turn"]["best"]["dice"], state["turn"]["roll"]
    if len(best) == len(roll):
        pytest.skip("hot dice: nothing to take out of the tray")
    table.keep(best)
    assert table.wait_quiet()
    kept_out = _tray(table)
    assert kept_out[1] == len(best)
    with faults.read_only(table), pytest.raises(StorageError):
        table.undo()
    assert _tray(table) == kept_out
    table.undo()
    assert table.wait_quiet()
    assert _tray(table) == (sorted(roll), 0)


COMMANDED = ("shaking", "remove_dice")  # steps a command makes (the others: the table itself)


@contextmanager
def _no_error() -> Iterator[None]:
    yield


def test_a_full_disk_is_refused_the_same_way(table: TableService) -> None:
    client = create_app(table.config, table, test_config={"TESTING": True}).test_client()
    table.new_game("dicenow", {}, ["Ann", "Ben"])
    assert table.wait_quiet()
    before, rows = table.state(), faults.journal_rows(table)
    with faults.full_disk(table) as filled:
        response = client.post("/api/roll", json={}, headers=PIN)
        assert response.status_code == 503 and response.get_json()["error"] == CANNOT_SAVE
        faults.shown_unchanged(before, table.state())
        assert faults.journal_rows(table) == filled and filled[: len(rows)] == rows
    assert faults.journal_rows(table) == rows
    assert client.post("/api/roll", json={}, headers=PIN).status_code == 200


def test_an_empty_database_file_is_refused_at_the_start(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    (state_dir / DB_NAME).write_bytes(b"")
    with pytest.raises(StorageRefused, match=r"empty \(0 bytes\)"):
        Store(state_dir / DB_NAME)
    result = _serve(state_dir)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "zilch.db is empty (0 bytes)" in lines[0], result.stderr
    assert (state_dir / DB_NAME).stat().st_size == 0  # left as it was


def test_an_immutable_database_file_is_refused_at_the_start(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    Store(state_dir / DB_NAME).close()
    path = state_dir / DB_NAME
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not allowed here (needs root on a file system with flags)")
    try:
        with pytest.raises(StorageRefused, match="read-only"):
            Store(path)
        result = _serve(state_dir)
        assert result.returncode == 1
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "read-only" in lines[0], result.stderr
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def _serve(state_dir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "server.cli", "serve", "--sim", "--state-dir", str(state_dir)]
    return subprocess.run(
        [*command, "--host", "127.0.0.1", "--port", "0", *extra],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _played(tmp_path: Path) -> tuple[Path, int]:
    """A state directory with a game under way; its id."""
    config = make_config(tmp_path / "state")
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as table:
        game_id = table.new_game("dicenow", {}, ["Ann", "Ben"])["game_id"]
        faults.to_choose(table)
    return tmp_path / "state", game_id


def _spoil(state_dir: Path, sql: str) -> int:
    """Change one journal row in place; its seq."""
    conn = sqlite3.connect(state_dir / DB_NAME)
    with conn:
        seq = conn.execute(
            "SELECT seq FROM journal WHERE action IS NOT NULL ORDER BY seq DESC LIMIT 1"
        ).fetchone()[0]
        conn.execute(sql, (seq,))
    conn.close()
    return int(seq)


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE journal SET action = '{\"roll\": [1, 2' WHERE seq = ?",
        "UPDATE journal SET action = '{\"keep\": [6, 6, 6, 6, 6, 6]}' WHERE seq = ?",
    ],
    ids=["not-json", "illegal-action"],
)
def test_a_damaged_journal_row_stops_the_start_naming_the_game_and_row(
    tmp_path: Path, sql: str
) -> None:
    state_dir, game_id = _played(tmp_path)
    seq = _spoil(state_dir, sql)
    config = make_config(state_dir)
    table = TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0)
    try:
        with pytest.raises(CorruptJournal) as caught:
            table.start()
    finally:
        table.stop()
    assert f"journal row {seq} (game {game_id})" in str(caught.value)
    assert "--recover" in str(caught.value)
    result = _serve(state_dir)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and f"journal row {seq} (game {game_id})" in errors[0], result.stderr


def test_recover_sets_the_damaged_game_aside_and_starts_clean(tmp_path: Path) -> None:
    state_dir, game_id = _played(tmp_path)
    seq = _spoil(state_dir, "UPDATE journal SET action = 'not json' WHERE seq = ?")
    rows_before = sqlite3.connect(state_dir / DB_NAME).execute("SELECT COUNT(*) FROM journal")
    count = rows_before.fetchone()[0]
    config = make_config(state_dir)
    table = TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0)
    try:
        table.start(recover=True)
        state = table.state()
        assert state["phase"] == "idle" and state["game_id"] is None
        assert table.store.game(game_id).status == "abandoned"
        aside = table.store.set_aside()
        assert [(a["game"], a["row"]) for a in aside] == [(game_id, seq)]
        # nothing was deleted: every row is still there, and a new game can start
        with table.store._read_lock:
            total = table.store._reader.execute("SELECT COUNT(*) FROM journal").fetchone()[0]
        assert total == count + 1
        table.new_game("dicenow", {}, ["Cy", "Di"])
        assert table.wait_quiet()
    finally:
        table.stop()
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as again:
        assert [p["name"] for p in again.state()["players"]] == ["Cy", "Di"]


def test_a_failed_open_on_a_full_disk_says_the_disk_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite says "disk I/O error" when its recovery cannot write on a full disk."""
    from server import store as store_module

    error = sqlite3.OperationalError("disk I/O error")
    assert store_module._why(error, tmp_path) == "disk I/O error"  # space left: as SQLite said

    class NoSpace:
        f_bavail, f_frsize = 3, 4096

    monkeypatch.setattr(store_module.os, "statvfs", lambda path: NoSpace())
    assert (
        store_module._why(error, tmp_path) == "the disk is full: free some space (disk I/O error)"
    )
