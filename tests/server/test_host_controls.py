"""The host's controls: end a game, pause and resume (admin PIN)."""

from __future__ import annotations

import json
import time
from typing import Any

from server.service import TableService
from tests.server.conftest import ADMIN, FAST, PIN, QUICK_SHAKE, make_config
from tests.server.test_host import FakeClock, wait_for


def _post(client: Any, path: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    return client.post(
        path, data=json.dumps(body), headers=headers, content_type="application/json"
    )


def test_end_game_needs_the_admin_pin_and_keeps_the_game_in_history(client, service) -> None:
    _post(client, "/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]}, PIN)
    _post(client, "/api/roll", {}, PIN)
    assert service.wait_quiet(15)
    game = service.state()["game_id"]
    refused = _post(client, "/api/end-game", {}, PIN)
    assert refused.status_code == 401 and service.state()["game_id"] == game
    ended = _post(client, "/api/end-game", {}, ADMIN)
    assert ended.status_code == 200, ended.get_json()
    state = service.state()
    assert state["phase"] == "idle" and state["game_id"] is None and state["players"] == []
    assert state["log"][-1]["kind"] == "game_ended"
    assert service.store.game(game).status == "abandoned"
    assert service.store.record(game)["actions"], "nothing of the game was deleted"
    again = _post(client, "/api/end-game", {}, ADMIN)
    assert again.status_code == 409 and "no game" in again.get_json()["error"]


def test_an_ended_game_stays_ended_after_a_restart(tmp_path) -> None:
    config = make_config(tmp_path / "state")
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as table:
        table.new_game("dicenow", {}, ["Ann", "Ben"])
        table.end_game()
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as table:
        assert table.state()["phase"] == "idle" and table.state()["game_id"] is None


def test_pause_stops_the_hosts_calls_and_play_until_resumed(tmp_path) -> None:
    clock = FakeClock()
    config = make_config(tmp_path / "state", QUICK_SHAKE + "[host]\ncall_timeout_s = 30\n")
    table = TableService(config, sim=True, seed=4, timing=FAST, sim_settle_s=0.0, clock=clock)
    with table:
        table.new_game("club", {}, ["Ben", "Ann"])
        assert table.pause(True)["paused"] is True
        clock.advance(200)
        time.sleep(0.5)
        state = table.state()
        assert state["current"] == "Ann" and state["announcement"]["kind"] == "call"
        try:
            table.roll("Ann")
        except ValueError as exc:
            assert "paused" in str(exc)
        else:
            raise AssertionError("a paused table rolled")
        assert table.pause(False)["paused"] is False
        clock.advance(29)
        time.sleep(0.4)
        assert table.state()["announcement"]["kind"] == "call", "the calls start afresh"
        clock.advance(1)
        wait_for(lambda: (table.state()["announcement"] or {}).get("kind") == "call_again")


def test_pause_endpoint_checks_its_body(client, service) -> None:
    _post(client, "/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]}, PIN)
    assert _post(client, "/api/pause", {"paused": "yes"}, ADMIN).status_code == 400
    assert _post(client, "/api/pause", {"paused": True}, PIN).status_code == 401
    assert _post(client, "/api/pause", {"paused": True}, ADMIN).get_json()["paused"] is True
    again = _post(client, "/api/pause", {"paused": True}, ADMIN)
    assert again.status_code == 409 and "already paused" in again.get_json()["error"]
    refused = _post(client, "/api/roll", {}, PIN)
    assert refused.status_code == 409 and "paused" in refused.get_json()["error"]
