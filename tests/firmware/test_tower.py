"""The real tower assembled on mock pins, and picking a tower from the config."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from firmware import (
    FirmwareError,
    GpioTower,
    GpioUnavailable,
    PinMap,
    ShakePattern,
    SimulatedTower,
    gpio_pin_factory,
    open_tower,
)
from server.config import Config, load_config, validate


def _config(**sections: dict[str, Any]) -> Config:
    return Config(validate(sections), None, __import__("pathlib").Path("."))


def test_tower_from_default_config(pwm_factory: MockFactory, clock: Any) -> None:
    tower = GpioTower.from_config(load_config(env={}), pin_factory=pwm_factory, clock=clock,
                                  sleep=clock.sleep)  # fmt: skip
    with tower:
        assert tower.pin_map == PinMap()
        assert tower.pattern == ShakePattern(0.06, 0.18, 4)
        assert tower.long_press_action == "new_game"
        pulses = tower.shake()
        assert len(pulses) == 4
        assert [s.state for s in pwm_factory.pin(17).states] == [False] + [True, False] * 4
        tower.light.show("reading")
        assert tower.light.status == "reading"
    assert pwm_factory.pin(17).state == 0
    tower.close()  # again: harmless
    with pytest.raises(FirmwareError, match="closed"):
        tower.shake()


def test_buttons_reach_the_callbacks(pwm_factory: MockFactory) -> None:
    heard: list[str] = []
    with GpioTower(PinMap(), ShakePattern(), long_press_s=0.05, pin_factory=pwm_factory) as tower:
        tower.on_roll = lambda: heard.append("roll")
        tower.on_bank = lambda: heard.append("bank")
        pwm_factory.pin(23).drive_low()
        pwm_factory.pin(23).drive_high()
        pwm_factory.pin(24).drive_low()
        pwm_factory.pin(24).drive_high()
        assert heard == ["roll", "bank"]


def test_long_press_action_none_ignores_the_hold(pwm_factory: MockFactory) -> None:
    tower = GpioTower(PinMap(), ShakePattern(), long_press_action="none", pin_factory=pwm_factory)
    heard: list[str] = []
    tower.on_long_press = lambda: heard.append("long")
    tower.press("long_press")
    assert heard == []
    tower.close()


def test_a_failing_callback_is_logged_not_raised(
    pwm_factory: MockFactory, caplog: pytest.LogCaptureFixture
) -> None:
    with GpioTower(PinMap(), ShakePattern(), pin_factory=pwm_factory) as tower:

        def broken() -> None:
            raise RuntimeError("server bug")

        tower.on_roll = broken
        with caplog.at_level(logging.ERROR):
            pwm_factory.pin(23).drive_low()
        assert "the roll button's callback failed" in caplog.text
        with pytest.raises(FirmwareError, match="unknown button event 'hold'"):
            tower.press("hold")


def test_a_failed_build_releases_the_pins(pwm_factory: MockFactory) -> None:
    with pytest.raises(FirmwareError, match="bounce_ms"):
        GpioTower(PinMap(), ShakePattern(), bounce_s=0.0, pin_factory=pwm_factory)
    with pytest.raises(FirmwareError, match="long_press_action = 'reboot'"):
        GpioTower(PinMap(), ShakePattern(), long_press_action="reboot", pin_factory=pwm_factory)
    with GpioTower(PinMap(), ShakePattern(), pin_factory=pwm_factory) as tower:
        assert pwm_factory.pin(17).function == "output"
        assert tower.light.status == "off"


def test_open_tower_follows_the_mode(pwm_factory: MockFactory) -> None:
    sim = open_tower(_config(tower={"seed": 7}))
    assert isinstance(sim, SimulatedTower) and sim.seed == 7
    gpio = open_tower(_config(tower={"mode": "gpio"}), pin_factory=pwm_factory)
    assert isinstance(gpio, GpioTower)
    gpio.close()


def test_unsafe_config_stops_the_gpio_tower(pwm_factory: MockFactory) -> None:
    with pytest.raises(FirmwareError, match="a single pulse is at most 150 ms"):
        open_tower(_config(tower={"mode": "gpio"}, solenoid={"pulse_ms": 400}),
                   pin_factory=pwm_factory)  # fmt: skip
    with pytest.raises(FirmwareError, match=r"pins\.solenoid = 4: BCM 4 is pulled high"):
        open_tower(_config(tower={"mode": "gpio"}, pins={"solenoid": 4}), pin_factory=pwm_factory)


def test_no_gpio_here(no_gpio: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without lgpio the Pi's pin factory is refused with a one-line reason."""
    with pytest.raises(GpioUnavailable, match=r"^no GPIO found: .*use --mock"):
        gpio_pin_factory()
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    assert gpio_pin_factory() is None
