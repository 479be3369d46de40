"""A rendered frame around the dice: floor, walls, lighting, shadows and the sensor."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from dicetray import DIE_MM, TRAY_MM
from vision.render.camera import _Geometry, _geometry
from vision.render.painting import (
    _SHIFT,
    MAX_TRAY_DICE,
    _box,
    _DieLook,
    _DiePlan,
    _lean,
    _looks,
    _occluded,
    _paint_die,
    _paint_order,
    _plan_die,
    _poly,
    dress_looks,
    extra_looks,
)
from vision.render.style import (
    ALL_DIE_COLORS,
    ALL_PIP_COLORS,
    Color,
    Frame,
    RenderError,
    RenderStyle,
    _check_seed,
    _check_size,
    _shade,
    resolve_style,
)
from vision.render.surfaces import dress_floor, motion_blur, view_warp


@functools.lru_cache(maxsize=4)
def _noise_bank(width: int, height: int, sigma10: int) -> tuple[Frame, Frame]:
    """Gaussian noise larger than a frame, split in its positive and negative parts.

    Frames take shifted windows of it: much faster than drawing fresh noise.
    """
    rng = np.random.default_rng(sigma10)
    bank = rng.standard_normal((height + 61, width + 83, 3), dtype=np.float32) * (sigma10 / 10)
    bank = np.round(bank)
    plus, minus = np.clip(bank, 0, 255).astype(np.uint8), np.clip(-bank, 0, 255).astype(np.uint8)
    plus.flags.writeable = minus.flags.writeable = False
    return plus, minus


def _add_noise(image: Frame, sigma: float, rng: np.random.Generator) -> Frame:
    h, w = image.shape[:2]
    plus, minus = _noise_bank(w, h, max(1, round(sigma * 10)))
    dy, dx = int(rng.integers(0, plus.shape[0] - h)), int(rng.integers(0, plus.shape[1] - w))
    image = np.asarray(cv2.add(image, plus[dy : dy + h, dx : dx + w]))
    return np.asarray(cv2.subtract(image, minus[dy : dy + h, dx : dx + w]))


def _background(
    size: tuple[int, int],
    geo: _Geometry,
    tray_mm: tuple[float, float],
    floor: Color,
    texture: float,
    rng: np.random.Generator,
) -> Frame:
    """The empty tray: surround, four wall faces shaded by the light, the matte floor."""
    w, h = size
    image = np.empty((h, w, 3), np.uint8)
    cv2.rectangle(image, (0, 0), (w, h), _shade(floor, 1.35), -1)
    wall_mm = 0.05 * tray_mm[1]
    outer = np.array(
        [
            [-wall_mm, -wall_mm],
            [tray_mm[0] + wall_mm, -wall_mm],
            [tray_mm[0] + wall_mm, tray_mm[1] + wall_mm],
            [-wall_mm, tray_mm[1] + wall_mm],
        ]
    )
    inner = np.array([[0, 0], [tray_mm[0], 0], [tray_mm[0], tray_mm[1]], [0, tray_mm[1]]])
    outer_px, inner_px = geo.to_px(outer), geo.to_px(inner)
    for side, gain in enumerate((0.55, 0.8, 0.95, 0.7)):  # top, right, bottom, left walls
        quad = np.array([outer_px[side], outer_px[(side + 1) % 4], inner_px[(side + 1) % 4]])
        quad = np.vstack([quad, inner_px[side]])
        cv2.fillPoly(image, [_poly(quad)], _shade(floor, gain), cv2.LINE_AA, _SHIFT)
    cv2.fillPoly(image, [_poly(inner_px)], floor, cv2.LINE_AA, _SHIFT)
    if texture > 0:
        grain = rng.normal(0, texture, (h // 3 + 1, w // 3 + 1)).astype(np.float32)
        grain = np.round(cv2.resize(grain, (w, h), interpolation=cv2.INTER_LINEAR))
        for part, op in ((grain, cv2.add), (-grain, cv2.subtract)):
            layer = cv2.cvtColor(np.clip(part, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)
            image = np.asarray(op(image, layer))
    return image


@dataclass(frozen=True)
class _Scene:
    """The parts of a frame fixed by the seed: tray, background, lighting, dice looks."""

    geo: _Geometry
    background: Frame
    gain: Frame  # lighting, 128 = 1.0
    glare: Frame | None
    looks: tuple[_DieLook, ...]


def _lighting(
    size: tuple[int, int], style: RenderStyle, rng: np.random.Generator
) -> tuple[Frame, Frame | None]:
    """Uneven light and vignetting as a gain image, and an optional glare spot."""
    w, h = size
    sw, sh = max(2, w // 8), max(2, h // 8)
    ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float64)
    xs, ys = (xs + 0.5) / sw - 0.5, (ys + 0.5) / sh - 0.5
    direction = rng.uniform(0, 2 * math.pi)
    gain = 1.0 + style.light_gradient * (xs * math.cos(direction) + ys * math.sin(direction))
    gain *= 1.0 - style.vignette * (xs**2 + ys**2) / 0.5
    small = np.clip(gain * 128, 0, 255).astype(np.uint8)
    full = cv2.resize(cv2.cvtColor(small, cv2.COLOR_GRAY2BGR), (w, h))
    glare = None
    if style.glare > 0:
        gx, gy = rng.uniform(-0.3, 0.3, 2)
        spot = np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * 0.08**2)) * style.glare * 160
        glare = cv2.resize(cv2.cvtColor(spot.astype(np.uint8), cv2.COLOR_GRAY2BGR), (w, h))
    return np.asarray(full), glare


@functools.lru_cache(maxsize=4)  # about 3 MB per 640x480 scene
def _scene(
    size: tuple[int, int], seed: int, style: RenderStyle, tray_mm: tuple[float, float]
) -> _Scene:
    rng = np.random.default_rng([seed, 1])
    looks = _looks(style, rng)
    looks = dress_looks(looks, style, seed)
    looks = extra_looks(looks, style, seed)
    view = view_warp(size, style.camera_tilt_deg, style.pixel_aspect, seed)
    geo = _geometry(size, tray_mm, style.perspective, style.camera_height_mm, rng, view)
    floor = _floor(style, looks[0].color, rng)
    background = _background(size, geo, tray_mm, floor, style.floor_texture, rng)
    if style.floor_kinds != ("matte",) or style.clutter > 0:
        inner = np.array([[0, 0], [tray_mm[0], 0], [tray_mm[0], tray_mm[1]], [0, tray_mm[1]]])
        background = dress_floor(background, geo.to_px(inner), floor, style, seed)
    gain, glare = _lighting(size, style, rng)
    for cached in (background, gain, glare):
        if cached is not None:
            cached.flags.writeable = False  # shared by every frame of the scene
    return _Scene(geo, background, gain, glare, looks)


def _floor(style: RenderStyle, set_color: str, rng: np.random.Generator) -> Color:
    """The floor colour: with one set of dice, one that stands apart from the dice.

    Whoever builds a tower picks a floor the dice show up on; mixed colours
    (the hard style) take any floor, dice that nearly vanish included.
    """
    floors = list(style.floor_colors)
    if not style.mixed_colors:
        body = np.asarray(ALL_DIE_COLORS[set_color], dtype=float)
        apart = [f for f in floors if np.linalg.norm(np.asarray(f, dtype=float) - body) >= 80]
        floors = apart or [max(floors, key=lambda f: float(np.linalg.norm(np.subtract(f, body))))]
    return floors[int(rng.integers(0, len(floors)))]


def _shadows(image: Frame, plans: Sequence[_DiePlan], style: RenderStyle, scale: float) -> Frame:
    """Darken the floor under each die's soft shadow (drawn at half size, then blurred)."""
    if style.shadow <= 0 or not plans:
        return image
    h, w = image.shape[:2]
    mask = np.zeros(((h + 1) // 2, (w + 1) // 2), np.uint8)
    offset = np.asarray(style.shadow_offset_mm) * scale
    for plan in plans:
        hull = cv2.convexHull(((plan.silhouette + offset) / 2).astype(np.float32))
        cv2.fillPoly(
            mask, [_poly(hull.reshape(-1, 2).astype(np.float64))], 255, cv2.LINE_AA, _SHIFT
        )
    sigma = max(0.5, style.shadow_blur_mm * scale / 2)
    mask = cv2.GaussianBlur(mask, (0, 0), sigma)
    darken = cv2.resize(mask, (w, h), interpolation=cv2.INTER_LINEAR)
    gain = 128 - (darken.astype(np.uint16) * int(style.shadow * 128) >> 8).astype(np.uint8)
    return np.asarray(cv2.multiply(image, cv2.cvtColor(gain, cv2.COLOR_GRAY2BGR), scale=1 / 128))


def _sensor(image: Frame, scene: _Scene, style: RenderStyle, rng: np.random.Generator) -> Frame:
    """Light the frame, then optics blur, sensor noise and JPEG compression."""
    flicker = 1.0 + float(rng.normal(0, style.flicker)) if style.flicker > 0 else 1.0
    image = np.asarray(cv2.multiply(image, scene.gain, scale=flicker / 128))
    if scene.glare is not None:
        image = np.asarray(cv2.add(image, scene.glare))
    if style.blur_px > 0:
        image = np.asarray(cv2.GaussianBlur(image, (0, 0), style.blur_px))
    if style.noise > 0:
        image = _add_noise(image, style.noise, rng)
    if style.jpeg_quality:
        _, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, style.jpeg_quality])
        image = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR))
    return image


def _number(die: Mapping[str, Any], key: str, index: int) -> float:
    value = die.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RenderError(f"die {index}: {key}={value!r} must be a finite number")
    return float(value)


def _check_die(die: Any, index: int, tray_mm: tuple[float, float]) -> dict[str, Any]:
    """One die of the tray data, checked and normalised (raises RenderError)."""
    if not isinstance(die, Mapping):
        raise RenderError(f"die {index}: expected a dict with value, x, y, angle, cocked")
    value = die.get("value")
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise RenderError(f"die {index}: value={value!r} is not a die value 1..6")
    x, y = _number(die, "x", index), _number(die, "y", index)
    angle = _number(die, "angle", index) if "angle" in die else 0.0
    if not (0.0 <= x <= tray_mm[0] and 0.0 <= y <= tray_mm[1]):
        raise RenderError(
            f"die {index}: centre ({x:g}, {y:g}) mm is off the tray floor "
            f"0..{tray_mm[0]:g} x 0..{tray_mm[1]:g} mm"
        )
    cocked = die.get("cocked", False)
    if not isinstance(cocked, bool):
        raise RenderError(f"die {index}: cocked={cocked!r} must be true or false")
    checked = {"value": value, "x": x, "y": y, "angle": angle, "cocked": cocked}
    for key, names in (("color", ALL_DIE_COLORS), ("pip_color", ALL_PIP_COLORS)):
        if key in die and die[key] not in names:
            raise RenderError(f"die {index}: {key}={die[key]!r}; use one of {sorted(names)}")
        if key in die:
            checked[key] = die[key]
    return checked


def render_tray(
    tray: Sequence[Mapping[str, Any]],
    *,
    size: tuple[int, int] = (640, 480),
    seed: int = 0,
    style: RenderStyle | str | None = None,
    frame: int = 0,
    tray_mm: tuple[float, float] = TRAY_MM,
    die_mm: float = DIE_MM,
) -> tuple[Frame, dict[str, Any]]:
    """Draw the tray data as a BGR camera frame; return it with the ground truth.

    ``seed`` fixes the scene (tray placement in the frame, floor, dice colours,
    lighting); ``frame`` varies only the sensor (noise, a little flicker). A
    die may carry ``color`` and ``pip_color`` names to override the scene's.
    Raises :class:`RenderError` (a ``ValueError``) for bad input.
    """
    size = _check_size(size)
    the_style = resolve_style(style)
    _check_seed(seed)
    if isinstance(frame, bool) or not isinstance(frame, int) or frame < 0:
        raise RenderError(f"frame={frame!r} must be a whole number >= 0")
    if not (die_mm > 0 and all(v > 2 * die_mm for v in tray_mm)):
        raise RenderError(f"tray {tray_mm} mm and die {die_mm} mm are not a usable tray")
    if isinstance(tray, str | bytes) or not isinstance(tray, Sequence):
        raise RenderError("tray must be a list of dice (dicts with value, x, y, angle, cocked)")
    if len(tray) > MAX_TRAY_DICE:
        raise RenderError(
            f"tray holds {len(tray)} dice; the renderer draws at most {MAX_TRAY_DICE}"
        )
    dice = [_check_die(die, i, tray_mm) for i, die in enumerate(tray)]
    scene = _scene(size, int(seed), the_style, (float(tray_mm[0]), float(tray_mm[1])))
    plans = [
        _plan_die(
            die,
            scene.looks[i],
            scene.geo,
            _lean(die, dice, tray_mm) if die["cocked"] else (1, 0),
            the_style.corner_radius,
            die_mm,
        )
        for i, die in enumerate(dice)
    ]
    image = _shadows(scene.background.copy(), plans, the_style, scene.geo.scale)
    order = _paint_order(dice, scene.geo)
    for i in order:
        _paint_die(image, plans[i])
    if the_style.motion_blur_px > 0:
        image = motion_blur(image, the_style.motion_blur_px, int(seed), int(frame))
    image = _sensor(image, scene, the_style, np.random.default_rng([int(seed), 2, int(frame)]))
    hidden = _occluded(plans, order)
    floor = scene.geo.to_px(
        np.array([[0, 0], [tray_mm[0], 0], [tray_mm[0], tray_mm[1]], [0, tray_mm[1]]])
    )
    truth = {
        "dice": [
            {
                "value": die["value"],
                "center": [round(plan.centre[0], 1), round(plan.centre[1], 1)],
                "box": _box(plan.silhouette, size),
                "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in plan.corners],
                "cocked": die["cocked"],
                "occluded": hidden[i],
                "color": die.get("color", scene.looks[i].color),
                "pip_color": die.get("pip_color", scene.looks[i].pip_color),
            }
            for i, (die, plan) in enumerate(zip(dice, plans, strict=True))
        ],
        "size": [size[0], size[1]],
        "seed": int(seed),
        "frame": int(frame),
        "style": the_style.name,
        "die_px": round(die_mm * scene.geo.scale, 1),
        "floor": [[round(float(x), 1), round(float(y), 1)] for x, y in floor],
        "tray": dice,
    }
    return image, truth
