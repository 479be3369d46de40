"""The pin map: which BCM pin does what, checked before any pin is touched.

The checks keep the coil from firing on its own: BCM 0-8 are pulled up at
reset (a MOSFET gate there would switch the coil on while the Pi boots),
BCM 14/15 carry the serial console, and BCM 0/1 are reserved for a HAT's
ID EEPROM. The same rules apply to every pin so a map can be re-shuffled
freely without re-reading this comment.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from firmware.errors import FirmwareError

HAT_EEPROM_PINS = frozenset({0, 1})
"""ID_SD/ID_SC: read by the firmware at boot to identify a HAT."""
BOOT_PULL_UP_PINS = frozenset(range(0, 9))
"""BCM 0-8 have their pull-up enabled from reset until software changes it."""
UART_PINS = frozenset({14, 15})
"""TXD/RXD of the serial console: they toggle during boot."""

HEADER_PIN = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27,
    5: 29, 6: 31, 13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18,
    25: 22, 8: 24, 7: 26, 1: 28, 12: 32, 16: 36, 20: 38, 21: 40,
}  # fmt: skip
"""BCM number -> physical pin on the 40-pin header (the same on every 40-pin Pi)."""

ROLES = ("solenoid", "roll_button", "bank_button", "light", "buzzer")
"""The pin map's roles, named as the ``[pins]`` config keys."""

NO_PIN = -1


def pin_problem(bcm: int) -> str | None:
    """Why ``bcm`` must not drive the tower, or ``None`` when it is fine."""
    if bcm not in HEADER_PIN:
        return f"BCM {bcm} is not on the 40-pin header; use BCM 9-13 or 16-27"
    if bcm in HAT_EEPROM_PINS:
        return f"BCM {bcm} is reserved for the HAT ID EEPROM (BCM 0 and 1)"
    if bcm in BOOT_PULL_UP_PINS:
        return (
            f"BCM {bcm} is pulled high at boot (BCM 0-8 have pull-ups at reset) "
            "and would drive the device before the service starts"
        )
    if bcm in UART_PINS:
        return f"BCM {bcm} carries the serial console UART (BCM 14 and 15)"
    return None


@dataclass(frozen=True)
class PinMap:
    """BCM pin numbers of the tower's devices; ``buzzer`` is ``None`` when there is none."""

    solenoid: int = 17
    roll_button: int = 23
    bank_button: int = 24
    light: int = 25
    buzzer: int | None = None

    def __post_init__(self) -> None:
        seen: dict[int, str] = {}
        for role, bcm in self.items():
            if isinstance(bcm, bool) or not isinstance(bcm, int):
                raise FirmwareError(f"pins.{role} = {bcm!r} is not a BCM pin number (0-27)")
            problem = pin_problem(bcm)
            if problem is not None:
                raise FirmwareError(f"pins.{role} = {bcm}: {problem}")
            if bcm in seen:
                raise FirmwareError(
                    f"pins.{role} = {bcm}: BCM {bcm} is already used by pins.{seen[bcm]}; "
                    "each device needs its own pin"
                )
            seen[bcm] = role

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> PinMap:
        """Build and check the map from the ``[pins]`` section (or the whole config).

        Raises :class:`FirmwareError` naming the pin and why it is refused.
        """
        pins = config["pins"] if isinstance(config.get("pins"), Mapping) else config
        unknown = sorted(set(pins) - set(ROLES))
        if unknown:
            raise FirmwareError(
                f"unknown pin role {unknown[0]!r}; the roles are " + ", ".join(ROLES)
            )
        values: dict[str, Any] = {role: pins[role] for role in ROLES if role in pins}
        if values.get("buzzer") == NO_PIN:
            values["buzzer"] = None
        return cls(**values)

    def items(self) -> Iterator[tuple[str, int]]:
        """``(role, bcm)`` for every device fitted (an absent buzzer is skipped)."""
        for role in ROLES:
            bcm = getattr(self, role)
            if bcm is not None:
                yield role, bcm

    def header_pin(self, role: str) -> int:
        """The physical header pin (1-40) of ``role``'s BCM pin."""
        bcm = getattr(self, role)
        if bcm is None:
            raise FirmwareError(f"pins.{role} is not fitted")
        return HEADER_PIN[bcm]
