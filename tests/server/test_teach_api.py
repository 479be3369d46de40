"""The calibration page's teach step: rolls shaken by the tower, dice confirmed, a profile."""

from __future__ import annotations

import json

from tests.server.conftest import ADMIN, PIN


def _post(client, path: str, body: object | None = None, headers: dict | None = None):
    return client.post(
        path,
        data=None if body is None else json.dumps(body),
        headers=ADMIN if headers is None else headers,
        content_type="application/json",
    )


def test_teach_the_tower_its_dice(client, service, config) -> None:
    status = client.get("/api/calibrate/teach", headers=ADMIN).get_json()
    assert status["rolls"] == [] and status["taught"]["profile"] is None
    assert _post(client, "/api/calibrate/teach/learn").status_code == 409
    for n in range(3):
        response = _post(client, "/api/calibrate/teach/roll")
        assert response.status_code == 200, response.get_json()
        status = response.get_json()
        roll = status["rolls"][n]
        assert len(roll["dice"]) == 6 and roll["values"] is None
        assert all(d["crop"].startswith("data:image/png;base64,") for d in roll["dice"])
        values = [d["value"] for d in roll["dice"]]
        if n == 1:
            values[0] = values[0] % 6 + 1  # the host corrects one die by tapping
        status = _post(
            client, "/api/calibrate/teach/confirm", {"roll": n, "values": values}
        ).get_json()
        assert status["rolls"][n]["values"] == values
    assert status["confirmed_dice"] == 18
    # each shake was journaled (the simulator replays it after a restart)
    assert service.store.tower_ops().count(["shake"]) == 3
    status = _post(client, "/api/calibrate/teach/learn").get_json()
    assert status["learned"]["dice"] == 18 and sum(status["learned"]["counts"]) == 18
    assert status["rolls"] == [] and status["taught"]["examples"] == 18
    state_dir = config.calibration_path.parent
    assert (state_dir / "dice-profile.json").exists()
    assert service.teacher.profile() is not None  # the reader uses it from now on


def test_bad_teach_steps_are_one_line_errors(client) -> None:
    assert _post(client, "/api/calibrate/teach/roll", headers=PIN).status_code == 401
    response = _post(client, "/api/calibrate/teach/confirm", {"roll": 0, "values": [1] * 6})
    assert response.status_code == 400 and "is not a roll" in response.get_json()["error"]
    assert _post(client, "/api/calibrate/teach/roll").status_code == 200
    for body, message in [
        ({"roll": 0, "values": [1] * 5}, "must be 6 die values"),
        ({"roll": 0, "values": [1] * 5}, "one per die shown; got [1, 1, 1, 1, 1]"),
        ({"roll": 0, "values": [1, 2, 3, 4, 5, 7]}, "must be 6 die values"),
        ({"roll": 0, "values": [1, 2, 3, 4, 5, 7]}, "; got [1, 2, 3, 4, 5, 7]"),
        (
            {"roll": 0},
            "'values' must be 6 die values from 1 to 6, one per die shown; it was left out",
        ),
        ({"roll": "0", "values": [1] * 6}, "'roll' must be the number"),
        ({"roll": "0", "values": [1] * 6}, 'roll of this teach step; got "0"'),
        ({"roll": 0, "values": [1] * 6, "extra": 1}, "unknown field 'extra'"),
    ]:
        response = _post(client, "/api/calibrate/teach/confirm", body)
        assert response.status_code == 400 and message in response.get_json()["error"], body
    status = client.get("/api/calibrate/teach", headers=ADMIN).get_json()
    assert status["rolls"][0]["values"] is None
    # not under a game
    new = client.post(
        "/api/new-game",
        data=json.dumps({"players": ["Ann", "Ben"]}),
        headers=PIN,
        content_type="application/json",
    )
    assert new.status_code == 200
    response = _post(client, "/api/calibrate/teach/roll")
    assert response.status_code == 409 and "between games" in response.get_json()["error"]
