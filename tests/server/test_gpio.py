"""The service on the real tower's code path: gpiozero mock pins, a camera reading files."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import pytest
from gpiozero.pins.mock import MockFactory

from server.service import TableService
from tests.server.conftest import FAST, QUICK_SHAKE, make_config
from vision.render import render_tray

TRAY = [
    {"value": v, "x": 40.0 + 32 * i, "y": 60.0 + 30 * (i % 2), "angle": 10.0 * i, "cocked": False}
    for i, v in enumerate([1, 5, 2, 3, 4, 6])
]
SOLENOID, ROLL_BUTTON, LIGHT = 17, 23, 25


@pytest.fixture
def pins(pwm_factory: MockFactory) -> MockFactory:
    """gpiozero's mock pins, PWM-capable for the light (``tests/conftest.py``)."""
    return pwm_factory


@pytest.fixture
def tower_table(tmp_path: Path, pins: MockFactory, monkeypatch) -> Iterator[TableService]:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    frame, _ = render_tray(TRAY, size=(640, 480), seed=3)
    image = tmp_path / "tray.png"
    cv2.imwrite(str(image), frame)
    config = make_config(
        tmp_path / "state",
        QUICK_SHAKE + f'[tower]\nmode = "gpio"\n[camera]\nsource = "files"\npath = "{image}"\n',
    )
    table = TableService(config, timing=FAST)
    table.start()
    yield table
    table.stop()


def test_gpio_tower_shakes_the_coil_and_reads_the_camera(
    tower_table: TableService, pins: MockFactory
) -> None:
    assert not tower_table.sim
    tower_table.new_game("dicenow", {}, ["Ann", "Ben"])
    coil = pins.pin(SOLENOID)
    before = len(coil.states)
    tower_table.roll()
    assert tower_table.wait_quiet()
    state = tower_table.state()
    assert sorted(d["value"] for d in state["reading"]["dice"]) == [1, 2, 3, 4, 5, 6]
    assert state["phase"] == "choose" and state["turn"]["best"]["points"] == 1500
    pulses = [s.state for s in coil.states[before:]]
    assert pulses == [1, 0]  # one 1 ms pulse, then the coil is off


def test_the_roll_button_on_gpio_rolls(tower_table: TableService, pins: MockFactory) -> None:
    tower_table.new_game("dicenow", {}, ["Ann", "Ben"])
    button = pins.pin(ROLL_BUTTON)
    button.drive_low()
    time.sleep(0.1)
    button.drive_high()
    deadline = time.monotonic() + 10
    while tower_table.state()["turn"]["roll"] is None:
        assert time.monotonic() < deadline, "the button press did not roll"
        time.sleep(0.02)
    assert tower_table.wait_quiet()


def test_a_tapped_set_aside_waits_for_a_person(tower_table: TableService) -> None:
    tower_table.new_game("dicenow", {}, ["Ann", "Ben"])
    tower_table.roll()
    assert tower_table.wait_quiet()
    state = tower_table.keep([1])
    assert state["phase"] == "remove_dice"
    assert state["message"] == "Take out 1 from the tray."
    with pytest.raises(ValueError, match="Take out 1"):  # the camera still sees the 1
        tower_table.roll()
    state = tower_table.state()
    assert state["phase"] == "remove_dice" and state["turn"]["total"] == 100


def test_stopping_switches_the_coil_off(tower_table: TableService, pins: MockFactory) -> None:
    tower_table.stop()
    assert pins.pin(SOLENOID).state == 0
