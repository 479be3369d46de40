"""Saying what the dice show: POST /api/correct, its journal, the TV's state and teaching."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from server.app import create_app
from server.pictures import PICTURE_PX, die_picture
from server.service import TableService
from tests.server.conftest import FAST, PIN, make_config
from vision import Reading
from zilch import replay

ZILCH_SIX = [2, 2, 3, 4, 6, 6]
OTHER_ZILCH_SIX = [2, 3, 3, 4, 6, 6]


def _post(client, path: str, body: object, headers: dict | None = None):
    return client.post(
        path,
        data=json.dumps(body),
        headers=PIN if headers is None else headers,
        content_type="application/json",
    )


def _start_and_roll(client, service: TableService) -> dict:
    state = _post(client, "/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    assert state.status_code == 200, state.get_json()
    assert _post(client, "/api/roll", {}).status_code == 200
    assert service.wait_quiet()
    state = client.get("/api/state").get_json()
    assert state["log"][-1]["kind"] in ("roll", "zilch", "turn_start"), state["log"][-1]
    return state


def _rolled(state: dict) -> list[int]:
    roll = state["turn"]["roll"] or [d["value"] for d in state["reading"]["dice"]]
    return sorted(roll)


def _a_zilch_other_than(dice: list[int]) -> list[int]:
    return ZILCH_SIX if sorted(dice) != ZILCH_SIX else OTHER_ZILCH_SIX


def in_reading_order(read: list[int], target: list[int]) -> list[int]:
    """``target`` ordered as a phone sends it after tapping the dice that were misread."""
    left = list(target)
    said: list[int | None] = []
    for value in read:
        said.append(left.pop(left.index(value)) if value in left else None)
    return [left.pop(0) if v is None else v for v in said]


def test_a_roll_corrected_from_a_phone(client, service: TableService, config) -> None:
    state = _start_and_roll(client, service)
    rolled = _rolled(state)
    assert state["correctable"] == {
        "mode": "correct",
        "count": 6,
        "dice": [d["value"] for d in state["reading"]["dice"]],
    }
    zilch = _a_zilch_other_than(rolled)
    said = in_reading_order(state["correctable"]["dice"], zilch)
    response = _post(client, "/api/correct", {"correct": said, "name": "Cat"})
    assert response.status_code == 200, response.get_json()
    assert service.wait_quiet()
    state = client.get("/api/state").get_json()
    # a corrected roll without a scoring die is a zilch: Ben's turn
    assert state["current"] == "Ben" and state["players"][0]["streak"] == 1
    assert state["correction"] == {
        "player": "Ann",
        "dice": zilch,
        "read": rolled,
        "by": "Cat",
        "entered": False,
    }
    assert sorted(d["value"] for d in state["reading"]["dice"]) == zilch
    texts = [entry["text"] for entry in state["log"]]
    assert any(
        t.startswith("Ann's roll corrected by Cat: " + " ".join(map(str, zilch))) for t in texts
    )
    # out of the zilch again: Ann chooses from 1 1 1 2 3 4
    response = _post(client, "/api/correct", {"correct": [4, 1, 1, 1, 2, 3], "player": "Ben"})
    assert response.status_code == 200, response.get_json()
    assert service.wait_quiet()
    state = client.get("/api/state").get_json()
    assert state["current"] == "Ann" and state["phase"] == "choose"
    assert state["turn"]["roll"] == [1, 1, 1, 2, 3, 4]
    assert state["players"][0]["streak"] == 0 and state["correction"]["by"] == "Ben"
    # the journal keeps who corrected it; the record replays to the same table
    game_id = state["game_id"]
    record = client.get(f"/api/games/{game_id}/record").get_json()
    assert record["actions"][-2:] == [
        {"correct": said, "by": "Cat"},
        {"correct": [4, 1, 1, 1, 2, 3], "by": "Ben"},
    ]
    assert replay(record).summary()["current"] == "Ann"
    # /history and /api/games count the corrections; the fairness counts hold the true dice
    games = client.get("/api/games").get_json()["games"]
    assert games[0]["corrections"] == 2
    page = client.get("/history").get_data(as_text=True)
    assert 'data-corrections="2"' in page
    assert service.store.face_counts() == ([3, 1, 1, 1, 0, 0], 1)
    # the corrected dice went to the teaching examples, and a profile was fitted between turns
    state_dir = Path(config.calibration_path).parent
    examples = json.loads((state_dir / "teaching-examples.json").read_text())["examples"]
    assert sorted(e["value"] for e in examples) == sorted(zilch)
    assert service.controller.lessons.wait(120)
    assert (state_dir / "dice-profile.json").exists()
    assert service.teacher.saved_profile() is not None
    # one roll showed no 5 and no 6: the profile is not read with until they are taught
    assert service.teacher.profile() is None


def test_a_correction_survives_a_restart(tmp_path: Path) -> None:
    config = make_config(tmp_path / "state")
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as table:
        client = create_app(config, table, test_config={"TESTING": True}).test_client()
        state = _start_and_roll(client, table)
        zilch = _a_zilch_other_than(_rolled(state))
        assert _post(client, "/api/correct", {"correct": zilch, "name": "Cat"}).status_code == 200
        assert table.wait_quiet()
        before = table.state()
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as table:
        after = table.state()
        assert after["correction"] == before["correction"] and after["current"] == "Ben"
        assert after["players"] == before["players"]


def test_dice_kept_from_a_roll_corrected_to_what_the_simulator_did_not_throw(
    tmp_path: Path,
) -> None:
    # someone trying the simulator says the dice show other values than it threw, then keeps
    # dice of the said roll: the simulated dice follow the word (they are turned), so that the
    # tray holds what the table expects after the set-aside, and the table goes on
    config = make_config(tmp_path / "state")
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as table:
        client = create_app(config, table, test_config={"TESTING": True}).test_client()
        state = _start_and_roll(client, table)
        said = [1, 1, 2, 3, 4, 5] if _rolled(state) != [1, 1, 2, 3, 4, 5] else [1, 1, 2, 3, 4, 6]
        assert _post(client, "/api/correct", {"correct": said, "name": "Cat"}).status_code == 200
        assert table.wait_quiet()
        assert _post(client, "/api/keep", {"keep": [1, 1]}).status_code == 200
        assert table.wait_quiet()
        state = client.get("/api/state").get_json()
        assert state["phase"] == "ready", state["message"]
        assert state["table"]["in_tray"] == 4 and state["turn"]["dice_left"] == 4
        shown = sorted(d["value"] for d in table.controller.hands.tower.tray())
        assert shown == sorted(said[2:])
        before = table.state()
    # the journal holds the turn: a restart replays it and the tray is the same
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as table:
        assert table.state()["phase"] == before["phase"] == "ready"
        assert sorted(d["value"] for d in table.controller.hands.tower.tray()) == shown


@pytest.fixture
def chosen(client, service: TableService) -> Iterator[dict]:
    """A game whose first roll waits for a set-aside (re-rolled through corrections if not)."""
    state = _start_and_roll(client, service)
    if state["phase"] != "choose":
        response = _post(client, "/api/correct", {"correct": [1, 5, 2, 3, 4, 6]})
        assert response.status_code == 200, response.get_json()
        assert service.wait_quiet()
        state = client.get("/api/state").get_json()
    assert state["phase"] == "choose" and state["current"] == "Ann"
    yield state


@pytest.mark.parametrize(
    ("body", "headers", "status", "message"),
    [
        ({"correct": [1, 2, 3, 4, 5]}, None, 400, "has 5 dice; it must have exactly 6"),
        (
            {"correct": [1, 2, 3, 4, 5, 7]},
            None,
            400,
            "from 1 to 6, such as [1, 5]; die 6 of 6 is 7",
        ),
        (
            {"correct": [1, 2, 0, 4, 5, 0]},
            None,
            400,
            "from 1 to 6, such as [1, 5]; die 3 of 6 is 0",
        ),
        ({"correct": [1, 2, 3, "4", 5, 6]}, None, 400, 'die 4 of 6 is "4"'),
        ({"correct": [1, True, 3, 4, 5, 6]}, None, 400, "die 2 of 6 is true"),
        ({"correct": "123456"}, None, 400, "'correct' must be a list"),
        ({}, None, 400, "'correct' must be a list"),
        ({"correct": [1] * 6, "name": "A", "player": "B"}, None, 400, "not both"),
        ({"correct": [1] * 6, "name": ""}, None, 400, "'name' must be a player's name"),
        ({"correct": [1] * 6, "who": "Ann"}, None, 400, "unknown field 'who'"),
        ({"correct": [1] * 6}, {}, 401, "X-Table-Pin"),
        ({"correct": [1] * 6}, {"X-Table-Pin": "0000"}, 401, "X-Table-Pin"),
    ],
)
def test_bad_corrections_change_nothing(
    client, chosen: dict, body: dict, headers: dict | None, status: int, message: str
) -> None:
    before = client.get("/api/state").get_json()
    response = _post(client, "/api/correct", body, headers)
    assert response.status_code == status
    error = response.get_json()["error"]
    assert message in error and "\n" not in error
    assert client.get("/api/state").get_json() == before


def test_no_correction_after_a_set_aside_or_the_game(client, service, chosen: dict) -> None:
    best = chosen["turn"]["best"]["dice"]
    assert _post(client, "/api/keep", {"keep": best}).status_code == 200
    assert service.wait_quiet()
    before = client.get("/api/state").get_json()
    assert before["correctable"] is None
    response = _post(client, "/api/correct", {"correct": [1] * len(chosen["turn"]["roll"])})
    assert response.status_code == 409
    assert "before any set-aside" in response.get_json()["error"]
    assert client.get("/api/state").get_json() == before


def test_no_correction_without_a_game_or_after_it(client, service) -> None:
    response = _post(client, "/api/correct", {"correct": [1] * 6})
    assert response.status_code == 409 and "no game is running" in response.get_json()["error"]
    # a target of 1,000, reached by a roll corrected to six 1s; Ben skips his final turn
    body = {"preset": "dicenow", "players": ["Ann", "Ben"], "rules": {"target": 1000}}
    assert _post(client, "/api/new-game", body).status_code == 200
    assert _post(client, "/api/roll", {}).status_code == 200
    assert service.wait_quiet()
    state = client.get("/api/state").get_json()
    assert state["correctable"]["count"] == 6
    assert _post(client, "/api/correct", {"correct": [1] * 6, "name": "Ann"}).status_code == 200
    assert service.wait_quiet()
    assert _post(client, "/api/keep", {"keep": [1] * 6}).status_code == 200
    assert service.wait_quiet()
    assert _post(client, "/api/bank", {}).status_code == 200
    assert _post(client, "/api/skip", {}).status_code == 200
    assert service.wait_quiet()
    state = client.get("/api/state").get_json()
    assert state["finished"] and state["winners"] == ["Ann"] and state["correctable"] is None
    response = _post(client, "/api/correct", {"correct": [1] * 6})
    assert response.status_code == 409 and "game is over" in response.get_json()["error"]
    assert client.get("/api/state").get_json() == state


def test_dice_entered_after_the_last_reshake(client, service: TableService, monkeypatch) -> None:
    watcher = service.hardware.watcher
    sure = watcher.read

    def unsure(frame, expected=None):
        reading = sure(frame, expected)
        return Reading(reading.dice, False, "the die at the left wall is leaning")

    monkeypatch.setattr(watcher, "read", unsure)
    _post(client, "/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    assert _post(client, "/api/roll", {}).status_code == 200
    assert service.wait_quiet()
    state = client.get("/api/state").get_json()
    assert state["phase"] == "fix_tray" and "say on a phone" in state["message"]
    assert state["correctable"]["mode"] == "enter" and state["correctable"]["count"] == 6
    before = state
    response = _post(client, "/api/correct", {"correct": [1, 2, 3, 4, 5]})
    assert response.status_code == 400 and "exactly 6" in response.get_json()["error"]
    assert client.get("/api/state").get_json() == before
    monkeypatch.setattr(watcher, "read", sure)
    response = _post(client, "/api/correct", {"correct": [5, 1, 1, 2, 3, 4], "name": "Dee"})
    assert response.status_code == 200, response.get_json()
    assert service.wait_quiet()
    state = client.get("/api/state").get_json()
    assert state["phase"] == "choose" and state["turn"]["roll"] == [1, 1, 2, 3, 4, 5]
    assert state["correction"]["entered"] and state["correction"]["by"] == "Dee"
    assert any(
        e["kind"] == "dice_entered" and "roll entered by Dee: 1 1 2 3 4 5" in e["text"]
        for e in state["log"]
    )
    record = client.get(f"/api/games/{state['game_id']}/record").get_json()
    assert record["actions"] == [{"roll": [5, 1, 1, 2, 3, 4]}]
    assert client.get("/api/games").get_json()["games"][0]["corrections"] == 1


def _picture(url: str) -> np.ndarray:
    head, _, data = url.partition(",")
    assert head == "data:image/png;base64"
    image = cv2.imdecode(np.frombuffer(base64.b64decode(data), np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    return image


def test_the_phone_is_shown_the_camera_s_picture_of_each_die(
    client, service: TableService, chosen: dict
) -> None:
    answer = client.get("/api/correct", headers=PIN)
    assert answer.status_code == 200, answer.get_json()
    offer = answer.get_json()
    assert {k: offer[k] for k in ("mode", "count", "dice")} == chosen["correctable"]
    assert offer["game_id"] == chosen["game_id"] and offer["seq"] == chosen["seq"]
    # one picture per die, in the reading's order: each is that die's crop of the frame read
    seen = service.controller.lessons.last_seen()
    assert seen is not None
    frame, reading = seen
    calibration = service.hardware.watcher.calibration.get()
    assert [d.value for d in reading.dice] == offer["dice"]
    pictures = [_picture(url) for url in offer["pictures"]]
    assert len(pictures) == 6 and all(p.shape == (PICTURE_PX, PICTURE_PX, 3) for p in pictures)
    for picture, die in zip(pictures, reading.dice, strict=True):
        assert np.array_equal(picture, _picture(die_picture(frame, die, calibration)))
    assert len({p.tobytes() for p in pictures}) == 6  # six dice, six different crops
    # corrected, the dice keep their places, so the pictures stay with them
    said = list(offer["dice"])
    said[0] = said[0] % 6 + 1
    assert _post(client, "/api/correct", {"correct": said, "name": "Cat"}).status_code == 200
    assert service.wait_quiet()
    after = client.get("/api/correct", headers=PIN).get_json()
    assert after["dice"] == said and after["mode"] == "correct"
    assert [_picture(u).tobytes() for u in after["pictures"]] == [p.tobytes() for p in pictures]


def test_no_pictures_without_the_pin_or_a_roll_to_correct(client, service, chosen) -> None:
    before = client.get("/api/state").get_json()
    for headers in ({}, {"X-Table-Pin": "0000"}):
        answer = client.get("/api/correct", headers=headers)
        assert answer.status_code == 401 and "X-Table-Pin" in answer.get_json()["error"]
    assert client.get("/api/state").get_json() == before
    assert _post(client, "/api/keep", {"keep": chosen["turn"]["best"]["dice"]}).status_code == 200
    assert service.wait_quiet()
    before = client.get("/api/state").get_json()
    answer = client.get("/api/correct", headers=PIN)
    assert answer.status_code == 409
    error = answer.get_json()["error"]
    assert error == "there is no roll to say the dice of now"
    assert client.get("/api/state").get_json() == before


def test_no_pictures_when_the_frame_in_hand_is_of_another_roll(tmp_path: Path) -> None:
    """A restarted tower has the roll in its journal but not the frame it was read in."""
    config = make_config(tmp_path / "state")
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as table:
        client = create_app(config, table, test_config={"TESTING": True}).test_client()
        state = _start_and_roll(client, table)
        assert state["correctable"]["mode"] == "correct"
        assert len(client.get("/api/correct", headers=PIN).get_json()["pictures"]) == 6
    with TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0) as table:
        client = create_app(config, table, test_config={"TESTING": True}).test_client()
        offer = client.get("/api/correct", headers=PIN).get_json()
        assert offer["dice"] == state["correctable"]["dice"] and offer["pictures"] == []


def test_pictures_of_the_dice_seen_when_the_tower_could_not_read_the_roll(
    client, service: TableService, monkeypatch
) -> None:
    """After the last reshake the camera may have seen another number of dice than rolled."""
    watcher = service.hardware.watcher
    sure = watcher.read

    def five_seen(frame, expected=None):
        reading = sure(frame, expected)
        return Reading(reading.dice[:5], False, "5 dice seen, 6 expected")

    monkeypatch.setattr(watcher, "read", five_seen)
    _post(client, "/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    assert _post(client, "/api/roll", {}).status_code == 200
    assert service.wait_quiet()
    state = client.get("/api/state").get_json()
    assert state["phase"] == "fix_tray"
    offer = client.get("/api/correct", headers=PIN).get_json()
    assert offer["mode"] == "enter" and offer["count"] == 6 and len(offer["dice"]) == 5
    assert len(offer["pictures"]) == 5
    assert all(_picture(url).shape == (PICTURE_PX, PICTURE_PX, 3) for url in offer["pictures"])
    assert client.get("/api/state").get_json() == state
