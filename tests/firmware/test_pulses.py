"""Coil pulses timed outside Python (lgpio's tx_pulse) and the header chip found by label.

The lgpio stand-in sends its trains onto gpiozero mock pins on a fake clock,
so each test reads the coil's pin as a scope would.
"""

from __future__ import annotations

import logging
import signal
import sys
import types
from pathlib import Path
from typing import Any

import gpiozero.pins.mock
import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware import FirmwareError, GpioUnavailable, ShakePattern, Solenoid, coil_safety, open_tower
from firmware.gpiochip import chip_numbers, find_chip
from firmware.pulses import LgpioPulseTrain
from firmware.safety import MAX_ON_S, max_window_on_time
from firmware.tower import open_pi_gpio
from server.config import load_config
from tests.firmware.fake_lgpio import FakeLgpio, TrainClock

PIN = 17
PI5_CHIPS = {0: "pinctrl-rp1", 10: "gpio-brcmstb@107d508500", 11: "gpio-brcmstb@107d508520"}


@pytest.fixture
def train_clock(monkeypatch: pytest.MonkeyPatch) -> TrainClock:
    clock = TrainClock()
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", clock)
    return clock


@pytest.fixture
def lg(mock_factory: MockFactory, train_clock: TrainClock) -> FakeLgpio:
    return FakeLgpio(dict(PI5_CHIPS), mock_factory, train_clock)


def _coil(lg: FakeLgpio, pattern: ShakePattern, **kwargs: Any) -> Solenoid:
    train = LgpioPulseTrain(lg, 0, PIN)
    return Solenoid(PIN, pattern, clock=lg.clock, sleep=lg.clock.sleep, train=train, **kwargs)


# --- the chip by label ------------------------------------------------------------------------


def test_the_rp1_chip_is_found_by_label_wherever_it_is_numbered(mock_factory: MockFactory) -> None:
    new_kernel = FakeLgpio(dict(PI5_CHIPS), mock_factory)
    assert find_chip(new_kernel, [0, 10, 11]).number == 0
    old_kernel = FakeLgpio(
        {0: "gpio-brcmstb@107d508500", 1: "gpio-brcmstb@107d508520", 4: "pinctrl-rp1"},
        mock_factory,
    )
    chip = find_chip(old_kernel, [0, 1, 4])
    assert (chip.number, chip.label, chip.lines) == (4, "pinctrl-rp1", 54)
    assert not old_kernel.open_handles  # every chip opened to read its label was closed


def test_a_pi4_chip_is_taken_when_there_is_no_rp1(mock_factory: MockFactory) -> None:
    pi4 = FakeLgpio({0: "pinctrl-bcm2711", 1: "raspberrypi-exp-gpio"}, mock_factory)
    assert find_chip(pi4, [0, 1]).label == "pinctrl-bcm2711"


def test_no_header_chip_is_a_clear_error(mock_factory: MockFactory) -> None:
    other = FakeLgpio({0: "gpio-mockup-A"}, mock_factory)
    with pytest.raises(GpioUnavailable, match=r"no GPIO chip is labelled pinctrl-rp1 \(chips "
                       r"here: gpiochip0 \[gpio-mockup-A\]\).*--mock"):  # fmt: skip
        find_chip(other, [0, 3])  # gpiochip3 does not open: skipped


def test_chip_numbers_skip_compatibility_links(tmp_path: Path) -> None:
    for name in ("gpiochip0", "gpiochip10", "gpiochip11", "gpiomem0", "gpiochipx"):
        (tmp_path / name).touch()
    (tmp_path / "gpiochip4").symlink_to(tmp_path / "gpiochip0")
    assert chip_numbers(tmp_path) == [0, 10, 11]


def test_open_pi_gpio_passes_the_labelled_chip_to_the_lgpio_factory(
    monkeypatch: pytest.MonkeyPatch, lg: FakeLgpio
) -> None:
    opened: list[int] = []

    class LGPIOFactory(MockFactory):  # gpiozero's factory, standing on mock pins
        def __init__(self, chip: int | None = None) -> None:
            super().__init__(pin_class=MockPWMPin)
            opened.append(-1 if chip is None else chip)

    monkeypatch.setitem(
        sys.modules, "gpiozero.pins.lgpio", types.SimpleNamespace(LGPIOFactory=LGPIOFactory)
    )
    lg.chips = {10: "gpio-brcmstb@107d508500", 4: "pinctrl-rp1"}
    gpio = open_pi_gpio(lg, [4, 10])
    assert opened == [4] and gpio.chip.number == 4
    gpio.close()


def test_open_tower_on_a_pi_pulses_the_coil_through_lgpio(
    monkeypatch: pytest.MonkeyPatch, lg: FakeLgpio
) -> None:
    """``open_tower`` without a pin factory: chip by label, lgpio train on the solenoid's line."""

    class LGPIOFactory(MockFactory):
        def __init__(self, chip: int | None = None) -> None:
            super().__init__(pin_class=MockPWMPin)
            self.chip = chip

    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setitem(sys.modules, "lgpio", lg)
    monkeypatch.setitem(
        sys.modules, "gpiozero.pins.lgpio", types.SimpleNamespace(LGPIOFactory=LGPIOFactory)
    )
    monkeypatch.setattr("firmware.gpiochip.chip_numbers", lambda: sorted(lg.chips))
    config = load_config(env={})
    values = {section: dict(config[section]) for section in config}
    values["tower"]["mode"] = "gpio"
    tower = open_tower(values)
    try:
        assert tower.solenoid.timed_outside_python
        assert tower.pin_factory.chip == 0  # type: ignore[attr-defined]
        assert PIN in lg.claimed
    finally:
        tower.close()
    assert PIN not in lg.claimed and lg.calls[-1] == ("gpio_write", PIN, 0)


# --- the pulse train ----------------------------------------------------------------------------


def test_a_shake_is_one_train_with_exact_pulses_on_the_pin(
    lg: FakeLgpio, mock_factory: MockFactory
) -> None:
    coil = _coil(lg, ShakePattern(0.06, 0.18, 4))
    pin = mock_factory.pin(PIN)
    pulses = coil.shake()
    assert ("tx_pulse", PIN, 60_000, 180_000, 0, 4) in lg.calls
    flat = [t for pulse in pulses for t in pulse]
    assert flat == pytest.approx([0, 0.06, 0.24, 0.30, 0.48, 0.54, 0.72, 0.78])
    pin.assert_states_and_times(
        [(0.0, False), (0.0, True), (0.06, False), (0.18, True), (0.06, False),
         (0.18, True), (0.06, False), (0.18, True), (0.06, False)]
    )  # fmt: skip
    assert pin.state is False and not coil.is_on
    assert coil.guard.on_time(lg.clock()) == pytest.approx(0.24)
    # one call starts the shake: Python never times a pulse
    assert [c[0] for c in lg.calls].count("tx_pulse") == 2  # the train, then the stop
    coil.close()


def test_the_duty_guard_still_makes_hard_shakes_wait(
    lg: FakeLgpio, mock_factory: MockFactory, caplog: pytest.LogCaptureFixture
) -> None:
    coil = _coil(lg, ShakePattern(0.15, 0.1, 5))
    driven: list[tuple[float, float]] = []
    waits = []
    with caplog.at_level(logging.WARNING, logger="firmware.solenoid"):
        for _ in range(8):
            start = lg.clock()
            driven += [(start + on, start + off) for on, off in coil.shake()]
            waits.append(coil.last_wait_s)
    assert max_window_on_time(driven) <= MAX_ON_S + 1e-9
    assert max(waits) > 5 and "20% duty" in caplog.text
    pin = mock_factory.pin(PIN)
    highs = [s for s in pin.states if s.state]
    assert len(highs) == 40
    assert sum(s.timestamp for s in pin.states[1:] if not s.state) == pytest.approx(0.15 * 40)
    coil.close()


def test_sigterm_mid_train_stops_the_coil_at_once(lg: FakeLgpio, mock_factory: MockFactory) -> None:
    clock = lg.clock
    real_sleep = clock.sleep

    def sleep(seconds: float) -> None:
        real_sleep(min(seconds, 0.27))  # into the second pulse
        if clock.now >= 1000.27 and not getattr(sleep, "sent", False):
            sleep.sent = True  # type: ignore[attr-defined]
            signal.raise_signal(signal.SIGTERM)

    train = LgpioPulseTrain(lg, 0, PIN)
    coil = Solenoid(PIN, ShakePattern(0.06, 0.18, 4), clock=clock, sleep=sleep, train=train)
    with pytest.raises(SystemExit), coil_safety(coil.force_off):
        coil.shake()
    pin = mock_factory.pin(PIN)
    assert pin.state is False and not clock.edges  # no queued pulse left to fire
    assert [s.state for s in pin.states] == [False, True, False, True, False]
    assert pin.states[-1].timestamp == pytest.approx(0.03)  # cut 30 ms into the second pulse
    assert coil.guard.on_time(clock()) == pytest.approx(0.09)
    coil.close()


def test_a_train_that_overruns_is_stopped_and_logged(
    lg: FakeLgpio, caplog: pytest.LogCaptureFixture
) -> None:
    coil = _coil(lg, ShakePattern(0.06, 0.18, 2))
    lg.tx_busy = lambda handle, gpio, kind: 1  # type: ignore[method-assign]
    with caplog.at_level(logging.ERROR, logger="firmware.solenoid"):
        coil.shake()
    assert "still running" in caplog.text
    assert lg.calls[-2:] == [("tx_pulse", PIN, 0, 0, 0, 0), ("gpio_write", PIN, 0)]
    coil.close()


def test_close_releases_the_line_and_refuses_shakes(lg: FakeLgpio) -> None:
    coil = _coil(lg, ShakePattern())
    coil.close()
    coil.close()
    coil.force_off()
    assert PIN not in lg.claimed and not lg.open_handles
    with pytest.raises(FirmwareError, match="closed"):
        coil.shake()


def test_a_busy_line_is_refused_with_the_pin_named(lg: FakeLgpio) -> None:
    first = LgpioPulseTrain(lg, 0, PIN)
    with pytest.raises(FirmwareError, match="cannot claim BCM 17 for the solenoid"):
        LgpioPulseTrain(lg, 0, PIN)
    first.close()
    with pytest.raises(FirmwareError, match="cannot open gpiochip7"):
        LgpioPulseTrain(lg, 7, PIN)
