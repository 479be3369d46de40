"""A stand-in ``lgpio`` for tests: chips with labels, and ``tx_pulse`` trains on mock pins.

It behaves as lgpio's documentation says the real one does: ``gpiochip_open``
raises ``lgpio.error`` for a chip that is not there, ``gpio_get_chip_info``
gives ``(status, lines, name, label)``, a claimed output starts at the
level asked, and ``tx_pulse(h, gpio, on_us, off_us, offset, cycles)`` sends
``cycles`` cycles of ``on_us`` high then ``off_us`` low by itself (both
zero stops the train). The train's edges land on a gpiozero mock pin at
their own times on a :class:`TrainClock`, so the pin's recorded states
show what the coil saw.
"""

from __future__ import annotations

from typing import Any

from gpiozero.pins.mock import MockFactory, MockPin

from tests.firmware.conftest import FakeClock


class TrainClock(FakeClock):
    """A fake clock that applies scheduled pin edges as it passes their times."""

    def __init__(self, start: float = 1000.0) -> None:
        super().__init__(start)
        self.edges: list[tuple[float, MockPin, bool]] = []

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0, f"asked to sleep {seconds} s"
        self.sleeps.append(seconds)
        target = self.now + seconds
        while self.edges and self.edges[0][0] <= target:
            when, pin, level = self.edges.pop(0)
            self.now = when
            pin.state = level
        self.now = target

    def cancel(self, pin: MockPin) -> None:
        self.edges = [edge for edge in self.edges if edge[1] is not pin]


class error(Exception):  # lgpio's own name
    """lgpio's exception."""


class FakeLgpio:
    """The module: ``chips`` maps chip number to label; pins live on ``factory``."""

    TX_PWM = 0
    TX_WAVE = 1
    error = error

    def __init__(
        self, chips: dict[int, str], factory: MockFactory, clock: TrainClock | None = None
    ) -> None:
        self.chips = chips
        self.factory = factory
        self.clock = clock or TrainClock()
        self.calls: list[tuple[Any, ...]] = []
        self.open_handles: set[int] = set()
        self.claimed: set[int] = set()
        self._train_end: dict[int, float] = {}
        self._next = 1

    def gpiochip_open(self, gpiochip: int) -> int:
        self.calls.append(("gpiochip_open", gpiochip))
        if gpiochip not in self.chips:
            raise error("can not open gpiochip")
        handle = self._next | (gpiochip << 16)
        self._next += 1
        self.open_handles.add(handle)
        return handle

    def gpiochip_close(self, handle: int) -> int:
        self.open_handles.discard(handle)
        return 0

    def gpio_get_chip_info(self, handle: int) -> list[Any]:
        label = self.chips[handle >> 16]
        return [0, 54 if label == "pinctrl-rp1" else 32, f"gpiochip{handle >> 16}", label]

    def _pin(self, gpio: int) -> MockPin:
        pin: MockPin = self.factory.pin(gpio)
        return pin

    def gpio_claim_output(self, handle: int, gpio: int, level: int = 0) -> int:
        if gpio in self.claimed:
            raise error("GPIO busy")
        self.claimed.add(gpio)
        pin = self._pin(gpio)
        pin.function = "output"
        pin.state = bool(level)
        return 0

    def gpio_free(self, handle: int, gpio: int) -> int:
        self.claimed.discard(gpio)
        return 0

    def gpio_write(self, handle: int, gpio: int, level: int) -> int:
        self.calls.append(("gpio_write", gpio, level))
        self._pin(gpio).state = bool(level)
        return 0

    def gpio_read(self, handle: int, gpio: int) -> int:
        return int(bool(self._pin(gpio).state))

    def tx_pulse(
        self,
        handle: int,
        gpio: int,
        pulse_on: int,
        pulse_off: int,
        pulse_offset: int = 0,
        pulse_cycles: int = 0,
    ) -> int:
        self.calls.append(("tx_pulse", gpio, pulse_on, pulse_off, pulse_offset, pulse_cycles))
        if gpio not in self.claimed:
            raise error("GPIO not allocated")
        pin = self._pin(gpio)
        self.clock.cancel(pin)
        if pulse_on == 0 and pulse_off == 0:
            self._train_end.pop(gpio, None)
            return 0
        assert pulse_cycles > 0, "an endless train would hold the coil on and off forever"
        start = self.clock.now + pulse_offset / 1e6
        period = (pulse_on + pulse_off) / 1e6
        for k in range(pulse_cycles):
            self.clock.edges.append((start + k * period, pin, True))
            self.clock.edges.append((start + k * period + pulse_on / 1e6, pin, False))
        self.clock.edges.sort(key=lambda edge: edge[0])
        self._train_end[gpio] = start + pulse_cycles * period
        return 15

    def tx_busy(self, handle: int, gpio: int, kind: int) -> int:
        end = self._train_end.get(gpio)
        return int(end is not None and self.clock.now < end)
