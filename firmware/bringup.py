"""The bring-up walk-through: fire the coil, show each light pattern, ask for each button.

A person building the tower runs it once (``zilch-tower hw-test``). Every
step that waits for a person has a timeout. On mock pins a ``press``
function plays the person's part so the walk-through completes unattended.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from gpiozero.pins.mock import MockFactory

from firmware.light import PATTERNS, STATUSES
from firmware.pins import HEADER_PIN, PinMap
from firmware.tower import GpioTower

Say = Callable[[str], None]
Press = Callable[[str], None]

BUTTON_STEPS = (
    ("roll", "ROLL", "roll_button", "press and release ROLL"),
    ("bank", "BANK", "bank_button", "press and release BANK"),
    ("long_press", "BANK", "bank_button", "hold BANK down for {hold:g} s"),
)


@dataclass(frozen=True)
class StepResult:
    """One step of the walk-through: its name, whether it passed, and what was seen."""

    step: str
    ok: bool
    detail: str


def mock_presser(factory: MockFactory, pin_map: PinMap, long_press_s: float) -> Press:
    """A ``press(event)`` that drives the mock button pins as a person would, after a moment."""

    def hold(bcm: int, seconds: float) -> None:
        time.sleep(0.2)
        pin = factory.pin(bcm)
        pin.drive_low()
        time.sleep(seconds)
        pin.drive_high()

    def press(event: str) -> None:
        role = "roll_button" if event == "roll" else "bank_button"
        seconds = long_press_s + 0.3 if event == "long_press" else 0.1
        threading.Thread(target=hold, args=(getattr(pin_map, role), seconds), daemon=True).start()

    return press


class BringUp:
    """Walks a person through the tower's parts and reports each step."""

    def __init__(
        self,
        tower: GpioTower,
        say: Say,
        *,
        step_timeout_s: float = 15.0,
        light_s: float = 3.0,
        press: Press | None = None,
    ) -> None:
        self.tower = tower
        self.say = say
        self.step_timeout_s = step_timeout_s
        self.light_s = light_s
        self.press = press

    def run(self) -> list[StepResult]:
        """Every step in order; the light is left showing ``ready``."""
        results = [self.solenoid(), self.light()]
        for event, label, role, action in BUTTON_STEPS:
            results.append(self.button(event, label, role, action))
        self.tower.light.show("ready")
        return results

    def solenoid(self) -> StepResult:
        pattern = self.tower.pattern
        pin = self.tower.pin_map.solenoid
        self.say(
            f"Solenoid on BCM {pin} (pin {HEADER_PIN[pin]}): one shake of {pattern.pulses} x "
            f"{pattern.pulse_s * 1000:g} ms pulses, {pattern.gap_s * 1000:g} ms apart; "
            "watch the dice jump."
        )
        pulses = self.tower.shake()
        on_s = sum(off - on for on, off in pulses)
        detail = f"{len(pulses)} pulses driven, coil on {on_s * 1000:.0f} ms in total"
        self.say(f"  ok: {detail}")
        return StepResult("solenoid", True, detail)

    def light(self) -> StepResult:
        pin = self.tower.pin_map.light
        buzzer = self.tower.pin_map.buzzer
        self.say(f"Status light on BCM {pin} (pin {HEADER_PIN[pin]}): each pattern for "
                 f"{self.light_s:g} s.")  # fmt: skip
        for status in STATUSES:
            self.tower.light.show(status)
            extra = ""
            if buzzer is not None and status in ("attention", "error"):
                extra = "; the buzzer sounds"
            self.say(f"  {status}: {PATTERNS[status].description}{extra}")
            time.sleep(self.light_s)
        self.tower.light.show("off")
        return StepResult("light", True, f"showed {', '.join(STATUSES)}")

    def button(self, event: str, label: str, role: str, action: str) -> StepResult:
        step = "long press" if event == "long_press" else label
        if event == "long_press" and self.tower.long_press_action == "none":
            self.say("Long press: skipped (buttons.long_press_action = none).")
            return StepResult(step, True, "skipped: long presses do nothing in this config")
        bcm = getattr(self.tower.pin_map, role)
        heard = threading.Event()
        setattr(self.tower, f"on_{event}", heard.set)
        self.tower.light.show("attention")
        action = action.format(hold=self.tower.long_press_s)
        self.say(f"{label} on BCM {bcm} (pin {HEADER_PIN[bcm]}): {action} now "
                 f"(waiting up to {self.step_timeout_s:g} s)...")  # fmt: skip
        if self.press is not None:
            self.say(f"  (mock: driving BCM {bcm} low as the person would)")
            self.press(event)
        ok = heard.wait(self.step_timeout_s)
        setattr(self.tower, f"on_{event}", None)
        self.tower.light.show("off")
        detail = "ok" if ok else f"nothing heard within {self.step_timeout_s:g} s"
        self.say(f"  {detail}")
        return StepResult(step, ok, detail)
