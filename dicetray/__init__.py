"""The tray's geometry, shared by the simulated tower and the renderer.

A leaf: it imports nothing but the standard library, so ``firmware`` (the
simulated tower throws its dice with :func:`throw` and :class:`Layout`) and
``vision`` (the renderer draws the same throws: ``vision.render.random_tray``)
both use it without importing each other.

A die of the tray data (see ``docs/architecture.md``) is a dict
``{"value": 4, "x": 81.5, "y": 40.0, "angle": 17.0, "cocked": False}`` with
``x``/``y`` in millimetres from the top-left inner corner of the floor.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

TRAY_MM = (240.0, 180.0)
"""Inner floor of the tray, width x depth in millimetres."""
DIE_MM = 16.0
"""Edge of a die in millimetres."""

Die = dict[str, Any]

_TOUCH_GAP_MM = 0.2
_CLEARANCE_MM = 0.5
_ATTEMPTS = 500


def _degrees(angle: float) -> float:
    """An angle rounded to 0.1 degree in [0, 360)."""
    return round(angle, 1) % 360.0


class Layout:
    """Places dice in the tray without overlap: free, touching another die, or cocked."""

    def __init__(
        self, rng: random.Random, tray_mm: tuple[float, float], die_mm: float, placed: list[Die]
    ) -> None:
        self.rng = rng
        self.width, self.depth = tray_mm
        self.die = die_mm
        self.placed = placed

    def half_extent(self, angle: float) -> float:
        """Half the width of a die's axis-aligned bounding box at ``angle`` degrees."""
        a = math.radians(angle)
        return self.die / 2 * (abs(math.cos(a)) + abs(math.sin(a)))

    def inside(self, x: float, y: float, angle: float) -> bool:
        h = self.half_extent(angle) - 1e-6
        return h <= x <= self.width - h and h <= y <= self.depth - h

    def clear(self, x: float, y: float, skip: Die | None = None) -> bool:
        """No placed die (but ``skip``) is close enough to overlap, whatever the angles."""
        reach = self.die * math.sqrt(2) + _CLEARANCE_MM
        return all(d is skip or math.hypot(d["x"] - x, d["y"] - y) >= reach for d in self.placed)

    def free(self) -> tuple[float, float, float] | None:
        angle = self.rng.uniform(0.0, 360.0)
        h = self.half_extent(angle)
        x = self.rng.uniform(h, self.width - h)
        y = self.rng.uniform(h, self.depth - h)
        return (x, y, angle) if self.clear(x, y) else None

    def touching(self) -> tuple[float, float, float] | None:
        """Face to face with a placed die: same angle, one die's width along one of its axes."""
        partner = self.rng.choice(self.placed)
        angle = partner["angle"]
        a = math.radians(angle + 90.0 * self.rng.randrange(4))
        step = self.die + _TOUCH_GAP_MM
        x, y = partner["x"] + step * math.cos(a), partner["y"] + step * math.sin(a)
        ok = self.inside(x, y, angle) and self.clear(x, y, skip=partner)
        return (x, y, angle) if ok else None

    def against_wall(self) -> tuple[float, float, float] | None:
        """Touching one of the four walls (where a die ends up leaning)."""
        angle = self.rng.uniform(0.0, 360.0)
        h = self.half_extent(angle)
        wall = self.rng.randrange(4)
        along_x = self.rng.uniform(h, self.width - h)
        along_y = self.rng.uniform(h, self.depth - h)
        x, y = [(h, along_y), (self.width - h, along_y), (along_x, h), (along_x, self.depth - h)][
            wall
        ]
        return (x, y, angle) if self.clear(x, y) else None

    def place(self, value: int, *, cocked: bool, touch_chance: float) -> Die | None:
        """Find a spot for one die and add it to ``placed``; ``None`` when none is free."""
        for _ in range(_ATTEMPTS):
            if cocked:
                spot = self.touching() if self.placed and self.rng.random() < 0.5 else None
                spot = spot or self.against_wall()
            elif self.placed and self.rng.random() < touch_chance:
                spot = self.touching() or self.free()
            else:
                spot = self.free()
            if spot is not None:
                x, y, angle = spot
                die = {
                    "value": value,
                    "x": round(x, 2),
                    "y": round(y, 2),
                    "angle": _degrees(angle),
                    "cocked": cocked,
                }
                self.placed.append(die)
                return die
        return None

    def no_room(self) -> str:
        """What to say when :meth:`place` found no spot."""
        return (
            f"cannot fit {len(self.placed) + 1} dice of {self.die:g} mm in a "
            f"{self.width:g} x {self.depth:g} mm tray"
        )


def throw(
    rng: random.Random,
    values: Sequence[int],
    *,
    touch_chance: float,
    cocked_chance: float | None = None,
    cocked: Sequence[bool] = (),
    tray_mm: tuple[float, float] = TRAY_MM,
    die_mm: float = DIE_MM,
) -> list[Die] | None:
    """Dice showing ``values`` thrown one after another at random spots.

    A die leans when ``cocked[i]`` says so or, with ``cocked_chance`` given, by
    a draw of ``rng`` before its spot is sought. Every random choice comes from
    ``rng``, so a seeded ``rng`` gives the same tray every time. ``None`` when
    the dice do not fit.
    """
    layout = Layout(rng, tray_mm, die_mm, [])
    for i, value in enumerate(values):
        leaning = i < len(cocked) and bool(cocked[i])
        if cocked_chance is not None:
            leaning = rng.random() < cocked_chance
        if layout.place(value, cocked=leaning, touch_chance=touch_chance) is None:
            return None
    return layout.placed
