"""Find die-shaped regions that stand out from the background of a frame.

The frame is compared with a background model: the calibrated empty tray when there is one,
otherwise a heavy median of the frame itself (dice are small against a plain background, so
the median of a window several dice wide is the background). Regions are then checked for
a die's size and shape; merged regions of touching dice are split by k-means.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from vision.kernels import colour_distance, median_of
from vision.split import split_touching

MIN_DIE_PX = 12.0  # smaller dice cannot show countable pips
AUTO_SHORT_SIDE = 160  # working scale without calibration (see working_scale)
MAX_BLOB_DICE = 25  # a blob bigger than this many dice is not dice (a wall, a hand)


@dataclass(frozen=True)
class Region:
    """A candidate die: outline (full-resolution pixel coordinates) and derived geometry."""

    contour: np.ndarray  # N x 1 x 2 int32, full-resolution pixels
    center: tuple[float, float]
    side: float  # side of the die as seen from above, in pixels
    angle: float  # rotation of the die's square, degrees
    box: tuple[int, int, int, int]
    merged: int = 1  # how many dice the blob this came from held

    @cached_property
    def rect(self) -> cv2.typing.RotatedRect:
        """The outline's ``cv2.minAreaRect`` (centre, size, angle), made once: the reader's
        judgements ask for it several times."""
        return cv2.minAreaRect(self.contour)


def working_scale(shape: tuple[int, ...], short_side: int = 120) -> int:
    """The downscale factor for body segmentation: about ``short_side`` px on the short side.

    Calibrated frames use 120 (the calibration stores its background at that scale);
    frames without calibration use a finer scale, since their dice may be small.
    """
    return max(1, round(min(shape[0], shape[1]) / short_side))


CHROMA_WEIGHT = 1.4  # a and b count this much more than lightness


def _weighed(lab: np.ndarray) -> np.ndarray:
    """8-bit Lab (..., 3) as float32, its chroma centred on 0 and weighted up."""
    out = lab.astype(np.float32)
    out[..., 1:] = (out[..., 1:] - 128.0) * CHROMA_WEIGHT
    return out


def to_lab_checked(image: np.ndarray) -> np.ndarray:
    """Float Lab with chroma weighted up, computed plainly (what :func:`to_lab` must equal)."""
    return _weighed(cv2.cvtColor(image, cv2.COLOR_BGR2LAB))


def _lab_table() -> np.ndarray:
    """Each 8-bit Lab value's float value, per channel, made by :func:`to_lab_checked`'s own
    arithmetic (so a look-up gives the same bits)."""
    return _weighed(np.repeat(np.arange(256, dtype=np.uint8).reshape(1, 256, 1), 3, axis=2))


_LAB_TABLE = _lab_table()


def to_lab(image: np.ndarray) -> np.ndarray:
    """Float Lab with chroma weighted up: coloured dice on grey stand out by hue.

    One look-up per channel after the colour conversion, equal to :func:`to_lab_checked`.
    """
    return weighted_lab(cv2.cvtColor(image, cv2.COLOR_BGR2LAB))


def weighted_lab(lab: np.ndarray) -> np.ndarray:
    """:func:`to_lab` of an image whose 8-bit Lab ``lab`` is made already."""
    return cv2.LUT(lab, _LAB_TABLE)


def background_model(small: np.ndarray) -> np.ndarray:
    """Estimate the plain background of a downscaled frame by a wide per-channel median."""
    k = max(15, (min(small.shape[:2]) // 3) | 1)
    k = min(k, 255)
    return np.dstack([cv2.medianBlur(small[:, :, i], k) for i in range(3)])


SHADOW_FLOOR = 0.45  # a hueless darkening to less than this share of the floor's lightness
# is a die, not a shadow (a calibration of grey dice on a grey floor raises it)
MAX_SHADOW_FLOOR = 0.85  # shadows darken a floor more than this
SHADOW_CHROMA = 14.0  # a change of hue under this is no change of colour


BACKGROUNDS_KEPT = 4  # the Lab of the last few backgrounds (a calibration's, read each frame)
_BACKGROUND_LABS: list[tuple[tuple[int, ...], bytes, np.ndarray]] = []


def _background_lab(background: np.ndarray) -> np.ndarray:
    """``to_lab(background)``, kept for a background seen again (by its shape and bytes:
    the calibrated empty tray is the background of every frame between two calibrations)."""
    raw = background.tobytes()
    for shape, known, lab in _BACKGROUND_LABS:
        if shape == background.shape and known == raw:
            return lab
    lab = to_lab(background)
    lab.flags.writeable = False
    _BACKGROUND_LABS.insert(0, (background.shape, raw, lab))
    del _BACKGROUND_LABS[BACKGROUNDS_KEPT:]
    return lab


def difference(
    image: np.ndarray,
    background: np.ndarray,
    shadow_floor: float = SHADOW_FLOOR,
    *,
    kept: bool = False,
    background_lab: np.ndarray | None = None,
) -> np.ndarray:
    """Per-pixel colour distance between the frame and the background (weighted Lab).

    A shadow darkens the background without changing its hue; such pixels count only by
    their hue change, so dice are not merged with their shadows. Dark dice are darker than
    any shadow (lightness under ``shadow_floor`` of the floor's) and still stand out.
    ``kept``: the background is seen again (a calibration's), its Lab is kept;
    ``background_lab``: its :func:`to_lab`, made already.
    """
    lab = to_lab(image)
    if background_lab is not None:
        bg = background_lab
    else:
        bg = _background_lab(background) if kept else to_lab(background)
    d = lab - bg
    chroma = np.sqrt(d[:, :, 1] ** 2 + d[:, :, 2] ** 2)
    dist = np.sqrt(d[:, :, 0] ** 2 + chroma**2)
    shadow = (
        (d[:, :, 0] < 0) & (lab[:, :, 0] > shadow_floor * bg[:, :, 0]) & (chroma < SHADOW_CHROMA)
    )
    out: np.ndarray = np.where(shadow, chroma + 0.15 * np.abs(d[:, :, 0]), dist)
    return out


def foreground_mask(dist: np.ndarray, floor: float, tray: np.ndarray | None) -> np.ndarray:
    """Threshold the difference image at a noise-relative level, fill pip holes."""
    values = (dist[tray > 0] if tray is not None else dist.ravel())[::3]  # plenty for a median
    med = float(median_of(values))
    mad = float(median_of(np.abs(values - med))) + 0.5
    threshold = max(med + 6.0 * mad, floor)
    mask = (dist > threshold).astype(np.uint8) * 255
    if tray is not None:
        mask &= tray
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, thickness=cv2.FILLED)
    return cv2.morphologyEx(
        filled, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
    )


def to_full(contour: np.ndarray, scale: int) -> np.ndarray:
    """A working-scale outline in full-resolution pixels."""
    return (contour.astype(np.float32) * scale + (scale - 1) / 2.0).astype(np.int32)


def _region(contour: np.ndarray, scale: int, merged: int = 1) -> Region:
    """A region from a working-scale outline (``scale`` > 1) or a full-resolution one (1)."""
    full = to_full(contour, scale) if scale > 1 else contour
    (cx, cy), _, angle = cv2.minAreaRect(full)
    side = float(np.sqrt(pixel_area(contour))) * scale
    x, y, bw, bh = cv2.boundingRect(full)
    return Region(full, (float(cx), float(cy)), side, float(angle), (x, y, x + bw, y + bh), merged)


def square_region(centre: tuple[float, float], side: float) -> Region:
    """An upright square region of ``side`` pixels around ``centre`` (a die found otherwise)."""
    x, y = centre
    h = side / 2.0
    corners = np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]])
    contour = np.round(corners).astype(np.int32).reshape(-1, 1, 2)
    box = (round(x - h), round(y - h), round(x + h), round(y + h))
    return Region(contour, (float(x), float(y)), float(side), 0.0, box)


OUTLINE_FLOOR = 0.62  # box sides from a found die's centre: beyond, its crop shows the floor
OUTLINE_CORE = 0.2  # box sides from its centre: within, the crop shows its top face
OUTLINE_APART = 15.0  # colour distance at least between a die's body and its floor
ROUND = 0.97  # a traced blob this round (see Traced.roundness) is a disc: a coin, a button, a
# cap, a sticker. A square with corners rounded a third of its side reaches it; dice are
# rounded a quarter or less (0.93; 0.89-0.96 of 670 traced dice of nell-byler, 5th to 95th)
OUTLINE_FILL = 0.8  # share of its square at least that a die's outline covers
OUTLINE_INSET = 0.92  # the outline kept, as a share of the traced square's side: a die's
# rounded edges and bevels shine where no pip lies (a 6's corner pips reach 0.36 side from the
# centre; the pip search, eroding 0.06 side more, reaches 0.40)


@dataclass(frozen=True)
class Traced:
    """What a found die's colour against the floor traces (see :func:`outlined_region`): the
    convex hull of its blob (frame pixels), the hull's area and its smallest turned rectangle."""

    hull: np.ndarray
    area: float
    rect: tuple[tuple[float, float], tuple[float, float], float]

    @property
    def fill(self) -> float:
        """The share of its rectangle the hull covers: 1 for a square, pi / 4 for a disc."""
        (_, _), (w, h), _ = self.rect
        return self.area / max(w * h, 1e-9)

    @property
    def roundness(self) -> float:
        """4 pi area / perimeter squared of the hull: 1 for a disc, pi / 4 for a square."""
        perimeter = cv2.arcLength(self.hull, True)
        return float(4.0 * np.pi * self.area / max(perimeter * perimeter, 1e-9))


def _body_mask(
    crop: np.ndarray, core: np.ndarray, ring: np.ndarray, side: float
) -> np.ndarray | None:
    """1 where ``crop`` (full resolution) is nearer the colour of the dice's body (the median
    over ``core``) than the floor's (over ``ring``), the holes (pips) filled and thin parts
    opened off; None where either holds too few pixels or the body is of the floor's colour."""
    if np.count_nonzero(ring) < 20 or np.count_nonzero(core) < 4:
        return None
    lab = to_lab(cv2.GaussianBlur(crop, (3, 3), 0))
    floor = median_of(lab[ring], 0).astype(np.float32)
    apart = colour_distance(lab, floor)
    body, around = float(median_of(apart[core])), float(median_of(apart[ring]))
    if body - around < OUTLINE_APART:
        return None
    mask: np.ndarray = (apart > (body + around) / 2.0).astype(np.uint8)
    k = max(3, int(side * 0.12) | 1)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, disc)
    outer, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(mask, outer, -1, 1, cv2.FILLED)  # the pips are the body's
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, disc)


def trace(image: np.ndarray, centre: tuple[float, float], box: float) -> Traced | None:
    """The blob a found die's colour traces against the floor around it, or None where there
    is none: a die of the floor's colour, or a blob that runs out of the crop (a neighbour of
    the floor's other side, a shadow, the frame's edge). See :func:`outlined_region`."""
    h, w = image.shape[:2]
    x, y = centre
    reach = round(0.75 * box)
    x0, y0 = max(0, int(x) - reach), max(0, int(y) - reach)
    x1, y1 = min(w, int(x) + reach + 1), min(h, int(y) + reach + 1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    yy, xx = np.mgrid[y0:y1, x0:x1]
    dist = np.hypot(xx - x, yy - y)
    mask = _body_mask(
        image[y0:y1, x0:x1], dist < OUTLINE_CORE * box, dist > OUTLINE_FLOOR * box, box
    )
    if mask is None:
        return None
    _, labels = cv2.connectedComponents(mask, connectivity=8)
    held = labels[min(int(y) - y0, labels.shape[0] - 1), min(int(x) - x0, labels.shape[1] - 1)]
    if held == 0:
        return None
    blob = (labels == held).astype(np.uint8)
    if blob[0].any() or blob[-1].any() or blob[:, 0].any() or blob[:, -1].any():
        return None  # it runs out of the crop: a neighbour, a shadow, the frame's edge
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea)) + np.array([x0, y0], np.int32)
    (rx, ry), (rw, rh), angle = cv2.minAreaRect(hull)
    rect = ((float(rx), float(ry)), (float(rw), float(rh)), float(angle))
    return Traced(hull, float(cv2.contourArea(hull)), rect)


def outlined_region(image: np.ndarray, centre: tuple[float, float], box: float) -> Region | None:
    """The turned square of a die found at ``centre`` by its upright ``box`` (pixels), traced
    from its colour against the floor around it; None where the trace is not a die's square.

    A die found without a calibration comes as an upright box. Turned 45 degrees, a die fills
    only half of it, and the pips are then sought against a body colour that may be the
    floor's, on a square far larger than the die. Here the floor's colour is the median of
    the crop's ring beyond the box, the body's that of its core; the pixels nearer the body's
    side of the two (their holes, the pips, filled; opened off thin shadows and neighbours'
    corners) whose blob holds the centre are the die, and their smallest turned rectangle is
    kept when it is about square, about the box's size and well filled; the region's outline
    is that square inset to ``OUTLINE_INSET`` of its side, its ``side`` the whole square's.
    A die of the floor's colour (white on white), a die merged with a touching one of its
    colour, or a crop cut by the frame's edge gives None: the caller keeps the upright square.
    """
    traced = trace(image, centre, box)
    if traced is None:
        return None
    (_, _), (rw, rh), _ = traced.rect
    short, long = min(rw, rh), max(rw, rh)
    if short < 0.5 * box or long > 1.15 * box or long > 1.3 * short:
        return None
    if traced.fill < OUTLINE_FILL:
        return None
    return _traced_square(traced)


def _traced_square(traced: Traced, merged: int = 1) -> Region:
    """The region of a traced die: its turned square inset to ``OUTLINE_INSET``, its
    ``side`` the whole square's."""
    (rx, ry), (rw, rh), angle = traced.rect
    side = float(np.sqrt(rw * rh))
    inset = side * OUTLINE_INSET
    corners = cv2.boxPoints(((rx, ry), (inset, inset), angle))
    contour = np.round(corners).astype(np.int32).reshape(-1, 1, 2)
    bx, by, bw, bh = cv2.boundingRect(contour)
    box = (bx, by, bx + bw, by + bh)
    return Region(contour, (float(rx), float(ry)), side, float(angle), box, merged)


RETRACED = (0.95, 1.12)  # a lone die's trace replaces its region where its square's sides
RETRACED_ASPECT = 1.1  # lie within these many die sides, it is this square, fills it well
RETRACED_CUT = 0.95  # and holds the whole region, whose side is under this share of its own:
# it grows a cut region, never moves one. A trace smaller than a die lost its bright bevels
# (red dice on setup 14107: 0.92-0.93 sides, each region a little beyond it); a dark die cut
# by the lamp's light (setup 9606 at 640x480) traces at 0.98-1.12 sides about its whole
# region, 0.86-0.93 of it kept. At 1296x972 the same dice kept 0.96-0.99, and tracing those
# again took bevels for pips


def retraced(image: np.ndarray, region: Region, side: float) -> Region:
    """A lone die's ``region`` (found under a calibration, ``side`` pixels a die), or the
    square its colour traces at full resolution (:func:`trace`) where that is a die's.

    The working scale (a die some nine pixels wide) averages a die's thin dark rim into the
    floor: a glossy dark die whose face the lamp lights near the floor's grey is cut off where
    the light begins, and the pips there are lost or taken for a side face's. At full
    resolution the rim is unbroken and the traced square is the die's. A leaning die's trace
    runs long with its side face; it keeps the working-scale region."""
    traced = trace(image, region.center, side)
    if traced is None or traced.fill < OUTLINE_FILL:
        return region
    (_, _), (rw, rh), _ = traced.rect
    short, long = min(rw, rh), max(rw, rh)
    low, high = RETRACED
    if short < low * side or long > high * side or long > RETRACED_ASPECT * short:
        return region
    if not _within(region.contour, traced.rect) or region.side > RETRACED_CUT * np.sqrt(rw * rh):
        return region
    return _traced_square(traced, region.merged)


def _within(
    contour: np.ndarray, rect: tuple[tuple[float, float], tuple[float, float], float]
) -> bool:
    """Whether every point of ``contour`` lies inside the turned rectangle ``rect``."""
    (cx, cy), (rw, rh), angle = rect
    turn = np.deg2rad(angle)
    c, s = np.cos(turn), np.sin(turn)
    dx, dy = (contour.reshape(-1, 2).astype(np.float64) - (cx, cy)).T
    u, v = dx * c + dy * s, -dx * s + dy * c
    return bool(np.all(np.abs(u) <= rw / 2) and np.all(np.abs(v) <= rh / 2))


RETRACE_FROM = 1.2  # a blob of at least this many dice's area is traced again (see
RETRACE_GROWTH = 1.6  # :func:`traced_outline`); the trace is kept where it grows the blob at
RETRACE_WHOLE = 0.12  # most this many times and holds a whole number of dice within this: a
# pair cut to 1.2 dice's area (setup 9606 at 640x480) traces at 1.94, pairs cut to 1.5-1.8 at
# 1.91-2.09; a trace that takes in a shadow does not come out whole (2.35-2.6 for pairs of
# the same dice at 1296x972, and 3.6 for a pair and a third die's corner)


def traced_outline(
    image: np.ndarray, contour: np.ndarray, side: float
) -> tuple[np.ndarray, float] | None:
    """The outline (full resolution) of the blob ``contour`` of touching dice, joined with
    what their colour traces around it at full resolution and inset as a lone die's traced
    square is, and how many dice's area the joined blob covers; None where nothing is traced
    or the trace runs out of its crop (a shadow, a neighbour; the frame's edge is no crop's).

    As :func:`retraced` for a lone die: the working scale cuts the lit part off a group of
    glossy dark dice, and a pair cut so may measure as one die."""
    h, w = image.shape[:2]
    pad = max(4, round(0.4 * side))
    x, y, bw, bh = cv2.boundingRect(contour)
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(w, x + bw + pad), min(h, y + bh + pad)
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(inside, [contour - np.array([x0, y0], np.int32)], -1, 1, cv2.FILLED)
    square = np.ones((3, 3), np.uint8)
    near = cv2.dilate(inside, square, iterations=max(1, round(0.25 * side)))
    core = cv2.erode(inside, square, iterations=max(1, round(0.1 * side)))
    mask = _body_mask(image[y0:y1, x0:x1], core > 0, near == 0, side)
    if mask is None:
        return None
    _, labels = cv2.connectedComponents(mask, connectivity=8)
    held = np.unique(labels[(inside > 0) & (labels > 0)])
    blob = (np.isin(labels, held) | (inside > 0)).astype(np.uint8)
    if (
        (y0 > 0 and blob[0].any())
        or (y1 < h and blob[-1].any())
        or (x0 > 0 and blob[:, 0].any())
        or (x1 < w and blob[:, -1].any())
    ):
        return None
    dice = float(np.count_nonzero(blob)) / side**2
    # inset as a lone die's traced square is (OUTLINE_INSET): the bevels shine where no pip lies
    inset = round((1.0 - OUTLINE_INSET) / 2.0 * side)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    kept = cv2.erode(blob, disc, iterations=inset) if inset > 0 else blob
    found, _ = cv2.findContours(kept, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not found:
        return None
    return max(found, key=cv2.contourArea) + np.array([x0, y0], np.int32), dice


def pixel_area(contour: np.ndarray) -> float:
    """Pixels covered by a filled contour (its polygon runs through the boundary pixel centres)."""
    return float(cv2.contourArea(contour) + cv2.arcLength(contour, True) * 0.5 + 1.0)


def _squareness(contour: np.ndarray) -> float:
    """1 for a filled square, lower for elongated or ragged shapes."""
    area = cv2.contourArea(contour)
    (_, _), (w, h), _ = cv2.minAreaRect(contour)
    if w < 1 or h < 1:
        return 0.0
    return float(area / (w * h)) * min(w, h) / max(w, h)


def find_blobs(
    frame: np.ndarray,
    *,
    background: np.ndarray | None = None,
    tray: np.ndarray | None = None,
    floor: float = 14.0,
    shadow_floor: float = SHADOW_FLOOR,
) -> tuple[list[np.ndarray], int, tuple[int, int]]:
    """Outlines of everything that differs from the background, at the working scale.

    Returns the outlines, the scale and the working image's shape. ``background`` and
    ``tray`` come from a calibration, at the working scale, and so does ``shadow_floor``
    (see :func:`difference`).
    """
    scale = working_scale(frame.shape, 120 if background is not None else AUTO_SHORT_SIDE)
    h, w = frame.shape[:2]
    small = cv2.resize(frame, (w // scale, h // scale), interpolation=cv2.INTER_AREA)
    calibrated = background is not None and background.shape == small.shape
    if background is None or not calibrated:
        background = background_model(small)
    if tray is not None and tray.shape != small.shape[:2]:
        tray = None
    dist = difference(small, background, shadow_floor, kept=calibrated)
    mask = foreground_mask(dist, floor, tray)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return list(contours), scale, (mask.shape[0], mask.shape[1])


def single_die_regions(blobs: list[np.ndarray], scale: int, frame_side: int) -> list[Region]:
    """Blobs shaped like one die of any plausible size (used to learn the die size)."""
    out = []
    for c in blobs:
        side = np.sqrt(pixel_area(c)) * scale
        if MIN_DIE_PX <= side <= frame_side / 3 and _squareness(c) > 0.55:
            out.append(_region(c, scale))
    return out


@dataclass(frozen=True)
class Group:
    """A blob (full-resolution outline) and the die regions it was split into."""

    outline: np.ndarray
    parts: tuple[Region, ...]


def dice_groups(
    frame: np.ndarray, blobs: list[np.ndarray], scale: int, side: float, retrace: bool = False
) -> list[Group]:
    """Blobs of one or more dice of ``side`` pixels, touching dice split apart.

    ``retrace``: ``side`` is a calibration's, exact; a blob of more than one die's area is
    traced again at full resolution (:func:`traced_outline`) and counted and split by that
    outline where it holds a whole number of dice, and a lone die takes its traced square
    where that is a die's (:func:`retraced`)."""
    unit = (side / scale) ** 2
    groups: list[Group] = []
    for c in blobs:
        area = pixel_area(c)
        if area < 0.3 * unit or area > MAX_BLOB_DICE * unit:
            continue
        hull = cv2.convexHull(c)
        if cv2.contourArea(hull) > 0 and cv2.contourArea(c) / cv2.contourArea(hull) < 0.5:
            continue
        full = None
        if retrace and area > RETRACE_FROM * unit:
            traced = traced_outline(frame, to_full(c, scale), side)
            outline, dice = (None, 0.0) if traced is None else traced
            if (
                area / unit <= dice <= RETRACE_GROWTH * area / unit
                and abs(dice - round(dice)) <= RETRACE_WHOLE
            ):
                full, area = outline, dice * unit
        k = round(area / unit)
        if k >= 2 and area > 1.6 * unit:
            full = to_full(c, scale) if full is None else full
            parts = split_touching(frame, full, k, side)
            group = Group(full, tuple(_region(p, 1, merged=k) for p in parts))
        else:
            region = _region(c, scale)
            group = Group(region.contour, (region,))
        if retrace and len(group.parts) == 1:
            region = retraced(frame, group.parts[0], side)
            group = Group(region.contour, (region,))
        groups.append(group)
    return groups


def dice_regions(
    frame: np.ndarray, blobs: list[np.ndarray], scale: int, side: float
) -> list[Region]:
    """Every die region of :func:`dice_groups`, touching or not."""
    return [r for g in dice_groups(frame, blobs, scale, side) for r in g.parts]
