"""The tower's body on gpiozero: solenoid, buttons, status light, simulated tower.

Knows nothing of the game or the camera. The server picks a tower with
:func:`open_tower` (``[tower] mode``: ``gpio`` or ``sim``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpiozero.pins import Factory

from dicetray import DIE_MM, TRAY_MM
from firmware.buttons import BUTTON_EVENTS, TowerButtons
from firmware.errors import FirmwareError, GpioUnavailable
from firmware.light import PATTERNS, STATUSES, LightPattern, StatusLight
from firmware.pins import HEADER_PIN, PinMap
from firmware.safety import (
    DUTY_WINDOW_S,
    MAX_DUTY,
    MAX_PULSE_S,
    MIN_GAP_S,
    DutyGuard,
    ShakePattern,
    coil_safety,
)
from firmware.sim import SimulatedTower
from firmware.solenoid import Solenoid
from firmware.tower import (
    GpioTower,
    PiGpio,
    Tower,
    factory_from_environment,
    gpio_pin_factory,
    open_pi_gpio,
)

__all__ = [
    "BUTTON_EVENTS",
    "DIE_MM",
    "DUTY_WINDOW_S",
    "HEADER_PIN",
    "MAX_DUTY",
    "MAX_PULSE_S",
    "MIN_GAP_S",
    "PATTERNS",
    "STATUSES",
    "TRAY_MM",
    "DutyGuard",
    "FirmwareError",
    "GpioTower",
    "GpioUnavailable",
    "LightPattern",
    "PiGpio",
    "PinMap",
    "ShakePattern",
    "SimulatedTower",
    "Solenoid",
    "StatusLight",
    "Tower",
    "TowerButtons",
    "coil_safety",
    "factory_from_environment",
    "gpio_pin_factory",
    "open_pi_gpio",
    "open_tower",
]


def open_tower(
    config: Mapping[str, Any], *, pin_factory: Factory | None = None, seed: int | None = None
) -> Tower:
    """The tower ``[tower] mode`` asks for: ``GpioTower`` for ``gpio``, else ``SimulatedTower``.

    For ``gpio`` without a ``pin_factory`` the Pi's header chip is found by
    label, gpiozero's lgpio factory opened on it and the solenoid pulsed by
    lgpio outside Python (``GpioUnavailable`` off a Pi), unless
    ``GPIOZERO_PIN_FACTORY`` names another factory. ``seed`` overrides
    ``[tower] seed``.
    """
    mode = config["tower"]["mode"]
    if mode == "gpio":
        if pin_factory is not None or factory_from_environment():
            return GpioTower.from_config(config, pin_factory=pin_factory)
        gpio = open_pi_gpio()
        try:
            return GpioTower.from_config(config, gpio=gpio)
        except BaseException:
            gpio.close()
            raise
    if mode == "sim":
        return SimulatedTower.from_config(config, seed=seed)
    raise FirmwareError(f"tower.mode = {mode!r}: expected 'sim' or 'gpio'")
