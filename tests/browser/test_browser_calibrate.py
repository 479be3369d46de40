"""The calibration page in Chromium and its endpoints, against the real simulated service."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

import cv2
import numpy as np
import pytest
from tower_pages import ADMIN_PIN, LiveTable, capture_empty_and_dice, open_calibration

from vision.calibration import load_calibration


def admin(method: str, client: Any, path: str, pin: str | None = ADMIN_PIN) -> Any:
    """A request to the calibration API through the Flask test client."""
    headers = {"X-Admin-Pin": pin} if pin is not None else {}
    return client.open("/api/calibrate/" + path, method=method, headers=headers, json={})


@pytest.fixture
def client(live_table: LiveTable) -> Any:
    from server.app import create_app

    return create_app(live_table.config, live_table.service).test_client()


STEPS = [
    ("GET", "frame.jpg"),
    ("GET", "status"),
    ("POST", "empty"),
    ("POST", "dice"),
    ("POST", "test"),
    ("POST", "lock"),
    ("POST", "save"),
    ("POST", "sim/take-out"),
    ("POST", "sim/put-back"),
]


def test_every_calibration_step_needs_the_admin_pin(client: Any, live_table: LiveTable) -> None:
    for method, path in STEPS:
        response = admin(method, client, path, pin=None)
        assert response.status_code == 401, path
        assert "admin PIN" in response.get_json()["error"]
    response = admin("POST", client, "sim/take-out", pin="00000")
    assert response.status_code == 401
    assert "wrong admin PIN" in response.get_json()["error"]
    assert live_table.service.hardware.tower.in_tray == 6
    assert not live_table.config.calibration_path.exists()


def test_a_wrong_admin_pin_is_refused_in_the_pages_words(
    live_table: LiveTable, page_for: Any
) -> None:
    page = page_for(1280, 900)
    # the teach step's answer comes last, as it may on a slow link
    page.route(
        "**/api/calibrate/teach", lambda route: (page.wait_for_timeout(400), route.continue_())
    )
    page.goto(live_table.url + "/calibrate")
    page.fill("#pin-input", "00000")
    page.click("#pin-form button[type=submit]")
    page.wait_for_timeout(1200)
    assert page.text_content("#error") == "The admin PIN was not accepted. Enter it again."
    assert page.is_visible("#pin-panel")


def test_frame_is_an_annotated_jpeg_of_the_shared_camera(client: Any) -> None:
    response = admin("GET", client, "frame.jpg")
    assert response.status_code == 200
    assert response.mimetype == "image/jpeg"
    image = cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None and image.shape[0] > 100
    assert " read" in unquote(response.headers["X-Reading"])


@pytest.mark.parametrize(
    ("path", "needs"),
    [("dice", "empty tray"), ("test", "six dice"), ("save", "empty tray")],
)
def test_steps_out_of_order_are_refused(client: Any, path: str, needs: str) -> None:
    response = admin("POST", client, path)
    assert response.status_code == 409
    assert needs in response.get_json()["error"]


def test_simulator_hands_wait_for_the_game_to_end(client: Any, live_table: LiveTable) -> None:
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    response = admin("POST", client, "sim/take-out")
    assert response.status_code == 409
    assert "game is running" in response.get_json()["error"]
    assert live_table.service.hardware.tower.in_tray == 6


@pytest.mark.browser
@pytest.mark.slow
def test_calibration_page_shows_the_overlay_and_saves(
    live_table: LiveTable, page_for: Any, artifacts: Path
) -> None:
    page = open_calibration(page_for, live_table)
    assert page.evaluate("document.getElementById('live').naturalWidth") > 0
    page.wait_for_function(
        "() => document.getElementById('live-reading').textContent.includes('dice read')"
    )

    capture_empty_and_dice(page)
    assert page.locator("#report li").count() >= 1
    page.click("#test-read")
    page.wait_for_selector("#calibrate[data-step='save']")
    assert page.text_content("#test-result").startswith("6 dice read")
    page.click("#lock")
    page.wait_for_function("() => document.getElementById('lock-state').textContent !== ''")
    assert "nothing to lock" in page.text_content("#lock-state")  # the renderer has no AE/AWB
    page.click("#save")
    page.wait_for_function("() => document.getElementById('saved').textContent.includes('Saved')")
    page.screenshot(path=str(artifacts / "calibrate.png"), full_page=True)

    path = live_table.config.calibration_path
    assert path.exists()
    load_calibration(path)
    assert page.js_errors == []


def test_a_camera_without_a_picture_is_a_plain_409(
    client: Any, live_table: LiveTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vision.sources import SourceError

    def unplugged() -> None:
        raise SourceError("USB camera returned no frame (unplugged?)")

    monkeypatch.setattr(live_table.service.hardware.camera, "read", unplugged)
    for method, path in [("GET", "frame.jpg"), ("POST", "empty")]:
        response = admin(method, client, path)
        assert response.status_code == 409
        assert response.get_json()["error"] == (
            "the camera gave no picture: USB camera returned no frame (unplugged?)"
        )


def test_reading_words_survive_any_reason_in_the_header(client: Any) -> None:
    from server.calibration_api import reading_words

    words = reading_words({"dice": [{"value": 3}], "ok": False, "reason": "die tilted ≥ 20°"})
    assert words == "1 die read: 3; not sure: die tilted ≥ 20°."
    response = admin("GET", client, "frame.jpg")
    response.headers["X-Reading"].encode("latin-1")


def test_an_empty_tray_capture_with_dice_in_it_is_refused(client: Any) -> None:
    response = admin("POST", client, "empty")
    assert response.status_code == 409
    error = response.get_json()["error"]
    assert error.startswith("the tray is not empty (6 dice read: ") and "take every die" in error
    assert admin("GET", client, "status").get_json()["step"] == "empty", "nothing was kept"
    assert admin("POST", client, "sim/take-out").status_code == 200
    assert admin("POST", client, "empty").get_json()["step"] == "dice"


def test_captures_wait_for_the_game_to_end_or_a_pause(client: Any, live_table: LiveTable) -> None:
    assert admin("POST", client, "sim/take-out").status_code == 200
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    for step in ("empty", "dice"):
        refused = admin("POST", client, step)
        assert refused.status_code == 409 and "a game is running" in refused.get_json()["error"]
    assert live_table.service.wait_quiet(10)
    live_table.service.pause(True)
    # paused: the game no longer stands in the way, only the dice the game put back
    paused = admin("POST", client, "empty")
    assert paused.status_code == 409 and paused.get_json()["error"].startswith("the tray is not")
