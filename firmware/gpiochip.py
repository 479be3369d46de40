"""The Pi's GPIO chip, found by its label, and the lgpio calls the tower uses.

The 40-pin header's GPIOs belong to the chip labelled ``pinctrl-rp1`` on a
Pi 5. Its number has changed with kernel releases (``gpiochip4`` before
Raspberry Pi's kernel gave it the ``gpiochip0`` alias), so the chip is
found by label, never assumed by number. Earlier Pis' header chips are
accepted after it, so the same code runs on a Pi 4 for bring-up.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from firmware.errors import GpioUnavailable

CHIP_LABELS = ("pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835")
"""Labels of the header's GPIO chip, best first: Pi 5 (RP1), Pi 4, earlier Pis."""


class Lgpio(Protocol):
    """The part of the ``lgpio`` module the tower calls (lgpio raises ``lgpio.error``)."""

    TX_PWM: int
    error: type[Exception]

    def gpiochip_open(self, gpiochip: int) -> int: ...
    def gpiochip_close(self, handle: int) -> int: ...
    def gpio_get_chip_info(self, handle: int) -> Sequence[Any]: ...
    def gpio_claim_output(self, handle: int, gpio: int, level: int = 0) -> int: ...
    def gpio_free(self, handle: int, gpio: int) -> int: ...
    def gpio_write(self, handle: int, gpio: int, level: int) -> int: ...
    def gpio_read(self, handle: int, gpio: int) -> int: ...
    def tx_pulse(
        self,
        handle: int,
        gpio: int,
        pulse_on: int,
        pulse_off: int,
        pulse_offset: int = 0,
        pulse_cycles: int = 0,
    ) -> int: ...
    def tx_busy(self, handle: int, gpio: int, kind: int) -> int: ...


@dataclass(frozen=True)
class GpioChip:
    """One ``/dev/gpiochipN``: its number, label and line count."""

    number: int
    label: str
    lines: int


def import_lgpio() -> Lgpio:
    """The ``lgpio`` module, or :class:`GpioUnavailable` saying how to install it."""
    try:
        return cast(Lgpio, importlib.import_module("lgpio"))
    except ImportError:
        raise GpioUnavailable(
            "no GPIO found: the lgpio library is not installed (on Raspberry Pi OS: "
            "sudo apt install python3-lgpio); without a Raspberry Pi use --mock to "
            "drive gpiozero's mock pins"
        ) from None


def chip_numbers(dev: Path = Path("/dev")) -> list[int]:
    """Numbers of the ``gpiochipN`` device nodes, without compatibility symlinks."""
    numbers = []
    for path in dev.glob("gpiochip*"):
        match = re.fullmatch(r"gpiochip(\d+)", path.name)
        if match and not path.is_symlink():
            numbers.append(int(match[1]))
    return sorted(numbers)


def chip_info(lgpio: Lgpio, number: int) -> GpioChip | None:
    """Open chip ``number`` just long enough to read its label; ``None`` if it will not open."""
    try:
        handle = lgpio.gpiochip_open(number)
    except lgpio.error:
        return None
    try:
        _, lines, _, label = lgpio.gpio_get_chip_info(handle)
    except lgpio.error:
        return None
    finally:
        lgpio.gpiochip_close(handle)
    return GpioChip(number, str(label), int(lines))


def find_chip(
    lgpio: Lgpio, numbers: Iterable[int] | None = None, labels: Sequence[str] = CHIP_LABELS
) -> GpioChip:
    """The chip with the first of ``labels`` found, or :class:`GpioUnavailable` listing what is."""
    candidates = chip_numbers() if numbers is None else list(numbers)
    chips = [chip for n in candidates if (chip := chip_info(lgpio, n)) is not None]
    for label in labels:
        for chip in chips:
            if chip.label == label:
                return chip
    seen = ", ".join(f"gpiochip{c.number} [{c.label}]" for c in chips) or "none that open"
    raise GpioUnavailable(
        f"no GPIO found: no GPIO chip is labelled {labels[0]} (chips here: {seen}); "
        "without a Raspberry Pi use --mock to drive gpiozero's mock pins"
    )
