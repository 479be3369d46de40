"""How a rendered frame looks: die and pip colours and the style knobs (:class:`RenderStyle`)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

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
#: More body colours (BGR), for styles that name them; the six above stay the default set.
MORE_DIE_COLORS: dict[str, Color] = {
    "violet": (130, 40, 110),
    "yellow": (40, 205, 235),
    "orange": (30, 120, 235),
    "pink": (180, 120, 235),
    "teal": (150, 140, 20),
    "brown": (40, 70, 120),
    "smoke": (70, 70, 76),
    "brass": (60, 170, 210),
    "silver": (192, 192, 196),
}
#: More pip colours (BGR), for styles whose ``pip_colors`` name them.
MORE_PIP_COLORS: dict[str, Color] = {
    "gold": (50, 180, 225),
    "blue": (170, 70, 20),
    "green": (60, 140, 30),
    "yellow": (40, 225, 245),
}
#: Every body and pip colour a die may carry, by name.
ALL_DIE_COLORS: dict[str, Color] = {**DIE_COLORS, **MORE_DIE_COLORS}
ALL_PIP_COLORS: dict[str, Color] = {**PIP_COLORS, **MORE_PIP_COLORS}
#: The pip palette of the named styles.
CLASSIC_PIPS = tuple(PIP_COLORS)
#: Kinds of floor a scene may have (``matte`` is the tower's; ``grit``: concrete, terrazzo or a
#: dusty board, whose specks look like a small die's single pip).
FLOOR_KINDS = ("matte", "wood", "cloth", "felt", "printed", "glossy", "grit")
#: Least difference in grey level between a die and its pips: pips always contrast.
MIN_PIP_CONTRAST = 90.0
#: The least a style's ``pip_contrast`` may be: red pips on black dice (52) pass, none on their
#: own body colour.
LEAST_PIP_CONTRAST = 40.0


class RenderError(ValueError):
    """Bad tray data, size or style handed to the renderer."""


def _grey(color: Color) -> float:
    b, g, r = color
    return 0.114 * b + 0.587 * g + 0.299 * r


@functools.lru_cache(maxsize=64)
def pip_colors_for(
    die_color: str, palette: tuple[str, ...] = CLASSIC_PIPS, least: float = MIN_PIP_CONTRAST
) -> tuple[str, ...]:
    """Pip colours of ``palette`` that contrast with a die colour (white dice: black or red)
    by at least ``least`` grey levels.

    When none of the palette contrasts enough, the palette's most contrasting colour.
    """
    if die_color not in ALL_DIE_COLORS:
        raise RenderError(f"unknown die colour {die_color!r}; use one of {sorted(ALL_DIE_COLORS)}")
    unknown = [p for p in palette if p not in ALL_PIP_COLORS]
    if unknown or not palette:
        raise RenderError(f"pip colours {list(palette)!r}: use some of {sorted(ALL_PIP_COLORS)}")
    body = _grey(ALL_DIE_COLORS[die_color])
    fits = tuple(name for name in palette if abs(_grey(ALL_PIP_COLORS[name]) - body) >= least)
    return fits or (max(palette, key=lambda p: abs(_grey(ALL_PIP_COLORS[p]) - body)),)


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
    highlight: float = 0.0  # strength of the lamp's soft reflection on every die's top face
    glossy: float = 0.0  # chance a set of dice is glossy: a sharp lamp spot and a bright rim
    translucent_colors: tuple[str, ...] = ()  # colours that may be translucent (empty: all)
    cocked_tilt_deg: tuple[float, float] = (18.0, 38.0)  # how far a cocked die leans
    # the wider domain of photos from elsewhere (docs/vision-frames.md, "A wider domain")
    floor_kinds: tuple[str, ...] = ("matte",)  # each scene's floor is one of these kinds
    clutter: float = 0.0  # chance of each of eight objects round the frame's edges
    camera_tilt_deg: float = 0.0  # an oblique view up to this angle: the far side smaller
    pixel_aspect: float = 1.0  # pixels stretched sideways (over 1) or squeezed, as exports do
    motion_blur_px: float = 0.0  # longest smear of a moving camera, pixels
    metallic: float = 0.0  # chance a die's body is metal, a bright band sweeping its faces
    engraved: float = 0.0  # chance a die's pips are engraved (a dark rim) rather than painted
    big_one: float = 0.0  # chance a die's 1 is one big pip
    pip_colors: tuple[str, ...] = CLASSIC_PIPS  # the palette a die's pips are drawn from
    # least grey-level difference between a die and its pips; lower lets pips of a close grey
    # but another hue through (red pips on black or blue dice, as many real sets have)
    pip_contrast: float = MIN_PIP_CONTRAST
    # finishes of real dice drawn on the top face (vision/render/finishes.py): chances per die
    show_through: float = 0.0  # a translucent die shows its hidden faces' pips, displaced
    dull_pips: float = 0.0  # coloured pips of a grey close to the body's (finishes.DULL_CONTRAST)
    ring_glare: float = 0.0  # a ring light's sharp arc reflected on the top face
    swirl: float = 0.0  # a body swirled in broad blotches of its colour and a partner
    touch_turn: float = 0.0  # random scenes: a touching die turned up to this many degrees
    # against the die it touches, a corner against a face (0: squared up, as before)

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
        for name in self.translucent_colors:
            pip_colors_for(name)
        object.__setattr__(self, "translucent_colors", tuple(self.translucent_colors))
        tilt = tuple(float(v) for v in self.cocked_tilt_deg)
        if len(tilt) != 2 or not 3.0 <= tilt[0] <= tilt[1] <= 60.0:
            raise RenderError(
                f"style cocked_tilt_deg={self.cocked_tilt_deg}: use (least, most) in 3..60 degrees"
            )
        object.__setattr__(self, "cocked_tilt_deg", tilt)
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
            "highlight": 1.0,
            "glossy": 1.0,
            "clutter": 1.0,
            "camera_tilt_deg": 45.0,
            "motion_blur_px": 20.0,
            "metallic": 1.0,
            "engraved": 1.0,
            "big_one": 1.0,
            "show_through": 1.0,
            "dull_pips": 1.0,
            "ring_glare": 1.0,
            "swirl": 1.0,
            "touch_turn": 45.0,
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
        if not 0.6 <= self.pixel_aspect <= 1.6:
            raise RenderError(f"style pixel_aspect={self.pixel_aspect}; use 0.6..1.6 (1: square)")
        kinds = tuple(self.floor_kinds)
        if not kinds or any(k not in FLOOR_KINDS for k in kinds):
            raise RenderError(f"style floor_kinds={self.floor_kinds!r}; use some of {FLOOR_KINDS}")
        object.__setattr__(self, "floor_kinds", kinds)
        object.__setattr__(self, "pip_colors", tuple(self.pip_colors))
        if not LEAST_PIP_CONTRAST <= self.pip_contrast <= MIN_PIP_CONTRAST:
            raise RenderError(
                f"style pip_contrast={self.pip_contrast}; use {LEAST_PIP_CONTRAST:.0f}.."
                f"{MIN_PIP_CONTRAST:.0f} grey levels (pips must still stand out)"
            )
        for name in self.die_colors:
            pip_colors_for(name, self.pip_colors, self.pip_contrast)


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
#: A tower as it stands between two calibrations, one per seed (floor, light, camera and
#: one set of dice: ivory, white, red, black, or green and blue that may be translucent),
#: with the lamp's soft reflection on every die, glossy sets, touching dice, and dice that
#: lean on a wall or a neighbour by 10 to 40 degrees when a roll asks for them.
SETUP = RenderStyle(
    name="setup",
    die_colors=("ivory", "white", "red", "black", "green", "blue"),
    translucent=0.4,
    translucent_colors=("green", "blue"),
    highlight=0.55,
    glossy=0.35,
    touching=0.3,
    cocked_tilt_deg=(10.0, 40.0),
    light_gradient=0.15,
    vignette=0.2,
)
STYLES: dict[str, RenderStyle] = {"tower": TOWER, "hard": HARD, "setup": SETUP}


def resolve_style(style: RenderStyle | str | None) -> RenderStyle:
    """``None`` is the tower style; a name picks from :data:`STYLES`."""
    if style is None:
        return TOWER
    if isinstance(style, RenderStyle):
        return style
    if isinstance(style, str) and style in STYLES:
        return STYLES[style]
    raise RenderError(f"unknown render style {style!r}; use one of {sorted(STYLES)}")


def _shade(color: Color, gain: float) -> Color:
    return (
        min(255, int(color[0] * gain)),
        min(255, int(color[1] * gain)),
        min(255, int(color[2] * gain)),
    )


def _check_size(size: Sequence[int]) -> tuple[int, int]:
    if (
        len(size) != 2
        or not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in size)
        or not (32 <= size[0] <= 8192 and 32 <= size[1] <= 8192)
    ):
        raise RenderError(f"frame size {tuple(size)!r} is invalid; use (width, height), 32..8192")
    return int(size[0]), int(size[1])


def _check_seed(seed: Any) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise RenderError(f"seed={seed!r} must be a whole number >= 0")
