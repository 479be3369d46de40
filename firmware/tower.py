"""The tower: a common interface, and the real tower on GPIO."""

from __future__ import annotations

import logging
import os
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from gpiozero.pins import Factory

from closing import Closing
from firmware.buttons import BUTTON_EVENTS, TowerButtons
from firmware.errors import FirmwareError, GpioUnavailable
from firmware.gpiochip import GpioChip, Lgpio, find_chip, import_lgpio
from firmware.light import StatusLight
from firmware.pins import PinMap
from firmware.pulses import LgpioPulseTrain, PulseTrain
from firmware.safety import Interval, ShakePattern
from firmware.solenoid import Clock, Sleeper, Solenoid

log = logging.getLogger(__name__)

LONG_PRESS_ACTIONS = ("none", "new_game", "skip_turn")

Callback = Callable[[], None]


class Light(Protocol):
    """What every tower's light offers."""

    @property
    def status(self) -> str: ...

    def show(self, status: str) -> None: ...


class Tower(Closing, ABC):
    """What the server drives: ``shake()``, ``light.show(status)``, button callbacks, ``close()``.

    ``on_roll``, ``on_bank`` and ``on_long_press`` are plain callables set by
    the server and called with no arguments (from button threads on a real
    tower). ``long_press_action`` is the configured meaning of a long press.
    """

    light: Light

    def __init__(self, long_press_action: str = "new_game") -> None:
        if long_press_action not in LONG_PRESS_ACTIONS:
            raise FirmwareError(
                f"buttons.long_press_action = {long_press_action!r}: expected one of "
                + ", ".join(LONG_PRESS_ACTIONS)
            )
        self.long_press_action = long_press_action
        self.on_roll: Callback | None = None
        self.on_bank: Callback | None = None
        self.on_long_press: Callback | None = None
        self.last_wait_s = 0.0

    @abstractmethod
    def shake(self) -> list[Interval]:
        """Shake the tray; the pulses driven as ``(on_s, off_s)`` from the shake's start."""

    @abstractmethod
    def close(self) -> None:
        """Force the coil off and release everything; safe to call again."""

    @abstractmethod
    def force_off(self) -> None:
        """Switch the coil off at once, from any thread or a signal handler.

        The service wraps its run in ``coil_safety(tower.force_off)``.
        """

    def press(self, event: str) -> None:
        """Deliver a button event (``roll``, ``bank``, ``long_press``) to its callback.

        A long press with ``long_press_action = "none"`` is ignored. An
        exception in a callback is logged, never lost in a button thread.
        """
        if event not in BUTTON_EVENTS:
            raise FirmwareError(
                f"unknown button event {event!r}; expected one of " + ", ".join(BUTTON_EVENTS)
            )
        if event == "long_press" and self.long_press_action == "none":
            return
        callback = getattr(self, f"on_{event}")
        if callback is None:
            log.info("button %s pressed with nothing listening", event)
            return
        try:
            callback()
        except Exception:
            log.exception("the %s button's callback failed", event)


class PiGpio(Closing):
    """The Pi's header chip (found by label) with gpiozero's lgpio factory open on it."""

    def __init__(self, lgpio: Lgpio, chip: GpioChip, factory: Factory) -> None:
        self.lgpio = lgpio
        self.chip = chip
        self.factory = factory

    def pulse_train(self, bcm: int) -> PulseTrain:
        """The solenoid's line on the same chip, pulsed by lgpio outside Python."""
        return LgpioPulseTrain(self.lgpio, self.chip.number, bcm)

    def close(self) -> None:
        self.factory.close()


def open_pi_gpio(lgpio: Lgpio | None = None, numbers: list[int] | None = None) -> PiGpio:
    """Find the header's chip by label and open gpiozero's lgpio pin factory on it.

    Raises :class:`GpioUnavailable` off a Pi (no lgpio, or no chip with the label).
    """
    lg = import_lgpio() if lgpio is None else lgpio
    chip = find_chip(lg, numbers)
    try:
        from gpiozero.pins.lgpio import LGPIOFactory

        factory = LGPIOFactory(chip=chip.number)
    except ImportError:
        raise GpioUnavailable(
            "no GPIO found: gpiozero's lgpio pin factory cannot be imported"
        ) from None
    except Exception as exc:
        raise GpioUnavailable(
            f"no GPIO found: gpiochip{chip.number} [{chip.label}] would not open "
            f"({' '.join(str(exc).split()) or exc!r})"
        ) from None
    log.info("GPIO: gpiochip%d [%s], %d lines", chip.number, chip.label, chip.lines)
    return PiGpio(lg, chip, factory)


def factory_from_environment() -> bool:
    """Whether ``GPIOZERO_PIN_FACTORY`` names another factory than lgpio (mock pins, say).

    Then gpiozero's own choice drives the pins and pulses are timed with ``sleep``.
    """
    return os.environ.get("GPIOZERO_PIN_FACTORY", "lgpio") != "lgpio"


def gpio_pin_factory() -> Factory | None:
    """gpiozero's lgpio factory on the header chip (found by label), or GpioUnavailable.

    With ``GPIOZERO_PIN_FACTORY`` set to another factory than ``lgpio``,
    gpiozero's own choice is kept (``None``).
    """
    if factory_from_environment():
        return None
    return open_pi_gpio().factory


class GpioTower(Tower):
    """The real tower: solenoid, status light (and buzzer), ROLL and BANK on ``pin_map``.

    Built device by device; if one cannot be built the others are released
    again. ``pin_factory=None`` uses gpiozero's default (lgpio on a Pi 5).
    With ``train`` the solenoid's pulses are timed outside Python. With
    ``gpio`` (:func:`open_pi_gpio`) its factory drives the pins, its lgpio
    line pulses the solenoid, and the tower closes it last.
    """

    def __init__(
        self,
        pin_map: PinMap,
        pattern: ShakePattern,
        *,
        bounce_s: float = 0.03,
        long_press_s: float = 2.0,
        long_press_action: str = "new_game",
        pin_factory: Factory | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleeper = time.sleep,
        light_pwm: bool = True,
        train: PulseTrain | None = None,
        gpio: PiGpio | None = None,
    ) -> None:
        super().__init__(long_press_action)
        if gpio is not None:
            pin_factory = gpio.factory
            train = gpio.pulse_train(pin_map.solenoid) if train is None else train
        self._gpio = gpio
        self.pin_map = pin_map
        self.pin_factory = pin_factory
        self.long_press_s = long_press_s
        self._closed = False
        self.solenoid = Solenoid(
            pin_map.solenoid, pattern, pin_factory=pin_factory, clock=clock, sleep=sleep,
            train=train,
        )  # fmt: skip
        try:
            self.light = self.status_light = StatusLight(
                pin_map.light, buzzer_pin=pin_map.buzzer, pwm=light_pwm, pin_factory=pin_factory
            )
            try:
                self.buttons = TowerButtons(
                    pin_map.roll_button,
                    pin_map.bank_button,
                    self.press,
                    bounce_s=bounce_s,
                    long_press_s=long_press_s,
                    pin_factory=pin_factory,
                )
            except BaseException:
                self.status_light.close()
                raise
        except BaseException:
            self.solenoid.close()
            raise

    @classmethod
    def from_config(
        cls,
        config: Mapping[str, Any],
        *,
        pin_factory: Factory | None = None,
        gpio: PiGpio | None = None,
        **kwargs: Any,
    ) -> GpioTower:
        """The tower of a whole configuration (``[pins]``, ``[solenoid]``, ``[buttons]``).

        With ``gpio`` (the Pi's chip) its factory drives the pins and the
        solenoid's pulses are timed by lgpio outside Python.
        """
        buttons = config["buttons"]
        pin_map = PinMap.from_config(config["pins"])
        pattern = ShakePattern.from_config(config["solenoid"])
        return cls(
            pin_map,
            pattern,
            bounce_s=buttons["bounce_ms"] / 1000,
            long_press_s=float(buttons["long_press_s"]),
            long_press_action=buttons["long_press_action"],
            pin_factory=pin_factory,
            gpio=gpio,
            **kwargs,
        )

    @property
    def pattern(self) -> ShakePattern:
        """The shake pattern in use."""
        return self.solenoid.pattern

    def shake(self) -> list[Interval]:
        """Fire the coil once through the pattern (waiting first if the duty limit says so)."""
        if self._closed:
            raise FirmwareError("the tower is closed; open a new one to shake")
        pulses = self.solenoid.shake()
        self.last_wait_s = self.solenoid.last_wait_s
        return pulses

    def force_off(self) -> None:
        """Switch the coil off at once (for signal handlers)."""
        self.solenoid.force_off()

    def close(self) -> None:
        """Coil off first, then release the light, the buttons and the chip; safe to call again."""
        if self._closed:
            return
        self._closed = True
        try:
            self.solenoid.close()
        finally:
            try:
                self.buttons.close()
            finally:
                try:
                    self.status_light.close()
                finally:
                    if self._gpio is not None:
                        self._gpio.close()
