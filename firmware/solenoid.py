"""The solenoid that shakes the tray, driven through a logic-level MOSFET.

On a Pi the pulses are a train timed by lgpio outside Python
(:class:`~firmware.pulses.LgpioPulseTrain`); on any other pin factory
(gpiozero's mock pins, another library) each pulse is timed with ``sleep``.
Either way the duty guard plans every shake before the coil is driven and
records the time the coil was really on.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from gpiozero import DigitalOutputDevice
from gpiozero.pins import Factory

from closing import Closing
from firmware.errors import FirmwareError
from firmware.pulses import PulseTrain
from firmware.safety import DutyGuard, Interval, ShakePattern, Wait

log = logging.getLogger(__name__)

OVERRUN_WARN_S = 0.020
"""A pulse this much longer than asked (a late wake-up from sleep) is logged."""

TRAIN_SLACK_S = 0.5
"""How long past its planned end a pulse train may run before it is stopped by force."""
TRAIN_POLL_S = 0.005
"""How often a finished train is polled for once its last pulse should be over."""

Clock = Callable[[], float]
Sleeper = Callable[[float], None]


class Solenoid(Closing):
    """A 12 V push solenoid switched by a MOSFET whose gate is on ``pin`` (BCM).

    Wiring: GPIO -> 150 ohm -> gate of a MOSFET whose on-resistance is
    specified at 2.5 V gate drive (IRLML6344 class), 10 kohm from gate to
    ground (keeps the coil off while the Pi boots or the pin floats),
    source to ground (shared with the Pi's ground), drain to the coil's
    minus lead, coil's plus lead to +12 V through a thermal fuse, and a
    flyback diode (1N4007/1N5819) across the coil, cathode (band) to +12 V.

    With ``train`` (the Pi's lgpio line) a shake's pulses are sent as one
    train timed outside Python; without, a gpiozero output on ``pin`` is
    switched and each pulse timed with ``sleep``. ``clock`` and ``sleep``
    are injectable so the timing and the duty guard are tested without
    real waiting. ``on_wait(seconds)`` hears about any wait the duty guard
    imposes before a shake.
    """

    def __init__(
        self,
        pin: int,
        pattern: ShakePattern,
        *,
        pin_factory: Factory | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleeper = time.sleep,
        guard: DutyGuard | None = None,
        on_wait: Callable[[float], None] | None = None,
        train: PulseTrain | None = None,
    ) -> None:
        self.pattern = pattern
        self.guard = guard or DutyGuard()
        self.on_wait = on_wait
        self.last_wait_s = 0.0
        self.last_start = float("nan")
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._train = train
        self._device: DigitalOutputDevice | None = None
        if train is None:
            self._device = DigitalOutputDevice(
                pin, active_high=True, initial_value=False, pin_factory=pin_factory
            )
        self._closed = False

    @property
    def timed_outside_python(self) -> bool:
        """Whether pulses are timed by lgpio's own thread rather than by ``sleep``."""
        return self._train is not None

    @property
    def is_on(self) -> bool:
        """Whether the coil is energised right now."""
        if self._train is not None:
            return not self._closed and self._train.is_high()
        return self._device is not None and bool(self._device.value)

    def wait_needed(self) -> float:
        """Seconds a shake started now would wait for the duty limit."""
        return self.guard.wait_before_pattern(self.pattern, self._clock())

    def shake(self) -> list[Interval]:
        """Drive one shake; return ``(on_s, off_s)`` of each pulse from the shake's start.

        Waits first when the shake would break the duty limit (logged, kept in
        ``last_wait_s`` and passed to ``on_wait``); ``last_start`` is the
        shake's start on the clock. The coil is off again when this returns or
        raises.
        """
        with self._lock:
            if self._closed:
                raise FirmwareError("the solenoid is closed; open a new tower to shake")
            start = self.last_start = self._clock()
            self.last_wait_s = self._wait(self.guard.plan(self.pattern.offsets(), start))
            if self._train is not None:
                return self._shake_train(self._train, start)
            device = self._require_open()
            begin = self._clock()
            pulses: list[Interval] = []
            try:
                for on_offset, _ in self.pattern.offsets():
                    due = begin + on_offset - self._clock()
                    if due > 0:
                        self._sleep(due)
                    extra = self.guard.plan([(0.0, self.pattern.pulse_s)], self._clock())
                    self.last_wait_s += self._wait(extra)
                    pulses.append(self._pulse(device, start))
            finally:
                device.off()
            return pulses

    def _shake_train(self, train: PulseTrain, start: float) -> list[Interval]:
        """The whole shake as one train; the guard records the pulses that were sent."""
        pattern = self.pattern
        planned = pattern.offsets()
        period = pattern.pulse_s + pattern.gap_s
        begin = self._clock()
        train.start(pattern.pulse_s, pattern.gap_s, pattern.pulses)
        try:
            self._sleep(pattern.duration_s)
            deadline = begin + pattern.pulses * period + TRAIN_SLACK_S
            while train.busy():
                if self._clock() >= deadline:
                    log.error(
                        "solenoid: the pulse train was still running %.1f s after its end; stopped",
                        TRAIN_SLACK_S,
                    )
                    break
                self._sleep(TRAIN_POLL_S)
        finally:
            train.off()
            stopped = self._clock()
            for on, off in planned:  # what was sent, up to a stop part-way through
                if begin + on < stopped:
                    self.guard.record(begin + on, min(begin + off, stopped))
        return [(begin - start + on, begin - start + off) for on, off in planned]

    def _pulse(self, device: DigitalOutputDevice, start: float) -> Interval:
        """One pulse; the duty guard records how long the coil was really on."""
        on = self._clock()
        device.on()
        try:
            self._sleep(self.pattern.pulse_s)
        finally:
            device.off()
            off = self._clock()
            self.guard.record(on, off)
        if off - on > self.pattern.pulse_s + OVERRUN_WARN_S:
            log.warning(
                "solenoid: a %.0f ms pulse lasted %.0f ms (the system was busy); "
                "the duty guard counts the real time",
                self.pattern.pulse_s * 1000,
                (off - on) * 1000,
            )
        return (on - start, off - start)

    def _wait(self, wait: Wait) -> float:
        """Sleep through ``wait``; a wait for the duty limit is announced."""
        if wait.seconds <= 0:
            return 0.0
        level = logging.WARNING if wait.limit == "duty" else logging.DEBUG
        log.log(level, "solenoid: waiting %.2f s for %s", wait.seconds, wait.reason)
        if self.on_wait is not None:
            self.on_wait(wait.seconds)
        self._sleep(wait.seconds)
        return wait.seconds

    def _require_open(self) -> DigitalOutputDevice:
        if self._device is None:
            raise FirmwareError("the solenoid is closed; open a new tower to shake")
        return self._device

    def force_off(self) -> None:
        """Switch the coil off now, from any thread or a signal handler."""
        if self._train is not None:
            if not self._closed:
                self._train.off()
            return
        device = self._device
        if device is not None:
            device.off()

    def close(self) -> None:
        """Switch the coil off and release the pin; safe to call again."""
        already, self._closed = self._closed, True
        if self._train is not None:
            if not already:
                self._train.close()
            return
        device, self._device = self._device, None
        if device is not None:
            try:
                device.off()
            finally:
                device.close()
