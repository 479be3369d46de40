"""Which PIN each control needs: the admin PIN where it changes a running game, the table PIN
for play. A missing or wrong PIN is refused with 401 and one line, and nothing changes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from server.service import TableService
from tests.server.conftest import ADMIN, PIN
from tests.server.storage_faults import journal_rows

WRONG_ADMIN = {"X-Admin-Pin": "99999"}

# (path, body) of every control that changes a running game: each needs the admin PIN
HOST_CONTROLS = [
    ("/api/new-game", {"preset": "dicenow", "players": ["Cy", "Di"]}),
    ("/api/end-game", {}),
    ("/api/undo", {}),
    ("/api/rename", {"player": "Ann", "name": "Annabel"}),
    ("/api/remove-player", {"player": "Ben"}),
    ("/api/pause", {"paused": True}),
]


def _post(client: Any, path: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    return client.post(
        path, data=json.dumps(body), headers=headers, content_type="application/json"
    )


def _running(service: TableService) -> None:
    service.new_game("dicenow", {}, ["Ann", "Ben", "Cat"])
    assert service.wait_quiet()


@pytest.mark.parametrize(("path", "body"), HOST_CONTROLS)
@pytest.mark.parametrize(
    "headers",
    [{}, PIN, WRONG_ADMIN, {**PIN, **WRONG_ADMIN}],
    ids=["none", "table", "wrong", "both"],
)
def test_a_host_control_without_the_admin_pin_is_refused_and_changes_nothing(
    client, service, path: str, body: dict[str, Any], headers: dict[str, str]
) -> None:
    _running(service)
    before, rows = service.state(), journal_rows(service)
    response = _post(client, path, body, headers)
    assert response.status_code == 401, response.get_json()
    error = response.get_json()
    assert list(error) == ["error"] and "\n" not in error["error"]
    assert "PIN" in error["error"]
    assert service.state() == before and journal_rows(service) == rows


@pytest.mark.parametrize(("path", "body"), HOST_CONTROLS)
def test_a_host_control_with_the_admin_pin_acts(client, service, path: str, body: dict) -> None:
    _running(service)
    if path == "/api/undo":  # something to take back: a set-aside of this turn
        for _ in range(30):
            state = service.state()
            if state["turn"]["undo"]:
                break
            if state["phase"] == "choose":
                service.keep(state["turn"]["best"]["dice"])
            else:
                service.roll()
            assert service.wait_quiet()
    headers = {**PIN, **ADMIN}
    response = _post(client, path, body, headers)
    assert response.status_code == 200, response.get_json()


def test_a_new_game_needs_only_the_table_pin_when_none_is_running(client, service) -> None:
    response = _post(client, "/api/new-game", {"players": ["Ann", "Ben"]}, PIN)
    assert response.status_code == 200, response.get_json()
    replaced = _post(client, "/api/new-game", {"players": ["Cy", "Di"]}, PIN)
    assert replaced.status_code == 401
    assert replaced.get_json() == {"error": "this needs the admin PIN in the X-Admin-Pin header"}
    assert [p["name"] for p in service.state()["players"]] == ["Ann", "Ben"]
    service.end_game()
    again = _post(client, "/api/new-game", {"players": ["Cy", "Di"]}, PIN)
    assert again.status_code == 200


def test_the_controller_refuses_to_replace_a_game_it_was_not_allowed_to(service) -> None:
    _running(service)
    with pytest.raises(ValueError, match="replacing it needs the host's admin PIN"):
        service.new_game("dicenow", {}, ["Cy", "Di"], replace=False)
    assert service.state()["players"][0]["name"] == "Ann"


@pytest.mark.parametrize(
    ("path", "body"), [("/api/roll", {}), ("/api/skip", {}), ("/api/bank", {})]
)
def test_play_takes_the_table_pin_alone(client, service, path: str, body: dict) -> None:
    _running(service)
    before = service.state()
    assert _post(client, path, body, ADMIN).status_code == 401
    assert service.state() == before
    assert _post(client, path, body, PIN).status_code in (200, 409)
