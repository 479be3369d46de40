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
from dataclasses import replace
from functools import lru_cache

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.found import Found
from vision.kernels import colour_distance, median_of
from vision.pips import PEAKED, PipCount, confidence, face_centre, face_turn, on_face_axes
from vision.seam import side_face_between
from vision.segment import Region, difference, weighted_lab

EDGE_MARGIN = 0.06  # beyond the face's square by more than this many sides is a side face
REACH = 0.25  # only pixels within this many sides of the die's (working-scale) region count
NOISE_MADS = 6.0  # the die stands out from the floor by this many of its deviations ...
LEAST_DIFFERENCE = 14.0  # ... and at least this much (as the segmentation does)
LEAN_EXCESS = 0.065  # square sides beyond one edge of the top face from which a lone die
# leans (tuning setups, 640x480: flat lone dice read right 0.042 at the 99th percentile,
# leaning ones 0.069 at the 5th)
FAR_CALIBRATION = 0.03  # a calibration whose flat dice all show at most this witnesses a
# camera far above (rendered far towers 0.003-0.027; cameras 250-350 mm above 0.026-0.44)
FLAT_MARGIN = 2.2  # under a calibration that witnessed its flat dice, a die leans from this
# many times their largest side-face area ... (report seeds 0-11, 640x480: flat lone dice at
# most 1.9 times it, the least leaning lone die 2.5 times it)
LEAN_FLOOR = 0.03  # ... but never from less than this (blur and rounding alone)


def _face_axes(count: PipCount, region: Region, side: float) -> tuple[np.ndarray, float]:
    """Where the top face's square lies: its centre (the pips') and its turn in radians (the
    pips' layout; the region's for a single pip, which shows no axes)."""
    return _face_middle(count, region), _face_turn(count, region, side)


def _face_middle(count: PipCount, region: Region) -> np.ndarray:
    """The centre of :func:`_face_axes`."""
    return _middle_of(count.pips, region.center)


def _face_turn(count: PipCount, region: Region, side: float) -> float:
    """The turn of :func:`_face_axes`."""
    return _turn_of(count.pips, region.rect[2], side)


# a die's square is worked out for itself and again for each neighbour it is a neighbour of
# (each of a frame's lean checks looks at the others' squares): kept for the last few dice
@lru_cache(maxsize=256)
def _middle_of(pips: tuple[tuple[float, float], ...], centre: tuple[float, float]) -> np.ndarray:
    points = np.array(pips, np.float32)
    middle = face_centre(points) if len(points) else np.array(centre, np.float32)
    middle.flags.writeable = False  # shared by every caller
    return middle


@lru_cache(maxsize=256)
def _turn_of(pips: tuple[tuple[float, float], ...], angle: float, side: float) -> float:
    if len(pips) >= 2:
        return face_turn(np.array(pips, np.float32), side)
    return math.radians(angle)


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
    return side_face(frame, calibration, region, count, others)[0]


def side_face(
    frame: np.ndarray,
    calibration: Calibration,
    region: Region,
    count: PipCount,
    others: Sequence[tuple[Region, PipCount]] = (),
) -> tuple[float, tuple[float, float]]:
    """:func:`side_excess` and the edge it lies beside: the unit vector (frame axes) from the
    top face's centre out through that edge.

    The positions are worked out for the pixels that stand out only (and, past the die's
    own parts, for those beyond its square only), each by the same float32 arithmetic as
    over the crop's whole grid (:func:`side_face_checked`)."""
    side = calibration.die_side
    h, w = frame.shape[:2]
    pad = math.ceil(REACH * side) + 2
    x, y, bw, bh = cv2.boundingRect(region.contour)
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(w, x + bw + pad), min(h, y + bh + pad)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return 0.0, (0.0, 0.0)
    dist = difference(
        frame[y0:y1, x0:x1],
        calibration.full_background[y0:y1, x0:x1],
        calibration.shadows,
        background_lab=calibration.full_background_weighted_lab[y0:y1, x0:x1],
    )
    inside = np.zeros(dist.shape, np.uint8)
    cv2.drawContours(inside, [region.contour - np.array([x0, y0], np.int32)], -1, 1, cv2.FILLED)
    near = cv2.dilate(inside, np.ones((3, 3), np.uint8), iterations=max(1, round(REACH * side)))
    floor = dist[near == 0]
    if floor.size > 50:
        med = float(median_of(floor))
        spread = float(median_of(np.abs(floor - med))) + 0.5
        level = max(med + NOISE_MADS * spread, LEAST_DIFFERENCE)
    else:
        level = LEAST_DIFFERENCE
    stands_out = np.bitwise_and((dist > level).view(np.uint8), np.asarray(near, np.uint8))
    labels, parts = cv2.connectedComponents(stands_out)
    centre, turn = _face_axes(count, region, side)
    c, s = math.cos(turn), math.sin(turn)  # the face's axes are (c, s) and (-s, c)
    found = cv2.findNonZero(stands_out)  # (x, y) of each pixel that stands out
    if found is None:  # nothing beyond any edge: the first edge's, as argmax of four zeros
        return 0.0, (c, s)
    px, py = found.reshape(-1, 2).T
    dx = (px + x0).astype(np.float32) - centre[0]
    dy = (py + y0).astype(np.float32) - centre[1]
    at = parts[py, px]
    own = np.zeros(labels, bool)  # the die's own parts: those reaching its core
    own[at[dx**2 + dy**2 < (0.3 * side) ** 2]] = True
    die = own[at]
    dx, dy = dx[die], dy[die]
    u, v = on_face_axes(dx, dy, turn)
    along_u, along_v = np.abs(u), np.abs(v)
    reach = np.maximum(along_u, along_v)
    edge = (0.5 + EDGE_MARGIN) * side
    beyond = reach > edge
    u, v, along_u, along_v = u[beyond], v[beyond], along_u[beyond], along_v[beyond]
    if len(u) and others:
        reach = reach[beyond]
        xs = (px[die][beyond] + x0).astype(np.float32)
        ys = (py[die][beyond] + y0).astype(np.float32)
        kept = np.ones(len(u), bool)
        for other, counted in others:
            there = _face_middle(counted, other)
            if math.hypot(there[0] - centre[0], there[1] - centre[1]) < 2 * side:
                ou, ov = _face_coordinates(xs, ys, there, _face_turn(counted, other, side))
                theirs = np.maximum(np.abs(ou), np.abs(ov))
                kept &= (theirs > edge) & (reach <= theirs)
        u, v, along_u, along_v = u[kept], v[kept], along_u[kept], along_v[kept]
    # a side face lies beside one edge of the top face; a shadow or blur rims two or more:
    # each pixel's edge numbered 0 (u > 0), 2 (u < 0), 3 (v > 0) or 5 (v < 0), 1 and 4 on
    # an axis (no edge's)
    across = along_u >= along_v
    towards = np.where(across, u, v)
    edges = np.bincount((1 - np.sign(towards)).astype(np.intp) + 3 * ~across, minlength=6)
    areas = [float(edges[0]), float(edges[2]), float(edges[3]), float(edges[5])]
    k = areas.index(max(areas))  # the first of the largest, as argmax
    outward = ((c, s), (-c, -s), (-s, c), (s, -c))[k]
    return areas[k] / side**2, outward


def side_face_checked(
    frame: np.ndarray,
    calibration: Calibration,
    region: Region,
    count: PipCount,
    others: Sequence[tuple[Region, PipCount]] = (),
) -> tuple[float, tuple[float, float]]:
    """:func:`side_face` written plainly, over the whole crop's grid of positions (the
    checked path: the tests compare the two on random dice and frames)."""
    side = calibration.die_side
    h, w = frame.shape[:2]
    pad = math.ceil(REACH * side) + 2
    x, y, bw, bh = cv2.boundingRect(region.contour)
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(w, x + bw + pad), min(h, y + bh + pad)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return 0.0, (0.0, 0.0)
    crop = frame[y0:y1, x0:x1]
    dist = difference(
        crop,
        calibration.full_background[y0:y1, x0:x1],
        calibration.shadows,
        background_lab=weighted_lab(calibration.full_background_lab[y0:y1, x0:x1]),
    )
    inside = np.zeros(dist.shape, np.uint8)
    cv2.drawContours(inside, [region.contour - np.array([x0, y0], np.int32)], -1, 1, cv2.FILLED)
    near = cv2.dilate(inside, np.ones((3, 3), np.uint8), iterations=max(1, round(REACH * side)))
    floor = dist[near == 0]
    if floor.size > 50:
        med = float(median_of(floor))
        spread = float(median_of(np.abs(floor - med))) + 0.5
        level = max(med + NOISE_MADS * spread, LEAST_DIFFERENCE)
    else:
        level = LEAST_DIFFERENCE
    # the pixels' positions as a row and a column: every sum over them broadcasts to the
    # crop, pixel by pixel as over a full grid of positions
    xs = np.arange(x0, x1).astype(np.float32)[None, :]
    ys = np.arange(y0, y1).astype(np.float32)[:, None]
    centre, turn = _face_axes(count, region, side)
    mine = (xs - centre[0]) ** 2 + (ys - centre[1]) ** 2
    stands_out = ((dist > level) & (near > 0)).astype(np.uint8)
    labels, parts = cv2.connectedComponents(stands_out)
    core = (mine < (0.3 * side) ** 2) & (stands_out > 0)
    own = np.zeros(labels, bool)  # the die's own parts: those reaching its core
    own[parts[core]] = True
    die = own[parts] & (stands_out > 0)
    u, v = _face_coordinates(xs, ys, centre, turn)
    along_u, along_v = np.abs(u), np.abs(v)
    reach = np.maximum(along_u, along_v)
    edge = (0.5 + EDGE_MARGIN) * side
    beyond = die & (reach > edge)
    for other, counted in others:
        at = _face_middle(counted, other)
        if math.hypot(at[0] - centre[0], at[1] - centre[1]) < 2 * side:
            ou, ov = _face_coordinates(xs, ys, at, _face_turn(counted, other, side))
            theirs = np.maximum(np.abs(ou), np.abs(ov))
            beyond &= (theirs > edge) & (reach <= theirs)
    # a side face lies beside one edge of the top face; a shadow or blur rims two or more
    across = along_u >= along_v
    edges = (across & (u > 0), across & (u < 0), ~across & (v > 0), ~across & (v < 0))
    areas = [float(np.count_nonzero(beyond & e)) for e in edges]
    k = int(np.argmax(areas))
    c, s = math.cos(turn), math.sin(turn)  # the face's axes are (c, s) and (-s, c)
    outward = ((c, s), (-c, -s), (-s, c), (s, -c))[k]
    return areas[k] / side**2, outward


def _face_coordinates(
    xs: np.ndarray, ys: np.ndarray, centre: np.ndarray, turn: float
) -> tuple[np.ndarray, np.ndarray]:
    """Pixel positions along a face's own two axes, from its centre (see
    :func:`vision.pips.on_face_axes`)."""
    return on_face_axes(xs - centre[0], ys - centre[1], turn)


def far_calibration(calibration: Calibration) -> bool:
    """Whether the calibration's flat dice witnessed a camera far above them (no side face
    beside them): then a lone die showing one leans, wherever it lies in the frame."""
    return calibration.flat_excess is not None and calibration.flat_excess <= FAR_CALIBRATION


def lean_excess(calibration: Calibration) -> float:
    """The side-face area (square sides) beyond which a die of this tower leans: the
    calibration's flat dice measure what a flat die shows with this camera, floor and
    light (its blur, its shadow), so a far calibration sets the threshold at FLAT_MARGIN
    times their largest, within LEAN_FLOOR and LEAN_EXCESS; without that witness, or for a
    camera close above, LEAN_EXCESS."""
    excess = calibration.flat_excess
    if excess is None or excess > FAR_CALIBRATION:
        return LEAN_EXCESS
    return min(LEAN_EXCESS, max(LEAN_FLOOR, FLAT_MARGIN * excess))


def shows_side_face(
    frame: np.ndarray,
    calibration: Calibration,
    region: Region,
    count: PipCount,
    others: Sequence[tuple[Region, PipCount]] = (),
) -> bool:
    """Whether the lone die ``region`` shows a side face beside its top face (more than
    :func:`lean_excess`). Touching dice are not judged so: the seam between them and their
    shared shadow measure as much beside a flat die as a side face does beside a leaning
    one (see :func:`doubts_touching`)."""
    if region.merged != 1 or not 1 <= count.value <= 6:
        return False
    return side_excess(frame, calibration, region, count, others) > lean_excess(calibration)


TOUCH_MARGIN = 2.0  # a touching die leans from this many times the tower's threshold beside
# one edge (tuning seeds 200-211, 500-511 and 800-811, 30 rolls, both sizes, far
# calibrations, the square along the pips' own axes: the 3,173 touching dice of flat rolls
# with sure counts measure 0.12 times it at the 99.5th percentile, the seam and shared
# shadow going to the nearer die's square; the 8 leaning ones with sure counts 2.2-5.3;
# 1.5 refused no other roll of seeds 1400-2611 and 3100-3611 at either size)
TOUCH_LEAST = 0.5  # ... or from this many times it when its region is drawn out through
TOUCH_SHIFT = 0.05  # that edge by more than this many sides (the same dice: flat ones 0.056
# at the 99th percentile, 0.064 at the 99.5th, and none over both these and TOUCH_LEAST
# that TOUCH_MARGIN does not already refuse; the leaning ones 0.09-0.17)
SURE_COUNT = 0.5  # the reader's MIN_CONFIDENCE: a count from which a die could be scored


def leans_touching(
    frame: np.ndarray,
    calibration: Calibration,
    region: Region,
    count: PipCount,
    others: Sequence[tuple[Region, PipCount]] = (),
    scored: PipCount | None = None,
) -> bool:
    """Whether a die of a touching group leans: under a calibration that witnessed a far
    camera, more than TOUCH_MARGIN times :func:`lean_excess` of it lies beside one edge of
    its top face, or more than TOUCH_LEAST times it with the die's region drawn out through
    that edge (:func:`region_shift` over TOUCH_SHIFT: a side face belongs to the die's region,
    the seam with a flat neighbour is shared between them). What lies nearer a neighbour's
    square is the neighbour's, so a flat pair's seam and shared shadow measure about as much
    as a lone flat die's blur; a leaning die's side face, a band up to a third of a side
    deep, measures several times more. Only a
    count sure enough to be scored (SURE_COUNT) is judged so: a doubtful one stays unsure
    (see :func:`doubts_touching`), a blurred or smudged die's spill is no lean to report.
    ``scored`` is the count as the reader scores it (the lamp's spot taken out, see
    :func:`vision.lamp.without_lamp`), ``count`` when None: a count the lamp makes sure is
    judged as a sure one."""
    if region.merged == 1 or not 1 <= count.value <= 6 or not far_calibration(calibration):
        return False
    if confidence(count if scored is None else scored) < SURE_COUNT:  # unsure, and doubted
        return False
    area, outward = side_face(frame, calibration, region, count, others)
    threshold = lean_excess(calibration)
    if area > TOUCH_MARGIN * threshold:
        return True
    # part of that, and the die's region drawn out through that edge: a side face, which a
    # flat pair's seam (shared between the two squares) is not
    return (
        area > TOUCH_LEAST * threshold
        and region_shift(region, count, outward, calibration.die_side) > TOUCH_SHIFT
    )


def region_shift(
    region: Region, count: PipCount, outward: tuple[float, float], side: float
) -> float:
    """How far (sides) the die's region's centre lies from its top face's centre (the pips')
    out through the edge ``outward`` points at: a leaning die's region takes in the side face
    it shows beyond that edge, a band about ``cos t / 2 + sin t - 1/2`` deep (0.17 of a side
    at 10 degrees), which draws its centre out by about half that; a flat die's region is
    centred on its face, shadows and the seam with a neighbour aside."""
    middle = _face_middle(count, region)
    dx, dy = region.center[0] - middle[0], region.center[1] - middle[1]
    return float(dx * outward[0] + dy * outward[1]) / side


def doubts_touching(
    frame: np.ndarray,
    calibration: Calibration,
    region: Region,
    count: PipCount,
    others: Sequence[tuple[Region, PipCount]] = (),
) -> bool:
    """Whether the lean check doubts a die of a touching group: under a calibration that
    witnessed a far camera, more than TOUCH_LEAST times :func:`lean_excess` of it lies beside
    one edge of its top face. Not a verdict (a flat pair's seam may measure as much), but a
    doubtful count of such a die must not be made sure by a second opinion: the classifier
    and the dice profile read the top face's value, which a leaning die shows as well as a
    flat one. (On the tuning seeds of TOUCH_MARGIN none of the 15 doubtful touching dice of
    flat rolls measured over 0.3 times the threshold; 17 of the 116 doubtful leaning ones
    measured between half of it and all of it.)"""
    if region.merged == 1 or not 1 <= count.value <= 6 or not far_calibration(calibration):
        return False
    area = side_excess(frame, calibration, region, count, others)
    return area > TOUCH_LEAST * lean_excess(calibration)


PIP_SIZED = 0.6  # a blob set aside as the lamp's spot with this share of the kept pips' median
# area or more is pip-sized (painted middle pips measured 0.6 or more on the tuning setups,
# the lamp's spots 0.27-0.46, see ``pips.SPOT_AREA``)


def doubt_of_form(count: PipCount) -> bool:
    """Whether a doubtful count's pips themselves fail to form a clean top face: its
    confidence with the doubts a flat die's top face carries forgiven (nearly-pip blobs on
    the face, the lamp's spot set aside or swelling a pip) is still under SURE_COUNT. What
    remains is the doubt a leaning die's top face shows: a foreshortened or uneven pip grid
    off the die's centre, blobs beyond the face (a side face's pips, an edge). The second
    opinions read the top face's value, which a leaning die shows as well as a flat one, so
    they may not make such a count of a touching die sure (see :func:`doubts_touching`).
    A blob set aside as the lamp's spot is forgiven unless it looks like a pip: as flat as
    paint (PEAKED of it at full contrast or more) and as large (PIP_SIZED): a face that forms
    only without such a blob is a doubt of form (a leaning die's count that took a side
    face's pip and left one of its own)."""
    pip_like = count.glare_plateau >= PEAKED and count.glare_size >= PIP_SIZED
    spot = count.glare if pip_like else 0
    forgiven = replace(count, doubtful=0, glare=spot, swollen_shift=None)
    return confidence(forgiven) < SURE_COUNT


def tilted(region: Region, side: float) -> bool:
    """A top face much larger or smaller than a die, or far from square, suggests a cocked die."""
    ratio = region.side / side
    (_, _), (w, h), _ = region.rect
    aspect = max(w, h) / max(1.0, min(w, h))
    return region.merged == 1 and (ratio > 1.45 or ratio < 0.6 or aspect > 1.25)


LONE_LONG = 1.10  # a lone die's region longer than this many calibrated sides is leaning


def leans(found: Found, side: float) -> bool:
    """On a calibrated frame (the die's size known exactly): a lone die whose region is
    longer than a die (its top face plus a side face beside it), or whose pips include a
    side face's, is leaning on a wall or a neighbour. Only for a camera far above: one close
    above shows the side faces of flat dice too (see :func:`agreed_near_views`).
    """
    if found.count.side_pips:
        return True
    return found.region.merged == 1 and long_side(found.region) > LONE_LONG * side


FAR_WITNESSES = 2  # flat dice at least as far out that must look unstretched
UNSTRETCHED = 1.06  # longest side of a lone flat die's region seen from far above, in sides
WITNESS_REACH = 0.25  # witnesses at least this share of the suspect's distance from the centre


def long_side(region: Region) -> float:
    (_, _), (w, h), _ = region.rect
    return float(max(w, h))


def seen_from_far(
    found: Found, others: list[Found], side: float, frame_centre: tuple[float, float]
) -> bool:
    """Whether the frame shows that the camera is far above where ``found`` lies: a camera
    close above sees the side faces of flat dice in proportion to their distance from the
    frame's centre, so lone dice with clean faces at least a quarter as far out as ``found``
    whose regions are unstretched witness a far camera (a witness at a share f of the
    suspect's distance may be stretched at most f times the far camera's allowance).
    """
    centre = np.array(frame_centre)
    reach = max(1.0, float(np.linalg.norm(np.array(found.centre) - centre)))
    witnesses = 0
    for g in others:
        if g is found or g.region.merged != 1 or g.count.side_pips or g.count.layout_error > 0.06:
            continue
        out = float(np.linalg.norm(np.array(g.centre) - centre)) / reach
        if out < WITNESS_REACH:
            continue
        # a near camera stretches a flat die in proportion to its distance from the centre:
        # a witness nearer the centre must look the less stretched
        allowed = 1.0 + (UNSTRETCHED - 1.0) * min(1.0, out)
        witnesses += int(long_side(g.region) < allowed * side)
    return witnesses >= FAR_WITNESSES


SUSPECT_LONG = 1.04  # a lone region longer than this many sides is looked at in full (on the
# tuning setups every leaning lone die measured 1.10 or more, nine flat ones in ten 1.03 or less)
WALL_REACH = 2.0  # a die this many sides from the tray's outline is at its wall (the
# outline is the whole frame where the calibration found no floor: walls then lie inside;
# fresh tuning seeds 900-911 at 1296x972 and 1000-1011 at 640x480: every lone leaning die
# within 1.15-1.89 sides of it)


def nearest_wall(calibration: Calibration, point: tuple[float, float]) -> tuple[str, float]:
    """The wall of the calibrated tray floor nearest to ``point`` (left, right, back: the
    top of the frame, or front) and how far it lies, in die sides (infinite without an
    outline)."""
    box = calibration.tray_box
    if box is None:
        return "", math.inf
    x0, y0, x1, y1 = box
    x, y = point
    walls = {
        "the left wall": x - x0,
        "the right wall": x1 - x,
        "the back wall": y - y0,
        "the front wall": y1 - y,
    }
    name, gap = min(walls.items(), key=lambda item: item[1])
    return name, float(gap) / calibration.die_side


def free_standing(found: Found, calibration: Calibration) -> bool:
    """Whether ``found`` has nothing to lean on: a lone die (no neighbour in its region)
    at least WALL_REACH from every wall of a calibration that witnessed a far camera (where
    a flat die shows no side face). A die leans on a wall or on another die, never on the
    open floor."""
    return (
        found.region.merged == 1
        and far_calibration(calibration)
        and nearest_wall(calibration, found.centre)[1] >= WALL_REACH
    )


UNSEEN_SIDE = 0.5  # a lone die with at most this many times the tower's threshold beside
# every edge shows no side face (tuning seeds 200-211, 500-511 and 800-811, 30 rolls, both
# sizes, far calibrations: the 279 lone leaning dice whose counts set pips aside as a side
# face's measured 1.38 times it or more; touching ones from 0, their side face often given to
# the neighbour's square, so only a lone die is judged)


def side_face_unseen(
    frame: np.ndarray,
    found: Found,
    calibration: Calibration,
    others: Sequence[tuple[Region, PipCount]] = (),
) -> bool:
    """Whether the pips ``found``'s count set aside as a side face's come with no side face:
    a lone die under a calibration that witnessed a far camera, with no more than UNSEEN_SIDE
    of the tower's threshold beside any edge of its top face at full resolution. The blobs
    are then a flat die's (a rim's glint, a darker corner of a translucent die), no side face's
    pips, and the die is not leaning for them (see :func:`vision.pips.side_pips_as_doubts`)."""
    if not found.count.side_pips or found.region.merged != 1 or not far_calibration(calibration):
        return False
    area = side_excess(frame, calibration, found.region, found.count, others)
    return area <= UNSEEN_SIDE * lean_excess(calibration)


def shadow_stretched(
    frame: np.ndarray,
    calibration: Calibration,
    found: Found,
    others: Sequence[tuple[Region, PipCount]] = (),
) -> bool:
    """Whether the lone die ``found``, its region longer than a die, shows no side face at full
    resolution: no more than UNSEEN_SIDE of the tower's threshold beside any edge of its top
    face, and no side face's pips. Its shadow stretched the region (a dark die on a dark
    floor), not a side face. This holds whatever the calibration witnessed: a near camera
    shows a flat die's side face, so its absence is no sign of a lean either. (Tuning seeds
    200-211, 500-511 and 800-811, 30 rolls, both sizes: of the lone dice so long on frames
    seen from far, the 5 flat ones measured at most 0.010 square sides, the 102 leaning ones
    0.060 or more; the bound is 0.0325 without a far calibration's witness.)"""
    if found.count.side_pips or found.region.merged != 1 or not 1 <= found.count.value <= 6:
        return False
    area = side_excess(frame, calibration, found.region, found.count, others)
    return area <= UNSEEN_SIDE * lean_excess(calibration)


def frame_leaning(
    image: np.ndarray,
    found: Found,
    readable: list[Found],
    calibration: Calibration | None,
    far_by_calibration: bool,
    scored: PipCount | None = None,
) -> bool:
    """Whether ``found`` leans, on a frame with no near view agreed: its region or pips say
    so and the frame's dice witness a far camera (:func:`seen_from_far`), or it shows a side
    face at full resolution (:mod:`vision.lean`) and the calibration's flat dice or the
    frame's witness a far camera, or its pips include a side face's (touching or not) and the
    calibration witnesses a far camera, which shows no side face of a flat die, or it is a
    touching die showing a side face (:func:`leans_touching`), or one whose seam with a
    touching neighbour holds a side face (:func:`vision.seam.side_face_between`), under such
    a calibration. A
    lone die is looked at in full when its region is longer than SUSPECT_LONG, or, under
    such a calibration, when it lies at a wall (WALL_REACH), the only thing a lone die can
    lean on: a die leaning on the back wall may look square at the working scale.
    ``scored``: the count as the reader scores it (see :func:`leans_touching`)."""
    if calibration is None:
        return False
    if found.count.side_pips and far_by_calibration:
        return True
    side = calibration.die_side
    middle = (image.shape[1] / 2.0, image.shape[0] / 2.0)
    others = [(g.region, g.count) for g in readable if g is not found]
    if leans(found, side) and seen_from_far(found, readable, side, middle):
        # under a far calibration the side face measured at full resolution decides: a
        # shadow stretches a dark die's region at the working scale, not its side face;
        # without that witness the stretch decides, unless the full look finds no side face
        if far_by_calibration:
            return shows_side_face(image, calibration, found.region, found.count, others)
        return not shadow_stretched(image, calibration, found, others)
    if found.region.merged != 1:  # a touching die: its side face beside one edge, several
        # times what a flat pair's seam shows, or in the seam with a neighbour, under a far
        # calibration
        # a seam is judged between faces placed by one sure count at least: two unsure ones
        # may have lost or gained pips, which moves the faces' centres
        sure = confidence(found.count if scored is None else scored) >= SURE_COUNT
        return far_by_calibration and (
            leans_touching(image, calibration, found.region, found.count, others, scored)
            or any(
                side_face_between(image, calibration, found.count, counted)
                for region, counted in others
                if region.merged != 1 and (sure or confidence(counted) >= SURE_COUNT)
            )
        )
    at_wall = far_by_calibration and nearest_wall(calibration, found.centre)[1] < WALL_REACH
    if long_side(found.region) <= SUSPECT_LONG * side and not at_wall:
        # as square as a flat die at the working scale and away from every wall, where a
        # lone die has nothing to lean on: not worth the look
        return False
    if not shows_side_face(image, calibration, found.region, found.count, others):
        return False
    return far_by_calibration or seen_from_far(found, readable, side, middle)


NEAR_VIEW_ALIGN = 0.8  # cosine between a region's excess and the way to the frame's centre


def seen_from_near(found: Found, side: float, frame_centre: tuple[float, float]) -> Found:
    """``found`` re-centred on its top face if it may be a flat die seen by a camera close above.

    Such a camera sees the side faces that look towards the frame's centre: the region runs
    from a clean face (two or more pips in a real layout, a die wide) towards the centre.
    A cocked die's region does not line up so, or its pips do not form a clean face.
    """
    count, region = found.count, found.region
    if region.merged != 1 or not 2 <= count.value <= 6 or count.layout_error > 0.04:
        return found
    if count.side_pips:  # pips on a side face: a cocked die shows them too
        return found
    face = np.mean(np.array(count.pips, np.float64), axis=0)
    excess = np.array(region.center) - face
    inward = np.array(frame_centre) - face
    reach, way = float(np.linalg.norm(excess)), float(np.linalg.norm(inward))
    if reach < 0.05 * side or way < side:
        return found
    (_, _), (w, h), _ = region.rect
    aligned = float(excess @ inward) / (reach * way) > NEAR_VIEW_ALIGN
    if not aligned or not 0.8 * side <= min(w, h) <= 1.25 * side or max(w, h) > 1.9 * side:
        return found
    centred = replace(count, centre_offset=0.0)
    return Found(region, centred, (float(face[0]), float(face[1])), near_view=reach / way)


NEAR_VIEW_SUPPORT = 3  # dice that must agree on the camera's nearness


def agreed_near_views(
    found: list[Found], side: float, frame_centre: tuple[float, float]
) -> list[Found]:
    """``found`` with the near views of :func:`seen_from_near` kept only where the frame
    agrees: one camera height shows every flat die's sides in proportion to its distance
    from the centre, so at least ``NEAR_VIEW_SUPPORT`` dice must show about the same
    proportion. A lone cocked die does not pass for a near view.
    """
    seen = [seen_from_near(f, side, frame_centre) for f in found]
    ratios = np.array([f.near_view for f in seen if f.near_view])
    if len(ratios) < NEAR_VIEW_SUPPORT:
        return found
    typical = float(np.median(ratios))
    return [
        s if s.near_view and 0.5 * typical <= s.near_view <= 2.0 * typical else f
        for f, s in zip(found, seen, strict=True)
    ]


def looks_tilted(found: Found, side: float) -> bool:
    return not found.near_view and tilted(found.region, side)


FACE_OFF_OUTLINE = 30.0  # degrees between a face's axes (its pips') and its outline's beyond
# which the pips are no face of that die: on seeds 1400-1411 and 2400-2411, 30 rolls at both
# sizes, the flat dice read right measured at most 20 (15 at the 99.9th percentile), the 3s
# read from one column of a leaning 6 (foreshortened across its columns) 43-45


def face_off_outline(region: Region, count: PipCount, side: float) -> bool:
    """Whether the count's pips form a face turned away from the die's outline by more than
    FACE_OFF_OUTLINE: a flat die's pips lie on its face's grid, whose axes are its edges; a
    line of three pips along an edge (one column of a 6 whose other column a leaning die's
    foreshortening hid or gave to its neighbour) fits a 3 only on a diagonal, 45 degrees
    off. Only a line of pips (a 2 or a 3) is judged: a single pip shows no axes, and four
    pips or more form a face's grid of their own, which an outline grown by a neighbour's
    edge or a shadow may turn against."""
    if count.value not in (2, 3) or len(count.pips) != count.value:
        return False
    turn = math.degrees(_face_turn(count, region, side))
    return abs((turn - region.rect[2] + 45.0) % 90.0 - 45.0) > FACE_OFF_OUTLINE


DASH = 0.5  # a counted pip this drawn out (its blob's short axis over its long one, by its
# second moments) ...
DASH_THIN = 0.7  # ... this thin beside the count's widest pip ...
DASH_LONG = 0.95  # ... and at least this long beside it is a side face's pip foreshortened
# to a dash: a slant shortens one axis of a pip, never the other. A top face's pips seen
# from above are round; two pips joined into one blob are drawn out but a pip wide; a faint
# pip cut small by the blob's level is drawn out but shorter than a pip is wide ...
DASHES = 2  # ... and a die whose count holds this many dashes leans, its side face's pips
# taken for its top's. Chosen on seeds 1400, 3100, 6100 and 8100 (12 setups each, 30 rolls;
# of the flat dice of accepted rolls with two pips or more, 0 of 4,681 held two blobs under
# DASH at 1296x972 and 2 of 4,559 at 640x480), then mended on 9100-9611, where three flat
# 6s were refused: two of wide-set pips whose column joined into blobs 0.37-0.42 sides long,
# 0.39-0.43 of round but 0.93-0.97 of the widest pip's width, and one of faint red pips
# whose lower middle pair measured 0.46-0.47 of round and 0.74-0.80 of the widest pip's
# width in length. The leaning 6 of setup 13102 roll 30, two of its side face's dashes
# counted with four of its top's pips: 0.40-0.41 of round, 0.46-0.47 of the widest pip's
# width across and 1.12-1.16 along at 1296x972; 0.33-0.46, 0.48-0.56 and 1.23-1.44 at
# 640x480.
DASH_REACH = 0.2  # sides round a pip's centre where its blob is looked for


def pip_axes(
    frame: np.ndarray, centre: tuple[float, float], side: float
) -> tuple[float, float] | None:
    """The short and long axes, in pixels, of the pip blob at ``centre`` (equal for a disc),
    by the second moments of the pixels round it that stand out from the patch's rim (Lab
    distance above halfway from the median to the most) and join the centre. None where the
    patch leaves the frame or no blob lies at the centre."""
    r = max(3, round(DASH_REACH * side))
    x, y = round(centre[0]) - r, round(centre[1]) - r
    h, w = frame.shape[:2]
    if x < 0 or y < 0 or x + 2 * r + 1 > w or y + 2 * r + 1 > h:
        return None
    lab = cv2.cvtColor(frame[y : y + 2 * r + 1, x : x + 2 * r + 1], cv2.COLOR_BGR2LAB)
    lab = lab.astype(np.float32)
    rim = np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]])
    distance = colour_distance(lab, median_of(rim))
    level = (float(distance.max()) + float(median_of(distance.ravel()))) / 2.0
    _, parts = cv2.connectedComponents((distance > level).astype(np.uint8))
    blob = parts[r, r]
    if blob == 0:
        return None
    m = cv2.moments((parts == blob).astype(np.uint8), binaryImage=True)
    if m["m00"] < 3:
        return None
    a, b, c = m["mu20"] / m["m00"], m["mu11"] / m["m00"], m["mu02"] / m["m00"]
    spread = math.sqrt(max((a - c) ** 2 / 4.0 + b * b, 0.0))
    # an ellipse's axis is four times the root of its second moment along it
    long, short = (a + c) / 2.0 + spread, (a + c) / 2.0 - spread
    return 4.0 * math.sqrt(max(short, 0.0)), 4.0 * math.sqrt(max(long, 0.0))


def shows_dashes(frame: np.ndarray, count: PipCount, side: float) -> bool:
    """Whether DASHES or more of the pips ``count`` counted are dashes, as a side face's
    pips are seen at a slant: drawn out (short axis under DASH of the long), thin (under
    DASH_THIN of the count's widest pip) and as long as a pip is wide (DASH_LONG of it)."""
    axes: list[tuple[float, float]] = []
    drawn_out = 0
    for k, pip in enumerate(count.pips):
        if drawn_out + len(count.pips) - k < DASHES:
            return False  # too few pips left to hold DASHES dashes
        measured = pip_axes(frame, pip, side)
        if measured is not None:
            axes.append(measured)
            drawn_out += measured[0] < DASH * measured[1]
    if drawn_out < DASHES:
        return False
    widest = max(short for short, _ in axes)
    dashes = sum(
        1
        for short, long in axes
        if short < DASH * long and short < DASH_THIN * widest and long >= DASH_LONG * widest
    )
    return dashes >= DASHES
