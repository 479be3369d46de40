"""The pin map: defaults accepted, every unsafe or doubled pin refused with the reason."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from firmware import FirmwareError, PinMap
from firmware.pins import HEADER_PIN
from server.config import load_config


def test_defaults_from_config_are_accepted() -> None:
    pins = PinMap.from_config(load_config(env={}))
    assert pins == PinMap(solenoid=17, roll_button=23, bank_button=24, light=25, buzzer=None)
    assert dict(pins.items()) == {"solenoid": 17, "roll_button": 23, "bank_button": 24, "light": 25}


def test_section_or_whole_config_give_the_same_map() -> None:
    config = load_config(env={})
    assert PinMap.from_config(config["pins"]) == PinMap.from_config(config)


def test_buzzer_is_fitted_when_given() -> None:
    pins = PinMap.from_config({"solenoid": 17, "roll_button": 23, "bank_button": 24,
                               "light": 25, "buzzer": 18})  # fmt: skip
    assert pins.buzzer == 18
    assert dict(pins.items())["buzzer"] == 18
    assert pins.header_pin("buzzer") == 12


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"light": 17}, "pins.light = 17: BCM 17 is already used by pins.solenoid"),
        ({"bank_button": 23}, "pins.bank_button = 23: BCM 23 is already used by pins.roll_button"),
        ({"solenoid": 4}, "pins.solenoid = 4: BCM 4 is pulled high at boot"),
        ({"solenoid": 8}, "pins.solenoid = 8: BCM 8 is pulled high at boot"),
        ({"roll_button": 2}, "pins.roll_button = 2: BCM 2 is pulled high at boot"),
        ({"solenoid": 14}, "pins.solenoid = 14: BCM 14 carries the serial console UART"),
        ({"light": 15}, "pins.light = 15: BCM 15 carries the serial console UART"),
        ({"solenoid": 0}, "pins.solenoid = 0: BCM 0 is reserved for the HAT ID EEPROM"),
        ({"buzzer": 1}, "pins.buzzer = 1: BCM 1 is reserved for the HAT ID EEPROM"),
        ({"solenoid": 28}, "pins.solenoid = 28: BCM 28 is not on the 40-pin header"),
        ({"solenoid": "17"}, "pins.solenoid = '17' is not a BCM pin number"),
        ({"light": True}, "pins.light = True is not a BCM pin number"),
        ({"lamp": 22}, "unknown pin role 'lamp'"),
    ],
)
def test_unsafe_maps_are_refused_naming_the_pin(overrides: dict[str, object], message: str) -> None:
    pins = {"solenoid": 17, "roll_button": 23, "bank_button": 24, "light": 25, "buzzer": -1}
    pins.update(overrides)
    with pytest.raises(FirmwareError) as caught:
        PinMap.from_config(pins)
    assert str(caught.value).startswith(message)
    assert isinstance(caught.value, ValueError)


def test_header_table_agrees_with_gpiozero_board_data() -> None:
    board = MockFactory().board_info
    for bcm in range(28):
        (header, info), *_ = board.find_pin(f"GPIO{bcm}")
        assert header.name == "J8"
        assert HEADER_PIN[bcm] == info.number, f"BCM {bcm}"


def test_header_pin_of_an_absent_buzzer_is_refused() -> None:
    with pytest.raises(FirmwareError, match=r"pins\.buzzer is not fitted"):
        PinMap().header_pin("buzzer")
