"""Coil pulses timed outside Python: lgpio's ``tx_pulse`` on the solenoid's line.

A pulse timed with ``time.sleep`` lasts as long as the interpreter takes to
wake up again (a 60 ms pulse was seen lasting 177 ms on a busy machine).
lgpio times ``tx_pulse`` trains in its own C thread, which the GIL and a
busy Python process do not hold up, so each pulse is as long as asked and
the coil goes off on time even while the service is busy.
"""

from __future__ import annotations

from typing import Protocol

from firmware.errors import FirmwareError
from firmware.gpiochip import Lgpio


class PulseTrain(Protocol):
    """A line that sends a train of pulses by itself once started."""

    def start(self, pulse_s: float, gap_s: float, count: int) -> None:
        """Begin ``count`` cycles of ``pulse_s`` high then ``gap_s`` low; returns at once."""
        ...

    def busy(self) -> bool:
        """Whether the train is still being sent."""
        ...

    def is_high(self) -> bool:
        """Whether the line is driven high right now."""
        ...

    def off(self) -> None:
        """Stop any train and drive the line low now (safe from a signal handler)."""
        ...

    def close(self) -> None:
        """Line low, then released; safe to call again."""
        ...


def micros(seconds: float) -> int:
    """Whole microseconds, as lgpio takes them."""
    return round(seconds * 1_000_000)


class LgpioPulseTrain:
    """The solenoid's line claimed through lgpio on chip ``chip`` (a number found by label)."""

    def __init__(self, lgpio: Lgpio, chip: int, bcm: int) -> None:
        self._lg = lgpio
        self.bcm = bcm
        try:
            self._handle: int | None = lgpio.gpiochip_open(chip)
        except lgpio.error as error:
            raise FirmwareError(f"cannot open gpiochip{chip} for the solenoid: {error}") from None
        try:
            lgpio.gpio_claim_output(self._handle, bcm, 0)
        except lgpio.error as error:
            lgpio.gpiochip_close(self._handle)
            self._handle = None
            raise FirmwareError(
                f"cannot claim BCM {bcm} for the solenoid: {error} (is another program using it?)"
            ) from None

    def _require(self) -> int:
        if self._handle is None:
            raise FirmwareError("the solenoid's line is released; open a new tower to shake")
        return self._handle

    def start(self, pulse_s: float, gap_s: float, count: int) -> None:
        handle = self._require()
        self._lg.tx_pulse(handle, self.bcm, micros(pulse_s), micros(gap_s), 0, count)

    def busy(self) -> bool:
        if self._handle is None:
            return False
        return bool(self._lg.tx_busy(self._handle, self.bcm, self._lg.TX_PWM))

    def is_high(self) -> bool:
        return self._handle is not None and self._lg.gpio_read(self._handle, self.bcm) == 1

    def off(self) -> None:
        handle = self._handle
        if handle is None:
            return
        try:
            self._lg.tx_pulse(handle, self.bcm, 0, 0)  # both zero: stop and drop queued pulses
        finally:
            self._lg.gpio_write(handle, self.bcm, 0)

    def close(self) -> None:
        handle = self._handle
        if handle is None:
            return
        try:
            self.off()
        finally:
            self._handle = None
            try:
                self._lg.gpio_free(handle, self.bcm)
            finally:
                self._lg.gpiochip_close(handle)
