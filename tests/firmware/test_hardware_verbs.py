"""The ``shake`` and ``hw-test`` verbs, on gpiozero's mock pins."""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from firmware import FirmwareError, GpioTower, GpioUnavailable, PinMap, ShakePattern
from firmware.bringup import BringUp
from server.commands import hardware
from server.errors import UserError

QUICK = """
[solenoid]
pulse_ms = 20
gap_ms = 100
pulses = 2

[buttons]
long_press_s = 0.5
"""


def _run(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    hardware.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return int(args.func(args))


@pytest.fixture
def quick_config(tmp_path: Path) -> str:
    path = tmp_path / "tower.toml"
    path.write_text(QUICK, encoding="utf-8")
    return str(path)


@pytest.fixture(autouse=True)
def _no_factory_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)


def test_shake_mock_json(quick_config: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run("shake", "--mock", "--times", "2", "--config", quick_config, "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mock"] is True
    pulses = out["pulses"]
    assert len(pulses) == 4
    assert all(off - on >= 0.0195 for on, off in pulses)
    assert all(b[0] - a[1] >= 0.095 for a, b in itertools.pairwise(pulses))
    assert pulses == sorted(pulses)


def test_shake_mock_text(quick_config: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run("shake", "--mock", "--config", quick_config) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 pulses driven on mock pins:")
    assert "pulse 2: on at" in out


def test_shake_without_gpio_says_to_use_mock(quick_config: str, no_gpio: None) -> None:
    with pytest.raises(GpioUnavailable, match=r"^no GPIO found: .* use --mock"):
        _run("shake", "--config", quick_config, "--json")


@pytest.mark.parametrize("times", ["0", "101", "-3"])
def test_shake_times_is_checked(times: str) -> None:
    with pytest.raises(UserError, match=rf"--times {times}: expected a whole number from 1 to 100"):
        _run("shake", "--mock", "--times", times)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[pins]\nsolenoid = 4\n", r"pins\.solenoid = 4: BCM 4 is pulled high at boot"),
        ("[pins]\nlight = 23\n", r"pins\.light = 23: BCM 23 is already used by pins\.roll_button"),
        ("[solenoid]\npulse_ms = 400\n", "a single pulse is at most 150 ms"),
        ("[solenoid]\ngap_ms = 20\n", "gaps between pulses are at least 100 ms"),
    ],
)
def test_unsafe_config_is_refused_before_any_pin_moves(
    tmp_path: Path, toml: str, message: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(FirmwareError, match=message):
        _run("shake", "--mock", "--config", str(path))


def test_hw_test_mock_completes(quick_config: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run("hw-test", "--mock", "--config", quick_config, "--light-s", "0.02") == 0
    out = capsys.readouterr().out
    assert "Solenoid on BCM 17 (pin 11)" in out
    assert "ROLL on BCM 23 (pin 16): press and release ROLL now (waiting up to 15 s)" in out
    assert "hold BANK down for 0.5 s now" in out
    assert "(mock: driving BCM 24 low as the person would)" in out
    for status in ("ready", "rolling", "reading", "attention", "error"):
        assert f"  {status}: " in out
    assert out.rstrip().endswith("all 5 steps passed (on mock pins)")


def test_hw_test_names_the_steps_nobody_did(
    quick_config: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hardware, "mock_presser", lambda *args: lambda event: None)
    with pytest.raises(
        UserError, match=r"3 of 5 steps failed \(ROLL: nothing heard within 0\.05 s"
    ):
        _run("hw-test", "--mock", "--config", quick_config, "--light-s", "0", "--timeout", "0.05")


@pytest.mark.parametrize(
    ("option", "message"),
    [(("--timeout", "0"), "--timeout 0: expected"), (("--light-s", "-1"), "--light-s -1")],
)
def test_hw_test_options_are_checked(option: tuple[str, str], message: str) -> None:
    with pytest.raises(UserError, match=message):
        _run("hw-test", "--mock", *option)


def test_bring_up_hears_real_presses(pwm_factory: MockFactory) -> None:
    """The walk-through waits on the tower's callbacks: a press during the wait is heard."""
    lines: list[str] = []
    tower = GpioTower(PinMap(), ShakePattern(0.02, 0.1, 1), long_press_s=0.05,
                      pin_factory=pwm_factory)  # fmt: skip

    def press(event: str) -> None:
        pin = pwm_factory.pin(23 if event == "roll" else 24)
        pin.drive_low()
        if event != "long_press":
            pin.drive_high()

    with tower:
        walk = BringUp(tower, lines.append, step_timeout_s=2, light_s=0, press=press)
        results = walk.run()
        assert [r.step for r in results] == ["solenoid", "light", "ROLL", "BANK", "long press"]
        assert all(r.ok for r in results), results
        assert tower.light.status == "ready"
        assert tower.on_roll is None  # the walk-through's listeners are removed


def test_command_line_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], no_gpio: None
) -> None:
    from server.cli import main

    assert main(["shake", "--json"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("zilch-tower shake: error: no GPIO found: ")
    assert "Traceback" not in err
