"""A side face in the seam between two touching dice, measured on a calibrated frame.

A die leaning on its neighbour may show its side face between the two top faces, where the
lean check's squares give every pixel to the nearer die (a flat pair's seam and shared
shadow are no side face). Two things tell that band from a flat pair's seam:

- the two top faces lie apart by the band's width: the centres of their pips are more than
  a side apart, where flat touching dice sit a side apart or nearer (their rounded edges
  meet), square to the line between them (the leaning die rests on its neighbour's face),
  and what fills the gap is not the floor;
- every face of a die bears pips, so the band bears marks of the pips' colour (foreshortened
  to dashes at that slant), where a flat pair's seam shows the dice's rims and the crack
  between them.

The seam is sampled on a grid of its own, SAMPLES to a side, along the line between the two
faces' centres (``u``) and across it (``v``), both in die sides from the midpoint.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.pips import PipCount, face_centre, face_turn
from vision.segment import difference, to_lab

SEAM_APART = 1.03  # top faces whose pips' centres lie this many sides apart or more hold
# something between them (tuning seeds 200-211, 500-511, 800-811 and 1400-2611 but 2000,
# 30 rolls, both sizes, benchmarks/seam_pairs.py: of 6,641 flat touching pairs with sure
# counts and no floor between them the farthest lay 1.014 sides apart, 99.9% at most
# 1.004; the leaning dice scored before whose side face lay in the seam 1.036-1.136)
SEAM_NEAR = 1.0  # faces between a side and SEAM_APART apart hold a side face only with
SEAM_NEAR_MARKS = 0.02  # this many square sides of marks: about twice as many as any flat
# pair's seam that far apart (seeds 1400-2611, 3100-3611, 6100-9611 and 10100-11611, 30
# rolls, both sizes, benchmarks/seam_pairs.py: 83 flat pairs with sure counts 1.0-1.03 sides
# apart, no floor and square, marks at most 0.011; nearer than a side, where rims overlap,
# up to 0.044, which is why those are never judged); a leaning die at a slight tilt shows a
# narrow side face, whose dashes still cover its middle (setup 7201 roll 30 at 1296x972:
# 1.012 sides apart, 0.046; setup 10109 roll 12, a white 6 propped on a 1: 1.028 and 0.0225
# at 1296x972, 1.002 and 0.025 at 640x480, scored at 0.03)
SEAM_REACH = 1.5  # dice farther apart than this many sides are no touching pair
SEAM_SQUARE = 8.0  # degrees: a die leaning on its neighbour rests on the neighbour's face,
# its side face along the neighbour's edge, so both top faces are square to the line between
# them (the leaning dice above: at most 3.9, the layout's fit turning in steps of 4); flat
# dice meeting at a corner are turned from it (the plain tower's seeds 1050 and 1558: 12.7
# and 13.3-27.3)
SEAM_FLOOR = 0.2  # a seam whose middle looks like the floor for more than this share is a gap
FLOOR_NEAR = 20.0  # a pixel this close to the empty tray's colour there is the floor
FLOOR_EDGE = 2  # samples beside the floor that are a die's edge blurred into it
SEAM_MARKS = 0.0125  # square sides of pip-coloured marks from which the seam holds a side
# face (the same flat pairs more than a side apart, 15: at most 0.005; the leaning ones
# 0.019-0.093)
SAMPLES = 40  # the seam's grid: samples to a die side
ALONG = 0.2  # the seam's marks are sought within this many sides of the midpoint along u
# (a leaning 1's face is placed by its one pip, so its side face's dashes may lie off the
# midpoint: setup 8603 roll 27 at 1296x972, 0.12-0.15 side; at 0.2 the flat pairs of the
# seeds of SEAM_NEAR_MARKS measure as before, none of them a side face)
ACROSS = 0.4  # ... and across it (a face's pips lie within 0.3 of its centre line)
PIP_CLEAR = 0.14  # sides round each counted pip that are that pip's, not the seam's
MARK_SIZE = (0.05, 0.25)  # a mark's extent across the seam, in sides: a pip foreshortened
# along it (a rim's highlight runs the seam's length)
MARK_LEAST = 4  # samples: smaller specks are noise
RING = 0.38  # sides from a face's centre where its body colour is sampled (between pips)
HUE_APART = 8.0  # degrees between the pips' and the body's colour from which hue alone
# tells a shaded pip (the side face is lit less than the top) from the shaded body


@dataclass(frozen=True)
class Seam:
    """The seam between two top faces: how far apart their pips' centres lie (sides), how
    far (degrees) the line between those centres turns from the nearer axis of either face
    (the larger of the two; a face of one pip shows no axes), the share of its middle that
    looks like the floor, and the area (square sides) of pip-coloured marks in it."""

    apart: float
    turned: float
    floor: float
    marks: float

    @property
    def side_face(self) -> bool:
        """Whether it holds a side face: the faces more than SEAM_APART sides apart (but
        touching, within SEAM_REACH) and square to the line between them (SEAM_SQUARE), its
        middle no floor (SEAM_FLOOR), and pip-coloured marks of SEAM_MARKS square sides or
        more in it; or, for faces more than SEAM_NEAR but not SEAM_APART sides apart, of
        SEAM_NEAR_MARKS or more."""
        if SEAM_APART < self.apart < SEAM_REACH:
            least = SEAM_MARKS
        elif self.apart > SEAM_NEAR:
            least = SEAM_NEAR_MARKS
        else:
            return False
        return self.turned <= SEAM_SQUARE and self.floor <= SEAM_FLOOR and self.marks >= least


def _apart(count: PipCount, other: PipCount, side: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The two faces' centres (their pips') and how many sides apart they lie."""
    mine = face_centre(np.array(count.pips, np.float32)).astype(np.float64)
    theirs = face_centre(np.array(other.pips, np.float32)).astype(np.float64)
    return mine, theirs, math.hypot(*(theirs - mine)) / side


def _turned(count: PipCount, along: np.ndarray, side: float) -> float:
    """How far (degrees, 0-45) the direction ``along`` turns from the nearer axis of the face
    ``count`` counted (its layout's fit); 0 for a face of one pip, which shows no axes."""
    if len(count.pips) < 2:
        return 0.0
    axis = math.degrees(face_turn(np.array(count.pips, np.float32), side))
    off = (math.degrees(math.atan2(along[1], along[0])) - axis) % 90.0
    return min(off, 90.0 - off)


def side_face_between(
    frame: np.ndarray,
    calibration: Calibration,
    count: PipCount,
    other: PipCount,
) -> bool:
    """Whether the seam between the top faces whose pips ``count`` and ``other`` counted
    holds a side face (:attr:`Seam.side_face`; measured only for faces that lie apart)."""
    if not count.pips or not other.pips:
        return False
    placed = _apart(count, other, calibration.die_side)
    if not SEAM_NEAR < placed[2] < SEAM_REACH:
        return False
    return _measured(frame, calibration, count, other, placed).side_face


def _grid(
    middle: np.ndarray, along: np.ndarray, side: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The seam's sampling grid round ``middle``, ``along`` the line between the faces:
    the affine map from its samples to the frame, and each sample's frame position (x and
    y) and place (u and v, in sides from ``middle``)."""
    across = np.array([-along[1], along[0]])
    half_u, half_v = round(ALONG * SAMPLES), round(ACROSS * SAMPLES)
    step = side / SAMPLES
    origin = middle - half_u * step * along - half_v * step * across
    to_frame = np.array(
        [
            [step * along[0], step * across[0], origin[0]],
            [step * along[1], step * across[1], origin[1]],
        ],
        np.float32,
    )
    ys, xs = np.mgrid[0 : 2 * half_v + 1, 0 : 2 * half_u + 1]
    place = np.stack([(xs - half_u) / SAMPLES, (ys - half_v) / SAMPLES])
    at = middle[:, None, None] + side * (
        along[:, None, None] * place[0] + across[:, None, None] * place[1]
    )
    return to_frame, at, place


def _sample(image: np.ndarray, points: list[np.ndarray]) -> np.ndarray:
    """The mean colour of the 3 x 3 pixels of ``image`` round each of ``points`` (clipped
    to the frame), as an (N, 3) float array."""
    h, w = image.shape[:2]
    xs = np.rint([p[0] for p in points]).astype(int)
    ys = np.rint([p[1] for p in points]).astype(int)
    total = np.zeros((len(points), 3), np.float64)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            total += image[np.clip(ys + dy, 0, h - 1), np.clip(xs + dx, 0, w - 1)]
    out: np.ndarray = total / 9.0
    return out


def _colours(
    frame: np.ndarray,
    counts: tuple[PipCount, PipCount],
    middles: tuple[np.ndarray, np.ndarray],
    side: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The pips' colour and the dice's body colour (BGR, 8-bit): the medians of the frame
    (3 x 3 means) at the pips' centres and on a ring between the pips round each face's
    centre (``middles``, the faces' centres)."""
    pips = [np.array(p, np.float64) for c in counts for p in c.pips]
    ring: list[np.ndarray] = []
    for middle in middles:
        for a in np.linspace(0.0, 2 * math.pi, 24, endpoint=False):
            q = middle + RING * side * np.array([math.cos(a), math.sin(a)])
            if all(math.hypot(q[0] - p[0], q[1] - p[1]) > 0.12 * side for p in pips):
                ring.append(q)
    pip = np.median(_sample(frame, pips), axis=0)
    body = np.median(_sample(frame, ring), axis=0) if ring else pip
    return np.rint(pip).astype(np.uint8), np.rint(body).astype(np.uint8)


def _unit(colours: np.ndarray) -> np.ndarray:
    """Colours (BGR, ... x 3) scaled to length 1: their hue and saturation, not lightness."""
    values = colours.astype(np.float32)
    out: np.ndarray = values / np.maximum(np.linalg.norm(values, axis=-1, keepdims=True), 1e-6)
    return out


DARK = 0.1 * 255  # colours (BGR length) darker than this show no hue to compare


def pip_coloured(
    seam: np.ndarray,
    pip: np.ndarray,
    body: np.ndarray,
    beside_floor: np.ndarray | None = None,
) -> np.ndarray:
    """Which pixels of ``seam`` (BGR, 8-bit) look like the pips rather than the body (both
    BGR, 8-bit): nearer the pips' colour than the body's in Lab (and within 0.6 of the way
    between them), or, where the pips' and the body's hues differ by HUE_APART degrees or
    more, nearer the pips' hue at any lightness (a side face is lit less than the top face,
    its pips too) but for the pixels ``beside_floor`` marks: a die's edge blurred into the
    floor mixes the two colours into a greyish hue, neither die nor floor."""
    lab = to_lab(seam)
    pip_lab, body_lab = (to_lab(c.reshape(1, 1, 3))[0, 0] for c in (pip, body))
    contrast = float(np.linalg.norm(pip_lab - body_lab))
    to_pip = np.linalg.norm(lab - pip_lab, axis=2)
    to_body = np.linalg.norm(lab - body_lab, axis=2)
    plain = (to_pip < to_body) & (to_pip < 0.6 * contrast)
    pip_hue, body_hue = _unit(pip), _unit(body)
    apart = math.degrees(math.acos(float(np.clip(pip_hue @ body_hue, -1.0, 1.0))))
    lightness = min(
        float(np.linalg.norm(pip.astype(np.float32))),
        float(np.linalg.norm(body.astype(np.float32))),
    )
    if apart < HUE_APART or lightness <= 1.5 * DARK:
        return np.asarray(plain)
    hues = _unit(seam)
    towards = np.degrees(np.arccos(np.clip(hues @ pip_hue, -1.0, 1.0)))
    hue = (
        (hues @ pip_hue > hues @ body_hue)
        & (np.linalg.norm(seam.astype(np.float32), axis=2) > DARK)
        & (towards < 0.5 * apart)
    )
    if beside_floor is not None:
        hue &= ~beside_floor
    return np.asarray(plain | hue)


def seam_between(
    frame: np.ndarray, calibration: Calibration, count: PipCount, other: PipCount
) -> Seam:
    """The :class:`Seam` between the two top faces ``count`` and ``other`` counted (each
    with one pip at least). Its marks are blobs of :func:`pip_coloured` samples that are not
    the floor, clear of either face's counted pips, and as long across the seam as a
    foreshortened pip (MARK_SIZE)."""
    return _measured(frame, calibration, count, other, _apart(count, other, calibration.die_side))


def _measured(
    frame: np.ndarray,
    calibration: Calibration,
    count: PipCount,
    other: PipCount,
    placed: tuple[np.ndarray, np.ndarray, float],
) -> Seam:
    """:func:`seam_between`, the faces' centres and distance (``placed``, :func:`_apart`)
    worked out already."""
    side = calibration.die_side
    mine, theirs, apart = placed
    gap = theirs - mine
    along = gap / max(float(np.hypot(*gap)), 1e-6)
    turned = max(_turned(c, along, side) for c in (count, other))
    to_frame, at, (u, v) = _grid((mine + theirs) / 2, along, side)
    size = (u.shape[1], u.shape[0])
    flags = cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR
    border = cv2.BORDER_REPLICATE
    seam = cv2.warpAffine(frame, to_frame, size, flags=flags, borderMode=border)
    empty = cv2.warpAffine(
        calibration.full_background, to_frame, size, flags=flags, borderMode=border
    )
    seam = cv2.GaussianBlur(seam, (3, 3), 0)
    floor = difference(seam, empty, calibration.shadows) < FLOOR_NEAR
    middle = (np.abs(u) <= 0.05) & (np.abs(v) <= 0.3)
    clear = np.ones(u.shape, bool)
    for x, y in count.pips + other.pips:
        clear &= np.hypot(at[0] - x, at[1] - y) > PIP_CLEAR * side
    pip, body = _colours(frame, (count, other), (mine, theirs), side)
    edge = cv2.dilate(floor.astype(np.uint8), np.ones((3, 3), np.uint8), iterations=FLOOR_EDGE)
    marks = pip_coloured(seam, pip, body, edge > 0) & clear & ~floor
    n, _, stats, _ = cv2.connectedComponentsWithStats(marks.astype(np.uint8), connectivity=8)
    least, most = (round(s * SAMPLES) for s in MARK_SIZE)
    total = 0
    for _x, _y, _w, h, area in stats[1:n].tolist():
        if area >= MARK_LEAST and least <= h <= most:
            total += area
    return Seam(apart, turned, float(floor[middle].mean()), total / SAMPLES**2)
