"""A leaning die's side face, measured at full resolution on a calibrated frame.

The dice are found on a frame shrunk to about 120 px on its short side, where a die is
some ten pixels wide: a die leaning 10 degrees (its top face 0.98 of a side, a side face
0.17 of a side beside it) is a pixel longer than a flat one there, within the outline's own
noise. Here the die is compared with the calibrated empty tray at full resolution around
it, and the part of it that lies beyond the square its top face's pips put it in (a side
face, seen from above) is measured in square sides. A flat die seen from far above shows
none (its edge's blur and the rounding of its pips' fit only); a leaning die shows a band
about ``cos t / 2 + sin t - 1/2`` of a side deep (0.17 at 10 degrees) along one edge.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.pips import PipCount, face_centre, face_turn
from vision.segment import Region, difference

EDGE_MARGIN = 0.06  # beyond the face's square by more than this many sides is a side face
REACH = 0.25  # only pixels within this many sides of the die's (working-scale) region count
NOISE_MADS = 6.0  # the die stands out from the floor by this many of its deviations ...
LEAST_DIFFERENCE = 14.0  # ... and at least this much (as the segmentation does)
LEAN_EXCESS = 0.065  # square sides beyond one edge of the top face from which a lone die
# leans (tuning setups, 640x480: flat lone dice read right 0.042 at the 99th percentile,
# leaning ones 0.069 at the 5th)
FAR_CALIBRATION = 0.03  # a calibration whose flat dice all show at most this witnesses a
# camera far above (rendered far towers 0.003-0.027; cameras 250-350 mm above 0.026-0.44)


def full_background(calibration: Calibration) -> np.ndarray:
    """The calibrated empty tray at the frame's full size (kept with the calibration)."""
    cached = calibration._cache.get("full_background")
    if cached is None:
        w, h = calibration.frame_size
        cached = cv2.resize(calibration.background, (w, h), interpolation=cv2.INTER_LINEAR)
        calibration._cache["full_background"] = cached
    return cached


def _face_axes(count: PipCount, region: Region, side: float) -> tuple[np.ndarray, float]:
    """Where the top face's square lies: its centre (the pips') and its turn in radians (the
    pips' layout; the region's for a single pip, which shows no axes)."""
    pips = np.array(count.pips, np.float32)
    centre = face_centre(pips) if len(pips) else np.array(region.center, np.float32)
    if len(pips) >= 2:
        return centre, face_turn(pips, side)
    return centre, math.radians(cv2.minAreaRect(region.contour)[2])


def side_excess(
    frame: np.ndarray,
    calibration: Calibration,
    region: Region,
    count: PipCount,
    others: Sequence[tuple[Region, PipCount]] = (),
) -> float:
    """How much of the die is seen beyond one edge of its top face's square, in square
    sides (the most beyond any of the four edges).

    ``region`` and ``count`` are the die's (its region, its pips counted); ``others`` the
    frame's other dice: a pixel within another die's square, or nearer to that square than
    to this one's (along each face's own axes), is the other die's.
    """
    side = calibration.die_side
    h, w = frame.shape[:2]
    pad = math.ceil(REACH * side) + 2
    x, y, bw, bh = cv2.boundingRect(region.contour)
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(w, x + bw + pad), min(h, y + bh + pad)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return 0.0
    crop = frame[y0:y1, x0:x1]
    dist = difference(crop, full_background(calibration)[y0:y1, x0:x1], calibration.shadows)
    inside = np.zeros(dist.shape, np.uint8)
    cv2.drawContours(inside, [region.contour - np.array([x0, y0], np.int32)], -1, 1, cv2.FILLED)
    near = cv2.dilate(inside, np.ones((3, 3), np.uint8), iterations=max(1, round(REACH * side)))
    floor = dist[near == 0]
    if floor.size > 50:
        med = float(np.median(floor))
        spread = float(np.median(np.abs(floor - med))) + 0.5
        level = max(med + NOISE_MADS * spread, LEAST_DIFFERENCE)
    else:
        level = LEAST_DIFFERENCE
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    centre, turn = _face_axes(count, region, side)
    mine = (xs - centre[0]) ** 2 + (ys - centre[1]) ** 2
    stands_out = ((dist > level) & (near > 0)).astype(np.uint8)
    _, parts = cv2.connectedComponents(stands_out)
    core = (mine < (0.3 * side) ** 2) & (stands_out > 0)
    die = np.isin(parts, np.unique(parts[core])) & (stands_out > 0)  # the die's own parts
    u, v = _face_coordinates(xs, ys, centre, turn)
    reach = np.maximum(np.abs(u), np.abs(v))
    edge = (0.5 + EDGE_MARGIN) * side
    beyond = die & (reach > edge)
    for other, counted in others:
        at, its_turn = _face_axes(counted, other, side)
        if math.hypot(at[0] - centre[0], at[1] - centre[1]) < 2 * side:
            ou, ov = _face_coordinates(xs, ys, at, its_turn)
            theirs = np.maximum(np.abs(ou), np.abs(ov))
            beyond &= (theirs > edge) & (reach <= theirs)
    # a side face lies beside one edge of the top face; a shadow or blur rims two or more
    across = np.abs(u) >= np.abs(v)
    edges = (across & (u > 0), across & (u < 0), ~across & (v > 0), ~across & (v < 0))
    return max(float(np.count_nonzero(beyond & e)) for e in edges) / side**2


def _face_coordinates(
    xs: np.ndarray, ys: np.ndarray, centre: np.ndarray, turn: float
) -> tuple[np.ndarray, np.ndarray]:
    """Pixel positions along a face's own two axes, from its centre."""
    dx, dy = xs - centre[0], ys - centre[1]
    c, s = math.cos(turn), math.sin(turn)
    return dx * c - dy * s, dx * s + dy * c


def far_calibration(calibration: Calibration) -> bool:
    """Whether the calibration's flat dice witnessed a camera far above them (no side face
    beside them): then a lone die showing one leans, wherever it lies in the frame."""
    return calibration.flat_excess is not None and calibration.flat_excess <= FAR_CALIBRATION


def shows_side_face(
    frame: np.ndarray,
    calibration: Calibration,
    region: Region,
    count: PipCount,
    others: Sequence[tuple[Region, PipCount]] = (),
) -> bool:
    """Whether the lone die ``region`` shows a side face beside its top face (more than
    LEAN_EXCESS). Touching dice are not judged so: the seam between them and their shared
    shadow measure as much beside a flat die as a side face does beside a leaning one."""
    if region.merged != 1 or not 1 <= count.value <= 6:
        return False
    return side_excess(frame, calibration, region, count, others) > LEAN_EXCESS
