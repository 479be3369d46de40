"""The solenoid on mock pins: pin states and times on a fake clock, coil off whatever happens."""

from __future__ import annotations

import logging
import signal
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from firmware import FirmwareError, ShakePattern, Solenoid, coil_safety
from firmware.safety import MAX_ON_S, max_window_on_time

PIN = 17


def _flat(pulses: list[tuple[float, float]]) -> list[float]:
    return [t for pulse in pulses for t in pulse]


def test_coil_is_off_at_start(mock_factory: MockFactory) -> None:
    with Solenoid(PIN, ShakePattern(), pin_factory=mock_factory) as coil:
        pin = mock_factory.pin(PIN)
        assert pin.function == "output"
        assert pin.state is False
        assert not coil.is_on


def test_shake_drives_the_pattern(mock_factory: MockFactory, clock: Any) -> None:
    with Solenoid(
        PIN, ShakePattern(0.06, 0.18, 4), pin_factory=mock_factory, clock=clock, sleep=clock.sleep
    ) as coil:
        pin = mock_factory.pin(PIN)
        pulses = coil.shake()
        assert _flat(pulses) == pytest.approx([0, 0.06, 0.24, 0.30, 0.48, 0.54, 0.72, 0.78])
        pin.assert_states_and_times(
            [(0.0, False), (0.0, True), (0.06, False), (0.18, True), (0.06, False),
             (0.18, True), (0.06, False), (0.18, True), (0.06, False)]
        )  # fmt: skip
        assert len(pin.states) == 9
        assert pin.state is False
        assert coil.last_wait_s == 0


def test_back_to_back_shakes_keep_the_minimum_gap(mock_factory: MockFactory, clock: Any) -> None:
    waits: list[float] = []
    coil = Solenoid(
        PIN,
        ShakePattern(0.06, 0.18, 2),
        pin_factory=mock_factory,
        clock=clock,
        sleep=clock.sleep,
        on_wait=waits.append,
    )
    coil.shake()
    second = coil.shake()
    assert waits == [pytest.approx(0.1)]
    assert coil.last_wait_s == pytest.approx(0.1)
    assert _flat(second) == pytest.approx([0.1, 0.16, 0.34, 0.40])
    coil.close()


def test_duty_guard_makes_a_shake_wait_and_says_so(
    mock_factory: MockFactory, clock: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Eight hard shakes in a row: the coil is never on more than 2 s in any 10 s."""
    coil = Solenoid(PIN, ShakePattern(0.15, 0.1, 5), pin_factory=mock_factory, clock=clock,
                    sleep=clock.sleep)  # fmt: skip
    driven: list[tuple[float, float]] = []
    waits = []
    with caplog.at_level(logging.WARNING, logger="firmware.solenoid"):
        for _ in range(8):
            start = clock()
            driven += [(start + on, start + off) for on, off in coil.shake()]
            waits.append(coil.last_wait_s)
    assert max_window_on_time(driven) <= MAX_ON_S + 1e-9
    assert waits[0] == 0 and waits[1] == pytest.approx(0.1)
    assert max(waits) > 5  # the third shake must wait for most of a window
    assert "waiting" in caplog.text and "20% duty" in caplog.text
    # the pin saw exactly the pulses reported, at the times reported
    pin = mock_factory.pin(PIN)
    assert [s.state for s in pin.states[1:]] == [True, False] * 40
    assert sum(s.timestamp for s in pin.states if not s.state) == pytest.approx(0.15 * 40)
    coil.close()


def test_coil_goes_off_when_a_pulse_is_interrupted(mock_factory: MockFactory, clock: Any) -> None:
    def sleep(seconds: float) -> None:
        clock.sleep(seconds)
        if len(clock.sleeps) == 3:  # during the second pulse
            raise KeyboardInterrupt

    coil = Solenoid(PIN, ShakePattern(), pin_factory=mock_factory, clock=clock, sleep=sleep)
    with pytest.raises(KeyboardInterrupt):
        coil.shake()
    pin = mock_factory.pin(PIN)
    assert [s.state for s in pin.states] == [False, True, False, True, False]
    assert pin.state is False
    coil.close()


def test_close_is_repeatable_and_final(mock_factory: MockFactory) -> None:
    coil = Solenoid(PIN, ShakePattern(), pin_factory=mock_factory)
    coil.close()
    coil.close()
    coil.force_off()
    with pytest.raises(FirmwareError, match="closed"):
        coil.shake()
    again = Solenoid(PIN, ShakePattern(), pin_factory=mock_factory)  # the pin was released
    again.close()


def test_real_time_shake_on_mock_pins(mock_factory: MockFactory) -> None:
    """The default clock and sleep: pulses last at least as long as asked."""
    with Solenoid(PIN, ShakePattern(0.02, 0.1, 2), pin_factory=mock_factory) as coil:
        pulses = coil.shake()
        assert len(pulses) == 2
        assert all(off - on >= 0.02 for on, off in pulses)
        assert pulses[1][0] - pulses[0][1] >= 0.1 - 0.005
        assert [s.state for s in mock_factory.pin(PIN).states] == [False, True, False, True, False]


def test_sigterm_mid_pulse_forces_the_coil_off(mock_factory: MockFactory, clock: Any) -> None:
    def sleep(seconds: float) -> None:
        clock.sleep(seconds)
        if len(clock.sleeps) == 1:  # the coil is on now
            signal.raise_signal(signal.SIGTERM)

    before = signal.getsignal(signal.SIGTERM)
    coil = Solenoid(PIN, ShakePattern(), pin_factory=mock_factory, clock=clock, sleep=sleep)
    with pytest.raises(SystemExit) as caught, coil_safety(coil.force_off):
        coil.shake()
    assert caught.value.code == 128 + signal.SIGTERM
    assert mock_factory.pin(PIN).state is False
    assert [s.state for s in mock_factory.pin(PIN).states] == [False, True, False]
    assert signal.getsignal(signal.SIGTERM) is before
    coil.close()


def test_sigint_turns_off_then_interrupts() -> None:
    # Python's own SIGINT handler, whatever an earlier test's event loop left installed
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        calls: list[str] = []
        with pytest.raises(KeyboardInterrupt), coil_safety(lambda: calls.append("off")):
            signal.raise_signal(signal.SIGINT)
        assert calls == ["off", "off"]  # by the handler, then on leaving the block
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_previous_handler_is_still_called() -> None:
    heard: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: heard.append(signum))
    try:
        calls: list[str] = []
        with coil_safety(lambda: calls.append("off")):
            signal.raise_signal(signal.SIGTERM)
            assert calls == ["off"]
        assert heard == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_coil_safety_turns_off_on_exception_and_normal_exit() -> None:
    calls: list[str] = []
    with pytest.raises(RuntimeError), coil_safety(lambda: calls.append("off")):
        raise RuntimeError("boom")
    with coil_safety(lambda: calls.append("off")):
        pass
    assert calls == ["off", "off"]


def test_a_late_wake_up_is_logged_and_counted(
    mock_factory: MockFactory, clock: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A busy system oversleeps: the pulse is reported as it really was and the guard counts it."""

    def sleep(seconds: float) -> None:
        clock.sleep(seconds + (0.09 if seconds == 0.06 else 0.0))

    coil = Solenoid(PIN, ShakePattern(0.06, 0.18, 1), pin_factory=mock_factory, clock=clock,
                    sleep=sleep)  # fmt: skip
    with caplog.at_level(logging.WARNING, logger="firmware.solenoid"):
        (pulse,) = coil.shake()
    assert pulse[1] - pulse[0] == pytest.approx(0.15)
    assert "a 60 ms pulse lasted 150 ms" in caplog.text
    assert coil.guard.on_time(clock()) == pytest.approx(0.15)
    coil.close()
