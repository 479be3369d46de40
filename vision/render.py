"""Synthetic top-down frames of a dice tray, with the ground truth of every die.

The simulated tower and the tests draw the tray data of ``docs/architecture.md``
(dicts with ``value``, ``x``, ``y`` in millimetres, ``angle`` in degrees and
``cocked``) through :func:`render_tray`. Everything is drawn with OpenCV on
``uint8`` images so a 640x480 frame takes a few milliseconds, and every random
choice comes from the seed so a frame can be rebuilt exactly.

Scene parts (floor colour, dice colours, lighting, perspective) depend on
``seed`` only; sensor parts (noise, a little lighting flicker) also depend on
``frame``, so consecutive frames of a still tray differ like a real camera's.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

TRAY_MM = (240.0, 180.0)
DIE_MM = 16.0
MAX_RANDOM_DICE = 12

Frame = NDArray[np.uint8]
Color = tuple[int, int, int]

#: Die body colours (BGR) by name.
DIE_COLORS: dict[str, Color] = {
    "white": (236, 236, 234),
    "ivory": (198, 228, 240),
    "red": (42, 40, 188),
    "green": (72, 150, 38),
    "blue": (172, 82, 28),
    "black": (36, 34, 34),
}
#: Pip colours (BGR) by name.
PIP_COLORS: dict[str, Color] = {
    "black": (26, 24, 24),
    "white": (242, 242, 242),
    "red": (40, 36, 204),
}
#: Least difference in grey level between a die and its pips: pips always contrast.
MIN_PIP_CONTRAST = 90.0

# Pip centres on a face, in units of the pip spacing, before the die's rotation.
_PIP_LAYOUT: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}
_PIP_SPACING = 0.27  # of the die's side
_PIP_RADIUS = 0.085  # of the die's side
_SHIFT = 4  # fixed-point bits for sub-pixel polygon drawing
_ONE = 1 << _SHIFT


class RenderError(ValueError):
    """Bad tray data, size or style handed to the renderer."""


def _grey(color: Color) -> float:
    b, g, r = color
    return 0.114 * b + 0.587 * g + 0.299 * r


@functools.lru_cache(maxsize=16)
def pip_colors_for(die_color: str) -> tuple[str, ...]:
    """Pip colours that contrast with a die colour (e.g. white dice: black or red pips)."""
    if die_color not in DIE_COLORS:
        raise RenderError(f"unknown die colour {die_color!r}; use one of {sorted(DIE_COLORS)}")
    body = _grey(DIE_COLORS[die_color])
    return tuple(
        name for name, pip in PIP_COLORS.items() if abs(_grey(pip) - body) >= MIN_PIP_CONTRAST
    )


def _check_color(color: Any) -> Color:
    """A BGR colour of three 0..255 integers."""
    if (
        not isinstance(color, Sequence)
        or len(color) != 3
        or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255 for v in color)
    ):
        raise RenderError(f"colour {color!r} is not (blue, green, red) with values 0..255")
    return (color[0], color[1], color[2])


@dataclass(frozen=True)
class RenderStyle:
    """The difficulty knobs of a rendered frame; 0 turns an effect off.

    Lengths are in millimetres on the tray floor unless named ``_px``;
    strengths are fractions of full scale.
    """

    name: str = "custom"
    floor_colors: tuple[Color, ...] = ((70, 92, 52), (96, 96, 96), (60, 60, 150))
    die_colors: tuple[str, ...] = tuple(DIE_COLORS)
    mixed_colors: bool = False  # each die its own colour, not one set per scene
    size_jitter: float = 0.02  # spread of die sizes (fraction of DIE_MM)
    color_jitter: float = 0.02  # spread of die body brightness per die
    corner_radius: float = 0.16  # of the die's side
    perspective: float = 0.01  # corner displacement, fraction of the frame
    camera_height_mm: float = 0.0  # camera above the floor; 0: far away (no side faces)
    shadow: float = 0.3  # darkening under a die's shadow
    shadow_blur_mm: float = 1.5
    shadow_offset_mm: tuple[float, float] = (1.2, 1.6)
    light_gradient: float = 0.08  # brightness change across the frame
    vignette: float = 0.1  # darkening at the frame's corners
    glare: float = 0.0  # brightness added by a specular spot
    floor_texture: float = 2.0  # grain of the matte floor, grey levels
    noise: float = 2.5  # sensor noise, grey levels (standard deviation)
    blur_px: float = 0.6  # Gaussian blur sigma in pixels
    jpeg_quality: int = 0  # 0: no JPEG round trip; else 1..100
    flicker: float = 0.005  # per-frame lighting change
    touching: float = 0.15  # random scenes: chance a die is placed touching another
    cocked: float = 0.0  # random scenes: chance a die is cocked
    marbled: float = 0.0  # chance a die's body is swirled with veins of a second colour
    translucent: float = 0.0  # chance a die's body lets the floor show through
    glints: float = 0.0  # chance of a specular streak on a die's top face

    def __post_init__(self) -> None:
        floors = tuple(_check_color(c) for c in self.floor_colors)
        if not floors:
            raise RenderError("style needs at least one floor colour")
        for name in self.die_colors:
            pip_colors_for(name)
        if not self.die_colors:
            raise RenderError("style needs at least one die colour")
        offset = tuple(float(v) for v in self.shadow_offset_mm)
        if len(offset) != 2 or not all(abs(v) <= 10 for v in offset):
            raise RenderError(f"style shadow_offset_mm={self.shadow_offset_mm}: use (dx, dy), ±10")
        # lists become tuples: the style is hashable and keys the scene cache
        object.__setattr__(self, "floor_colors", floors)
        object.__setattr__(self, "die_colors", tuple(self.die_colors))
        object.__setattr__(self, "shadow_offset_mm", offset)
        limits = {
            "size_jitter": 0.25,
            "color_jitter": 0.5,
            "corner_radius": 0.5,
            "perspective": 0.15,
            "shadow": 1.0,
            "shadow_blur_mm": 10.0,
            "light_gradient": 0.8,
            "vignette": 0.8,
            "glare": 1.0,
            "floor_texture": 40.0,
            "noise": 40.0,
            "blur_px": 5.0,
            "flicker": 0.2,
            "touching": 1.0,
            "cocked": 1.0,
            "marbled": 1.0,
            "translucent": 1.0,
            "glints": 1.0,
        }
        for key, top in limits.items():
            value = getattr(self, key)
            if not 0.0 <= value <= top:
                raise RenderError(f"style {key}={value} is out of range; use 0..{top}")
        if self.camera_height_mm != 0 and not 120 <= self.camera_height_mm <= 5000:
            raise RenderError(
                f"style camera_height_mm={self.camera_height_mm}; use 0 (far) or 120..5000"
            )
        if not 0 <= self.jpeg_quality <= 100:
            raise RenderError(f"style jpeg_quality={self.jpeg_quality}; use 0 (off) or 1..100")


#: A calibrated tower: fixed lighting, matte floor, one set of dice, modest noise.
TOWER = RenderStyle(name="tower")
#: Everything turned up: mixed colours, perspective, strong shadows, glare, noise, JPEG.
HARD = RenderStyle(
    name="hard",
    floor_colors=((70, 92, 52), (96, 96, 96), (60, 60, 150), (150, 150, 150), (40, 40, 40)),
    mixed_colors=True,
    size_jitter=0.08,
    color_jitter=0.1,
    corner_radius=0.22,
    perspective=0.05,
    camera_height_mm=350.0,
    shadow=0.6,
    shadow_blur_mm=3.0,
    shadow_offset_mm=(2.5, 3.0),
    light_gradient=0.35,
    vignette=0.4,
    glare=0.5,
    floor_texture=8.0,
    noise=9.0,
    blur_px=1.3,
    jpeg_quality=55,
    flicker=0.02,
    touching=0.4,
    cocked=0.1,
)
STYLES: dict[str, RenderStyle] = {"tower": TOWER, "hard": HARD}


def resolve_style(style: RenderStyle | str | None) -> RenderStyle:
    """``None`` is the tower style; a name picks from :data:`STYLES`."""
    if style is None:
        return TOWER
    if isinstance(style, RenderStyle):
        return style
    if isinstance(style, str) and style in STYLES:
        return STYLES[style]
    raise RenderError(f"unknown render style {style!r}; use one of {sorted(STYLES)}")


def _check_size(size: Sequence[int]) -> tuple[int, int]:
    if (
        len(size) != 2
        or not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in size)
        or not (32 <= size[0] <= 8192 and 32 <= size[1] <= 8192)
    ):
        raise RenderError(f"frame size {tuple(size)!r} is invalid; use (width, height), 32..8192")
    return int(size[0]), int(size[1])


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
    for key, names in (("color", DIE_COLORS), ("pip_color", PIP_COLORS)):
        if key in die and die[key] not in names:
            raise RenderError(f"die {index}: {key}={die[key]!r}; use one of {sorted(names)}")
        if key in die:
            checked[key] = die[key]
    return checked


@dataclass(frozen=True)
class _Geometry:
    """Where the tray lies in the frame: millimetres to pixels, then a slight perspective."""

    scale: float  # pixels per millimetre
    matrix: NDArray[np.float64]  # 3x3: floor millimetres to frame pixels
    nadir: tuple[float, float] = (0.0, 0.0)  # floor point under the camera, mm
    height: float = 0.0  # camera above the floor, mm; 0: far away (no parallax)

    def to_px(self, points_mm: NDArray[np.float64]) -> NDArray[np.float64]:
        """Map (N, 2) floor millimetres to (N, 2) frame pixels."""
        m = self.matrix
        mapped = points_mm @ m[:, :2].T + m[:, 2]
        return np.asarray(mapped[:, :2] / mapped[:, 2:3])

    def project(self, points: NDArray[np.float64]) -> NDArray[np.float64]:
        """Map (N, 3) millimetres above the floor to frame pixels through the camera."""
        flat = points[:, :2]
        if self.height > 0:  # a point higher up lands farther from the nadir
            nadir = np.asarray(self.nadir)
            flat = nadir + (flat - nadir) * (self.height / (self.height - points[:, 2:3]))
        return self.to_px(flat)

    def sees(self, points: NDArray[np.float64], normals: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Which faces, through (N, 3) ``points`` with outward ``normals``, face the camera."""
        if self.height <= 0:
            return np.asarray(normals[:, 2] > 1e-6)
        eye = np.array([self.nadir[0], self.nadir[1], self.height])
        return np.asarray(np.einsum("ij,ij->i", normals, eye - points) > 1e-6)


def _geometry(
    size: tuple[int, int],
    tray_mm: tuple[float, float],
    perspective: float,
    camera_height: float,
    rng: np.random.Generator,
) -> _Geometry:
    w, h = size
    scale = min(0.86 * w / tray_mm[0], 0.86 * h / tray_mm[1])
    place = np.array(
        [
            [scale, 0, (w - tray_mm[0] * scale) / 2],
            [0, scale, (h - tray_mm[1] * scale) / 2],
            [0, 0, 1],
        ]
    )
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    moved = corners + rng.uniform(-1, 1, (4, 2)).astype(np.float32) * perspective * min(w, h)
    tilt = cv2.getPerspectiveTransform(corners, moved.astype(np.float32))
    nadir = (tray_mm[0] / 2, tray_mm[1] / 2)
    return _Geometry(scale, np.asarray(tilt.astype(np.float64) @ place), nadir, camera_height)


def _poly(points_px: NDArray[np.float64]) -> NDArray[np.int32]:
    return np.round(points_px * _ONE).astype(np.int32)


def _shade(color: Color, gain: float) -> Color:
    return (
        min(255, int(color[0] * gain)),
        min(255, int(color[1] * gain)),
        min(255, int(color[2] * gain)),
    )


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


@functools.lru_cache(maxsize=8)
def _outline(corner: float, steps: int = 5) -> NDArray[np.float64]:
    """A rounded square of side 1 centred on 0: (N, 2) points in face units."""
    r = min(max(corner, 0.0), 0.5)
    if r == 0:
        return np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    points = []
    for cx, cy, start in ((0.5, 0.5, 0), (-0.5, 0.5, 90), (-0.5, -0.5, 180), (0.5, -0.5, 270)):
        centre = (cx - math.copysign(r, cx), cy - math.copysign(r, cy))
        for k in range(steps):
            t = math.radians(start + 90 * k / (steps - 1))
            points.append((centre[0] + r * math.cos(t), centre[1] + r * math.sin(t)))
    return np.array(points)


_PIP_POINTS = 14


@functools.lru_cache(maxsize=64)
def _face_template(value: int, corner: float) -> NDArray[np.float64]:
    """Face-unit points of a face: rounded outline, inset face, then each pip's polygon."""
    outline = _outline(corner)
    t = np.linspace(0, 2 * math.pi, _PIP_POINTS, endpoint=False)
    circle = np.stack([np.cos(t), np.sin(t)], axis=1) * _PIP_RADIUS
    pips = [circle + np.array(p) * _PIP_SPACING for p in _PIP_LAYOUT[value]]
    return np.vstack([outline, outline * 0.84, *pips])


# Faces of a cube of side 1 centred on 0 that can face the camera: (centre, u axis, v axis);
# z is up. The top comes last so that its points close the stacked array of a die.
_FACES = {
    "+x": ((0.5, 0, 0), (0, 1, 0), (0, 0, 1)),
    "-x": ((-0.5, 0, 0), (0, 1, 0), (0, 0, 1)),
    "+y": ((0, 0.5, 0), (1, 0, 0), (0, 0, 1)),
    "-y": ((0, -0.5, 0), (1, 0, 0), (0, 0, 1)),
    "top": ((0, 0, 0.5), (1, 0, 0), (0, 1, 0)),
}
_FACE_MIDDLES = np.array([middle for middle, _, _ in _FACES.values()], dtype=np.float64)
_CUBE = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
# The top face's centre and corners, for the ground truth.
_TOP_MARKS = np.array(
    [[0, 0, 0.5], [-0.5, -0.5, 0.5], [0.5, -0.5, 0.5], [0.5, 0.5, 0.5], [-0.5, 0.5, 0.5]]
)


@functools.lru_cache(maxsize=256)
def _face_points(face: str, value: int, corner: float) -> NDArray[np.float64]:
    """A face's outline, inset and pips as points on the unit cube, before rotation."""
    middle, u, v = (np.asarray(a, dtype=np.float64) for a in _FACES[face])
    uv = _face_template(value, corner)
    return np.asarray(middle + uv[:, :1] * u + uv[:, 1:2] * v)


def _rotation(angle_deg: float, lean: tuple[int, int], tilt_deg: float) -> NDArray[np.float64]:
    """Yaw by the die's angle after tipping its top by ``tilt`` toward local ``lean``."""
    a = math.radians(angle_deg)
    yaw = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    if tilt_deg == 0:
        return yaw
    k = np.array([-lean[1], lean[0], 0.0])  # axis z x lean
    cross = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    t = math.radians(tilt_deg)
    tip = np.eye(3) + math.sin(t) * cross + (1 - math.cos(t)) * cross @ cross
    return np.asarray(yaw @ tip)


@dataclass(frozen=True)
class _DieLook:
    """How die number ``index`` of a scene looks: fixed by the seed."""

    color: str
    pip_color: str
    size: float  # multiple of die_mm
    brightness: float
    tilt: float  # degrees, used only when the die is cocked
    side_pick: int
    finish: str = "solid"  # "solid", "marbled" or "translucent"
    vein: Color | None = None  # a marbled die's second colour
    glint: bool = False  # a specular streak on the top face
    pattern: int = 0  # seed of the die's veins and glint


@dataclass(frozen=True)
class _Scene:
    """The parts of a frame fixed by the seed: tray, background, lighting, dice looks."""

    geo: _Geometry
    background: Frame
    gain: Frame  # lighting, 128 = 1.0
    glare: Frame | None
    looks: tuple[_DieLook, ...]


MAX_TRAY_DICE = 64


def _looks(style: RenderStyle, rng: np.random.Generator) -> tuple[_DieLook, ...]:
    """Colours, sizes and lean of every die slot of a scene: one set, or mixed colours."""
    n = MAX_TRAY_DICE
    colors = rng.integers(0, len(style.die_colors), n if style.mixed_colors else 1)
    picks = rng.integers(0, 6, n if style.mixed_colors else 1)
    sizes = 1.0 + np.clip(rng.normal(0, 1, n), -2.5, 2.5) * style.size_jitter
    brightness = 1.0 + np.clip(rng.normal(0, 1, n), -2.5, 2.5) * style.color_jitter
    tilts, sides = rng.uniform(18, 38, n), rng.integers(0, 4, n)
    finishes = style.marbled > 0 or style.translucent > 0 or style.glints > 0
    if finishes:  # drawn only then, so that older styles keep their exact frames
        kinds, veins = rng.random(n), rng.integers(0, len(DIE_COLORS), n)
        glints, patterns = rng.random(n) < style.glints, rng.integers(0, 2**31, n)
    looks = []
    for i in range(n):
        k = i if style.mixed_colors else 0
        color = style.die_colors[int(colors[k])]
        pips = pip_colors_for(color)
        pip = pips[int(picks[k]) % len(pips)]
        look = _DieLook(
            color, pip, float(sizes[i]), float(brightness[i]), float(tilts[i]), int(sides[i])
        )
        if finishes:
            kind = float(kinds[k])
            finish = (
                "marbled"
                if kind < style.marbled
                else "translucent"
                if kind < style.marbled + style.translucent
                else "solid"
            )
            vein = _vein_color(color, pip, int(veins[k])) if finish == "marbled" else None
            look = replace(
                look, finish=finish, vein=vein, glint=bool(glints[i]), pattern=int(patterns[i])
            )
        looks.append(look)
    return tuple(looks)


def _vein_color(body: str, pip: str, pick: int) -> Color:
    """A second colour for a marbled die's veins, on the same side of the pips as its body."""
    pip_grey, body_grey = _grey(PIP_COLORS[pip]), _grey(DIE_COLORS[body])
    fits = [
        c
        for name, c in DIE_COLORS.items()
        if name != body
        and (_grey(c) - pip_grey) * (body_grey - pip_grey) > 0
        and abs(_grey(c) - pip_grey) >= 0.6 * MIN_PIP_CONTRAST
    ]
    if fits:
        return fits[pick % len(fits)]
    return _shade(DIE_COLORS[body], 1.4 if body_grey > pip_grey else 0.6)


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
    geo = _geometry(size, tray_mm, style.perspective, style.camera_height_mm, rng)
    floor = _floor(style, looks[0].color, rng)
    background = _background(size, geo, tray_mm, floor, style.floor_texture, rng)
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
        body = np.asarray(DIE_COLORS[set_color], dtype=float)
        apart = [f for f in floors if np.linalg.norm(np.asarray(f, dtype=float) - body) >= 80]
        floors = apart or [max(floors, key=lambda f: float(np.linalg.norm(np.subtract(f, body))))]
    return floors[int(rng.integers(0, len(floors)))]


def _lean(
    die: Mapping[str, Any], others: Sequence[Mapping[str, Any]], tray_mm: tuple[float, float]
) -> tuple[int, int]:
    """The die's local axis pointing at the nearest other die or wall: where it leans."""
    x, y = die["x"], die["y"]
    target = min(
        [
            (x, (-1.0, 0.0)),
            (tray_mm[0] - x, (1.0, 0.0)),
            (y, (0.0, -1.0)),
            (tray_mm[1] - y, (0.0, 1.0)),
        ]
        + [
            (math.hypot(o["x"] - x, o["y"] - y) - DIE_MM / 2, ((o["x"] - x), (o["y"] - y)))
            for o in others
            if o is not die
        ],
        key=lambda item: item[0],
    )[1]
    a = math.radians(die["angle"])
    local = (
        target[0] * math.cos(a) + target[1] * math.sin(a),
        -target[0] * math.sin(a) + target[1] * math.cos(a),
    )
    if abs(local[0]) >= abs(local[1]):
        return (1 if local[0] >= 0 else -1, 0)
    return (0, 1 if local[1] >= 0 else -1)


@functools.lru_cache(maxsize=64)
def _face_values(value: int, pick: int) -> dict[str, int]:
    """Values on every face of a die showing ``value`` on top (opposite faces sum to 7)."""
    a, b = [
        (p, q)
        for p in range(1, 7)
        for q in range(1, 7)
        if len({value, 7 - value, p, q, 7 - p, 7 - q}) == 6
    ][pick % 8]
    return {"top": value, "+x": a, "-x": 7 - a, "+y": b, "-y": 7 - b}


@dataclass(frozen=True)
class _DiePlan:
    """One die's polygons in frame pixels, ready to paint (fixed-point for cv2)."""

    faces: tuple[tuple[NDArray[np.int32], NDArray[np.int32], list[NDArray[np.int32]], float], ...]
    body: Color
    pip: Color
    silhouette: NDArray[np.float64]  # frame pixels, all visible faces
    centre: tuple[float, float]  # frame pixels, centre of the top face
    corners: NDArray[np.float64]  # frame pixels, the top face's four corners
    look: _DieLook | None = None  # its finish and glint (None: solid, no glint)


def _plan_die(
    die: Mapping[str, Any],
    look: _DieLook,
    geo: _Geometry,
    lean: tuple[int, int],
    corner_radius: float,
    die_mm: float,
) -> _DiePlan:
    """Project the faces of a die that the camera sees: the top, and any side faces.

    A cocked die is tipped toward ``lean`` and shows a side face; a camera at a
    finite height also sees the sides of dice away from the middle of the tray.
    """
    cocked = bool(die["cocked"])
    rot = _rotation(die["angle"], lean, look.tilt if cocked else 0.0)
    side = die_mm * look.size
    lift = -float((_CUBE @ rot.T)[:, 2].min())  # the lowest corner rests on the floor
    centre = np.array([die["x"], die["y"], lift * side])
    normals = 2 * _FACE_MIDDLES @ rot.T
    visible = geo.sees(centre + normals * (side / 2), normals)
    values = _face_values(die["value"], look.side_pick)
    faces = [(face, normals[k]) for k, face in enumerate(_FACES) if visible[k]]
    local = [_face_points(face, values[face], corner_radius) for face, _ in faces]
    px = geo.project(centre + (np.vstack([*local, _TOP_MARKS]) @ rot.T) * side)
    fixed = _poly(px)
    n = len(_outline(corner_radius))
    drawn, silhouette, start = [], [], 0
    for (_, normal), points in zip(faces, local, strict=True):
        mine = fixed[start : start + len(points)]
        pips = [mine[k : k + _PIP_POINTS] for k in range(2 * n, len(mine), _PIP_POINTS)]
        gain = 0.55 + 0.45 * max(0.0, float(normal[2]))  # light from above
        drawn.append((mine[:n], mine[n : 2 * n], pips, gain))
        silhouette.append(px[start : start + n])
        start += len(points)
    top = px[start:]
    return _DiePlan(
        faces=tuple(drawn),
        body=_shade(DIE_COLORS[die.get("color", look.color)], look.brightness),
        pip=PIP_COLORS[die.get("pip_color", look.pip_color)],
        silhouette=np.vstack(silhouette),
        centre=(float(top[0, 0]), float(top[0, 1])),
        corners=top[1:],
        look=look,
    )


def _paint_die(image: Frame, plan: _DiePlan) -> None:
    """Draw a planned die: darker rounded edge, face, then pips, each shaded per face.

    Marbled and translucent dice and glints are drawn face by face in a patch around the
    face, then laid on the frame through the face's mask.
    """
    look = plan.look
    if look is None or (look.finish == "solid" and not look.glint):
        for outer, inset, pips, gain in plan.faces:
            cv2.fillPoly(image, [outer], _shade(plan.body, gain * 0.78), cv2.LINE_AA, _SHIFT)
            cv2.fillPoly(image, [inset], _shade(plan.body, gain), cv2.LINE_AA, _SHIFT)
            cv2.fillPoly(image, pips, _shade(plan.pip, gain), cv2.LINE_AA, _SHIFT)
        return
    rng = np.random.default_rng(look.pattern)
    top = max(range(len(plan.faces)), key=lambda k: plan.faces[k][3])
    for k, (outer, inset, pips, gain) in enumerate(plan.faces):
        _paint_face(image, plan, look, outer, inset, pips, gain, k == top, rng)


def _paint_face(
    image: Frame,
    plan: _DiePlan,
    look: _DieLook,
    outer: NDArray[np.int32],
    inset: NDArray[np.int32],
    pips: list[NDArray[np.int32]],
    gain: float,
    top: bool,
    rng: np.random.Generator,
) -> None:
    """One face of a marbled, translucent or glinting die (see :func:`_paint_die`)."""
    h, w = image.shape[:2]
    x0, y0 = np.maximum((outer.min(axis=0) >> _SHIFT) - 1, 0)
    x1, y1 = np.minimum((outer.max(axis=0) >> _SHIFT) + 2, (w, h))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    shift = np.array([x0, y0], np.int32) << _SHIFT
    outer, inset, pips = outer - shift, inset - shift, [p - shift for p in pips]
    under = image[y0:y1, x0:x1].astype(np.float32)
    patch = np.zeros_like(under)
    cv2.fillPoly(patch, [outer], _shade(plan.body, gain * 0.78), cv2.LINE_AA, _SHIFT)
    cv2.fillPoly(patch, [inset], _shade(plan.body, gain), cv2.LINE_AA, _SHIFT)
    face = np.zeros(under.shape[:2], np.float32)
    cv2.fillPoly(face, [inset], 1.0, cv2.LINE_AA, _SHIFT)
    side = max(3.0, math.sqrt(float(face.sum())))
    if look.finish == "marbled" and look.vein is not None:
        veins = _veins(face.shape, side, rng) * face
        vein = np.array(_shade(look.vein, gain), np.float32)
        patch += veins[..., None] * (vein - patch)
    if look.finish == "translucent":  # the floor shows through the body, not the pips
        alpha = float(rng.uniform(0.55, 0.8))
        patch = alpha * patch + (1 - alpha) * under * 0.8
    pip_mask = np.zeros(under.shape[:2], np.float32)
    cv2.fillPoly(pip_mask, pips, 1.0, cv2.LINE_AA, _SHIFT)
    pip = np.array(_shade(plan.pip, gain), np.float32)
    patch += pip_mask[..., None] * (pip - patch)
    if top and look.glint:
        patch += _glint(face.shape, side, rng)[..., None] * face[..., None] * (255 - patch)
    body = np.zeros(under.shape[:2], np.float32)
    cv2.fillPoly(body, [outer], 1.0, cv2.LINE_AA, _SHIFT)
    out = under + body[..., None] * (patch - under)
    image[y0:y1, x0:x1] = np.clip(out, 0, 255).astype(np.uint8)


def _veins(shape: tuple[int, ...], side: float, rng: np.random.Generator) -> NDArray[np.float32]:
    """Strength 0..1 of swirling veins over a patch: bands bent by smooth noise."""
    h, w = shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32) / np.float32(side)
    cells = int(rng.integers(2, 5))
    warp = cv2.resize(
        rng.normal(0, 1, (cells, cells)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC
    )
    theta = float(rng.uniform(0, math.pi))
    bands = float(rng.uniform(1.5, 4.0))  # vein spacing: this many per side
    phase = (xs * math.cos(theta) + ys * math.sin(theta)) * bands + 0.8 * warp
    width = float(rng.uniform(0.2, 0.9))
    strength = float(rng.uniform(0.45, 0.9))
    return np.asarray(np.exp(-(np.sin(math.pi * phase) ** 2) / width**2) * strength, np.float32)


def _glint(shape: tuple[int, ...], side: float, rng: np.random.Generator) -> NDArray[np.float32]:
    """Strength 0..1 of a soft specular streak or spot somewhere on a face."""
    h, w = shape[:2]
    mask = np.zeros((h, w), np.float32)
    centre = (
        w / 2 + float(rng.uniform(-0.3, 0.3)) * side,
        h / 2 + float(rng.uniform(-0.3, 0.3)) * side,
    )
    long = float(rng.uniform(0.06, 0.4)) * side
    short = float(rng.uniform(0.03, 0.09)) * side
    cv2.ellipse(
        mask,
        ((centre[0], centre[1]), (long, short), float(rng.uniform(0, 180))),
        float(rng.uniform(0.5, 0.95)),
        -1,
        cv2.LINE_AA,
    )
    return np.asarray(cv2.GaussianBlur(mask, (0, 0), max(0.4, 0.02 * side)), np.float32)


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


def _box(points: NDArray[np.float64], size: tuple[int, int]) -> list[int]:
    x0, y0 = np.floor(points.min(axis=0)) - 1
    x1, y1 = np.ceil(points.max(axis=0)) + 1
    return [max(0, int(x0)), max(0, int(y0)), min(size[0] - 1, int(x1)), min(size[1] - 1, int(y1))]


def _paint_order(dice: Sequence[Mapping[str, Any]], geo: _Geometry) -> list[int]:
    """Back to front: flat dice far from the camera's nadir first, cocked dice last.

    A nearer die's top hides the side of a farther one it touches, and a
    leaning die lies on top of what it leans on.
    """
    nx, ny = geo.nadir
    return sorted(
        range(len(dice)),
        key=lambda i: (
            bool(dice[i]["cocked"]),
            -math.hypot(dice[i]["x"] - nx, dice[i]["y"] - ny),
        ),
    )


def _occluded(plans: Sequence[_DiePlan], order: Sequence[int]) -> list[bool]:
    """True for each die whose top face a die painted after it covers by more than a sliver."""
    tops = [p.corners.astype(np.float32) for p in plans]
    hulls = [cv2.convexHull(p.silhouette.astype(np.float32)) for p in plans]
    flags = [False] * len(plans)
    for rank, i in enumerate(order):
        flags[i] = any(
            cv2.intersectConvexConvex(tops[i], hulls[j])[0] > 4.0 for j in order[rank + 1 :]
        )
    return flags


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
) -> tuple[float, float, float] | None:
    """A free spot for a die: anywhere, or edge to edge with a placed die."""
    for _ in range(300):
        if touching and placed:
            ox, oy, oa, os_ = placed[int(rng.integers(0, len(placed)))]
            towards = math.radians(oa + 90 * int(rng.integers(0, 4)))
            slide = float(rng.uniform(-0.35, 0.35)) * side
            gap = (os_ + side) / 2 + float(rng.uniform(0.35, 0.8))
            x = ox + gap * math.cos(towards) - slide * math.sin(towards)
            y = oy + gap * math.sin(towards) + slide * math.cos(towards)
            angle = oa + float(rng.uniform(-1.0, 1.0))
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
) -> list[dict[str, Any]]:
    tray: list[dict[str, Any]] = []
    placed: list[tuple[float, float, float, float]] = []
    order = sorted(range(len(sides)), key=lambda i: cocked[i])  # flat dice first
    spots: dict[int, tuple[float, float, float]] = {}
    for i in order:
        if cocked[i]:
            spot = _lean_spot(rng, placed, sides[i], tray_mm)
        else:
            spot = _place(rng, placed, sides[i], bool(rng.random() < touching), tray_mm)
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
    """Tray data with ``n_dice`` dice at random spots, ``cocked`` of them leaning."""
    _check_counts(n_dice, cocked)
    _check_seed(seed)
    rng = np.random.default_rng([seed, 0])
    flags = [i < cocked for i in range(n_dice)]
    return _random_tray(rng, [die_mm] * n_dice, touching, flags, tray_mm)


def _check_seed(seed: Any) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise RenderError(f"seed={seed!r} must be a whole number >= 0")


def _check_counts(n_dice: int, cocked: int | None) -> None:
    if (
        isinstance(n_dice, bool)
        or not isinstance(n_dice, int)
        or not 0 <= n_dice <= MAX_RANDOM_DICE
    ):
        raise RenderError(f"n_dice={n_dice!r}; a random scene holds 0..{MAX_RANDOM_DICE} dice")
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
    the_style = resolve_style(style)
    _check_counts(n_dice, cocked)
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
    tray = _random_tray(rng, sides, chance, flags, tray_mm)
    return render_tray(
        tray, size=size, seed=seed, style=the_style, frame=frame, tray_mm=tray_mm, die_mm=die_mm
    )
