"""The status light (and optional buzzer): five patterns a person can tell apart.

=========  ==================================  ===================================
status     pattern                             meaning
=========  ==================================  ===================================
ready      steady on                           press ROLL or BANK
rolling    fast even blink, 5 per second       the dice are being shaken
reading    slow breathing, 2 s per breath      the camera is reading the dice
attention  double blink, then 1.2 s dark       a person must act (take out, put back,
                                               straighten the tray); buzzer: 2 chirps
error      bursts of rapid flicker, 1 s dark   something is broken; buzzer: 3 long beeps
off        dark                                the service is not running a table
=========  ==================================  ===================================

On a plain (non-PWM) LED the breathing becomes a slow 1 s on / 1 s off blink.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass

from gpiozero import LED, PWMLED, Buzzer
from gpiozero.pins import Factory

from closing import Closing
from firmware.errors import FirmwareError

Step = tuple[float, float]
"""``(brightness 0..1, seconds)``."""


@dataclass(frozen=True)
class LightPattern:
    """A repeating sequence of brightness steps; one step means a steady light."""

    steps: tuple[Step, ...]
    description: str

    @property
    def period_s(self) -> float:
        """Length of one cycle of the pattern."""
        return sum(seconds for _, seconds in self.steps)


def _breathe(period_s: float = 2.0, steps: int = 20) -> tuple[Step, ...]:
    """A smooth rise and fall of brightness (sin squared) in ``steps`` steps."""
    return tuple(
        (round(math.sin(math.pi * (k + 0.5) / steps) ** 2, 3), period_s / steps)
        for k in range(steps)
    )


PATTERNS: dict[str, LightPattern] = {
    "off": LightPattern(((0.0, 1.0),), "dark"),
    "ready": LightPattern(((1.0, 1.0),), "steady on"),
    "rolling": LightPattern(((1.0, 0.1), (0.0, 0.1)), "fast even blink, 5 per second"),
    "reading": LightPattern(_breathe(), "slow breathing, 2 s per breath"),
    "attention": LightPattern(
        ((1.0, 0.15), (0.0, 0.15), (1.0, 0.15), (0.0, 1.2)), "double blink, then dark"
    ),
    "error": LightPattern(((1.0, 0.05), (0.0, 0.05)) * 5 + ((0.0, 1.0),), "rapid flicker bursts"),
}
STATUSES = ("ready", "rolling", "reading", "attention", "error")
"""The statuses the server shows; ``off`` is also accepted."""

BEEPS: dict[str, tuple[float, float, int]] = {
    "attention": (0.08, 0.12, 2),
    "error": (0.4, 0.2, 3),
}
"""``(on_s, off_s, count)`` the buzzer sounds when the light changes to a status."""


def check_status(status: str) -> LightPattern:
    """The pattern of ``status``, or ``FirmwareError`` listing the statuses."""
    try:
        return PATTERNS[status]
    except (KeyError, TypeError):
        raise FirmwareError(
            f"unknown light status {status!r}; expected one of " + ", ".join((*STATUSES, "off"))
        ) from None


class StatusLight(Closing):
    """The tower's status LED on ``pin`` (BCM), with an optional active buzzer.

    Wiring: GPIO -> 330 ohm -> LED anode, LED cathode (short leg) to ground
    (about 4 mA from 3.3 V). Buzzer (optional): a 3.3 V active buzzer from
    its GPIO to ground, or a 5 V one switched by a small NPN/MOSFET. With
    ``pwm`` (the default) the LED fades; without, brightness >= 0.5 is on.
    """

    def __init__(
        self,
        pin: int,
        *,
        buzzer_pin: int | None = None,
        pwm: bool = True,
        pin_factory: Factory | None = None,
    ) -> None:
        self._pwm = pwm
        self._led: LED | PWMLED | None = (
            PWMLED(pin, pin_factory=pin_factory) if pwm else LED(pin, pin_factory=pin_factory)
        )
        self._buzzer: Buzzer | None = None
        if buzzer_pin is not None:
            try:
                self._buzzer = Buzzer(buzzer_pin, pin_factory=pin_factory)
            except BaseException:
                self._led.close()
                raise
        self._status = "off"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def status(self) -> str:
        """The status shown now."""
        return self._status

    @property
    def value(self) -> float:
        """The LED's brightness now (0..1)."""
        return float(self._led.value) if self._led is not None else 0.0

    def show(self, status: str) -> None:
        """Switch to ``status``'s pattern (runs in the background until the next call)."""
        pattern = check_status(status)
        with self._lock:
            led = self._require_open()
            self._halt()
            self._status = status
            if len(pattern.steps) == 1:
                self._set(led, pattern.steps[0][0])
            else:
                self._stop = threading.Event()
                self._thread = threading.Thread(
                    target=self._run,
                    args=(led, pattern, self._stop),
                    name=f"status-light-{status}",
                    daemon=True,
                )
                self._thread.start()
            self._beep(status)

    def play_once(self, status: str, sleep: Callable[[float], None]) -> None:
        """Run one cycle of ``status``'s pattern in this thread, waiting with ``sleep``.

        For tests and the bring-up walk-through; leaves the light as the last step.
        """
        pattern = check_status(status)
        with self._lock:
            led = self._require_open()
            self._halt()
            self._status = status
            for brightness, seconds in pattern.steps:
                self._set(led, brightness)
                sleep(seconds)

    def _run(self, led: LED | PWMLED, pattern: LightPattern, stop: threading.Event) -> None:
        while not stop.is_set():
            for brightness, seconds in pattern.steps:
                if stop.is_set():
                    return
                self._set(led, brightness)
                if stop.wait(seconds):
                    return

    def _set(self, led: LED | PWMLED, brightness: float) -> None:
        if isinstance(led, PWMLED):
            led.value = brightness
        else:
            led.value = brightness >= 0.5

    def _beep(self, status: str) -> None:
        if self._buzzer is not None and status in BEEPS:
            on_s, off_s, count = BEEPS[status]
            self._buzzer.beep(on_time=on_s, off_time=off_s, n=count, background=True)

    def _halt(self) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2.0)

    def _require_open(self) -> LED | PWMLED:
        if self._led is None:
            raise FirmwareError("the status light is closed")
        return self._led

    def close(self) -> None:
        """Stop the pattern, switch off and release the pins; safe to call again."""
        with self._lock:
            self._halt()
            led, self._led = self._led, None
            buzzer, self._buzzer = self._buzzer, None
        for device in (led, buzzer):
            if device is not None:
                device.close()
        self._status = "off"
