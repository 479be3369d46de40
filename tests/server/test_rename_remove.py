"""Renaming a player and removing a player who has left: API, journal, record, restarts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from server.service import TableService
from server.store import CANNOT_SAVE
from tests.server.conftest import ADMIN, FAST, PIN, QUICK_SHAKE, make_config
from tests.server.storage_faults import journal_rows, read_only, shown_unchanged
from zilch import replay


def _post(client: Any, path: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    return client.post(
        path, data=json.dumps(body), headers=headers, content_type="application/json"
    )


def _play_a_turn(table: TableService) -> None:
    """The current player plays until the turn passes (banking when allowed)."""
    me = table.state()["current"]
    for _ in range(40):
        state = table.state()
        if state["current"] != me or state["finished"]:
            return
        if state["phase"] == "choose":
            table.keep(state["turn"]["best"]["dice"])
        elif state["turn"]["can_bank"]:
            table.bank()
        else:
            table.roll()
        assert table.wait_quiet()
    raise AssertionError("the turn did not pass in 40 steps")


def test_rename_renames_the_player_everywhere_and_the_record_replays(client, service) -> None:
    service.new_game("dicenow", {}, ["Ann", "Ben"])
    _play_a_turn(service)
    before = service.state()
    response = _post(client, "/api/rename", {"player": "ann", "name": "Annabel"}, ADMIN)
    assert response.status_code == 200, response.get_json()
    state = response.get_json()
    assert [p["name"] for p in state["players"]] == ["Annabel", "Ben"]
    assert state["players"][0]["score"] == before["players"][0]["score"]
    assert state["current"] == before["current"] == "Ben"
    assert state["log"][-1] == {**state["log"][-1], "kind": "rename"}
    assert state["log"][-1]["text"] == "Ann is now called Annabel."
    record = service.store.record(state["game_id"])
    assert record["players"] == ["Annabel", "Ben"]
    assert all("rename" not in action for action in record["actions"])
    assert replay(record).summary()["players"][0]["name"] == "Annabel"
    assert {"rename": {"from": "Ann", "to": "Annabel"}} in service.store.actions(state["game_id"])
    _play_a_turn(service)
    assert service.state()["current"] == "Annabel", "the turn order is unchanged"


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"player": "Zed", "name": "Max"}, 409, "'Zed' is not playing"),
        ({"player": "Ann", "name": "BEN"}, 409, "BEN is already playing"),
        ({"player": "Ann", "name": "A,nn"}, 400, "commas"),
        ({"player": "Ann"}, 400, "'name' must be a player's name"),
        ({"player": "Ann", "name": "Max", "extra": 1}, 400, "unknown field 'extra'"),
    ],
)
def test_a_bad_rename_is_refused_with_one_line_and_changes_nothing(
    client, service, body: dict[str, Any], status: int, error: str
) -> None:
    service.new_game("dicenow", {}, ["Ann", "Ben"])
    before, rows = service.state(), journal_rows(service)
    response = _post(client, "/api/rename", body, ADMIN)
    assert response.status_code == status
    assert list(response.get_json()) == ["error"] and error in response.get_json()["error"]
    assert service.state() == before and journal_rows(service) == rows


def test_a_removed_player_keeps_the_score_and_every_turn_of_theirs_is_skipped(
    client, service
) -> None:
    service.new_game("dicenow", {}, ["Ann", "Ben", "Cat"])
    _play_a_turn(service)  # Ann
    assert service.state()["current"] == "Ben"
    response = _post(client, "/api/remove-player", {"player": "cat"}, ADMIN)
    assert response.status_code == 200, response.get_json()
    assert service.wait_quiet()
    state = service.state()
    cat = next(p for p in state["players"] if p["name"] == "Cat")
    assert cat["left"] is True and cat["score"] == 0
    assert [p["left"] for p in state["players"]] == [False, False, True]
    assert (
        state["log"][-1]["kind"] == "left" and "Cat has left the game" in state["log"][-1]["text"]
    )
    _play_a_turn(service)  # Ben; Cat's turn comes and is skipped at once
    assert service.wait_quiet()
    state = service.state()
    assert state["current"] == "Ann"
    assert any(e["text"] == "Cat has left: the turn is skipped." for e in state["log"])
    record = service.store.record(state["game_id"])
    assert record["players"] == ["Ann", "Ben", "Cat"] and record["actions"][-1] == {"skip": True}
    assert replay(record).summary()["current"] == "Ann"
    refused = _post(client, "/api/roll", {"player": "Cat"}, PIN)
    assert refused.status_code == 409


def test_removing_the_current_player_before_their_roll_skips_the_turn_now(client, service) -> None:
    service.new_game("dicenow", {}, ["Ann", "Ben", "Cat"])
    response = _post(client, "/api/remove-player", {"player": "Ann"}, ADMIN)
    assert response.status_code == 200, response.get_json()
    assert service.wait_quiet()
    assert service.state()["current"] == "Ben"


@pytest.mark.parametrize(
    ("setup", "player", "error"),
    [
        ("mid_turn", "Ann", "Ann's turn is under way"),
        ("none", "Zed", "'Zed' is not playing"),
        ("left", "Ben", "Ben has already left"),
        ("left", "Ann", "Ann is the last player at the table"),
    ],
)
def test_a_removal_that_cannot_be_is_refused_with_the_reason(
    client, service, setup: str, player: str, error: str
) -> None:
    service.new_game("dicenow", {}, ["Ann", "Ben"])
    if setup == "mid_turn":
        service.roll()
        assert service.wait_quiet()
        if service.state()["current"] != "Ann":
            pytest.skip("Ann zilched on her first roll with this seed")
    if setup == "left":
        assert _post(client, "/api/remove-player", {"player": "Ben"}, ADMIN).status_code == 200
        assert service.wait_quiet()
    before, rows = service.state(), journal_rows(service)
    response = _post(client, "/api/remove-player", {"player": player}, ADMIN)
    assert response.status_code == 409
    assert list(response.get_json()) == ["error"] and error in response.get_json()["error"]
    assert service.state() == before and journal_rows(service) == rows


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/rename", {"player": "Ann", "name": "Annabel"}),
        ("/api/remove-player", {"player": "Ben"}),
    ],
)
def test_rename_and_remove_the_storage_refuses_leave_the_table_as_it_was(
    client, service, path: str, body: dict[str, Any]
) -> None:
    service.new_game("dicenow", {}, ["Ann", "Ben", "Cat"])
    before, rows = service.state(), journal_rows(service)
    with read_only(service):
        response = _post(client, path, body, ADMIN)
        assert response.status_code == 503 and response.get_json() == {"error": CANNOT_SAVE}
        shown_unchanged(before, service.state())
        assert journal_rows(service) == rows
    assert _post(client, path, body, ADMIN).status_code == 200


def test_renames_and_removals_survive_a_restart(tmp_path: Path) -> None:
    config = make_config(tmp_path / "state", QUICK_SHAKE)
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as table:
        table.new_game("dicenow", {}, ["Ann", "Ben", "Cat"], {"Cat": "dicenow"})
        table.rename("Cat", "Robo")
        table.remove_player("Ben")
        assert table.wait_quiet()
        seen = table.state()
        assert seen["current"] == "Ann"
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as table:
        now = table.state()
        assert [(p["name"], p["left"], p["bot"]) for p in now["players"]] == [
            ("Ann", False, None),
            ("Ben", True, None),
            ("Robo", False, "dicenow"),
        ]
        assert now["players"] == seen["players"] and now["current"] == "Ann"
        assert now["log"] == seen["log"]
        record = table.store.record(now["game_id"])
        assert replay(record).summary()["players"][2]["name"] == "Robo"
