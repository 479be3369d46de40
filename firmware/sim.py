"""The simulated tower: the tray as plain data, for machines without GPIO.

The tray is a list of dicts, one per die in it (see docs/architecture.md):
``{"value": 4, "x": 81.5, "y": 40.0, "angle": 17.0, "cocked": False}`` with
``x``/``y`` in millimetres from the top-left inner corner of the floor.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from dicetray import DIE_MM, TRAY_MM, Die, Layout, throw
from firmware.errors import FirmwareError
from firmware.light import check_status
from firmware.safety import DutyGuard, Interval, ShakePattern
from firmware.solenoid import Clock, Sleeper
from firmware.tower import Tower

log = logging.getLogger(__name__)


def _degrees(angle: float) -> float:
    """An angle rounded to 0.1 degree in [0, 360)."""
    return round(angle, 1) % 360.0


class SimulatedLight:
    """A status light that only remembers what it was told to show."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self.status = "off"
        self.history: list[tuple[float, str]] = []

    def show(self, status: str) -> None:
        """Switch to ``status`` (checked like the real light)."""
        check_status(status)
        self.status = status
        self.history.append((self._clock(), status))


def _check_values(values: Sequence[int]) -> list[int]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise FirmwareError(f"dice to take out must be a list of values 1-6, not {values!r}")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
            raise FirmwareError(f"die value {v!r} is not a whole number from 1 to 6")
    return list(values)


class SimulatedTower(Tower):
    """A tower without hardware: ``shake()`` re-throws the dice in the tray.

    Randomness comes from ``seed`` alone, time from ``clock``: within
    ``settle_time_s`` of a shake's end, ``tray()`` shows tumbling dice that
    differ from call to call. Shakes are timed and duty-limited like the real
    coil's, virtually unless a ``sleep`` is given. ``cocked_chance`` is the
    chance that a thrown die lands cocked (leaning on the wall or a die),
    ``touch_chance`` the chance that it lands face to face with another die.
    """

    def __init__(
        self,
        seed: int,
        settle_time_s: float = 0.4,
        clock: Clock = time.monotonic,
        *,
        dice: int = 6,
        cocked_chance: float = 0.0,
        touch_chance: float = 0.15,
        pattern: ShakePattern | None = None,
        sleep: Sleeper | None = None,
        long_press_action: str = "new_game",
        tray_mm: tuple[float, float] = TRAY_MM,
        die_mm: float = DIE_MM,
    ) -> None:
        super().__init__(long_press_action)
        if not 0 <= settle_time_s <= 30:
            raise FirmwareError(f"settle_time_s = {settle_time_s!r}: expected 0 to 30 seconds")
        if isinstance(dice, bool) or not isinstance(dice, int) or not 1 <= dice <= 12:
            raise FirmwareError(f"dice = {dice!r}: expected a whole number from 1 to 12")
        self.seed = seed
        self.settle_time_s = settle_time_s
        self.pattern = pattern or ShakePattern()
        self.tray_mm = tray_mm
        self.die_mm = die_mm
        self.cocked_chance = cocked_chance
        self.touch_chance = touch_chance
        self.light = SimulatedLight(clock)
        self.guard = DutyGuard()
        self.shakes = 0
        self._clock = clock
        self._sleep = sleep
        self._rng = random.Random(seed)
        self._out: list[int] = []
        self._tumble_until = float("-inf")
        self._tumble_calls = 0
        self._closed = False
        self._dice = self._throw([self._rng.randint(1, 6) for _ in range(dice)], cocked_ok=False)

    @classmethod
    def from_config(
        cls, config: Mapping[str, Any], *, seed: int | None = None, **kwargs: Any
    ) -> SimulatedTower:
        """The simulated tower of a whole configuration; ``[tower] seed = -1`` picks a seed."""
        if seed is None:
            seed = int(config["tower"]["seed"])
        if seed < 0:
            seed = random.SystemRandom().randrange(2**31)
        return cls(
            seed,
            pattern=ShakePattern.from_config(config["solenoid"]),
            long_press_action=config["buttons"]["long_press_action"],
            **kwargs,
        )

    @property
    def cocked_chance(self) -> float:
        """Chance (0..1) that a thrown die lands cocked."""
        return self._cocked_chance

    @cocked_chance.setter
    def cocked_chance(self, value: float) -> None:
        self._cocked_chance = self._chance("cocked_chance", value)

    @property
    def touch_chance(self) -> float:
        """Chance (0..1) that a thrown die lands touching another."""
        return self._touch_chance

    @touch_chance.setter
    def touch_chance(self, value: float) -> None:
        self._touch_chance = self._chance("touch_chance", value)

    @staticmethod
    def _chance(name: str, value: float) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise FirmwareError(f"{name} = {value!r}: expected a number from 0 to 1")
        return float(value)

    @property
    def in_tray(self) -> int:
        """Dice in the tray now."""
        return len(self._dice)

    @property
    def out_of_tray(self) -> int:
        """Dice taken out and not yet put back."""
        return len(self._out)

    @property
    def taken_out(self) -> tuple[int, ...]:
        """The values of the dice out of the tray, in the order ``put_back`` returns them."""
        return tuple(self._out)

    @property
    def settled(self) -> bool:
        """Whether the dice have stopped tumbling."""
        return self._clock() >= self._tumble_until

    def _throw(self, values: Sequence[int], *, cocked_ok: bool = True) -> list[Die]:
        dice = throw(
            self._rng,
            values,
            touch_chance=self._touch_chance,
            cocked_chance=self._cocked_chance if cocked_ok else None,
            tray_mm=self.tray_mm,
            die_mm=self.die_mm,
        )
        if dice is None:
            raise FirmwareError(
                f"cannot fit {len(values)} dice of {self.die_mm:g} mm in a "
                f"{self.tray_mm[0]:g} x {self.tray_mm[1]:g} mm tray"
            )
        return dice

    def shake(self) -> list[Interval]:
        """Re-throw the dice in the tray; the pulses a real coil would drive, from the start.

        The duty guard may delay the pulses exactly as on the real tower (the
        wait is logged and kept in ``last_wait_s``); nothing sleeps unless the
        tower was given a ``sleep``.
        """
        if self._closed:
            raise FirmwareError("the tower is closed; open a new one to shake")
        start = self._clock()
        wait = self.guard.plan(self.pattern.offsets(), start)
        if wait.limit == "duty":
            log.warning("simulated solenoid: waiting %.2f s for %s", wait.seconds, wait.reason)
        pulses = [(wait.seconds + on, wait.seconds + off) for on, off in self.pattern.offsets()]
        for on, off in pulses:
            self.guard.record(start + on, start + off)
        if self._sleep is not None:
            self._sleep(pulses[-1][1])
        end = max(self._clock(), start + pulses[-1][1])
        self.last_wait_s = wait.seconds
        self._dice = self._throw([self._rng.randint(1, 6) for _ in self._dice])
        self.shakes += 1
        self._tumble_calls = 0
        self._tumble_until = end + self.settle_time_s
        return pulses

    def tray(self) -> list[Die]:
        """The tray as it is now: tumbling dice right after a shake, else the settled dice."""
        now = self._clock()
        if now >= self._tumble_until:
            return [dict(d) for d in self._dice]
        self._tumble_calls += 1
        return self._tumbling(max(0.0, self._tumble_until - now))

    def _tumbling(self, remaining_s: float) -> list[Die]:
        """Dice on their way to where they will settle, different at every call."""
        rng = random.Random(f"{self.seed}:{self.shakes}:{self._tumble_calls}")
        spread = self.die_mm * 3 * min(1.0, remaining_s / max(self.settle_time_s, 1e-9))
        width, depth = self.tray_mm
        margin = self.die_mm * math.sqrt(2) / 2
        frames = []
        for die in self._dice:
            x = min(max(die["x"] + rng.uniform(-spread, spread), margin), width - margin)
            y = min(max(die["y"] + rng.uniform(-spread, spread), margin), depth - margin)
            frames.append(
                {
                    "value": rng.randint(1, 6),
                    "x": round(x, 2),
                    "y": round(y, 2),
                    "angle": _degrees(rng.uniform(0.0, 360.0)),
                    "cocked": False,
                }
            )
        return frames

    def remove(self, values: Sequence[int]) -> None:
        """Take dice with ``values`` out of the tray; refuses dice that are not there."""
        wanted = _check_values(values)
        remaining = list(self._dice)
        for value in wanted:
            match = next((d for d in remaining if d["value"] == value), None)
            if match is None:
                held = sorted(d["value"] for d in self._dice)
                raise FirmwareError(f"cannot take out {wanted}: the tray holds {held}")
            remaining.remove(match)
        self._dice = remaining
        self._out.extend(wanted)

    def turn(self, faces: Sequence[int], to: Sequence[int]) -> None:
        """Turn dice showing ``faces`` to show ``to`` instead, pair by pair, where they lie (a
        person said the dice show other values than the simulator threw: the simulated dice
        follow the person's word, as real ones would show it). Refuses dice that are not
        there, and leaves the tray as it was."""
        was, now = _check_values(faces), _check_values(to)
        if len(was) != len(now):
            raise FirmwareError(f"cannot turn {len(was)} dice to {len(now)} values")
        remaining = [dict(d) for d in self._dice]
        free = list(range(len(remaining)))
        for old, new in zip(was, now, strict=True):
            k = next((i for i in free if remaining[i]["value"] == old), None)
            if k is None:
                held = sorted(d["value"] for d in self._dice)
                raise FirmwareError(f"cannot turn {was}: the tray holds {held}")
            remaining[k]["value"] = new
            free.remove(k)
        self._dice = remaining

    def put_back(self, n: int | None = None) -> None:
        """Return ``n`` dice that were taken out (all with ``None``), oldest first."""
        if n is None:
            n = len(self._out)
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= len(self._out):
            raise FirmwareError(f"cannot put back {n!r} dice: {len(self._out)} are out of the tray")
        back, self._out = self._out[:n], self._out[n:]
        layout = Layout(self._rng, self.tray_mm, self.die_mm, list(self._dice))
        for value in back:
            if layout.place(value, cocked=False, touch_chance=0.0) is None:
                raise FirmwareError(layout.no_room())
        self._dice = layout.placed

    def force_off(self) -> None:
        """Nothing to switch off: the simulated coil is never left on."""

    def close(self) -> None:
        """Stop accepting shakes and switch the light off; safe to call again."""
        if not self._closed:
            self._closed = True
            self.light.show("off")
