"""A play action carries the turn it was meant for: once that turn ends it acts for nobody."""

from __future__ import annotations

import json
import threading
from typing import Any

from tests.server.conftest import PIN


def _post(client: Any, path: str, body: dict[str, Any]) -> Any:
    return client.post(path, data=json.dumps(body), headers=PIN, content_type="application/json")


def _to_a_bankable_turn(client: Any, service: Any) -> dict[str, Any]:
    """Roll and keep until the current player may bank; the state then."""
    for _ in range(20):
        state = service.state()
        if state["phase"] == "ready" and state["turn"]["can_bank"]:
            return state
        if state["phase"] == "choose":
            _post(client, "/api/keep", {"keep": state["turn"]["best"]["dice"]})
        else:
            _post(client, "/api/roll", {})
        assert service.wait_quiet(15)
    raise AssertionError("never reached a bankable turn")


def _start(client: Any, service: Any) -> None:
    rules = {"entry_minimum": 0, "bank_minimum": 0}
    answer = _post(
        client, "/api/new-game", {"preset": "dicenow", "rules": rules, "players": ["Ann", "Ben"]}
    )
    assert answer.status_code == 200, answer.get_json()
    assert service.wait_quiet(15)


def test_the_state_names_the_turn_and_an_ended_turns_roll_is_refused(client, service) -> None:
    _start(client, service)
    state = _to_a_bankable_turn(client, service)
    token = state["turn_token"]
    assert token == f"{state['game_id']}-1"
    assert _post(client, "/api/bank", {"turn": token}).status_code == 200
    assert service.wait_quiet(15)
    after = service.state()
    assert after["current"] == "Ben" and after["turn_token"] != token
    refused = _post(client, "/api/roll", {"turn": token})
    assert refused.status_code == 409
    assert "turn that has ended" in refused.get_json()["error"]
    assert service.state()["seq"] == after["seq"], "nothing changed"
    assert _post(client, "/api/roll", {"turn": 7}).status_code == 400


def _send(
    client: Any,
    start: threading.Barrier,
    results: dict[str, int],
    path: str,
    body: dict[str, Any],
    name: str,
) -> None:
    start.wait()
    results[name] = _post(client, path, body).status_code


def test_roll_racing_bank_never_rolls_for_the_next_player(client, service) -> None:
    _start(client, service)
    for _ in range(8):
        state = _to_a_bankable_turn(client, service)
        banker, token = state["current"], state["turn_token"]
        results: dict[str, int] = {}
        start = threading.Barrier(2)

        racers = [
            threading.Thread(target=_send, args=(client, start, results, "/api/bank", {}, "bank")),
            threading.Thread(
                target=_send, args=(client, start, results, "/api/roll", {"turn": token}, "roll")
            ),
        ]
        for racer in racers:
            racer.start()
        for racer in racers:
            racer.join(30)
        assert service.wait_quiet(15)
        log = service.state()["log"]
        started = max(i for i, e in enumerate(log) if e["kind"] == "turn_start")
        rolled_after = [e for e in log[started:] if e["kind"] == "roll"]
        if results["bank"] == 200:
            assert rolled_after == [], f"a roll meant for {banker} rolled for the next player"
        else:  # the roll won: it was the banker's roll, and the bank came too late or was refused
            assert results["roll"] == 200
