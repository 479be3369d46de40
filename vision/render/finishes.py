"""Finishes of real dice that the plain renderer lacks, drawn on a die's top face.

Each is a style knob, the chance that a die carries it (0, the default, draws nothing and
leaves every frame as it was), and each die's own draw comes from a stream of the scene
seed kept for them (``FINISH_STREAM``), so turning one on changes nothing else:

- ``show_through``: a translucent die shows the pips of its hidden faces (the bottom and
  the sides) faintly through its top face, displaced by the body's depth as an oblique
  view through a clear block displaces them (parallax), the far side's pips squashed
  along the near edge.
- ``dull_pips``: coloured pips (red, gold, blue, green, yellow) whose grey level lies
  within ``DULL_CONTRAST`` of the body's, keeping their hue: dull red pips on a black die.
- ``ring_glare``: a ring light's sharp reflection, a bright arc on the top face, as glossy
  dice under a ring lamp or a window show it.
- ``swirl``: a body swirled in broad blotches of its colour and a darker or lighter partner
  (blue and black, gold and bronze), where ``marbled`` draws thin veins.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.render.style import ALL_DIE_COLORS, ALL_PIP_COLORS, Color, RenderStyle, _grey

FINISH_STREAM = 6  # the scene seed's stream for these finishes
#: Grey levels between a dull pip and its body: low, as worn or smoky dice show them.
DULL_CONTRAST = (18.0, 45.0)
#: Pip colours that may be dull: those with a hue of their own, which a dull pip keeps.
DULL_COLORS = ("red", "gold", "blue", "green", "yellow")
#: Least grey levels between a swirled body's partner colour and the pips.
SWIRL_PIP_CONTRAST = 40.0


@dataclass(frozen=True)
class Extras:
    """One die's draw of the finishes above (0, () or None: not on this die)."""

    ghost: float = 0.0  # strength of the hidden faces' pips seen through the top (0: none)
    shift: tuple[float, float] = (0.0, 0.0)  # their displacement per side of depth
    dull: float = 0.0  # the grey contrast a dull pip is brought to (0: not dull)
    ring: tuple[float, ...] = ()  # x, y, radius (sides), start, extent (deg), width, strength
    partner: Color | None = None  # a swirled body's second colour
    pattern: int = 0  # seed of the swirl

    @property
    def on(self) -> bool:
        return self.ghost > 0 or self.dull > 0 or bool(self.ring) or self.partner is not None


def extras_on(style: RenderStyle) -> bool:
    return style.show_through > 0 or style.dull_pips > 0 or style.ring_glare > 0 or style.swirl > 0


def draw_extras(
    style: RenderStyle, seed: int, colors: list[str], pips: list[str], mixed: bool
) -> list[Extras | None]:
    """Each die slot's finishes (None each when every knob is off). One set of dice shares
    its swirl, dull pips and show-through; the ring's place is each die's own."""
    n = len(colors)
    if not extras_on(style):
        return [None] * n
    rng = np.random.default_rng([seed, FINISH_STREAM])
    ghost_on, ghost = rng.random(n) < style.show_through, rng.uniform(0.3, 0.6, n)
    way, reach = rng.uniform(0, 2 * math.pi, n), rng.uniform(0.12, 0.4, n)
    dull_on, dull = rng.random(n) < style.dull_pips, rng.uniform(*DULL_CONTRAST, n)
    ring_on = rng.random(n) < style.ring_glare
    rings = np.column_stack(
        [
            rng.uniform(-0.12, 0.12, (n, 2)),
            rng.uniform(0.2, 0.38, n),
            rng.uniform(0, 360, n),
            rng.uniform(50, 200, n),
            rng.uniform(0.025, 0.06, n),
            rng.uniform(0.6, 0.95, n),
        ]
    )
    swirl_on, shade = rng.random(n) < style.swirl, rng.uniform(0.2, 0.55, n)
    patterns = rng.integers(0, 2**31, n)
    out: list[Extras | None] = []
    for i in range(n):
        k = i if mixed else 0
        dulled = bool(dull_on[k]) and pips[i] in DULL_COLORS
        finish = Extras(
            ghost=float(ghost[k]) if ghost_on[k] else 0.0,
            shift=(reach[k] * math.cos(way[k]), reach[k] * math.sin(way[k])),
            dull=float(dull[k]) if dulled else 0.0,
            ring=tuple(float(v) for v in rings[i]) if ring_on[i] else (),
            partner=swirl_partner(colors[i], pips[i], float(shade[k])) if swirl_on[k] else None,
            pattern=int(patterns[k]),
        )
        out.append(finish if finish.on else None)
    return out


def swirl_partner(body: str, pip: str, shade: float) -> Color:
    """A swirled body's second colour: the body darkened by ``shade`` (a factor 0..1), or,
    on a dark body with dark pips, lightened; never within ``SWIRL_PIP_CONTRAST`` grey
    levels of the pips."""
    color = np.asarray(ALL_DIE_COLORS[body], np.float64)
    body_grey, pip_grey = _grey(ALL_DIE_COLORS[body]), _grey(ALL_PIP_COLORS[pip])
    if body_grey > pip_grey:  # darker, but still lighter than the pips by the contrast
        least = min(1.0, (pip_grey + SWIRL_PIP_CONTRAST) / max(body_grey, 1.0))
        mixed = color * max(shade, least)
    else:  # darker still: away from the lighter pips
        mixed = color * shade
    b, g, r = (round(min(255.0, v)) for v in mixed)
    return (b, g, r)


def dull_pip(pip: Color, body: Color, contrast: float) -> Color:
    """The pip colour moved toward the body's until their grey levels differ by
    ``contrast`` (a pip already that close is kept): the grey level moves linearly, the
    hue stays the pip's."""
    gap = abs(_grey(pip) - _grey(body))
    if gap <= contrast:
        return pip
    t = 1.0 - contrast / gap
    b, g, r = (round(p + t * (q - p)) for p, q in zip(pip, body, strict=True))
    return (b, g, r)


#: The faces hidden under a flat die's top, with their axes on the unit cube.
_HIDDEN = {
    "bottom": ((0, 0, -0.5), (1, 0, 0), (0, -1, 0)),
    "+x": ((0.5, 0, 0), (0, 1, 0), (0, 0, 1)),
    "-x": ((-0.5, 0, 0), (0, 1, 0), (0, 0, 1)),
    "+y": ((0, 0.5, 0), (1, 0, 0), (0, 0, 1)),
    "-y": ((0, -0.5, 0), (1, 0, 0), (0, 0, 1)),
}


def ghost_points(
    values: dict[str, int],
    pip_layout: dict[int, tuple[tuple[int, int], ...]],
    spacing: float,
    radius: float,
    rot: NDArray[np.float64],
    shift: tuple[float, float],
) -> list[NDArray[np.float64]]:
    """The hidden faces' pips as they appear through a flat translucent die's top face, in
    unit-cube coordinates on the top's plane (z 0.5): each point moved by its depth below
    the top times ``shift`` (an oblique view through the body), those falling off the top
    face dropped. ``values``: the die's face values (bottom is 7 - top)."""
    faces = {"bottom": 7 - values["top"], **{k: v for k, v in values.items() if k != "top"}}
    t = np.linspace(0, 2 * math.pi, 12, endpoint=False)
    circle = np.stack([np.cos(t), np.sin(t)], axis=1) * radius
    move = np.array([shift[0], shift[1], 0.0])
    out = []
    for face, value in faces.items():
        middle, u, v = (np.asarray(a, np.float64) for a in _HIDDEN[face])
        for p in pip_layout[value]:
            uv = circle + np.array(p) * spacing
            local = middle + uv[:, :1] * u + uv[:, 1:2] * v
            world = local @ rot.T
            depth = 0.5 - world[:, 2:3]
            seen = world + depth * move
            seen[:, 2] = 0.5
            if np.abs(seen[:, :2].mean(axis=0)).max() < 0.45:
                out.append(seen)
    return out


def swirl_mask(shape: tuple[int, ...], side: float, pattern: int) -> NDArray[np.float32]:
    """Share 0..1 of the partner colour over a patch: broad blotches with soft edges."""
    h, w = shape[:2]
    rng = np.random.default_rng(pattern)
    cells = int(rng.integers(3, 6))
    reach = max(2, math.ceil(cells * max(w, h) / max(side, 1.0)))
    noise = rng.normal(0, 1, (reach, reach)).astype(np.float32)
    smooth = cv2.resize(noise, (w, h), interpolation=cv2.INTER_CUBIC)
    level = float(rng.uniform(-0.4, 0.4))
    soft = float(rng.uniform(0.08, 0.3))
    return np.asarray(1.0 / (1.0 + np.exp(-(smooth - level) / soft)), np.float32)


def ring_mask(
    face: NDArray[np.float32], side: float, ring: tuple[float, ...]
) -> NDArray[np.float32]:
    """Strength 0..1 of a ring light's sharp arc over a top face (``face`` its 0..1 mask)."""
    h, w = face.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    m = float(face.sum()) + 1e-6
    cx, cy = float((face * xs).sum()) / m, float((face * ys).sum()) / m
    x, y, radius, start, extent, width, strength = ring
    mask = np.zeros((h, w), np.float32)
    cv2.ellipse(
        mask,
        (round((cx + x * side) * 16), round((cy + y * side) * 16)),
        (round(radius * side * 16), round(radius * side * 16)),
        0.0,
        start,
        start + extent,
        1.0,
        max(1, round(width * side)),
        cv2.LINE_AA,
        4,
    )
    soft = np.asarray(cv2.GaussianBlur(mask, (0, 0), max(0.4, 0.012 * side)), np.float32)
    return np.asarray(np.clip(soft * strength, 0.0, 1.0) * face, np.float32)
