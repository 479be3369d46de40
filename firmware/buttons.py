"""The ROLL and BANK arcade buttons."""

from __future__ import annotations

import threading
from collections.abc import Callable

from gpiozero import Button
from gpiozero.pins import Factory

from closing import Closing
from firmware.errors import FirmwareError

BUTTON_EVENTS = ("roll", "bank", "long_press")
"""What the buttons report: a ROLL press, a BANK press, a long press on BANK."""


class TowerButtons(Closing):
    """ROLL on ``roll_pin`` and BANK on ``bank_pin`` (BCM), each wired to ground.

    Wiring: one leg of each arcade button's normally-open switch to its GPIO,
    the other to a ground pin; the Pi's internal pull-up holds the pin high
    until the button is pressed. ``bounce_s`` debounces the switch contacts.

    ROLL reports ``"roll"`` as soon as it is pressed. BANK reports
    ``"bank"`` when released, unless it was held ``long_press_s`` or longer:
    then it reports ``"long_press"`` once, at the moment the hold is reached,
    and the release is ignored. ``handler(event)`` is called from gpiozero's
    threads.
    """

    def __init__(
        self,
        roll_pin: int,
        bank_pin: int,
        handler: Callable[[str], None],
        *,
        bounce_s: float = 0.03,
        long_press_s: float = 2.0,
        pin_factory: Factory | None = None,
    ) -> None:
        if not 0 < bounce_s <= 0.5:
            raise FirmwareError(f"buttons.bounce_ms = {bounce_s * 1000:g}: expected 1 to 500 ms")
        if not long_press_s > 0:
            raise FirmwareError(f"buttons.long_press_s = {long_press_s:g}: expected more than 0")
        self._handler = handler
        self._held = threading.Event()
        self.roll: Button | None = Button(
            roll_pin, pull_up=True, bounce_time=bounce_s, pin_factory=pin_factory
        )
        try:
            self.bank: Button | None = Button(
                bank_pin,
                pull_up=True,
                bounce_time=bounce_s,
                hold_time=long_press_s,
                pin_factory=pin_factory,
            )
        except BaseException:
            self.roll.close()
            raise
        self.roll.when_pressed = self._roll_pressed
        self.bank.when_pressed = self._bank_pressed
        self.bank.when_held = self._bank_held
        self.bank.when_released = self._bank_released

    def _roll_pressed(self) -> None:
        self._handler("roll")

    def _bank_pressed(self) -> None:
        self._held.clear()

    def _bank_held(self) -> None:
        self._held.set()
        self._handler("long_press")

    def _bank_released(self) -> None:
        if not self._held.is_set():
            self._handler("bank")
        self._held.clear()

    def close(self) -> None:
        """Release both pins; safe to call again."""
        for name in ("roll", "bank"):
            button = getattr(self, name)
            setattr(self, name, None)
            if button is not None:
                button.close()
