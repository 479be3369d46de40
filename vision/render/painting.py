"""Dice in a rendered frame: each die's look, its visible faces projected, then painted."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from dicetray import DIE_MM
from vision.render.camera import _Geometry
from vision.render.finishes import (
    DULL_COLORS,
    Extras,
    draw_extras,
    dull_pip,
    ghost_points,
    ring_mask,
    swirl_mask,
)
from vision.render.style import (
    ALL_DIE_COLORS,
    ALL_PIP_COLORS,
    DIE_COLORS,
    MIN_PIP_CONTRAST,
    Color,
    Frame,
    RenderStyle,
    _grey,
    _shade,
    pip_colors_for,
)

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


def top_pip_centres(corners: Sequence[Sequence[float]], value: int) -> NDArray[np.float64]:
    """Where the pips of a die's top face were drawn, in frame pixels, from its top face's
    four corners as the frame's truth gives them (``truth["dice"][k]["corners"]``)."""
    c = np.array(corners, np.float64)
    middle, u, v = c.mean(axis=0), c[1] - c[0], c[3] - c[0]
    return np.array([middle + _PIP_SPACING * (a * u + b * v) for a, b in _PIP_LAYOUT[value]])


def _poly(points_px: NDArray[np.float64]) -> NDArray[np.int32]:
    return np.round(points_px * _ONE).astype(np.int32)


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


_BIG_ONE_RADIUS = 0.2  # of the die's side: the big pip some dice have for their 1


@functools.lru_cache(maxsize=64)
def _face_template(value: int, corner: float, big_one: bool = False) -> NDArray[np.float64]:
    """Face-unit points of a face: rounded outline, inset face, then each pip's polygon."""
    outline = _outline(corner)
    t = np.linspace(0, 2 * math.pi, _PIP_POINTS, endpoint=False)
    radius = _BIG_ONE_RADIUS if big_one and value == 1 else _PIP_RADIUS
    circle = np.stack([np.cos(t), np.sin(t)], axis=1) * radius
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
def _face_points(
    face: str, value: int, corner: float, big_one: bool = False
) -> NDArray[np.float64]:
    """A face's outline, inset and pips as points on the unit cube, before rotation."""
    middle, u, v = (np.asarray(a, dtype=np.float64) for a in _FACES[face])
    uv = _face_template(value, corner, big_one)
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
    sheen: float = 0.0  # strength of the lamp's soft reflection on the top face (0: none)
    sheen_at: tuple[float, float] = (0.0, 0.0)  # its centre from the face's, in sides
    sheen_size: float = 0.25  # its spread, in sides
    gloss: bool = False  # a glossy die: a sharp lamp spot and a bright rim toward the lamp
    metal: float = 0.0  # a metallic body: where across the face its bright band lies (0: none)
    engraved: bool = False  # pips cut into the face: a dark rim, the pip's colour within
    big_one: bool = False  # the 1 is one big pip
    extras: Extras | None = None  # the finishes of vision/render/finishes.py (None: none)

    @property
    def plain(self) -> bool:
        """A solid die with nothing on its faces but pips (painted the quick way)."""
        plain = self.finish == "solid" and not self.glint and self.sheen <= 0 and not self.gloss
        return plain and self.metal <= 0 and self.extras is None


MAX_TRAY_DICE = 64


def _looks(style: RenderStyle, rng: np.random.Generator) -> tuple[_DieLook, ...]:
    """Colours, sizes and lean of every die slot of a scene: one set, or mixed colours."""
    n = MAX_TRAY_DICE
    colors = rng.integers(0, len(style.die_colors), n if style.mixed_colors else 1)
    picks = rng.integers(0, 6, n if style.mixed_colors else 1)
    sizes = 1.0 + np.clip(rng.normal(0, 1, n), -2.5, 2.5) * style.size_jitter
    brightness = 1.0 + np.clip(rng.normal(0, 1, n), -2.5, 2.5) * style.color_jitter
    tilts, sides = rng.uniform(*style.cocked_tilt_deg, n), rng.integers(0, 4, n)
    finishes = style.marbled > 0 or style.translucent > 0 or style.glints > 0
    if finishes:  # drawn only then, so that older styles keep their exact frames
        kinds, veins = rng.random(n), rng.integers(0, len(DIE_COLORS), n)
        glints, patterns = rng.random(n) < style.glints, rng.integers(0, 2**31, n)
    looks = []
    for i in range(n):
        k = i if style.mixed_colors else 0
        color = style.die_colors[int(colors[k])]
        pips = pip_colors_for(color, style.pip_colors, style.pip_contrast)
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
            if finish == "translucent" and color not in (style.translucent_colors or (color,)):
                finish = "solid"
            vein = _vein_color(color, pip, int(veins[k])) if finish == "marbled" else None
            look = replace(
                look, finish=finish, vein=vein, glint=bool(glints[i]), pattern=int(patterns[i])
            )
        looks.append(look)
    if style.highlight > 0 or style.glossy > 0:  # drawn last: other styles keep their frames
        looks = _lamp_looks(looks, style, rng)
    return tuple(looks)


def _lamp_looks(
    looks: list[_DieLook], style: RenderStyle, rng: np.random.Generator
) -> list[_DieLook]:
    """The scene's lamp seen in every die's top face: one direction for the scene, a soft
    reflection of a strength and spread per die, and for a glossy set a sharp spot and rim."""
    n = len(looks)
    way = float(rng.uniform(0, 2 * math.pi))
    reach = float(rng.uniform(0.1, 0.3))
    glossy = bool(rng.random() < style.glossy)
    strength = rng.uniform(0.5, 1.0, n) * style.highlight
    spread = rng.uniform(0.18, 0.32, n)
    jitter = rng.normal(0, 0.04, (n, 2))
    out = []
    for i, look in enumerate(looks):
        at = (
            reach * math.cos(way) + float(jitter[i, 0]),
            reach * math.sin(way) + float(jitter[i, 1]),
        )
        out.append(
            replace(
                look,
                sheen=float(strength[i]),
                sheen_at=at,
                sheen_size=float(spread[i]),
                gloss=glossy,
            )
        )
    return out


DRESS_STREAM = 5


def dress_looks(looks: tuple[_DieLook, ...], style: RenderStyle, seed: int) -> tuple[_DieLook, ...]:
    """Metal bodies, engraved pips and big ones, from the scene's own stream (knobs off: the
    looks unchanged). One set of dice shares them; mixed dice each draw their own."""
    if style.metallic <= 0 and style.engraved <= 0 and style.big_one <= 0:
        return looks
    rng = np.random.default_rng([seed, DRESS_STREAM])
    n = len(looks)
    metal, band = rng.random(n) < style.metallic, rng.uniform(0.15, 0.85, n)
    engraved, big = rng.random(n) < style.engraved, rng.random(n) < style.big_one
    out = []
    for i, look in enumerate(looks):
        k = i if style.mixed_colors else 0
        out.append(
            replace(
                look,
                metal=float(band[k]) if metal[k] else 0.0,
                engraved=bool(engraved[k]),
                big_one=bool(big[k]),
            )
        )
    return tuple(out)


def extra_looks(looks: tuple[_DieLook, ...], style: RenderStyle, seed: int) -> tuple[_DieLook, ...]:
    """Show-through pips, dull pips, ring glare and swirled bodies, from the scene's own
    stream (knobs off: the looks unchanged; see :mod:`vision.render.finishes`)."""
    extras = draw_extras(
        style, seed, [k.color for k in looks], [k.pip_color for k in looks], style.mixed_colors
    )
    out = []
    for look, extra in zip(looks, extras, strict=True):
        if extra is not None and look.finish != "translucent":  # only a clear body shows through
            extra = replace(extra, ghost=0.0)
        out.append(replace(look, extras=extra if extra is not None and extra.on else None))
    return tuple(out)


def _engrave(pips: list[NDArray[np.int32]]) -> list[NDArray[np.int32]]:
    """Each pip's inner part: shrunk and moved away from the light, inside its dark rim."""
    inner = []
    for pip in pips:
        centre = pip.mean(axis=0)
        reach = float(np.abs(pip - centre).max())
        inner.append(np.round(centre + (pip - centre) * 0.72 + reach * 0.12).astype(np.int32))
    return inner


def _vein_color(body: str, pip: str, pick: int) -> Color:
    """A second colour for a marbled die's veins, on the same side of the pips as its body."""
    pip_grey, body_grey = _grey(ALL_PIP_COLORS[pip]), _grey(ALL_DIE_COLORS[body])
    fits = [
        c
        for name, c in DIE_COLORS.items()
        if name != body
        and (_grey(c) - pip_grey) * (body_grey - pip_grey) > 0
        and abs(_grey(c) - pip_grey) >= 0.6 * MIN_PIP_CONTRAST
    ]
    if fits:
        return fits[pick % len(fits)]
    return _shade(ALL_DIE_COLORS[body], 1.4 if body_grey > pip_grey else 0.6)


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
    ghosts: tuple[NDArray[np.int32], ...] = ()  # hidden faces' pips seen through the top


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
    local = [_face_points(face, values[face], corner_radius, look.big_one) for face, _ in faces]
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
    body = _shade(ALL_DIE_COLORS[die.get("color", look.color)], look.brightness)
    pip_name = die.get("pip_color", look.pip_color)
    pip = ALL_PIP_COLORS[pip_name]
    extras, ghosts = look.extras, []
    if extras is not None and extras.dull > 0 and pip_name in DULL_COLORS:
        pip = dull_pip(pip, body, extras.dull)
    if extras is not None and extras.ghost > 0 and look.finish == "translucent" and not cocked:
        seen = ghost_points(values, _PIP_LAYOUT, _PIP_SPACING, _PIP_RADIUS, rot, extras.shift)
        ghosts = [_poly(geo.project(centre + points * side)) for points in seen]
    return _DiePlan(
        faces=tuple(drawn),
        body=body,
        pip=pip,
        silhouette=np.vstack(silhouette),
        centre=(float(top[0, 0]), float(top[0, 1])),
        corners=top[1:],
        look=look,
        ghosts=tuple(ghosts),
    )


def _paint_die(image: Frame, plan: _DiePlan) -> None:
    """Draw a planned die: darker rounded edge, face, then pips, each shaded per face.

    Marbled and translucent dice and glints are drawn face by face in a patch around the
    face, then laid on the frame through the face's mask.
    """
    look = plan.look
    if look is None or look.plain:
        for outer, inset, pips, gain in plan.faces:
            cv2.fillPoly(image, [outer], _shade(plan.body, gain * 0.78), cv2.LINE_AA, _SHIFT)
            cv2.fillPoly(image, [inset], _shade(plan.body, gain), cv2.LINE_AA, _SHIFT)
            if look is not None and look.engraved:
                cv2.fillPoly(image, pips, _shade(plan.pip, gain * 0.45), cv2.LINE_AA, _SHIFT)
                pips = _engrave(pips)
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
    extras = look.extras
    if extras is not None and extras.partner is not None:
        blotches = swirl_mask(face.shape, side, extras.pattern + int(not top)) * face
        partner = np.array(_shade(extras.partner, gain), np.float32)
        patch += blotches[..., None] * (partner - patch)
    if look.metal > 0:  # polished metal: a bright band across the face, dark beside it
        patch *= _metal_shine(face, side, look.metal, rng)[..., None]
    if look.finish == "translucent":  # the floor shows through the body, not the pips
        alpha = float(rng.uniform(0.55, 0.8))
        patch = alpha * patch + (1 - alpha) * under * 0.8
    if top and extras is not None and plan.ghosts:  # blurred by the body they are seen through
        ghost = np.zeros(under.shape[:2], np.float32)
        cv2.fillPoly(ghost, [g - shift for g in plan.ghosts], 1.0, cv2.LINE_AA, _SHIFT)
        ghost = cv2.GaussianBlur(ghost, (0, 0), max(0.5, 0.03 * side)) * face * extras.ghost
        patch += ghost[..., None] * (np.array(_shade(plan.pip, gain), np.float32) - patch)
    if look.engraved:
        rim = np.zeros(under.shape[:2], np.float32)
        cv2.fillPoly(rim, pips, 1.0, cv2.LINE_AA, _SHIFT)
        patch += rim[..., None] * (np.array(_shade(plan.pip, gain * 0.45), np.float32) - patch)
        pips = _engrave(pips)
    pip_mask = np.zeros(under.shape[:2], np.float32)
    cv2.fillPoly(pip_mask, pips, 1.0, cv2.LINE_AA, _SHIFT)
    pip = np.array(_shade(plan.pip, gain), np.float32)
    patch += pip_mask[..., None] * (pip - patch)
    if top and look.glint:
        patch += _glint(face.shape, side, rng)[..., None] * face[..., None] * (255 - patch)
    if top and (look.sheen > 0 or look.gloss):
        patch += _sheen(face, side, look)[..., None] * (255 - patch)
    if top and extras is not None and extras.ring:
        patch += ring_mask(face, side, extras.ring)[..., None] * (255 - patch)
    body = np.zeros(under.shape[:2], np.float32)
    cv2.fillPoly(body, [outer], 1.0, cv2.LINE_AA, _SHIFT)
    out = under + body[..., None] * (patch - under)
    image[y0:y1, x0:x1] = np.clip(out, 0, 255).astype(np.uint8)


def _metal_shine(
    face: NDArray[np.float32], side: float, at: float, rng: np.random.Generator
) -> NDArray[np.float32]:
    """Gain over a metal face: a bright band at ``at`` (0..1 across) at a random angle."""
    h, w = face.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    theta = float(rng.uniform(0, math.pi))
    across = ((xs - w / 2) * math.cos(theta) + (ys - h / 2) * math.sin(theta)) / side + 0.5
    band = np.exp(-(((across - at) / 0.14) ** 2))
    return np.asarray(0.55 + 0.25 * across + 0.9 * band, np.float32)


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


def _sheen(face: NDArray[np.float32], side: float, look: _DieLook) -> NDArray[np.float32]:
    """Strength 0..1 of the lamp's reflection over a top face (``face`` its 0..1 mask): a
    soft patch, and on a glossy die a sharp spot and a bright rim along the lamp's edge."""
    h, w = face.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    m = float(face.sum()) + 1e-6
    cx, cy = float((face * xs).sum()) / m, float((face * ys).sum()) / m
    sx, sy = cx + look.sheen_at[0] * side, cy + look.sheen_at[1] * side
    r2 = ((xs - sx) ** 2 + (ys - sy) ** 2) / (side * side)
    glow = look.sheen * 0.55 * np.exp(-r2 / (2 * look.sheen_size**2))
    if look.gloss:
        glow = np.maximum(glow, 0.85 * np.exp(-r2 / (2 * 0.07**2)))
        edge = face - cv2.erode(
            face, np.ones((3, 3), np.uint8), iterations=max(1, round(side / 18))
        )
        toward = ((xs - cx) * look.sheen_at[0] + (ys - cy) * look.sheen_at[1]) / side
        lit = np.clip(toward / max(1e-3, math.hypot(*look.sheen_at)) * 2.0, 0.0, 1.0)
        glow = np.maximum(glow, 0.6 * edge * lit)
    return np.asarray(np.clip(glow, 0.0, 1.0) * face, np.float32)


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
