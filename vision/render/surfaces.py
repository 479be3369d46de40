"""The wider domain of photos from elsewhere: floors, clutter, oblique views, moving cameras.

Each part draws from its own random stream (seeded by the scene's seed and a number of its
own), and only when its knob is on, so every style that leaves these knobs off draws exactly
the frames it drew before they existed.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.render.style import Color, Frame, RenderStyle

FLOOR_STREAM, CLUTTER_STREAM, VIEW_STREAM, MOTION_STREAM = 3, 4, 6, 7


def _field(h: int, w: int, cells: int, rng: np.random.Generator) -> NDArray[np.float32]:
    """Smooth noise of unit spread over an ``h`` x ``w`` image, about ``cells`` bumps across."""
    small = rng.normal(0, 1, (max(2, cells * h // max(w, 1)), max(2, cells))).astype(np.float32)
    return np.asarray(cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)


def floor_gain(kind: str, h: int, w: int, rng: np.random.Generator) -> NDArray[np.float32]:
    """Brightness (about 1) of a floor of ``kind`` over the frame, without its colour."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    theta = float(rng.uniform(0, math.pi))
    along = xs * math.cos(theta) + ys * math.sin(theta)
    across = -xs * math.sin(theta) + ys * math.cos(theta)
    if kind == "wood":  # grain: bands bent by slow noise, with finer streaks
        period = float(rng.uniform(5.0, 18.0))
        warp = _field(h, w, 3, rng) * float(rng.uniform(2.0, 6.0))
        bands = np.sin(2 * math.pi * (across / period + warp))
        streaks = _field(h, w, 60, rng) * 0.5
        gain = 1.0 + 0.14 * bands + 0.05 * streaks
    elif kind == "cloth":  # a woven texture: two fine crossing threads
        pitch = float(rng.uniform(2.5, 6.0))
        weave = np.sin(2 * math.pi * along / pitch) * np.sin(2 * math.pi * across / pitch)
        gain = 1.0 + 0.09 * weave + 0.04 * _field(h, w, 8, rng)
    elif kind == "felt":  # soft fuzz at several scales
        fine = rng.normal(0, 1, (h, w)).astype(np.float32)
        fuzz = cv2.GaussianBlur(fine, (0, 0), float(rng.uniform(1.0, 2.5)))
        gain = 1.0 + 0.6 * fuzz + 0.06 * _field(h, w, 5, rng)
    elif kind == "glossy":  # a varnished board: a broad window reflection across it
        middle = w / 2 * math.cos(theta) + h / 2 * math.sin(theta)
        centre = middle + float(rng.uniform(-0.25, 0.25)) * max(h, w)
        width = float(rng.uniform(0.06, 0.2)) * max(h, w)
        band = np.exp(-(((along - centre) / width) ** 2))
        gain = 1.0 + float(rng.uniform(0.35, 0.8)) * band + 0.02 * _field(h, w, 6, rng)
    elif kind == "grit":  # cast stone: a slow mottle and a fine sandy grain
        fine = rng.normal(0, 1, (h, w)).astype(np.float32)
        sand = cv2.GaussianBlur(fine, (0, 0), float(rng.uniform(0.6, 1.2)))
        gain = 1.0 + 0.06 * _field(h, w, 4, rng) + float(rng.uniform(0.04, 0.12)) * sand
    else:  # "printed": the board's own print is drawn by print_board; a smooth card here
        gain = 1.0 + 0.02 * _field(h, w, 6, rng)
    return np.asarray(gain, np.float32)


def print_board(image: Frame, floor: Color, rng: np.random.Generator) -> None:
    """A printed board or mat: grid lines, circles, bands and blocks of text-like marks."""
    h, w = image.shape[:2]
    ink = tuple(int(v) for v in rng.integers(0, 256, 3))
    if abs(float(np.mean(ink)) - float(np.mean(floor))) < 60:  # print shows on its board
        ink = tuple(255 - int(v) for v in floor)
    thick = int(rng.integers(1, 4))
    step = int(rng.integers(30, 90))
    if rng.random() < 0.6:
        for x in range(int(rng.integers(0, step)), w, step):
            cv2.line(image, (x, 0), (x, h), ink, thick, cv2.LINE_AA)
        for y in range(int(rng.integers(0, step)), h, step):
            cv2.line(image, (0, y), (w, y), ink, thick, cv2.LINE_AA)
    for _ in range(int(rng.integers(1, 5))):
        centre = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        cv2.circle(image, centre, int(rng.integers(20, max(21, w // 3))), ink, thick, cv2.LINE_AA)
    for _ in range(int(rng.integers(0, 4))):  # lines of small marks, like printed words
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        size = int(rng.integers(3, 9))
        for k in range(int(rng.integers(4, 16))):
            x0 = x + k * (size + 2)
            cv2.rectangle(image, (x0, y), (x0 + size, y + size + 2), ink, -1)


def scatter_grit(image: Frame, floor: Color, rng: np.random.Generator) -> None:
    """Specks of every size over ``image`` (whose colour is ``floor``): concrete's dark grains
    and pores, terrazzo's light and coloured chips, dust and crumbs. Most are dark and a few
    pixels across, as a small die's single pip is, but with no die round them."""
    h, w = image.shape[:2]
    tone = np.asarray(floor, np.float32)
    count = int(h * w * float(rng.uniform(1e-4, 1.5e-3)))
    shift = 4  # sub-pixel centres and axes: cv2 draws in 1/2**shift px
    unit = 1 << shift
    for _ in range(count):
        draw = rng.random()
        if draw < 0.7:  # a dark grain or pore
            color = tone * float(rng.uniform(0.15, 0.65))
        elif draw < 0.9:  # a light chip
            color = tone + (255 - tone) * float(rng.uniform(0.3, 0.8))
        else:  # a chip of another stone
            color = rng.integers(20, 236, 3).astype(np.float32)
        radius = float(np.exp(rng.uniform(math.log(0.5), math.log(3.5))))
        if rng.random() < 0.08:
            radius = float(rng.uniform(3.5, 7.0))
        axes = (radius, radius * float(rng.uniform(0.5, 1.0)))
        centre = (int(rng.uniform(0, w) * unit), int(rng.uniform(0, h) * unit))
        size = (max(1, int(axes[0] * unit)), max(1, int(axes[1] * unit)))
        angle = float(rng.uniform(0, 180))
        paint = tuple(float(v) for v in color)
        cv2.ellipse(image, centre, size, angle, 0, 360, paint, -1, cv2.LINE_AA, shift)


def dress_floor(
    background: Frame,
    floor_px: NDArray[np.float64],
    floor: Color,
    style: RenderStyle,
    seed: int,
) -> Frame:
    """The background with the scene's kind of floor inside ``floor_px`` and clutter round it."""
    image = background
    rng = np.random.default_rng([seed, FLOOR_STREAM])
    kind = style.floor_kinds[int(rng.integers(len(style.floor_kinds)))]
    if kind != "matte":
        h, w = image.shape[:2]
        dressed = image.copy()
        if kind == "wood":  # a wood's own tone, from pale oak to walnut
            tones = ((120, 165, 200), (70, 110, 160), (45, 70, 110), (150, 190, 215))
            tone = tones[int(rng.integers(len(tones)))]
            dressed[:] = tone
        if kind == "grit":  # mostly a cast stone's own grey, from pale to dark
            stone = floor
            if rng.random() < 0.6:
                level, warmth = int(rng.integers(110, 206)), int(rng.integers(-8, 13))
                stone = (level - warmth, level, level + warmth)
                dressed[:] = stone
            scatter_grit(dressed, stone, rng)
        if kind == "printed":
            print_board(dressed, floor, rng)
        gain = floor_gain(kind, h, w, rng)
        dressed = np.clip(dressed.astype(np.float32) * gain[..., None], 0, 255).astype(np.uint8)
        mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(mask, [np.round(floor_px).astype(np.int32)], 255, cv2.LINE_AA)
        alpha = (mask.astype(np.float32) / 255.0)[..., None]
        image = (image * (1 - alpha) + dressed * alpha).astype(np.uint8)
    if style.clutter > 0:
        image = image.copy() if image is background else image
        add_clutter(image, style.clutter, np.random.default_rng([seed, CLUTTER_STREAM]))
    return np.asarray(image)


def add_clutter(image: Frame, chance: float, rng: np.random.Generator) -> None:
    """Objects near the frame's edges, each of eight slots with ``chance``: cards, phones,
    cables, coins, pens and rows of round buttons (which a reader may take for pips)."""
    h, w = image.shape[:2]
    for _ in range(8):
        if rng.random() >= chance:
            continue
        edge = int(rng.integers(4))
        along = float(rng.uniform(0, 1))
        depth = float(rng.uniform(0.0, 0.12))
        x = along * w if edge in (0, 2) else (depth * w if edge == 3 else (1 - depth) * w)
        y = along * h if edge in (1, 3) else (depth * h if edge == 0 else (1 - depth) * h)
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
        kind = int(rng.integers(5))
        size = float(rng.uniform(0.08, 0.25)) * min(w, h)
        if kind == 0:  # a card or a phone: a rotated rectangle, maybe with a dark screen
            box = ((x, y), (size, size * float(rng.uniform(0.4, 0.7))), float(rng.uniform(0, 180)))
            points = cv2.boxPoints(box).astype(np.int32)
            cv2.fillConvexPoly(image, points, colour, cv2.LINE_AA)
            if rng.random() < 0.5:
                inner = ((x, y), (box[1][0] * 0.85, box[1][1] * 0.8), box[2])
                cv2.fillConvexPoly(image, cv2.boxPoints(inner).astype(np.int32), (20, 20, 24))
        elif kind == 1:  # a cable: a thick curve across the edge
            t = np.linspace(0, 1, 20)[:, None]
            ends = rng.uniform(-1, 1, (3, 2)) * size * 2 + np.array([x, y])
            curve = (1 - t) ** 2 * ends[0] + 2 * (1 - t) * t * ends[1] + t**2 * ends[2]
            cv2.polylines(
                image, [curve.astype(np.int32)], False, colour, int(rng.integers(3, 9)), cv2.LINE_AA
            )
        elif kind == 2:  # a coin: a grey or golden disc with a rim
            metal = (150, 150, 155) if rng.random() < 0.5 else (60, 150, 200)
            r = int(size * 0.25) + 4
            cv2.circle(image, (int(x), int(y)), r, metal, -1, cv2.LINE_AA)
            cv2.circle(image, (int(x), int(y)), int(r * 0.8), (90, 90, 95), 1, cv2.LINE_AA)
        elif kind == 3:  # a pen: a long thin bar
            a = float(rng.uniform(0, math.pi))
            dx, dy = math.cos(a) * size * 1.5, math.sin(a) * size * 1.5
            cv2.line(
                image,
                (int(x - dx), int(y - dy)),
                (int(x + dx), int(y + dy)),
                colour,
                int(rng.integers(4, 10)),
                cv2.LINE_AA,
            )
        else:  # a row of round buttons or studs, like a board's clip bar
            r = int(rng.integers(3, 9))
            a = float(rng.uniform(0, math.pi))
            for k in range(int(rng.integers(2, 6))):
                cx = int(x + math.cos(a) * k * 3 * r)
                cy = int(y + math.sin(a) * k * 3 * r)
                cv2.circle(image, (cx, cy), r, colour, -1, cv2.LINE_AA)


def view_warp(
    size: tuple[int, int], tilt_deg: float, aspect: float, seed: int
) -> NDArray[np.float64] | None:
    """A homography of frame pixels for an oblique camera and stretched pixels, or None.

    The tilt turns the picture plane by up to ``tilt_deg`` about an axis through the frame's
    centre in a random direction, seen by a lens about as wide as the frame (the far side
    comes out smaller); ``aspect`` then stretches the frame sideways.
    """
    if tilt_deg <= 0 and aspect == 1.0:
        return None
    rng = np.random.default_rng([seed, VIEW_STREAM])
    w, h = size
    tilt = math.radians(float(rng.uniform(0.5, 1.0)) * tilt_deg)
    way = float(rng.uniform(0, 2 * math.pi))
    axis = np.array([math.cos(way), math.sin(way), 0.0])
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    turn = np.eye(3) + math.sin(tilt) * k + (1 - math.cos(tilt)) * k @ k
    focal = 1.1 * max(w, h)
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    centred = np.hstack([corners - [w / 2, h / 2], np.zeros((4, 1))]) @ turn.T
    seen = centred[:, :2] * (focal / (focal + centred[:, 2:3]))
    seen[:, 0] *= aspect
    seen += [w / 2, h / 2]
    return np.asarray(
        cv2.getPerspectiveTransform(corners.astype(np.float32), seen.astype(np.float32)),
        np.float64,
    )


def motion_blur(image: Frame, length: float, seed: int, frame: int) -> Frame:
    """A straight smear of up to ``length`` pixels in a direction that changes per frame."""
    rng = np.random.default_rng([seed, MOTION_STREAM, frame])
    n = max(1, round(float(rng.uniform(0.3, 1.0)) * length))
    if n < 2:
        return image
    kernel = np.zeros((2 * n + 1, 2 * n + 1), np.float32)
    a = float(rng.uniform(0, math.pi))
    end = (n * math.cos(a), n * math.sin(a))
    cv2.line(
        kernel,
        (round(n - end[0] / 2), round(n - end[1] / 2)),
        (round(n + end[0] / 2), round(n + end[1] / 2)),
        1.0,
        1,
        cv2.LINE_AA,
    )
    kernel /= kernel.sum()
    return np.asarray(cv2.filter2D(image, -1, kernel, borderType=cv2.BORDER_REFLECT))
