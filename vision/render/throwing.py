"""Random trays for the renderer: dice thrown on the floor, touching or leaning."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from dicetray import DIE_MM, TRAY_MM, throw
from vision.render.scene import _scene, render_tray
from vision.render.style import (
    Frame,
    RenderError,
    RenderStyle,
    _check_seed,
    _check_size,
    resolve_style,
)

MAX_RANDOM_DICE = 12
MAX_PILE_DICE = 40  # random_pile: touching groups and piles of up to this many dice


def _fits(
    candidate: tuple[float, float, float, float],
    placed: Sequence[tuple[float, float, float, float]],
    tray_mm: tuple[float, float],
    ignore: int = -1,
) -> bool:
    """A flat die (x, y, angle, side) lies on the floor without overlapping placed dice."""
    x, y, angle, side = candidate
    reach = side / 2 * (abs(math.cos(math.radians(angle))) + abs(math.sin(math.radians(angle))))
    if not (
        reach + 0.5 <= x <= tray_mm[0] - reach - 0.5
        and reach + 0.5 <= y <= tray_mm[1] - reach - 0.5
    ):
        return False
    mine = ((x, y), (side + 0.3, side + 0.3), angle)
    return all(
        j == ignore
        or cv2.rotatedRectangleIntersection(mine, ((ox, oy), (os_, os_), oa))[0]
        == cv2.INTERSECT_NONE
        for j, (ox, oy, oa, os_) in enumerate(placed)
    )


def _place(
    rng: np.random.Generator,
    placed: Sequence[tuple[float, float, float, float]],
    side: float,
    touching: bool,
    tray_mm: tuple[float, float],
    turn: float = 0.0,
) -> tuple[float, float, float] | None:
    """A free spot for a die: anywhere, or edge to edge with a placed die, turned against
    it by up to ``turn`` degrees (its corner then meets the other's face; 0: squared up,
    within a degree)."""
    for _ in range(300):
        if touching and placed:
            ox, oy, oa, os_ = placed[int(rng.integers(0, len(placed)))]
            towards = math.radians(oa + 90 * int(rng.integers(0, 4)))
            slide = float(rng.uniform(-0.35, 0.35)) * side
            margin = float(rng.uniform(0.35, 0.8))
            spin = float(rng.uniform(-1.0, 1.0)) * max(1.0, turn)
            # how far a die turned by ``spin`` reaches toward the face it meets
            t = math.radians(spin)
            reach = side / 2 if turn <= 0 else side / 2 * (abs(math.cos(t)) + abs(math.sin(t)))
            gap = os_ / 2 + reach + margin
            x = ox + gap * math.cos(towards) - slide * math.sin(towards)
            y = oy + gap * math.sin(towards) + slide * math.cos(towards)
            angle = oa + spin
        else:
            x, y = (float(rng.uniform(0, tray_mm[k])) for k in (0, 1))
            angle = float(rng.uniform(0, 360))
        if _fits((x, y, angle, side), placed, tray_mm):
            return x, y, angle
    return None


def _lean_spot(
    rng: np.random.Generator,
    placed: Sequence[tuple[float, float, float, float]],
    side: float,
    tray_mm: tuple[float, float],
) -> tuple[float, float, float] | None:
    """A spot for a cocked die: against a wall, or against a placed die."""
    for _ in range(300):
        angle = float(rng.uniform(0, 360))
        if placed and rng.random() < 0.5:
            ox, oy, oa, os_ = placed[int(rng.integers(0, len(placed)))]
            towards = math.radians(oa + 90 * int(rng.integers(0, 4)))
            gap = (os_ + side) / 2 + 0.2 * side
            x, y, angle = ox + gap * math.cos(towards), oy + gap * math.sin(towards), oa
        else:
            wall = int(rng.integers(0, 4))
            along = float(rng.uniform(side, tray_mm[wall % 2 == 0] - side))
            angle = 90.0 * int(rng.integers(0, 4)) + float(rng.uniform(-4, 4))
            near = 0.75 * side
            x, y = {
                0: (along, near),
                1: (tray_mm[0] - near, along),
                2: (along, tray_mm[1] - near),
                3: (near, along),
            }[wall]
        clear = all(
            math.hypot(x - ox, y - oy) >= 0.95 * (side + os_) / 2 for ox, oy, _, os_ in placed
        )
        if clear and 0 <= x <= tray_mm[0] and 0 <= y <= tray_mm[1]:
            return x, y, angle
    return None


def _random_tray(
    rng: np.random.Generator,
    sides: Sequence[float],
    touching: float,
    cocked: Sequence[bool],
    tray_mm: tuple[float, float],
    turn: float = 0.0,
) -> list[dict[str, Any]]:
    tray: list[dict[str, Any]] = []
    placed: list[tuple[float, float, float, float]] = []
    order = sorted(range(len(sides)), key=lambda i: cocked[i])  # flat dice first
    spots: dict[int, tuple[float, float, float]] = {}
    for i in order:
        if cocked[i]:
            spot = _lean_spot(rng, placed, sides[i], tray_mm)
        else:
            spot = _place(rng, placed, sides[i], bool(rng.random() < touching), tray_mm, turn)
        if spot is None:
            raise RenderError(f"cannot fit {len(sides)} dice in a {tray_mm} mm tray")
        spots[i] = spot
        placed.append((*spot, sides[i]))
    for i in range(len(sides)):
        x, y, angle = spots[i]
        value = int(rng.integers(1, 7))
        tray.append({"value": value, "x": x, "y": y, "angle": angle % 360, "cocked": cocked[i]})
    return tray


def random_tray(
    seed: int,
    n_dice: int = 6,
    *,
    touching: float = 0.15,
    cocked: int = 0,
    tray_mm: tuple[float, float] = TRAY_MM,
    die_mm: float = DIE_MM,
) -> list[dict[str, Any]]:
    """Tray data with ``n_dice`` dice at random spots, ``cocked`` of them leaning.

    The throw is the simulated tower's (:func:`dicetray.throw`): the trays a
    tower throws, drawn from ``seed``.
    """
    _check_counts(n_dice, cocked)
    _check_seed(seed)
    if (
        isinstance(touching, bool)
        or not isinstance(touching, int | float)
        or not 0 <= touching <= 1
    ):
        raise RenderError(f"touching={touching!r}; use a chance from 0 to 1")
    rng = random.Random(int(seed))
    values = [rng.randint(1, 6) for _ in range(n_dice)]
    flags = [i < cocked for i in range(n_dice)]
    tray = throw(
        rng, values, touch_chance=float(touching), cocked=flags, tray_mm=tray_mm, die_mm=die_mm
    )
    if tray is None:
        raise RenderError(f"cannot fit {n_dice} dice of {die_mm:g} mm in a {tray_mm} mm tray")
    return tray


def _check_counts(
    n_dice: int, cocked: int | None, most: int = MAX_RANDOM_DICE, what: str = "a random scene"
) -> None:
    if isinstance(n_dice, bool) or not isinstance(n_dice, int) or not 0 <= n_dice <= most:
        raise RenderError(f"n_dice={n_dice!r}; {what} holds 0..{most} dice")
    if cocked is not None and (
        isinstance(cocked, bool) or not isinstance(cocked, int) or not 0 <= cocked <= n_dice
    ):
        raise RenderError(f"cocked={cocked!r}; use 0..n_dice ({n_dice})")


def random_scene(
    seed: int,
    n_dice: int = 6,
    *,
    size: tuple[int, int] = (640, 480),
    style: RenderStyle | str | None = None,
    touching: float | None = None,
    cocked: int | None = None,
    frame: int = 0,
    tray_mm: tuple[float, float] = TRAY_MM,
    die_mm: float = DIE_MM,
) -> tuple[Frame, dict[str, Any]]:
    """Throw ``n_dice`` dice at random and render them; the truth holds the tray too.

    ``touching`` is the chance that a die lands edge to edge with another and
    ``cocked`` the number of leaning dice; ``None`` takes both from the style.
    """
    _check_counts(n_dice, cocked)
    return _throw_scene(seed, n_dice, size, style, touching, cocked, frame, tray_mm, die_mm)


def random_pile(
    seed: int,
    n_dice: int = 20,
    *,
    size: tuple[int, int] = (640, 480),
    style: RenderStyle | str | None = None,
    touching: float = 0.85,
    cocked: int | None = None,
    frame: int = 0,
    tray_mm: tuple[float, float] = TRAY_MM,
    die_mm: float = DIE_MM,
) -> tuple[Frame, dict[str, Any]]:
    """A pile: up to ``MAX_PILE_DICE`` dice thrown mostly edge to edge, in touching groups,
    with the style's share leaning on their neighbours (``cocked``: that many instead)."""
    _check_counts(n_dice, cocked, MAX_PILE_DICE, "a pile")
    return _throw_scene(seed, n_dice, size, style, touching, cocked, frame, tray_mm, die_mm)


def _throw_scene(
    seed: int,
    n_dice: int,
    size: tuple[int, int],
    style: RenderStyle | str | None,
    touching: float | None,
    cocked: int | None,
    frame: int,
    tray_mm: tuple[float, float],
    die_mm: float,
) -> tuple[Frame, dict[str, Any]]:
    the_style = resolve_style(style)
    _check_seed(seed)
    size = _check_size(size)
    scene = _scene(size, seed, the_style, (float(tray_mm[0]), float(tray_mm[1])))
    rng = np.random.default_rng([seed, 0])
    if cocked is None:
        flags = [bool(rng.random() < the_style.cocked) for _ in range(n_dice)]
    else:
        flags = [i < cocked for i in range(n_dice)]
    chance = the_style.touching if touching is None else touching
    sides = [die_mm * look.size for look in scene.looks[:n_dice]]
    tray = _random_tray(rng, sides, chance, flags, tray_mm, the_style.touch_turn)
    return render_tray(
        tray, size=size, seed=seed, style=the_style, frame=frame, tray_mm=tray_mm, die_mm=die_mm
    )
