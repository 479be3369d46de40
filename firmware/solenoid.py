"""The solenoid that shakes the tray, driven through a logic-level MOSFET."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from gpiozero import DigitalOutputDevice
from gpiozero.pins import Factory

from firmware.closing import Closing
from firmware.errors import FirmwareError
from firmware.safety import DutyGuard, Interval, ShakePattern, Wait

log = logging.getLogger(__name__)

OVERRUN_WARN_S = 0.020
"""A pulse this much longer than asked (a late wake-up from sleep) is logged."""

Clock = Callable[[], float]
Sleeper = Callable[[float], None]


class Solenoid(Closing):
    """A 12 V push solenoid switched by a MOSFET whose gate is on ``pin`` (BCM).

    Wiring: GPIO -> 150 ohm -> gate of an IRLZ44N-class logic-level MOSFET,
    10 kohm from gate to ground (keeps the coil off while the Pi boots or the
    pin floats), source to ground (shared with the Pi's ground), drain to the
    coil's minus lead, coil's plus lead to +12 V, and a flyback diode
    (1N4007/1N5819) across the coil, cathode (band) to +12 V.

    ``clock`` and ``sleep`` are injectable so the timing and the duty guard
    are tested without real waiting. ``on_wait(seconds)`` hears about any
    wait the duty guard imposes before a shake.
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
    ) -> None:
        self.pattern = pattern
        self.guard = guard or DutyGuard()
        self.on_wait = on_wait
        self.last_wait_s = 0.0
        self.last_start = float("nan")
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._device: DigitalOutputDevice | None = DigitalOutputDevice(
            pin, active_high=True, initial_value=False, pin_factory=pin_factory
        )

    @property
    def is_on(self) -> bool:
        """Whether the coil is energised right now."""
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
            device = self._require_open()
            start = self.last_start = self._clock()
            self.last_wait_s = self._wait(self.guard.plan(self.pattern.offsets(), start))
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
        device = self._device
        if device is not None:
            device.off()

    def close(self) -> None:
        """Switch the coil off and release the pin; safe to call again."""
        device, self._device = self._device, None
        if device is not None:
            try:
                device.off()
            finally:
                device.close()
