"""Status light patterns and the ROLL/BANK buttons on mock pins."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from firmware import PATTERNS, STATUSES, FirmwareError, StatusLight, TowerButtons

LIGHT, BUZZER, ROLL, BANK = 25, 18, 23, 24


def _eventually(condition: Callable[[], bool], timeout: float = 3.0) -> bool:
    """Poll ``condition`` (for work done by gpiozero's background threads)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def test_patterns_can_be_told_apart() -> None:
    """Each status differs from every other in its on/off rhythm (as a plain LED shows it)."""
    rhythms = {}
    for status in (*STATUSES, "off"):
        steps = PATTERNS[status].steps
        on_off = []
        for brightness, seconds in steps:
            lit = brightness >= 0.5
            if on_off and on_off[-1][0] == lit:
                on_off[-1] = (lit, round(on_off[-1][1] + seconds, 3))
            else:
                on_off.append((lit, round(seconds, 3)))
        rhythms[status] = tuple(on_off)
    assert len(set(rhythms.values())) == len(rhythms)
    assert rhythms["ready"] == ((True, 1.0),)
    assert rhythms["rolling"] == ((True, 0.1), (False, 0.1))
    assert rhythms["reading"] == ((False, 0.5), (True, 1.0), (False, 0.5))
    assert rhythms["attention"] == ((True, 0.15), (False, 0.15), (True, 0.15), (False, 1.2))


def test_ready_is_steady(pwm_factory: MockFactory) -> None:
    with StatusLight(LIGHT, pin_factory=pwm_factory) as light:
        light.show("ready")
        assert light.status == "ready"
        assert pwm_factory.pin(LIGHT).state == 1.0
        light.show("off")
        assert pwm_factory.pin(LIGHT).state == 0.0


def test_attention_cycle_states_and_times(pwm_factory: MockFactory, clock: Any) -> None:
    with StatusLight(LIGHT, pin_factory=pwm_factory) as light:
        pin = pwm_factory.pin(LIGHT)
        light.play_once("attention", clock.sleep)
        pin.assert_states_and_times([(0.0, 0.0), (0.0, 1.0), (0.15, 0.0), (0.15, 1.0), (0.15, 0.0)])
        assert len(pin.states) == 5


def test_reading_fades_on_pwm_and_blinks_slowly_on_a_plain_led(
    pwm_factory: MockFactory, clock: Any
) -> None:
    with StatusLight(LIGHT, pin_factory=pwm_factory) as light:
        light.play_once("reading", clock.sleep)
        levels = [s.state for s in pwm_factory.pin(LIGHT).states]
        assert any(0.1 < level < 0.9 for level in levels)
        assert max(levels) > 0.99
    with StatusLight(LIGHT, pwm=False, pin_factory=pwm_factory) as light:
        pin = pwm_factory.pin(LIGHT)
        pin.clear_states()
        light.play_once("reading", clock.sleep)
        pin.assert_states_and_times([(0.0, 0.0), (0.5, 1.0), (1.0, 0.0)])


def test_error_flickers_in_bursts(pwm_factory: MockFactory, clock: Any) -> None:
    with StatusLight(LIGHT, pin_factory=pwm_factory) as light:
        light.play_once("error", clock.sleep)
        states = pwm_factory.pin(LIGHT).states
        assert [s.state for s in states] == [0.0] + [1.0, 0.0] * 5
        assert all(s.timestamp == pytest.approx(0.05) for s in states[2:])


def test_background_pattern_runs_until_replaced(pwm_factory: MockFactory) -> None:
    with StatusLight(LIGHT, pin_factory=pwm_factory) as light:
        pin = pwm_factory.pin(LIGHT)
        light.show("rolling")
        assert _eventually(lambda: len(pin.states) >= 5)
        assert [s.state for s in pin.states[:5]] == [0.0, 1.0, 0.0, 1.0, 0.0]
        light.show("ready")
        assert pin.state == 1.0
        settled = len(pin.states)
        time.sleep(0.25)
        assert len(pin.states) == settled  # the blinking thread stopped


def test_buzzer_sounds_for_attention(pwm_factory: MockFactory) -> None:
    with StatusLight(LIGHT, buzzer_pin=BUZZER, pin_factory=pwm_factory) as light:
        buzzer = pwm_factory.pin(BUZZER)
        light.show("ready")
        assert len(buzzer.states) == 1
        light.show("attention")
        assert _eventually(lambda: len(buzzer.states) >= 5)
        assert [s.state for s in buzzer.states[:5]] == [False, True, False, True, False]


def test_unknown_status_and_closed_light(pwm_factory: MockFactory) -> None:
    light = StatusLight(LIGHT, pin_factory=pwm_factory)
    with pytest.raises(FirmwareError, match="unknown light status 'blue'; expected one of ready"):
        light.show("blue")
    light.show("rolling")
    light.close()
    light.close()
    assert light.status == "off"
    with pytest.raises(FirmwareError, match="closed"):
        light.show("ready")


def _buttons(factory: MockFactory, long_press_s: float = 2.0) -> tuple[TowerButtons, list[str]]:
    events: list[str] = []
    buttons = TowerButtons(ROLL, BANK, events.append, long_press_s=long_press_s,
                           pin_factory=factory)  # fmt: skip
    return buttons, events


def test_buttons_use_pull_ups(mock_factory: MockFactory) -> None:
    with _buttons(mock_factory)[0]:
        for bcm in (ROLL, BANK):
            assert mock_factory.pin(bcm).pull == "up"
            assert mock_factory.pin(bcm).bounce == pytest.approx(0.03)
            assert mock_factory.pin(bcm).state is True  # idle high


def test_roll_reports_on_press(mock_factory: MockFactory) -> None:
    buttons, events = _buttons(mock_factory)
    mock_factory.pin(ROLL).drive_low()
    assert events == ["roll"]
    mock_factory.pin(ROLL).drive_high()
    assert events == ["roll"]
    buttons.close()


def test_bank_reports_on_release(mock_factory: MockFactory) -> None:
    buttons, events = _buttons(mock_factory)
    mock_factory.pin(BANK).drive_low()
    assert events == []
    mock_factory.pin(BANK).drive_high()
    assert events == ["bank"]
    buttons.close()


def test_long_press_on_bank_replaces_the_bank(mock_factory: MockFactory) -> None:
    buttons, events = _buttons(mock_factory, long_press_s=0.05)
    pin = mock_factory.pin(BANK)
    pin.drive_low()
    assert _eventually(lambda: events == ["long_press"])
    pin.drive_high()
    assert events == ["long_press"]
    pin.drive_low()
    pin.drive_high()  # a short press afterwards is a bank again
    assert events == ["long_press", "bank"]
    buttons.close()
    buttons.close()


def test_bad_button_timing_is_refused(mock_factory: MockFactory) -> None:
    with pytest.raises(FirmwareError, match=r"buttons\.bounce_ms = 0"):
        TowerButtons(ROLL, BANK, print, bounce_s=0, pin_factory=mock_factory)
    with pytest.raises(FirmwareError, match=r"buttons\.long_press_s"):
        TowerButtons(ROLL, BANK, print, long_press_s=0, pin_factory=mock_factory)
