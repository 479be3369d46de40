"""Count the pips on one die's top face and judge how sure that count is.

Pips are the small round blobs that differ in colour from the die's body (whatever the
colours are). The count is checked against the standard d6 layouts: a count whose pips do
not sit where a real face puts them is not trusted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

import cv2
import numpy as np

from vision.kernels import (
    body_colour,
    colour_distance,
    label_peaks,
    mean_of,
    size_spread,
    small_median,
)
from vision.segment import Region, single_die_regions, to_lab

T = TypeVar("T")

PIP_AREA = (0.006, 0.07)  # pip area as a fraction of the die's area
LAYOUT_OFFSETS = np.arange(0.22, 0.315, 0.015)  # corner pips' offset from the centre, in sides
ANGLES = np.deg2rad(np.arange(0.0, 180.0, 4.0))  # 2, 3 and 6 repeat only every half turn


def _template(value: int, a: float) -> np.ndarray:
    """Canonical pip positions of a face (die side = 1, centre at 0)."""
    layouts: dict[int, list[tuple[float, float]]] = {
        1: [(0, 0)],
        2: [(-a, -a), (a, a)],
        3: [(-a, -a), (0, 0), (a, a)],
        4: [(-a, -a), (a, -a), (-a, a), (a, a)],
        5: [(-a, -a), (a, -a), (0, 0), (-a, a), (a, a)],
        6: [(-a, -a), (a, -a), (-a, 0), (a, 0), (-a, a), (a, a)],
    }
    return np.array(layouts[value], np.float32)


@dataclass(frozen=True)
class PipCount:
    """Pips found on one die: value (0 when none), pip centres, and how well they fit a face."""

    value: int
    pips: tuple[tuple[float, float], ...]
    layout_error: float  # mean distance to the best-fitting face layout, in die sides
    size_spread: float  # coefficient of variation of the pip areas
    contrast: float  # median pip contrast over the threshold (1 = at threshold)
    doubtful: int  # blobs that were nearly pips (count might be off by these)
    centre_offset: float  # distance of the pips' centre from the die's centre, in sides
    side_pips: int = 0  # pips set aside as a visible side face
    beyond: int = 0  # nearly-pip blobs beyond the top face (side faces, edges: weak doubt)
    glare: int = 0  # a blob on the face set aside as the lamp's reflection, not a pip
    glare_at: tuple[float, float] | None = None  # where that blob lies from the face's
    # centre, in sides along the frame's axes (one lamp puts it alike on every die)
    doubt_at: tuple[tuple[float, float], ...] = ()  # where the nearly-pip blobs on the face
    # lie from its centre, in sides along the frame's axes
    doubt_strength: tuple[float, ...] = ()  # ... and their contrast (as ``contrast``)
    doubt_idle: tuple[bool, ...] = ()  # ... and whether the pips with it form no face of a
    # pip more centred on the die: such a blob would change the count to no face
    swollen_at: tuple[float, float] | None = None  # a pip much larger than the others (a
    # reflection on it): where it lies from the face's centre, in sides along the frame's axes
    swollen_shift: tuple[float, float] | None = None  # ... how far from its place in the
    # face's layout (the reflection pulls it toward the lamp; None for a 2)
    even_spread: float = 0.0  # the size spread of the other pips, without the swollen one
    glare_plateau: float = 1.0  # the blob set aside as the lamp's: its share of pixels at full
    # contrast (see ``Pip.plateau``; a painted pip 0.6 or more, the lamp's spot under PEAKED)
    glare_size: float = 0.0  # ... and its area over the kept pips' median area
    middle_at: tuple[float, float] | None = None  # a 3's or a 5's middle pip: where it lies
    # from the centre of the others, in sides along the frame's axes
    middle_share: tuple[float, float] = (1.0, 1.0)  # ... its area and contrast over the
    # others' medians (a painted middle pip is as large and as strong as the others)
    searched: bool = False  # found at another pip threshold than the path's own (the reader
    # without a calibration tries several, see vision.learned.COUNT_LEVELS): never sure
    glare_darker: bool = False  # the blob set aside as the lamp's spot is darker than the
    # die's body, as every kept pip is: dark paint on a light die, a pip the spot lies on
    light_paint: bool = False  # every kept pip is lighter than the die's body, and so is the
    # blob set aside as the lamp's spot, if any: light paint, which the spot only lights more
    beyond_at: tuple[tuple[float, float], ...] = ()  # where the nearly-pip blobs beyond the
    # top face lie from its centre, in sides along the frame's axes (as ``doubt_at``)
    beyond_strength: tuple[float, ...] = ()  # ... and their contrast (as ``contrast``)


def _templates(value: int) -> tuple[np.ndarray, float]:
    """Every rotation of a face layout with unit spacing, (rotations, pips, 2), and its RMS
    radius (the spacing of a seen face is its RMS radius over this one)."""
    cached = _TEMPLATE_CACHE.get(value)
    if cached is None:
        base = _template(value, 1.0)
        c, s = np.cos(ANGLES), np.sin(ANGLES)
        rot = np.stack([np.stack([c, s], axis=1), np.stack([-s, c], axis=1)], axis=1)  # (R,2,2)
        rotated = np.einsum("nj,rjk->rnk", base, rot).astype(np.float32)
        rms = float(np.sqrt((base**2).sum(axis=1).mean()))
        cached = (rotated, rms)
        _TEMPLATE_CACHE[value] = cached
        _TEMPLATE_XY[value] = np.ascontiguousarray(rotated.transpose(2, 0, 1)[:, :, None, :])
    return cached


_TEMPLATE_CACHE: dict[int, tuple[np.ndarray, float]] = {}
_TEMPLATE_XY: dict[int, np.ndarray] = {}  # x and y, (2, rotations, 1, pips)
_ONE_PIP_OFFSET = float(np.median(LAYOUT_OFFSETS))  # a lone pip's grid: the typical one


_FIT_CACHE: dict[tuple[bytes, float], tuple[float, int, float]] = {}
FIT_CACHE_SIZE = 256  # one frame's pips are judged several times over (faces, glare, grid)


def _fit(points: np.ndarray, side: float) -> tuple[float, int, float]:
    """Best standard layout for ``points``: error (sides), rotation index, corner offset a."""
    key = (np.ascontiguousarray(points, np.float32).tobytes(), float(side))
    found = _FIT_CACHE.get(key)
    if found is None:
        found = _fit_now(points, side)
        if len(_FIT_CACHE) >= FIT_CACHE_SIZE:
            _FIT_CACHE.clear()
        _FIT_CACHE[key] = found
    return found


def _fit_now(points: np.ndarray, side: float) -> tuple[float, int, float]:
    n = len(points)
    if n == 0 or n > 6:
        return 1.0, 0, float(LAYOUT_OFFSETS[0])
    if n == 1:  # one pip fits anywhere; its grid is the typical one
        return 0.0, 0, _ONE_PIP_OFFSET
    rel = (points - mean_of(points, 0)) / side
    if rel.dtype != np.float32:
        rel = rel.astype(np.float32)
    _, rms = _templates(n)
    spread = float(np.sqrt(mean_of(np.add.reduce(rel * rel, 1))))
    a = float(min(max(spread / rms, LAYOUT_OFFSETS[0]), LAYOUT_OFFSETS[-1]))
    # distance of every pip to every template pip, (R, n, n), as _fit_checked computes it:
    # x and y side by side in one array, (2, R, n, n)
    delta = rel.T[:, None, :, None] - _TEMPLATE_XY[n] * a
    np.multiply(delta, delta, out=delta)
    d = np.sqrt(delta[0] + delta[1])
    # the larger of the two mean nearest distances; a mean is the sum over the count, and
    # the larger quotient is the quotient of the larger sum
    err = np.maximum(
        np.add.reduce(np.minimum.reduce(d, 2), 1), np.add.reduce(np.minimum.reduce(d, 1), 1)
    )
    err /= np.float32(n)
    best = int(err.argmin())
    return float(err[best]), best, a


def _fits(
    points: np.ndarray, subsets: list[list[int]], side: float
) -> list[tuple[float, int, float]]:
    """:func:`_fit` of ``points[subset]`` for each of ``subsets`` (all of one size): the
    fits not known yet are made together (:func:`_fits_now`) and kept as :func:`_fit` keeps
    them."""
    stack = np.ascontiguousarray(points[np.array(subsets, np.intp)], np.float32)  # k, n, 2
    keys = [(stack[i].tobytes(), float(side)) for i in range(len(subsets))]
    found = [_FIT_CACHE.get(key) for key in keys]
    missing = [i for i, fit in enumerate(found) if fit is None]
    if missing:
        made = (
            _fits_now(stack[missing], side)
            if 2 <= stack.shape[1] <= 6
            else [_fit_now(stack[i], side) for i in missing]
        )
        if len(_FIT_CACHE) + len(missing) > FIT_CACHE_SIZE:
            _FIT_CACHE.clear()
        for i, fit in zip(missing, made, strict=True):
            _FIT_CACHE[keys[i]] = found[i] = fit
    return [fit for fit in found if fit is not None]


def _fits_now(stack: np.ndarray, side: float) -> list[tuple[float, int, float]]:
    """:func:`_fit_now` of each ``stack[i]`` ((k, n, 2) float32, 2 <= n <= 6) in one array
    computation of (k, rotations, n, n), each sum and root as :func:`_fit_now` makes it."""
    n = stack.shape[1]
    rel = (stack - mean_of(stack, 1)[:, None, :]) / side
    _, rms = _templates(n)
    spreads = np.sqrt(mean_of(np.add.reduce(rel * rel, 2), 1)).tolist()
    lo, hi = LAYOUT_OFFSETS[0], LAYOUT_OFFSETS[-1]
    offsets = [float(min(max(spread / rms, lo), hi)) for spread in spreads]
    scaled = _TEMPLATE_XY[n][:, None] * np.array(offsets, np.float32)[:, None, None, None]
    delta = rel.transpose(2, 0, 1)[:, :, None, :, None] - scaled  # (2, k, R, n, n)
    np.multiply(delta, delta, out=delta)
    d = np.sqrt(delta[0] + delta[1])
    err = np.maximum(
        np.add.reduce(np.minimum.reduce(d, 3), 2), np.add.reduce(np.minimum.reduce(d, 2), 2)
    )
    err /= np.float32(n)
    best = err.argmin(axis=1).tolist()
    return [(float(err[i, b]), int(b), offsets[i]) for i, b in enumerate(best)]


def _fit_checked(points: np.ndarray, side: float) -> tuple[float, int, float]:
    """:func:`_fit_now` computed plainly (what the fast path must equal)."""
    n = len(points)
    if n == 0 or n > 6:
        return 1.0, 0, float(LAYOUT_OFFSETS[0])
    if n == 1:
        return 0.0, 0, float(np.median(LAYOUT_OFFSETS))
    rel = ((points - points.mean(axis=0)) / side).astype(np.float32)
    rotated, rms = _templates(n)
    spread = float(np.sqrt((rel**2).sum(axis=1).mean()))
    a = float(np.clip(spread / rms, LAYOUT_OFFSETS[0], LAYOUT_OFFSETS[-1]))
    templates = rotated * a  # (R, n, 2)
    d = np.sqrt(((rel[None, :, None, :] - templates[:, None, :, :]) ** 2).sum(axis=3))  # R,n,n
    err = np.maximum(d.min(axis=2).mean(axis=1), d.min(axis=1).mean(axis=1))
    best = int(np.argmin(err))
    return float(err[best]), best, a


def gap_fit(points: np.ndarray, value: int) -> tuple[float, np.ndarray, np.ndarray]:
    """How well ``points`` (``value - 1`` pips, in sides) form a face of ``value`` pips with
    one place empty, over every turn, corner offset and empty place: the layout error (as
    :func:`_fit` measures it, the larger of the two mean nearest distances), the empty place
    from the face's centre, and that centre where ``points`` lie. Unlike :func:`_fit`, the
    spacing is searched: a missing pip leaves the points' spread no measure of it."""
    centre = points.mean(axis=0)
    c, s = np.cos(ANGLES), np.sin(ANGLES)
    turns = np.stack([np.stack([c, s], 1), np.stack([-s, c], 1)], 1)  # (R, 2, 2)
    bases = np.stack([_template(value, float(a)) for a in LAYOUT_OFFSETS]).astype(float)
    turned = np.einsum("apj,rjk->arpk", bases, turns).reshape(-1, value, 2)  # every turn
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for m in range(value):  # the empty place
        rest = np.delete(turned, m, axis=1)
        middle = centre - rest.mean(axis=1)  # each face's centre with that place empty
        gaps = points[None, :, None, :] - (rest + middle[:, None, :])[:, None, :, :]
        d = np.sqrt((gaps * gaps).sum(axis=3))  # (faces, pips, places)
        errors = np.maximum(d.min(axis=2).mean(axis=1), d.min(axis=1).mean(axis=1))
        k = int(errors.argmin())
        if best is None or float(errors[k]) < best[0]:
            best = (float(errors[k]), turned[k, m], middle[k])
    assert best is not None  # value >= 1 places were tried
    return best


MISSING_AT_CENTRE = 0.12  # the face a lost pip completes is centred on its die within this


def missing_pip(count: PipCount, centre: tuple[float, float], side: float) -> PipCount | None:
    """The count with one more pip, when its pips do not form a clean face of their number
    (layout error CLEAN_FIT or more) but do form one of a pip more with one place empty
    (under CLEAN_FIT), centred on the die (``centre``, pixels) within MISSING_AT_CENTRE: a
    pip lost where a highlight on the die's rim merged with it into a blob no pip is (a 6
    read as a 5 whose pips are two columns, one short). None otherwise.

    The lost pip is a doubt, never seen: the count is a candidate a sure second opinion
    must read, as :func:`vision.lamp.hidden_by_lamp`'s is. A 4 as a 5 with its middle
    empty, or a 2 as a 3, fits cleanly as itself and is never offered. A lone pip is offered
    a 2 where it lies as a 2's corner pip does (see :func:`_lost_beside_one`).
    """
    lost = _lost_place(count, centre, side)
    if lost is None:
        return None
    error, offset, _ = lost
    return replace(
        count,
        value=count.value + 1,
        layout_error=error,
        doubtful=count.doubtful + 1,
        centre_offset=offset,
        doubt_idle=(),  # judged against the count of n pips: each doubt weighs in full
    )


def _lost_place(
    count: PipCount, centre: tuple[float, float], side: float
) -> tuple[float, float, np.ndarray] | None:
    """For :func:`missing_pip`: the layout error of the face of a pip more, how far its
    centre lies from the die's, and where its empty place lies (sides, from the frame's
    origin); None where the count is offered no lost pip."""
    n = count.value
    if n == 1:
        return _lost_beside_one(count, centre, side)
    if not 1 < n < 6 or count.side_pips or count.layout_error < CLEAN_FIT:
        return None
    return _centred_gap_face(np.array(count.pips, np.float64), centre, side)


def _centred_gap_face(
    points: np.ndarray, centre: tuple[float, float], side: float
) -> tuple[float, float, np.ndarray] | None:
    """The face of a pip more that ``points`` (pixels) form with one place empty: its layout
    error, how far its centre lies from the die's ``centre`` (sides) and where its empty
    place lies (sides, from the frame's origin); None unless it fits cleanly (under
    CLEAN_FIT) and is centred on the die within MISSING_AT_CENTRE."""
    scaled = np.asarray(points, np.float64) / side
    error, place, middle = gap_fit(scaled, len(scaled) + 1)
    offset = float(np.hypot(middle[0] - centre[0] / side, middle[1] - centre[1] / side))
    if error >= CLEAN_FIT or offset > MISSING_AT_CENTRE:
        return None
    return error, offset, middle + place


CORNER_REACH = (
    float(LAYOUT_OFFSETS[0] * np.sqrt(2.0)) - 0.03,
    float(LAYOUT_OFFSETS[-1] * np.sqrt(2.0)) + 0.03,
)  # sides from a face's centre to its corner pips, at every layout offset, with blur


def _lost_beside_one(
    count: PipCount, centre: tuple[float, float], side: float
) -> tuple[float, float, np.ndarray] | None:
    """:func:`_lost_place` for a count of one pip: a lone pip (which a 1 shows at the die's
    centre) that lies where a 2 has a corner pip, CORNER_REACH from the die's centre, is one
    pip of a 2 whose other pip is lost across the centre from it. One pip fits a face of two
    in any turn, so only its distance from the die's centre tells; the face of two is then
    centred on the die by construction."""
    if count.side_pips:
        return None
    if not CORNER_REACH[0] <= lone_pip_reach(count, centre, side) <= CORNER_REACH[1]:
        return None
    pip = np.array(count.pips[0], np.float64) / side
    return 0.0, 0.0, 2.0 * np.array(centre, np.float64) / side - pip


def lone_pip_reach(count: PipCount, centre: tuple[float, float], side: float) -> float:
    """How far (sides) the one pip of a count of one lies from the die's ``centre``: a 1's
    pip lies at it, a 2's corner pip CORNER_REACH from it."""
    pip = np.array(count.pips[0], np.float64) / side
    middle = np.array(centre, np.float64) / side
    return float(np.hypot(*(pip - middle)))


MERGED_REACH = 0.3  # sides: the empty place of a face lies within a pip spacing of the blob
# that swallowed its pip (two neighbours of a 6's column lie 0.27 side apart)


def merged_pip(count: PipCount, centre: tuple[float, float], side: float) -> PipCount | None:
    """The count of a pip more where its lost pip (see :func:`missing_pip`) is seen: the
    empty place of the face of a pip more lies beside the one blob much larger than the
    others (SWOLLEN), two neighbouring pips merged into one by a highlight or blur and
    counted once. That blob is two pips, so the count is no guess from the layout alone:
    it keeps its doubts (no lost pip is added to them), and its pips' sizes are judged
    without the merged blob. None otherwise."""
    if count.swollen_at is None:
        return None
    lost = _lost_place(count, centre, side)
    if lost is None:
        return None
    error, offset, place = lost
    middle = face_centre(np.array(count.pips, np.float32)) / side
    if float(np.hypot(*(middle + np.array(count.swollen_at) - place))) > MERGED_REACH:
        return None
    return replace(
        count,
        value=count.value + 1,
        layout_error=error,
        centre_offset=offset,
        size_spread=count.even_spread,
        swollen_at=None,
        swollen_shift=None,
        doubt_idle=(),  # judged against the count of n pips: each doubt weighs in full
    )


def pip_in_doubt(count: PipCount, centre: tuple[float, float], side: float) -> PipCount | None:
    """The count with a nearly-pip blob as strong as its paint (GLARE_WEAKER of the pips'
    contrast or more) taken as a pip, when the count has a swollen pip and the two form a
    clean face of a pip more (layout error under CLEAN_FIT) centred on the die (``centre``,
    pixels) within MISSING_AT_CENTRE. A reflection merged with a pip pulls that blob off its
    place, and the count fitted its pips to a face of one pip fewer, leaving a pip it saw as
    a doubt (a translucent green 5 whose middle pip merged with the lamp's spot, read as a 4
    with a corner pip a doubt), or beyond the face it fitted: two pips of a 3 fitted as a 2,
    whose grid puts the third beyond it. A blob beyond the top face that completes a clean
    face centred on the die lies on that face's grid, where no side face shows. The count is
    a candidate a sure second opinion must read, as :func:`missing_pip`'s is. None
    otherwise."""
    if count.swollen_at is None or not 1 < count.value < 6 or count.side_pips:
        return None
    points = np.array(count.pips, np.float32)
    middle = face_centre(points)
    # each blob with whether the count kept it on the face (a doubt) and its place there
    blobs = [
        *(
            (True, k, at, s)
            for k, (at, s) in enumerate(zip(count.doubt_at, count.doubt_strength, strict=False))
        ),
        *(
            (False, k, at, s)
            for k, (at, s) in enumerate(zip(count.beyond_at, count.beyond_strength, strict=False))
        ),
    ]
    best: tuple[float, bool, int, np.ndarray, float] | None = None
    for on_face, k, at, strength in blobs:
        if strength < GLARE_WEAKER * count.contrast:
            continue
        blob = middle + np.array(at, np.float32) * side
        every = np.vstack([points, blob[None, :]]).astype(np.float32)
        error = layout_error(every, side)
        gap = mean_of(every, 0) - np.array(centre, np.float32)
        offset = float(np.hypot(*gap)) / side
        if error < CLEAN_FIT and offset <= MISSING_AT_CENTRE and (best is None or error < best[0]):
            best = (error, on_face, k, blob, offset)
    if best is None:
        return None
    error, on_face, taken, blob, offset = best

    def without(values: tuple[T, ...], kept_on_face: bool) -> tuple[T, ...]:
        """``values`` without the blob taken, if it is one of theirs."""
        if kept_on_face != on_face:
            return values
        return values[:taken] + values[taken + 1 :]

    return replace(
        count,
        value=count.value + 1,
        pips=(*count.pips, (float(blob[0]), float(blob[1]))),
        layout_error=error,
        size_spread=count.even_spread,
        centre_offset=offset,
        doubtful=count.doubtful - on_face,
        doubt_at=without(count.doubt_at, True),
        doubt_strength=without(count.doubt_strength, True),
        doubt_idle=(),  # judged against the count of n pips: each doubt weighs in full
        beyond=count.beyond - (not on_face),
        beyond_at=without(count.beyond_at, False),
        beyond_strength=without(count.beyond_strength, False),
        swollen_at=None,
        swollen_shift=None,
    )


def face_turn(points: np.ndarray, side: float) -> float:
    """The turn (radians) of the standard layout that fits ``points`` best: the face's axes."""
    return float(ANGLES[_fit(points, side)[1]])


def on_face_axes(dx: np.ndarray, dy: np.ndarray, turn: float) -> tuple[np.ndarray, np.ndarray]:
    """Offsets from a face's centre (frame axes) along the face's own two axes: turned back
    by ``turn``, the turn :func:`face_turn` gives the face (by which it turned the standard
    layout on)."""
    c, s = math.cos(turn), math.sin(turn)
    return dx * c + dy * s, dy * c - dx * s


def layout_error(points: np.ndarray, side: float) -> float:
    """How far ``points`` (pixels) are from the best standard layout of their count, in sides.

    The spacing is taken from the points' spread (within the range real dice use); the
    rotation is searched.
    """
    return _fit(points, side)[0]


BEYOND_DOUBT = 0.85  # confidence kept per nearly-pip blob beyond the top face
SIDE_FACE_CAP = 0.45  # most confidence for a count that set a side face aside (below 0.5)
SIZE_WEIGHT = 0.5  # weight of pip size spread against layout error when setting pips aside
GOOD_FIT = 0.1  # layout error of a face seen at an angle, in sides
OFF_GRID = 1.6  # a pip this many corner offsets beyond a face's centre is not on that face


def _grid_distance(kept: np.ndarray, others: np.ndarray, side: float) -> np.ndarray:
    """How far each point of ``others`` is from the centre of the face ``kept`` fits, in
    corner offsets along the face's own axes (the face's pips are at most 1 away)."""
    _, r, a = _fit(kept, side)
    rel = (others.reshape(-1, 2) - mean_of(kept, 0)) / (side * a)
    if len(kept) == 1:  # one pip does not show the face's axes
        return np.asarray(np.hypot(rel[:, 0], rel[:, 1]) / np.sqrt(2.0))
    u, v = on_face_axes(rel[:, 0], rel[:, 1], float(ANGLES[r]))
    return np.asarray(np.maximum(np.abs(u), np.abs(v)))


def _off_grid(kept: np.ndarray, others: np.ndarray, side: float) -> bool:
    """Whether every point of ``others`` lies beyond the pip grid of the face ``kept`` fits."""
    return bool(np.all(_grid_distance(kept, others, side) > OFF_GRID))


LOST_FROM = 3  # pips: fewer always fit a face of a pip more with one place empty (two
# pips are two places of a 3 at some spacing and turn), so only three or more tell


def lost_pip_face(points: np.ndarray, centre: tuple[float, float], side: float) -> bool:
    """Whether ``points`` (pixels; LOST_FROM to five of them) form a face of a pip more with
    one place empty, cleanly (under CLEAN_FIT) and centred on the die (``centre``) within
    MISSING_AT_CENTRE: a flat die that lost a pip in a highlight (see :func:`missing_pip`),
    not a top face beside a side face's pips, which lie beyond the face's grid."""
    return LOST_FROM <= len(points) < 6 and _centred_gap_face(points, centre, side) is not None


def top_face(
    pips: list[Pip], side: float, centre: tuple[float, float] | None = None
) -> tuple[list[Pip], int]:
    """The pips of the top face and how many were set aside as a visible side face.

    Seen at an angle, a die shows pips of its side faces next to the top face's. When the
    pips do not form a face, the pips whose removal fits a face best are set aside one by
    one; the result counts only if the rest form a clean face of at least two pips and
    every set-aside pip lies outside that face's pip grid. With the die's ``centre``
    (pixels), none is set aside where all of them form a face of a pip more centred on the
    die with one place empty (:func:`lost_pip_face`): a flat 6 of wide-set pips that lost
    one, whose five fit no face of five, is no column of three beside a side face's two.
    """
    points = np.array([(p.x, p.y) for p in pips], np.float32)
    if len(pips) <= 1 or (len(pips) <= 6 and _fit(points, side)[0] < GOOD_FIT):
        return pips, 0
    areas = np.array([p.area for p in pips])

    keep = list(range(len(pips)))
    while len(keep) > 2 and (len(keep) > 6 or _fit(points[keep], side)[0] >= GOOD_FIT):
        # the misfit of each subset without one pip: its layout error and the spread of its
        # pip sizes (side-face pips are foreshortened, so smaller than the top face's)
        subsets = [keep[:i] + keep[i + 1 :] for i in range(len(keep))]
        fits = _fits(points, subsets, side)
        costs = [
            fit[0] + SIZE_WEIGHT * size_spread(areas[subset])
            for fit, subset in zip(fits, subsets, strict=True)
        ]
        keep.pop(int(np.argmin(costs)))
    dropped = [i for i in range(len(pips)) if i not in keep]
    if _fit(points[keep], side)[0] >= GOOD_FIT or not _off_grid(
        points[keep], points[dropped], side
    ):
        return pips, 0
    if centre is not None and lost_pip_face(points, centre, side):
        return pips, 0
    return [pips[i] for i in keep], len(dropped)


CLEAN_FIT = 0.04  # layout error of a face that leaves no doubt, in sides
SEARCHED_CAP = 0.45  # most confidence for a count found at another threshold (below 0.5)
GLARE_CAP = 0.45  # most confidence for a count that set a reflection aside (below 0.5)
MIDDLE_OFF = 0.045  # a middle pip this many sides from the centre of the others is no pip
GLARE_WEAKER = 0.95  # a reflection is weaker than this share of the pips' median contrast
SWOLLEN = 1.3  # a pip this many times the others' median area has a reflection on it
SPOT_AREA = 0.5  # a middle blob under this share of the others' median area (and fainter
# than paint, PAINT) is no pip: on the tuning setups real middle pips measured 0.6 or more,
# the lamp's spots at the centre of a 2 or 4 0.27-0.46


def without_glare(pips: list[Pip], side: float) -> tuple[list[Pip], int]:
    """The pips of a face with one blob set aside as the lamp's reflection, when that is the
    only way they form a clean face (with it they do not, without it they do), and the blob
    is weaker than the pips (a reflection is fainter than paint); or the middle blob of three
    or five that fit a face loosely but whose middle lies off the centre of the others
    (MIDDLE_OFF: a 2 or 4 with the lamp beside its centre looks like a 3 or 5 otherwise), or
    whose middle blob is fainter than paint and much smaller than the others (SPOT_AREA: the
    lamp's spot right at the centre of a 2 or 4). Returns the pips unchanged, 0 otherwise.
    """
    if not 2 <= len(pips) <= 7:
        return pips, 0
    points = np.array([(p.x, p.y) for p in pips], np.float32)
    clean = len(pips) <= 6 and _fit(points, side)[0] < CLEAN_FIT
    if clean and len(pips) in (3, 5):  # a face's middle pip lies at the centre of the others
        middle = middle_index(points)
        rest = [k for k in range(len(pips)) if k != middle]
        off = float(np.hypot(*(points[middle] - mean_of(points[rest], 0)))) / side
        # a middle blob larger than the pips is a pip with the lamp's spot on it, pulled
        # toward the spot (a lone spot beside the centre is a blob of its own, no larger)
        areas = small_median([pips[k].area for k in rest])
        swollen = pips[middle].area > SWOLLEN * areas
        # a blob both fainter than paint and much smaller than the pips is the lamp's spot
        # at the centre of a 2 or a 4, wherever it lies (a real middle pip is as large)
        spot = pips[middle].area < SPOT_AREA * areas and pips[middle].strength < PAINT * (
            small_median([pips[k].strength for k in rest])
        )
        off_centre = off > MIDDLE_OFF and not swollen
        if (off_centre or spot) and _fit(points[rest], side)[0] < CLEAN_FIT:
            return [pips[k] for k in rest], 1
    if clean:
        return pips, 0
    strengths = np.array([p.strength for p in pips])
    best: tuple[float, int] | None = None
    for i in range(len(pips)):
        rest = [k for k in range(len(pips)) if k != i]
        if strengths[i] >= GLARE_WEAKER * small_median(strengths[rest].tolist()):
            continue
        error = _fit(points[rest], side)[0] if len(rest) > 1 else 0.0
        if error < CLEAN_FIT and (best is None or error < best[0]):
            best = (error, i)
    if best is None:
        return pips, 0
    return [p for k, p in enumerate(pips) if k != best[1]], 1


def near_for_spot(
    pips: list[Pip], near: Sequence[Pip], side: float
) -> tuple[list[Pip], Sequence[Pip], int]:
    """The pips of a face whose weak blob is the lamp's spot and whose pip in its place was
    set aside as nearly a pip (a glossy die's rim highlight joined it, so it is neither round
    nor a disc with a core): when the pips form no clean face, a blob weaker than the others
    (GLARE_WEAKER) that is small (SPOT_AREA of their median area) or peaked (PEAKED), swapped
    for one nearly-pip blob as strong as they are, leaves a clean face of as many pips. The
    blob set aside is a reflection (counted as ``glare``, as :func:`without_glare` counts
    one). Returns ``pips``, ``near`` and 0 unchanged otherwise."""
    if not 2 <= len(pips) <= 6:
        return pips, near, 0
    points = np.array([(p.x, p.y) for p in pips], np.float32)
    if _fit(points, side)[0] < CLEAN_FIT:
        return pips, near, 0
    best: tuple[float, int, int] | None = None
    for i, spot in enumerate(pips):
        rest = [p for k, p in enumerate(pips) if k != i]
        strength = small_median([p.strength for p in rest])
        area = small_median([p.area for p in rest])
        if spot.strength >= GLARE_WEAKER * strength:
            continue
        if spot.area >= SPOT_AREA * area and spot.plateau >= PEAKED:
            continue
        for j, blob in enumerate(near):
            if blob.strength < GLARE_WEAKER * strength:
                continue
            swapped = np.array([(p.x, p.y) for p in rest] + [(blob.x, blob.y)], np.float32)
            error = _fit(swapped, side)[0]
            if error < CLEAN_FIT and (best is None or error < best[0]):
                best = (error, i, j)
    if best is None:
        return pips, near, 0
    _, i, j = best
    kept = [p for k, p in enumerate(pips) if k != i] + [near[j]]
    return kept, [b for k, b in enumerate(near) if k != j], 1


@dataclass(frozen=True)
class Pip:
    """One pip: centre (frame pixels), area in pixels, contrast over the threshold."""

    x: float
    y: float
    area: float
    strength: float
    plateau: float = 1.0  # the share of its pixels at PAINT of its strongest or more: a painted
    # disc is flat with a sharp edge (0.6 and more), the lamp's spot a peak falling off
    # smoothly (under PEAKED)
    darker: bool = False  # its mean lightness is under the die body's: paint on a light die
    # (the lamp's reflection only adds light, so it is never darker than the face it is on)


def _crop(
    frame: np.ndarray, contour: np.ndarray, pad: int
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """The frame around ``contour`` and the contour's mask there, with the crop's origin."""
    h, w = frame.shape[:2]
    x, y, bw, bh = cv2.boundingRect(contour)
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(w, x + bw + pad), min(h, y + bh + pad)
    crop = frame[y0:y1, x0:x1]
    mask = np.zeros(crop.shape[:2], np.uint8)
    cv2.drawContours(mask, [contour - np.array([x0, y0], np.int32)], -1, 255, cv2.FILLED)
    return crop, mask, x0, y0


PipLevel = tuple[float, float]  # a pip threshold: a share of the face's strongest contrast,
# and the least contrast it may be
PIP_LEVEL: PipLevel = (0.45, 30.0)  # just under half the strongest contrast (the pips')


def _threshold(inside: np.ndarray, level: PipLevel = PIP_LEVEL) -> float:
    """Pip threshold: a share (``level``) of the strongest contrast on the face (the pips').
    ``inside`` is a copy the threshold may reorder."""
    k = int(len(inside) * 0.99)
    inside.partition(k)
    share, least = level
    return max(share * float(inside[k]), least)


ZOOM_BELOW = 36.0  # dice smaller than this (pixels) are enlarged before their pips are sought


def _zoom(side: float) -> int:
    """The enlargement for a die of ``side`` pixels: 2 for small dice, else 1."""
    return 2 if side < ZOOM_BELOW else 1


def _enlarge_masks(zoom: int, *masks: np.ndarray) -> tuple[np.ndarray, ...]:
    """Masks ``zoom`` times larger (nearest pixel), as :func:`_enlarge` makes them."""
    return tuple(
        cv2.resize(m, (m.shape[1] * zoom, m.shape[0] * zoom), interpolation=cv2.INTER_NEAREST)
        for m in masks
    )


def _enlarge(zoom: int, *images: np.ndarray) -> tuple[np.ndarray, ...]:
    """The crop (smoothly) and its masks (nearest pixel) ``zoom`` times larger."""
    first, *masks = images
    size = (first.shape[1] * zoom, first.shape[0] * zoom)
    out = [cv2.resize(first, size, interpolation=cv2.INTER_CUBIC)]
    out += [cv2.resize(m, size, interpolation=cv2.INTER_NEAREST) for m in masks]
    return tuple(out)


@dataclass(frozen=True)
class FaceCrop:
    """The frame around a die or a group of touching dice, ready for its pips to be sought:
    the crop's weighted Lab (blurred, enlarged for small dice), the outline's mask and its
    inner part there, the crop's origin in the frame and the enlargement."""

    lab: np.ndarray
    mask: np.ndarray
    inner: np.ndarray
    origin: tuple[int, int]
    zoom: int
    inner_unzoomed: np.ndarray  # the inner mask before the enlargement
    reads: tuple[slice, slice] = (slice(None), slice(None))  # where the pip search reads
    # ``lab`` (a box around ``inner``): it holds the crop's colours there


def face_crop(frame: np.ndarray, contour: np.ndarray, side: float) -> FaceCrop:
    """The :class:`FaceCrop` of ``contour`` (shared by every die of a touching group)."""
    crop, mask, ox, oy = _crop(frame, contour, max(2, int(side * 0.1)))
    unzoomed = cv2.erode(mask, np.ones((3, 3), np.uint8), iterations=max(1, int(side * 0.06)))
    inner = unzoomed
    zoom = _zoom(side)
    if zoom > 1:  # small dice: pips a few pixels wide, closer than the blur to each other
        crop, mask, inner = _enlarge(zoom, crop, mask, inner)
    lab, reads = _inner_lab(crop, inner)
    return FaceCrop(lab, mask, inner, (ox, oy), zoom, unzoomed, reads)


def _inner_lab(crop: np.ndarray, inner: np.ndarray) -> tuple[np.ndarray, tuple[slice, slice]]:
    """The crop's weighted Lab, blurred (3 x 3), where the pips are sought: inside the
    bounding box of ``inner`` (every pixel the pip search reads), as the crop's whole Lab
    (:func:`_crop_lab_checked`) has it there; 0 beyond, where it is never read. Also the
    box, as the rows and columns it spans."""
    x, y, w, h = cv2.boundingRect(inner)
    ch, cw = crop.shape[:2]
    if w * h == 0 or w * h * 4 > cw * ch * 3:  # no inner part, or most of the crop
        return _crop_lab_checked(crop), (slice(None), slice(None))
    # the blur of a pixel reads its 8 neighbours: blur one pixel beyond the box
    x0, y0, x1, y1 = max(0, x - 1), max(0, y - 1), min(cw, x + w + 1), min(ch, y + h + 1)
    blurred = cv2.GaussianBlur(crop[y0:y1, x0:x1], (3, 3), 0)
    lab = np.zeros((ch, cw, 3), np.float32)
    lab[y : y + h, x : x + w] = to_lab(blurred[y - y0 : y - y0 + h, x - x0 : x - x0 + w])
    return lab, (slice(y, y + h), slice(x, x + w))


def _crop_lab_checked(crop: np.ndarray) -> np.ndarray:
    """The whole crop's weighted Lab, blurred (3 x 3): what :func:`_inner_lab` must equal
    inside its box."""
    return to_lab(cv2.GaussianBlur(crop, (3, 3), 0))


def detect_pips(
    frame: np.ndarray,
    contour: np.ndarray,
    side: float,
    body_contour: np.ndarray | None = None,
    prepared: FaceCrop | None = None,
    level: PipLevel = PIP_LEVEL,
) -> tuple[list[Pip], list[Pip]]:
    """Pips inside ``contour`` and the blobs that were nearly pips.

    The die's body colour is the median inside ``body_contour`` (default: ``contour``);
    pips are round blobs of a die-relative size that differ from it by ``level`` (see
    :func:`_threshold`) or more. ``prepared``: the :func:`face_crop` of ``contour``, when it
    was made already.
    """
    fc = prepared if prepared is not None else face_crop(frame, contour, side)
    ox, oy = fc.origin
    zoom, inner, lab = fc.zoom, fc.inner, fc.lab
    if body_contour is not None:
        body_mask = np.zeros_like(fc.inner_unzoomed)
        offset = np.array([ox, oy], np.int32)
        cv2.drawContours(body_mask, [body_contour - offset], -1, 255, cv2.FILLED)
        body_mask &= fc.inner_unzoomed
        if cv2.countNonZero(body_mask) < 9:
            return [], []
        if zoom > 1:
            (body_mask,) = _enlarge_masks(zoom, body_mask)
    else:  # the die's own inner part, already enlarged with the crop
        if cv2.countNonZero(fc.inner_unzoomed) < 9:
            return [], []
        body_mask = inner
    on_body = np.flatnonzero(body_mask)  # the body's pixels, in the order a mask selects them
    body = body_colour(lab, on_body[::2])  # every other pixel is plenty
    contrast = np.zeros(lab.shape[:2], np.float32)  # the colour distance where it is read
    contrast[fc.reads] = colour_distance(lab[fc.reads], body)
    threshold = _threshold(contrast.ravel()[on_body], level)
    above = contrast > threshold
    pip_mask = np.logical_and(above, inner, out=above).view(np.uint8)  # 1 on the face's pips
    _, labels, stats, centroids = cv2.connectedComponentsWithStats(pip_mask, connectivity=8)
    die_area = (side * zoom) ** 2
    pips: list[Pip] = []
    near: list[Pip] = []
    # blobs below a noise speck's share of the die are passed over (component 0 is the rest)
    rows = stats.tolist()  # x, y, width, height, area of each blob
    least = PIP_AREA[0] * 0.4
    blobs = [i for i in range(1, len(rows)) if rows[i][cv2.CC_STAT_AREA] / die_area >= least]
    if not blobs:
        return pips, near
    peaks = label_peaks(labels, contrast, len(stats)).tolist()  # each blob's strongest pixel
    # each blob's summed lightness, against the body's times its area: which are darker
    light = np.bincount(labels.ravel(), weights=lab[:, :, 0].ravel(), minlength=len(rows))
    dark = (light < float(body[0]) * stats[:, cv2.CC_STAT_AREA]).tolist()
    shaped = side >= SHAPE_SIDE  # pips wide enough for the shape of their brightness to show
    middles = centroids.tolist()
    for i in blobs:
        x, y, bw, bh, pixels = rows[i]
        area = float(pixels)
        roundness = area / (np.pi * (max(bw, bh) / 2.0) ** 2)
        frac = area / die_area
        box = (slice(y, y + bh), slice(x, x + bw))
        strength = float(peaks[i]) / threshold
        cx, cy = middles[i]
        blob = Pip(
            (cx + 0.5) / zoom - 0.5 + ox,
            (cy + 0.5) / zoom - 0.5 + oy,
            area / zoom**2,
            strength,
            darker=dark[i],
        )
        round_enough = roundness > 0.45 and max(bw, bh) < 2 * min(bw, bh)
        if PIP_AREA[0] <= frac <= PIP_AREA[1] and round_enough:
            if shaped:  # the shape of its brightness (see Pip.plateau)
                inside = contrast[box][labels[box] == i]
                flat = np.count_nonzero(inside >= PAINT * float(peaks[i])) / max(1, inside.size)
                blob = replace(blob, plateau=float(flat))
            pips.append(blob)
        elif frac > PIP_AREA[1] or (frac >= PIP_AREA[0] and not round_enough):
            cores, rest = _cores(labels[box] == i, contrast[box], threshold, die_area)
            if not cores and shaped:
                cores, rest = _paint_core(labels[box] == i, contrast[box], threshold, die_area)
            if not cores:
                near.append(blob)
            for bx, by, barea, bstrength in cores + rest:
                part = Pip(
                    float((x + bx + 0.5) / zoom - 0.5) + ox,
                    float((y + by + 0.5) / zoom - 0.5) + oy,
                    barea / zoom**2,
                    bstrength,
                    darker=dark[i],  # as the blob it was cut from
                )
                (pips if (bx, by, barea, bstrength) in cores else near).append(part)
        else:
            near.append(blob)
    return pips, near


CORE_WIDTH = 0.1  # a pip is a disc this many sides wide at least; a rim or a streak is thinner
PAINT = 0.8  # a pip's paint reaches this share of the blob's strongest contrast; a reflection
# joining two pips stays under it


def _bright_parts(mask: np.ndarray, contrast: np.ndarray) -> np.ndarray | None:
    """The blob shared among its parts at full contrast (PAINT of its peak and more), when
    there are two or more: each pixel goes to the nearest such part, and the pixels between
    two parts (the fainter bridge) to neither. None for a blob with one bright part."""
    seeds = ((contrast >= PAINT * float(contrast[mask > 0].max())) & (mask > 0)).astype(np.uint8)
    n, labels = cv2.connectedComponents(seeds, connectivity=8)
    if n < 3:
        return None
    _, nearest = cv2.distanceTransformWithLabels(
        1 - seeds, cv2.DIST_L2, 3, labelType=cv2.DIST_LABEL_CCOMP
    )
    # distanceTransformWithLabels numbers the zero pixels' components itself: map each to
    # the seed it lies in, then mark the boundary between two seeds' shares as no one's
    owner = np.zeros(int(nearest.max()) + 1, np.int32)
    ys, xs = np.nonzero(seeds)
    owner[nearest[ys, xs]] = labels[ys, xs]
    share = owner[nearest] * (mask > 0)
    edge = cv2.morphologyEx(share.astype(np.uint8), cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    inner = (share > 0) & ~((edge > 0) & (cv2.erode(mask, np.ones((3, 3), np.uint8)) > 0))
    return np.asarray(inner, np.uint8)


def _cores(
    blob: np.ndarray, contrast: np.ndarray, threshold: float, die_area: float
) -> tuple[list[tuple[float, float, float, float]], list[tuple[float, float, float, float]]]:
    """The round, pip-sized cores of a blob that is not round (a pip touched by a glossy
    rim or a streak of light, which are thinner than a pip), and what is left of it beyond
    them: each as (x, y, area, strength) in the blob's box. No cores, or a remnant as
    strong as them (PAINT of the weakest core or more: a seam or a shadow between touching
    dice, whose chunks survive the opening), or nothing left beyond one core (an odd-shaped
    blob with nothing thinner attached), gives ([], []): the blob stays one nearly-pip blob.
    Parts at full paint (:func:`_bright_parts`) must give two cores or more."""
    width = max(3, round(CORE_WIDTH * np.sqrt(die_area))) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (width, width))
    mask = blob.astype(np.uint8)
    opened = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    bright = _bright_parts(mask, contrast)
    if bright is not None:  # pips at full contrast joined by a fainter reflection
        opened = cv2.morphologyEx(bright, cv2.MORPH_OPEN, kernel)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(opened, connectivity=8)
    cores: list[tuple[float, float, float, float]] = []
    taken = np.zeros_like(mask)
    for i in range(1, n):
        if not _pip_shaped(stats[i], die_area):
            continue
        area = float(stats[i, cv2.CC_STAT_AREA])
        core = labels == i
        strength = float(contrast[core].max()) / threshold
        cores.append((float(centroids[i][0]), float(centroids[i][1]), area, strength))
        taken |= core.astype(np.uint8)
    if not cores or (bright is not None and len(cores) < 2):
        return [], []
    grown = cv2.dilate(taken, kernel)
    left = (mask > 0) & (grown == 0)
    rest: list[tuple[float, float, float, float]] = []
    if np.count_nonzero(left) / die_area >= PIP_AREA[0] * 0.4:
        ys, xs = np.nonzero(left)
        strength = float(contrast[left].max()) / threshold
        if strength >= PAINT * min(c[3] for c in cores):
            return [], []  # as strong as the cores: a seam or a shadow, not a pip and a rim
        rest.append((float(xs.mean()), float(ys.mean()), float(len(xs)), strength))
    elif bright is None:
        return [], []  # nothing thinner attached: an odd-shaped blob, not a pip and a rim
    return cores, rest


SHAPE_SIDE = 60.0  # dice this many pixels wide or more show the shape of a blob's brightness:
# at 1296x972 (dice about 79 px) painted pips measured 0.74 of their pixels at full contrast
# at the median and 0.61 at the 1st percentile, at 640x480 (about 39 px, tuning seeds
# 1300-1311) 0.55 and 0.44, as peaked as the spots: the blur there is as wide as a pip's edge
PEAKED = 0.55  # a blob with under this share of its pixels at PAINT of its strongest is the
# lamp's spot by the shape of its brightness: on tuning seeds 1200-1211 and 1300-1311 at
# 1296x972 painted pips measured 0.61-0.68 and more at the 1st percentile, the spots 0.41 at
# the median


def _pip_shaped(stats: np.ndarray, die_area: float) -> bool:
    """Whether a connected part (its row of OpenCV's component stats) has a pip's size and is
    round enough for one: filling 0.45 of its box's circle, its box under twice as long as
    wide."""
    area = float(stats[cv2.CC_STAT_AREA])
    bw, bh = stats[cv2.CC_STAT_WIDTH], stats[cv2.CC_STAT_HEIGHT]
    roundness = area / (np.pi * (max(bw, bh) / 2.0) ** 2)
    return (
        PIP_AREA[0] <= area / die_area <= PIP_AREA[1]
        and roundness > 0.45
        and max(bw, bh) < 2 * min(bw, bh)
    )


def _paint_core(
    blob: np.ndarray, contrast: np.ndarray, threshold: float, die_area: float
) -> tuple[list[tuple[float, float, float, float]], list[tuple[float, float, float, float]]]:
    """Painted pips and the lamp's spot merged into one blob, told apart by the shape of their
    brightness: a pip's paint is a flat disc at full contrast (PAINT of the blob's strongest
    or more), the spot a peak falling off smoothly. When the blob is not flat throughout, each
    round, pip-sized part of it at full contrast is a pip (a core), no other part at full
    contrast is pip-sized, and what lies beyond the cores is peaked (under PEAKED of its pixels
    at PAINT of its own strongest), the cores are pips and the remnant a nearly-pip blob (where
    the lamp may explain it); as :func:`_cores`, each (x, y, area, strength) in the blob's box.
    Otherwise ([], []): the blob stays one nearly-pip blob (pips merged by paint, a seam)."""
    inside = contrast[blob]
    peak = float(inside.max())
    if np.count_nonzero(inside >= PAINT * peak) >= PEAKED * inside.size:
        return [], []  # flat throughout: paint, not pips and a spot
    bright = ((contrast >= PAINT * peak) & blob).astype(np.uint8)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(bright, connectivity=8)
    cores: list[tuple[float, float, float, float]] = []
    taken = np.zeros_like(bright)
    for k in range(1, n):
        area = float(stats[k, cv2.CC_STAT_AREA])
        if _pip_shaped(stats[k], die_area):
            core = labels == k
            strength = float(contrast[core].max()) / threshold
            cores.append((float(centroids[k][0]), float(centroids[k][1]), area, strength))
            taken |= core.astype(np.uint8)
        elif area / die_area >= PIP_AREA[0]:
            return [], []  # paint of a pip's size that is no pip: not pips and a spot
    if not cores:
        return [], []
    width = max(3, round(CORE_WIDTH * np.sqrt(die_area))) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (width, width))
    left = blob & (cv2.dilate(taken, kernel) == 0)
    if np.count_nonzero(left) / die_area < PIP_AREA[0] * 0.4:
        return [], []  # nothing merged with them: an odd-shaped blob, judged as before
    tail = contrast[left]
    top = float(tail.max())
    if np.count_nonzero(tail >= PAINT * top) >= PEAKED * tail.size:
        return [], []  # the remnant is flat too: paint, not the lamp's peak
    ys, xs = np.nonzero(left)
    return cores, [(float(xs.mean()), float(ys.mean()), float(len(xs)), top / threshold)]


def assess(
    pips: list[Pip],
    centre: tuple[float, float],
    side: float,
    doubtful: int,
    near: Sequence[Pip] = (),
) -> PipCount:
    """The value the pips show and how well they fit a real face centred near ``centre``.

    ``doubtful`` blobs might have been pips; so might those of ``near`` that lie on the
    top face (beyond it they belong to a side face or the die's edge).
    """
    if not pips:
        return PipCount(0, (), 1.0, 0.0, 0.0, doubtful + len(near), 0.0)
    pips, side_pips = top_face(pips, side, centre)
    glare = 0
    glare_at: tuple[float, float] | None = None
    glare_plateau, glare_size = 1.0, 0.0
    glare_darker = light_paint = False
    if not side_pips:
        every = pips
        kept, glare = without_glare(pips, side)
        # a lone pip left is a face whatever it is (a 1), which is no evidence: a nearly-pip
        # blob as strong as the pips that makes a clean face of as many pips with the one
        # kept is then the likelier pip, and the weak blob the lamp's (a 2 with the spot
        # between its pips, one of them joined by the rim's highlight)
        if near and (not glare or len(kept) == 1):
            swapped, rest, swap = near_for_spot(pips, near, side)
            if swap:
                kept, near, glare = swapped, rest, swap
        pips = kept
        if glare:
            spot = next(p for p in every if p not in pips)
            middle = face_centre(np.array([(p.x, p.y) for p in pips], np.float32))
            glare_at = ((spot.x - middle[0]) / side, (spot.y - middle[1]) / side)
            glare_plateau = spot.plateau
            glare_size = spot.area / small_median([p.area for p in pips])
            glare_darker = spot.darker and all(p.darker for p in pips)
            light_paint = not spot.darker
    light_paint = (light_paint or not glare) and not any(p.darker for p in pips)
    points = np.array([(p.x, p.y) for p in pips], np.float32)
    error = layout_error(points, side)
    beyond = 0
    beyond_at: tuple[tuple[float, float], ...] = ()
    beyond_strength: tuple[float, ...] = ()
    doubt_at: tuple[tuple[float, float], ...] = ()
    doubt_strength: tuple[float, ...] = ()
    doubt_idle: tuple[bool, ...] = ()
    if near:
        others = np.array([(p.x, p.y) for p in near], np.float32)
        on_face = _grid_distance(points, others, side) <= OFF_GRID
        doubtful += int(np.count_nonzero(on_face))
        middle = face_centre(points)
        doubt_at = tuple(
            (float((x - middle[0]) / side), float((y - middle[1]) / side))
            for x, y in others[on_face]
        )
        doubt_strength = tuple(p.strength for p, on in zip(near, on_face, strict=True) if on)
        clean = error < CLEAN_FIT
        doubt_idle = tuple(
            not _completes(points, (x, y), centre, side, clean) for x, y in others[on_face]
        )
        beyond = len(near) - int(np.count_nonzero(on_face))
        beyond_at = tuple(
            (float((x - middle[0]) / side), float((y - middle[1]) / side))
            for x, y in others[~on_face]
        )
        beyond_strength = tuple(p.strength for p, on in zip(near, on_face, strict=True) if not on)
    areas = np.array([p.area for p in pips])
    spread = size_spread(areas) if len(areas) > 1 else 0.0
    swollen_at, swollen_shift, even_spread = _swollen(points, areas, side)
    middle_at, middle_share = _middle(pips, points, side)
    gap = mean_of(points, 0) - np.array(centre, np.float32)
    offset = float(np.sqrt(gap.dot(gap)) / side)  # np.linalg.norm's own sum and root
    return PipCount(
        value=len(pips),
        pips=tuple((p.x, p.y) for p in pips),
        layout_error=error,
        size_spread=spread,
        contrast=small_median([p.strength for p in pips]),
        doubtful=doubtful,
        centre_offset=offset,
        side_pips=side_pips,
        beyond=beyond,
        beyond_at=beyond_at,
        beyond_strength=beyond_strength,
        glare=glare,
        glare_at=None if glare_at is None else (float(glare_at[0]), float(glare_at[1])),
        doubt_at=doubt_at,
        doubt_strength=doubt_strength,
        doubt_idle=doubt_idle,
        swollen_at=swollen_at,
        swollen_shift=swollen_shift,
        even_spread=even_spread,
        glare_plateau=glare_plateau,
        glare_size=glare_size,
        middle_at=middle_at,
        middle_share=middle_share,
        glare_darker=glare_darker,
        light_paint=light_paint,
    )


def _completes(
    points: np.ndarray,
    blob: tuple[float, float],
    centre: tuple[float, float],
    side: float,
    clean: bool,
) -> bool:
    """Whether the face pips ``points`` (pixels) with ``blob`` form a face of a pip more
    (``clean``: the pips alone fit their own face under CLEAN_FIT, as the count measured):
    together they fit its layout loosely (GOOD_FIT), each within BLOB_AT_PLACE of a place
    of it, and the face is centred on the die (``centre``) within MISSING_AT_CENTRE.
    Only then may that nearly-pip blob be the pip the count lacks: a 1's pip and a blob at
    its corner, a 2 and a blob beside one of its pips, a 5 and a sixth blob form no face. A
    6 has no face of a pip more: a blob in the empty middle (SIX_MIDDLE) of a 6 whose pips
    fit their places cleanly (CLEAN_FIT) changes nothing; beside a loose one it keeps its
    weight (a pip of the 6 may be a stray blob, and that blob the pip), and so does one at
    the rim, where a leaning die shows its side face's pips."""
    if len(points) >= 6:  # a blob in a clean 6's empty middle, where no side face shows
        gap = np.asarray(blob, np.float32) - mean_of(points, 0)
        return float(np.hypot(*gap)) / side > SIX_MIDDLE or not clean
    every = np.vstack([points, np.array([blob], np.float32)]).astype(np.float32)
    middle = mean_of(every, 0)
    gap = middle - np.array(centre, np.float32)
    if float(np.sqrt(gap.dot(gap)) / side) > MISSING_AT_CENTRE:
        return False
    error, turn, a = _fit(every, side)
    if error >= GOOD_FIT:
        return False
    _templates(len(every))
    places = _TEMPLATE_XY[len(every)][:, turn, 0, :] * a  # (2, pips), sides from the middle
    at = (every - middle) / np.float32(side)  # (pips, 2)
    gaps = np.hypot(at[:, 0, None] - places[0], at[:, 1, None] - places[1])  # (pips, places)
    return bool(gaps.min(axis=1).max() < BLOB_AT_PLACE)


def free_six(count: PipCount) -> PipCount:
    """The count of a die with nothing to lean on (see :func:`vision.lean.free_standing`):
    a clean 6's nearly-pip blobs are all idle there, at its rim too. A 6 has no face of a
    pip more, and a flat die shows no side face whose pips they could be (:func:`_completes`
    keeps a rim blob's weight only for that). Any other count is returned as it is."""
    if count.value != 6 or count.layout_error >= CLEAN_FIT or not count.doubt_at:
        return count
    return replace(count, doubt_idle=(True,) * len(count.doubt_at))


def side_pips_as_doubts(count: PipCount) -> PipCount:
    """The count of a die whose pips set aside as a side face's come with no side face (see
    :func:`vision.lean.side_face_unseen`): those blobs lie beyond the top face, as blobs that
    might have been pips do, and weigh as those do (BEYOND_DOUBT each), not as a side face,
    which caps the count and calls the die leaning. Any other count is returned as it is."""
    if not count.side_pips:
        return count
    return replace(count, side_pips=0, beyond=count.beyond + count.side_pips)


BLOB_AT_PLACE = 0.1  # sides: a pip's radius, as far as a pip strays from its place
SIX_MIDDLE = 0.16  # sides from a 6's centre: its empty middle (its nearest pips lie 0.27 out,
# a pip's radius under 0.1); a leaning die's side face shows its pips at the rim, never there


def middle_index(points: np.ndarray) -> int:
    """Which of a face's pip centres (N, 2) lies nearest the centre of them all: a 3's or a
    5's middle pip."""
    return int(np.argmin(np.hypot(*(points - mean_of(points, 0)).T)))


def _middle(
    pips: list[Pip], points: np.ndarray, side: float
) -> tuple[tuple[float, float] | None, tuple[float, float]]:
    """A 3's or a 5's middle pip (the one nearest the centre of them all): where it lies
    from the centre of the others, in sides along the frame's axes, and its area and
    contrast over the others' medians; (None, (1.0, 1.0)) for other counts."""
    if len(pips) not in (3, 5):
        return None, (1.0, 1.0)
    middle = middle_index(points)
    rest = [k for k in range(len(pips)) if k != middle]
    at = (points[middle] - mean_of(points[rest], 0)) / side
    area = pips[middle].area / max(1e-9, small_median([pips[k].area for k in rest]))
    strength = pips[middle].strength / max(1e-9, small_median([pips[k].strength for k in rest]))
    return (float(at[0]), float(at[1])), (float(area), float(strength))


def _swollen(
    points: np.ndarray, areas: np.ndarray, side: float
) -> tuple[tuple[float, float] | None, tuple[float, float] | None, float]:
    """The largest pip when it is SWOLLEN times the others' median area or more: where it
    lies from the face's centre, how far from its place in the best-fitting layout (None
    for a 2, whose fit shifts both pips alike), both in sides along the frame's axes, and
    the others' size spread; (None, None, 0.0) when no pip is that much larger."""
    if not 2 <= len(areas) <= 6:
        return None, None, 0.0
    listed = areas.tolist()
    big = max(range(len(listed)), key=listed.__getitem__)  # the first largest, as argmax
    if listed[big] < SWOLLEN * small_median(listed[:big] + listed[big + 1 :]):
        return None, None, 0.0
    rest = np.delete(areas, big)
    middle = face_centre(points)
    at = (points[big] - middle) / side
    even = size_spread(rest)
    if len(areas) < 3:
        return (float(at[0]), float(at[1])), None, even
    others = np.delete(points, big, axis=0)
    centre_of_others = mean_of(others, 0)
    if len(points) in (3, 5) and np.hypot(*(points[big] - centre_of_others)) < 0.15 * side:
        place = centre_of_others  # a middle pip's place is the centre of the others
    else:
        _, r, a = _fit(points, side)
        rotated, _ = _templates(len(points))
        template = rotated[r] * a * side + mean_of(points, 0)
        place = template[int(np.argmin(np.hypot(*(template - points[big]).T)))]
    shift = (points[big] - place) / side
    return (float(at[0]), float(at[1])), (float(shift[0]), float(shift[1])), even


def count_pips(
    frame: np.ndarray,
    region: Region,
    side: float,
    level: PipLevel = PIP_LEVEL,
    prepared: FaceCrop | None = None,
) -> PipCount:
    """Find and judge the pips of the lone die ``region``; ``side`` is its side in pixels,
    ``level`` the pip threshold (see :func:`_threshold`), ``prepared`` the region's
    :func:`face_crop` when it was made already (a die counted at several levels)."""
    pips, near = detect_pips(frame, region.contour, side, prepared=prepared, level=level)
    return assess(pips, region.center, side, 0, near)


def face_centre(points: np.ndarray) -> np.ndarray:
    """Where the face's centre is, from its pips: the centroid (also the middle pip of 1, 3, 5)."""
    return np.asarray(mean_of(points, 0), np.float32)


def share_pips(
    pips: list[Pip], centres: np.ndarray, side: float, rounds: int = 3
) -> tuple[list[list[Pip]], np.ndarray]:
    """Give each pip to the nearest die centre, re-centring each die on its own pips.

    A pip is at most 0.4 sides from its die's centre and at least 0.6 from any touching
    die's, so once the centres are near, the sharing is exact.
    """
    centres = centres.astype(np.float32).copy()
    groups: list[list[Pip]] = [[] for _ in centres]
    xs = np.array([[p.x] for p in pips], np.float32).reshape(-1, 1)  # as float32 arithmetic
    ys = np.array([[p.y] for p in pips], np.float32).reshape(-1, 1)  # takes a float
    for _ in range(rounds):
        groups = [[] for _ in centres]
        if pips:
            nearest = np.hypot(centres[:, 0] - xs, centres[:, 1] - ys).argmin(axis=1)
            for p, j in zip(pips, nearest.tolist(), strict=True):
                groups[j].append(p)
        moved = False
        for j, group in enumerate(groups):
            if not group:
                continue
            points = np.array([(p.x, p.y) for p in group], np.float32)
            if layout_error(points, side) < 0.05:
                new = face_centre(points)
                moved |= bool(np.hypot(*(new - centres[j])) > 0.5)
                centres[j] = new
        if not moved:
            break
    return groups, centres


def pulled_pip(count: PipCount) -> bool:
    """Whether the count's swollen pip lies off its place in the face's layout by more than
    MIDDLE_OFF: a pip with a reflection on it, pulled toward the reflection, or a reflection
    larger than the pips beside the centre of a 2 or a 4, or a pip of another face (a leaning
    die's side face, whose foreshortened pips are smaller than its top face's)."""
    shift = count.swollen_shift
    return shift is not None and float(np.hypot(*shift)) > MIDDLE_OFF


def confidence(count: PipCount) -> float:
    """Map the evidence for a count to 0..1; an honest threshold is 0.5 (see the bench)."""
    if not 1 <= count.value <= 6:
        return 0.0
    score = 1.0
    score *= float(np.exp(-((count.layout_error / 0.06) ** 2)))
    score *= float(np.exp(-((max(0.0, count.size_spread - 0.25) / 0.3) ** 2)))
    score *= min(1.0, max(0.0, (count.contrast - 1.0) / 0.6))
    idle = min(count.doubtful, sum(count.doubt_idle))  # blobs that would make no face
    score *= 0.6 ** (count.doubtful - idle) * BEYOND_DOUBT ** (count.beyond + idle)
    if count.side_pips:  # which pips are the top face's is a judgement: never sure
        score = min(score, SIDE_FACE_CAP)
    if count.glare:  # so is which blob is the lamp's: only a sure second opinion confirms it
        score = min(score, GLARE_CAP)
    if pulled_pip(count):  # which is a judgement too
        score = min(score, GLARE_CAP)
    if count.searched:  # so is which threshold is the die's
        score = min(score, SEARCHED_CAP)
    score *= float(np.exp(-((max(0.0, count.centre_offset - 0.12) / 0.12) ** 2)))
    return float(np.clip(score, 0.0, 1.0))


def learn_die_side(image: np.ndarray, blobs: list[np.ndarray], scale: int) -> float | None:
    """The die size in this frame: the median side of lone blobs whose pips form a real face,
    else of lone blobs with any pips (small dice whose layout is too blurred to check)."""
    faces, dotted = [], []
    for region in single_die_regions(blobs, scale, min(image.shape[:2])):
        count = count_pips(image, region, region.side)
        if 1 <= count.value <= 6:
            dotted.append(region.side)
            if count.layout_error < 0.08:
                faces.append(region.side)
    sides = faces or dotted
    return float(np.median(sides)) if sides else None
