"""Undo of the last set-aside: POST /api/undo, its journal, the record, restarts, storage faults."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from server.app import create_app
from server.service import TableService
from server.store import CANNOT_SAVE
from tests.server.conftest import ADMIN, FAST, PIN, make_config
from tests.server.storage_faults import journal_rows, read_only, shown_unchanged
from tests.server.test_serve import Server, _table
from zilch import replay


def _post(client: Any, path: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    return client.post(
        path, data=json.dumps(body), headers=headers, content_type="application/json"
    )


def _choose(table: TableService) -> dict[str, Any]:
    """The table in ``choose`` with a roll of more than one option's worth of scoring dice."""
    for _ in range(40):
        state = table.state()
        if state["phase"] == "choose" and len(state["turn"]["options"]) > 1:
            return state
        if state["phase"] == "choose":
            table.keep(state["turn"]["options"][0]["dice"])
        elif state["phase"] == "ready":
            if state["turn"]["can_bank"]:
                table.bank()
            else:
                table.roll()
        assert table.wait_quiet()
    raise AssertionError("no roll with two set-asides to choose from in 40 steps")


def _kept(table: TableService) -> tuple[dict[str, Any], dict[str, Any]]:
    """Choose, then set aside the smallest option: (state before, state after)."""
    before = _choose(table)
    smallest = min(before["turn"]["options"], key=lambda o: o["points"])
    table.keep(smallest["dice"])
    assert table.wait_quiet()
    return before, table.state()


def test_undo_takes_back_a_set_aside_and_the_record_leaves_it_out(client, service) -> None:
    service.new_game("dicenow", {}, ["Ann", "Ben"])
    before, after = _kept(service)
    assert after["turn"]["undo"] == {
        "player": before["current"],
        "dice": min(before["turn"]["options"], key=lambda o: o["points"])["dice"],
    }
    actions_before = service.store.record(before["game_id"])["actions"]
    response = _post(client, "/api/undo", {}, ADMIN)
    assert response.status_code == 200, response.get_json()
    assert service.wait_quiet()
    state = service.state()
    assert state["phase"] == "choose" and state["current"] == before["current"]
    assert state["turn"]["roll"] == before["turn"]["roll"]
    assert state["turn"]["total"] == before["turn"]["total"]
    assert state["turn"]["options"] == before["turn"]["options"]
    assert state["turn"]["undo"] is None, "a roll is never taken back"
    assert state["log"][-1]["kind"] == "undo" and "taken back" in state["log"][-1]["text"]
    assert state["table"]["in_tray"] == len(before["turn"]["roll"]), "the dice came back"
    # the journal keeps both rows; the exported record is the game without the set-aside
    game_id = state["game_id"]
    kinds = [next(iter(a)) for a in service.store.actions(game_id)]
    assert kinds[-2:] == ["keep", "undo"]
    record = service.store.record(game_id)
    assert record["actions"] == actions_before[:-1]
    assert all(
        set(a) <= {"roll", "keep", "bank", "skip", "join", "challenge", "correct", "by"}
        for a in record["actions"]
    )
    replayed = replay(record)
    assert replayed.state.turn.roll == tuple(before["turn"]["roll"])
    # another set-aside of the same roll is now legal and the game goes on
    best = state["turn"]["best"]["dice"]
    assert _post(client, "/api/keep", {"keep": best}, PIN).status_code == 200
    assert service.wait_quiet()
    assert (
        replay(service.store.record(game_id)).state.turn.total == service.state()["turn"]["total"]
    )


def test_undo_is_refused_with_one_line_when_nothing_can_be_taken_back(client, service) -> None:
    _post(client, "/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]}, PIN)
    nothing = _post(client, "/api/undo", {}, ADMIN)
    assert nothing.status_code == 409
    assert nothing.get_json() == {"error": "nothing has been played yet"}
    _choose(service)
    rows = journal_rows(service)
    rolled = _post(client, "/api/undo", {}, ADMIN)
    assert rolled.status_code == 409 and "the last action is a roll" in rolled.get_json()["error"]
    assert journal_rows(service) == rows
    assert _post(client, "/api/undo", {"undo": 1}, ADMIN).status_code == 400


def test_undo_needs_the_admin_pin_and_changes_nothing_without_it(client, service) -> None:
    service.new_game("dicenow", {}, ["Ann", "Ben"])
    _kept(service)
    before, rows = service.state(), journal_rows(service)
    for headers in ({}, PIN, {"X-Admin-Pin": "00000"}):
        refused = _post(client, "/api/undo", {}, headers)
        assert refused.status_code == 401
        assert list(refused.get_json()) == ["error"] and "admin PIN" in refused.get_json()["error"]
        assert "\n" not in refused.get_json()["error"]
    assert service.state() == before and journal_rows(service) == rows


def test_an_undo_the_storage_refuses_leaves_the_table_as_it_was(service) -> None:
    client = create_app(service.config, service, test_config={"TESTING": True}).test_client()
    service.new_game("dicenow", {}, ["Ann", "Ben"])
    _kept(service)
    before, rows = service.state(), journal_rows(service)
    with read_only(service):
        response = _post(client, "/api/undo", {}, ADMIN)
        assert response.status_code == 503 and response.get_json() == {"error": CANNOT_SAVE}
        shown_unchanged(before, service.state())
        assert journal_rows(service) == rows
    assert response.headers["Retry-After"].isdigit()
    response = _post(client, "/api/undo", {}, ADMIN)
    assert response.status_code == 200, response.get_json()
    assert service.state()["phase"] == "choose"


def test_an_undone_set_aside_stays_undone_after_kill_9(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    server = Server(state_dir, seed=11)
    try:
        assert server.post("/api/new-game", {"players": ["Ann", "Ben"]})[0] == 200
        for _ in range(30):
            state = server.quiet_state()
            if state["phase"] == "choose" and len(state["turn"]["options"]) > 1:
                break
            if state["phase"] == "choose":
                server.post("/api/keep", {"keep": state["turn"]["best"]["dice"]})
            elif state["turn"]["can_bank"]:
                server.post("/api/bank", {})
            else:
                server.post("/api/roll", {})
        smallest = min(state["turn"]["options"], key=lambda o: o["points"])
        assert server.post("/api/keep", {"keep": smallest["dice"]})[0] == 200
        server.quiet_state()
        status, _ = server.post_admin("/api/undo", {})
        assert status == 200
        seen = _table(server.quiet_state())
        game_id = server.get("/api/state")["game_id"]
        record = server.get(f"/api/games/{game_id}/record")
    finally:
        server.kill()
    again = Server(state_dir, seed=11)
    try:
        assert _table(again.quiet_state()) == seen
        assert again.get(f"/api/games/{game_id}/record") == record
    finally:
        again.kill()


def test_a_journal_with_an_undo_reads_back_at_a_restart(tmp_path: Path) -> None:
    config = make_config(tmp_path / "state")
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as table:
        table.new_game("dicenow", {}, ["Ann", "Ben"])
        _kept(table)
        table.undo()
        assert table.wait_quiet()
        seen = table.state()
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as table:
        assert table.wait_quiet()
        now = table.state()
        for key in ("phase", "current", "players", "turn", "log"):
            assert now[key] == seen[key], key


def test_undo_of_hot_dice_brings_back_the_roll_and_its_dice(client, service) -> None:
    service.new_game("dicenow", {}, ["Ann", "Ben"])
    assert len(_choose(service)["turn"]["roll"]) == 6, "the turn's first roll (seed 7)"
    # say the roll showed six scoring dice: setting all six aside gives hot dice
    service.correct([1, 1, 1, 5, 5, 1], "Ben")
    assert service.wait_quiet()
    state = service.state()
    assert state["phase"] == "choose"
    service.keep([1, 1, 1, 1, 5, 5])
    assert service.wait_quiet()
    assert any(e["kind"] == "free_roll" for e in service.state()["log"])
    response = _post(client, "/api/undo", {}, ADMIN)
    assert response.status_code == 200, response.get_json()
    assert service.wait_quiet()
    state = service.state()
    assert state["phase"] == "choose" and sorted(state["turn"]["roll"]) == [1, 1, 1, 1, 5, 5]
    assert state["table"]["in_tray"] == 6


def test_skip_is_offered_only_before_the_turns_first_roll(client, service) -> None:
    service.new_game("dicenow", {}, ["Ann", "Ben"])
    assert service.wait_quiet()
    assert service.state()["table"]["skip_open"] is True
    before, after = _kept(service)
    assert before["table"]["skip_open"] is False, "choosing: the turn has begun"
    assert after["phase"] == "ready" and after["table"]["skip_open"] is False
    response = _post(client, "/api/skip", {"turn": after["turn_token"]}, PIN)
    assert response.status_code == 409, response.get_json()
    assert "turn has begun" in response.get_json()["error"]
    assert service.state()["current"] == after["current"], "the turn goes on"
