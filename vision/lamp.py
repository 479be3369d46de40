"""The lamp's reflection on the top faces of a calibrated frame's dice.

One lamp over flat dice puts its reflection at the same place on every top face (the same
offset from the face's centre along the frame's axes, however the die is turned), while a
pip turns with its die: what the frame's dice or the calibration agree is the lamp is no
pip, and no doubt.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.calibration import Calibration
from vision.found import Found
from vision.pips import (
    CLEAN_FIT,
    GLARE_WEAKER,
    PEAKED,
    SHAPE_SIDE,
    SPOT_AREA,
    PipCount,
    face_centre,
    gap_fit,
    layout_error,
    middle_index,
    missing_pip,
)

LAMP_CENTRE = 0.055  # a blob or lamp this near the face's centre (sides) may be its middle pip
LAMP_CLOSE = 0.03  # ... and one beyond it but within LAMP_REACH is the lamp only this near it
RIM_ALIGN = 0.85  # cosine between a blob's and the lamp's offsets on a glossy face's rim
RIM_SIDE = 0.5  # ... for a blob far fainter than the pips (under FAINT of their contrast):
# the lit rim runs along the whole edge that faces the lamp
FAINT = 0.6


SPREAD_REACH = 2.0  # spreads from the lamp within which a die's spot lies (a spread is the
# root-mean-square distance: about 98% of spots scattered evenly about the lamp lie within two)


def spot_reach(spread: float | None) -> float:
    """How far from the lamp a blob within LAMP_REACH of the face's centre may lie and still
    be its reflection: SPREAD_REACH times the spread the calibration measured (``spread``,
    see ``Calibration.lamp_spread``), at least LAMP_CLOSE and at most LAMP_REACH; LAMP_CLOSE
    where no spread was measured."""
    if spread is None:
        return LAMP_CLOSE
    return float(min(LAMP_REACH, max(LAMP_CLOSE, SPREAD_REACH * spread)))


FAR_SPOT = 0.2  # sides: the farthest from the lamp a spot beyond LAMP_REACH of the face's
# centre is taken for it, however far the calibration's spots strayed (a pip's radius and the
# spot's, as SPOT_ON_PIP)


def far_reach(spread: float | None) -> float:
    """How far from the lamp a blob farther than LAMP_REACH from the face's centre may lie
    and still be its reflection, when the lamp lies that far out too: LAMP_REACH, or
    SPREAD_REACH times the calibration's spread (``spread``) where its dice showed the spot
    to stray farther, at most FAR_SPOT. No middle pip lies there (see ``pips.MIDDLE_OFF``), so
    only the tower's own measure of the spot's scatter bounds it, not the centre's guard."""
    if spread is None:
        return LAMP_REACH
    return float(min(FAR_SPOT, max(LAMP_REACH, SPREAD_REACH * spread)))


def without_lamp(
    count: PipCount, lamp: tuple[float, float] | None, spread: float | None = None
) -> PipCount | None:
    """The count with what the lamp explains taken out, or None when it explains nothing.

    ``lamp`` is where the frame's lamp lies on a top face (from the calibration, or the
    reflections the frame's dice agree on). A blob set aside there is the lamp: the count
    is no longer capped. A nearly-pip blob there, or beyond the spot in the lamp's
    direction (a glossy die's bright rim toward the lamp), is no longer doubted. A blob
    within LAMP_REACH of the face's centre (but beyond LAMP_CENTRE: farther out than a real
    middle pip lies, see ``pips.MIDDLE_OFF``), or any blob when the lamp lies that near the
    centre, is explained only within :func:`spot_reach` of the lamp: LAMP_CLOSE, or as far
    as the calibration's dice showed the spot to stray (``spread``). A blob farther out,
    with the lamp farther out too, is the lamp within LAMP_REACH of it; the blob set aside
    as the spot, within :func:`far_reach`. A nearly-pip blob within LAMP_REACH of the
    centre as strong as the pips' paint (GLARE_WEAKER of their contrast or more) is never
    explained: a middle pip that the spot merged with, its centre pulled toward the lamp,
    lies there (a 5 read as a 4 on tuning seed 505 at 1296x972). The blob set aside as the
    spot within LAMP_CENTRE of the centre is the lamp only when much smaller than a pip (see
    :func:`_small_at_centre`).
    """
    if lamp is None:
        return None
    lx, ly = lamp
    reach = float(np.hypot(lx, ly))
    near_centre = spot_reach(spread)
    far_out = far_reach(spread)
    if reach <= LAMP_CENTRE and near_centre <= LAMP_CLOSE:
        return None  # no blob beyond LAMP_CENTRE lies this near such a lamp
    rims = reach > LAMP_CENTRE  # a lamp at the centre lights no edge more than another

    def at_lamp(x: float, y: float, far: float = LAMP_REACH) -> bool:  # never a middle pip
        out = float(np.hypot(x, y))
        close = far if out > LAMP_REACH and reach > LAMP_REACH else near_centre
        return bool(out > LAMP_CENTRE and np.hypot(x - lx, y - ly) <= close)

    def on_rim(x: float, y: float, align: float = RIM_ALIGN) -> bool:
        far = float(np.hypot(x, y))
        return rims and far > reach and (x * lx + y * ly) > align * reach * far

    def faint(k: int, share: float = GLARE_WEAKER) -> bool:  # weaker than the pips' paint
        strengths = count.doubt_strength
        return k < len(strengths) and strengths[k] < share * count.contrast

    # the blob set aside as the spot may stray as far as the calibration's spots did; a
    # nearly-pip blob (a faint pip, perhaps) only as near as LAMP_REACH
    glare = count.glare and count.glare_at is not None and at_lamp(*count.glare_at, far_out)
    glare = glare or peaked_spot(count, lamp) or _small_at_centre(count, lamp, near_centre)
    swollen = _swollen_by_lamp(count, lamp)
    explained = [
        (at_lamp(*d) and (float(np.hypot(*d)) > LAMP_REACH or faint(k)))
        or (on_rim(*d) and (glare or swollen or faint(k)))
        or (on_rim(*d, RIM_SIDE) and faint(k, FAINT))  # the lit rim spans the lamp's side
        for k, d in enumerate(count.doubt_at)
    ]
    kept = tuple(d for d, e in zip(count.doubt_at, explained, strict=True) if not e)
    strengths = tuple(v for v, e in zip(count.doubt_strength, explained, strict=False) if not e)
    idle = tuple(v for v, e in zip(count.doubt_idle, explained, strict=False) if not e)
    if not glare and not swollen and len(kept) == len(count.doubt_at):
        return None
    cleared = len(count.doubt_at) - len(kept)
    return replace(
        count,
        glare=0 if glare else count.glare,
        doubtful=count.doubtful - cleared,
        doubt_at=kept,
        doubt_strength=strengths,
        doubt_idle=idle,
        swollen_at=None if swollen else count.swollen_at,
        swollen_shift=None if swollen else count.swollen_shift,
        size_spread=count.even_spread if swollen else count.size_spread,
    )


STRAY_OUT = 0.16  # sides: no face has a pip between LAMP_CENTRE and this far from its centre
# (a middle pip lies within pips.MIDDLE_OFF of it, every other pip a quarter side out or more)


def stray_spot(count: PipCount) -> bool:
    """Whether the blob the count set aside as the lamp's reflection is one by itself, with no
    lamp to compare it with: it lies where no face has a pip (beyond LAMP_CENTRE of the face's
    centre, within STRAY_OUT), no larger than the pips (SPOT_SIZE), and is either much smaller
    than them (SPOT_AREA: no middle pip measures so small) or a peak falling off smoothly
    (PEAKED: a painted pip is a flat disc). One darker than the die's body, as a pip washed
    out by the spot is on a light die (a crescent, small and pulled off the centre), is not.
    A tower whose calibration saw no lamp (its flat dice showed the spot on their pips) and a
    frame whose spots lie where only one or two dice show them meet it."""
    if not count.glare or count.glare_at is None or count.glare_darker:
        return False
    out = float(np.hypot(*count.glare_at))
    return bool(
        LAMP_CENTRE < out <= STRAY_OUT
        and count.glare_size <= SPOT_SIZE
        and (_small_spot(count) or count.glare_plateau < PEAKED)
    )


def explain(
    count: PipCount,
    lamp: tuple[float, float] | None,
    spread: float | None = None,
    side: float | None = None,
) -> tuple[PipCount, bool]:
    """The count as the reader scores it, and whether the frame's lamp explained part of it
    (see :func:`without_lamp`: the classifier, which knows no lamp, may then not veto it).
    A set-aside blob that neither the lamp nor anything else explains but that is a stray
    spot by itself (see :func:`stray_spot`) is no longer doubted either; one that is a small
    spot at the centre of light paint (see :func:`bare_spot_at_centre`) is the lamp's by
    itself, and the classifier may not veto that count either; nor the count of a 2 or a 4
    of light paint whose spot was counted as a small, faint middle pip (see
    :func:`light_middle_as_spot`; ``side``, the die's side in pixels, places its pips)."""
    explained = without_lamp(count, lamp, spread)
    scored = count if explained is None else explained
    if bare_spot_at_centre(scored, side):
        return replace(scored, glare=0), True
    aside = None if side is None else light_middle_as_spot(scored, side)
    if aside is not None:
        return aside, True
    if stray_spot(scored):
        scored = replace(scored, glare=0)
    return scored, explained is not None


def bare_spot_at_centre(count: PipCount, side: float | None = None) -> bool:
    """Whether the blob a 2, a 4 or a 6 set aside as the lamp's spot is one by itself, at the
    face's centre: within LAMP_CENTRE of it, much smaller than the pips (SPOT_AREA), on a die
    whose pips and spot are all lighter than its body (``PipCount.light_paint``). A middle pip
    lies there too, but the spot only adds light: it greys a dark pip, which then looks small
    (a 3 or a 5 of dark paint read as a 2 or a 4), never a light one. So on light paint a
    small spot at the centre is the lamp's, with or without a lamp to compare it with, and
    the classifier, which takes it for a middle pip, may not veto the count. (At 640x480 over
    seeds 1400-2611, 3100-3611, 6100-6611, 7100-7611 and 8100-8611, 30 rolls, the lone flat
    dice counted 2 or 4 with a spot under SPOT_AREA within LAMP_CENTRE of the centre: all 67
    of light paint were 2s and 4s, the classifier vetoing 4 of them (setup 8304, blue dice
    whose calibration saw the spot on one die only); all 40 of dark paint were 3s and 5s.)
    On a die ``side`` pixels wide, SHAPE_SIDE or more, a blob with a painted pip's flat top
    (PEAKED of its pixels at full contrast or more) is a pip, however small: a highlight
    beside a middle pip can shrink the blob found, never peak it. (At 1296x972 over the
    bench's setups 1400-2611, 3100-3611, 6100-6611, 7100-7611, 8100-8611 and 9100-9611,
    30 rolls: the 77 flat dice counted so whose spot was the lamp's measured 0.33-0.46; the
    one whose spot was a 3's middle pip, lit by a highlight beside it, 0.66.)"""
    if count.value not in (2, 4, 6) or not count.glare or count.glare_at is None:
        return False
    if side is not None and side >= SHAPE_SIDE and count.glare_plateau >= PEAKED:
        return False
    return (
        count.light_paint and float(np.hypot(*count.glare_at)) <= LAMP_CENTRE and _small_spot(count)
    )


def light_middle_as_spot(count: PipCount, side: float) -> PipCount | None:
    """The count of a 2 or a 4 whose lamp's spot was counted as the middle pip of a 3 or a 5:
    a middle pip of light paint (``PipCount.light_paint``) within LAMP_CENTRE of the others'
    centre, smaller and fainter than they are (SPOT_MIDDLE_AREA, SPOT_MIDDLE_STRENGTH), with
    the other pips forming a clean face (see :func:`middle_as_spot`), the spot then no longer
    set aside. The converse of :func:`bare_spot_at_centre`, where the count itself set the
    spot aside (dice wide enough to show the shape of a blob's brightness count a faint spot
    as a pip more often): the spot greys dark paint but only lights light paint more, so a
    light middle pip under it is no smaller or fainter than the others. (At 1296x972 over
    seeds 1400-2611, 3100-3611, 6100-6611, 7100-7611 and 8100-8611, 30 rolls, the lone flat
    dice counted 3 or 5 with such a middle pip: all 34 of light paint were 2s and 4s, all
    refused as unsure; all 91 of dark paint were 3s and 5s; of 7,214 light-paint 3s and 5s,
    none had a middle pip both so small and so faint.) None otherwise."""
    if not count.light_paint or count.value not in (3, 5) or count.middle_at is None:
        return None
    area, strength = count.middle_share
    if (
        area >= SPOT_MIDDLE_AREA
        or strength >= SPOT_MIDDLE_STRENGTH
        or float(np.hypot(*count.middle_at)) > LAMP_CENTRE
    ):
        return None
    aside = middle_as_spot(count, side)
    return None if aside is None else replace(aside, glare=0, glare_at=None)


def _small_at_centre(count: PipCount, lamp: tuple[float, float], reach: float) -> bool:
    """Whether the blob set aside as the spot lies within LAMP_CENTRE of the face's centre,
    where a middle pip would, but is much smaller than the pips (SPOT_AREA: the count set it
    aside as no pip by its size), and within ``reach`` of the lamp (:func:`spot_reach`). A
    tower whose calibration measured the spot straying far (a near camera: setup 2109's
    spread 0.12 side about a lamp 0.10 out) sees it cross the centre of some dice."""
    if not count.glare or count.glare_at is None or not _small_spot(count):
        return False
    if count.glare_darker:
        return False  # darker than the body, as the pips: paint (see spot_as_pip), no lamp
    x, y = count.glare_at
    return bool(
        float(np.hypot(x, y)) <= LAMP_CENTRE and float(np.hypot(x - lamp[0], y - lamp[1])) <= reach
    )


def _small_spot(count: PipCount) -> bool:
    """Whether the blob the count set aside as the spot was measured much smaller than its
    pips (SPOT_AREA: no middle pip of a 3 or a 5 measures so small). A size of 0 was not
    measured: a count the reader built, not one seen."""
    return 0.0 < count.glare_size < SPOT_AREA


SPOT_SIZE = 1.0  # the most a spot set aside by its shape may measure, over the pips' median
# area: a pip merged with the spot is larger (1.4 times and more on the tuning seeds)


def peaked_spot(count: PipCount, lamp: tuple[float, float]) -> bool:
    """Whether the blob the count set aside as the lamp's reflection is one by the shape of its
    brightness, wherever the lamp's scatter puts it: a peak falling off smoothly (under PEAKED
    of its pixels at full contrast), where a painted pip is a flat disc (0.6 and more), no
    larger than the pips (SPOT_SIZE), beyond LAMP_CENTRE of the face's centre (a middle pip
    may lie there) and within FAR_SPOT of the frame's lamp (``lamp``). On tuning seeds
    1300-1311 at 1296x972 the spots a die set aside farther from the lamp than its spread
    reaches measured 0.33-0.43 (setup 1306: 0.13 side from the lamp, its spread 0.088)."""
    if not count.glare or count.glare_at is None:
        return False
    x, y = count.glare_at
    return bool(
        count.glare_plateau < PEAKED
        and count.glare_size <= SPOT_SIZE
        and float(np.hypot(x, y)) > LAMP_CENTRE
        and float(np.hypot(x - lamp[0], y - lamp[1])) <= FAR_SPOT
    )


SPOT_ON_PIP = 0.2  # a pip this near the lamp (sides: a pip's radius and the spot's) may
# carry the lamp's reflection


def _swollen_by_lamp(count: PipCount, lamp: tuple[float, float]) -> bool:
    """Whether the count's swollen pip (see ``PipCount.swollen_at``) is a pip with the lamp's
    reflection on it: it lies within SPOT_ON_PIP of the lamp and, where the layout shows its
    place, is pulled from it toward the lamp."""
    if count.swollen_at is None:
        return False
    x, y = count.swollen_at
    if float(np.hypot(x - lamp[0], y - lamp[1])) > SPOT_ON_PIP:
        return False
    if count.swollen_shift is None:
        return True
    sx, sy = count.swollen_shift
    px, py = x - sx, y - sy  # its place in the layout
    return bool((lamp[0] - px) * sx + (lamp[1] - py) * sy > 0.0)


def frame_lamp(
    found: list[Found], confirmed: list[bool], calibration: Calibration | None
) -> tuple[float, float] | None:
    """Where the lamp lies on this frame's top faces: the calibration's, else the median of
    the reflections the frame's dice agree on (None when neither shows it)."""
    if calibration is not None and calibration.lamp is not None:
        return calibration.lamp
    spots = [f.count.glare_at for f, ok in zip(found, confirmed, strict=True) if ok]
    if not spots:
        return None
    middle = np.median(np.array(spots), axis=0)
    return float(middle[0]), float(middle[1])


LAMP_SUPPORT = 1  # other dice of the frame whose reflection lies at the same place
LAMP_REACH = 0.1  # ... within this many sides; a blob nearer than this to the face's
# centre is taken for the lamp only when small and agreed by NEAR_SUPPORT dice (a 5 or 3
# without its middle pip is a clean 4 or 2)


def lamp_confirmed(found: list[Found], lamp: tuple[float, float] | None = None) -> list[bool]:
    """For each die, whether the blob it set aside as the lamp's reflection is confirmed by
    the frame: one lamp over flat dice puts its reflection at the same place on every top
    face (the same offset from the face's centre along the frame's axes, however the die is
    turned), while a pip turns with its die. A set-aside blob beyond LAMP_REACH of the
    face's centre that at least LAMP_SUPPORT other dice show at that offset, or that lies
    where the calibration saw the lamp (``lamp``, from the six flat dice it was made with),
    is the lamp, and the count without it is not doubted. One nearer the centre (see
    :func:`_spot`) needs NEAR_SUPPORT other dice: a tower whose calibration did not see the
    lamp learns it from a frame whose dice agree on it.
    """
    spots = [_spot(f.count) for f in found]
    out = []
    for i, at in enumerate(spots):
        agree = sum(
            1
            for j, other in enumerate(spots)
            if j != i
            and other is not None
            and at is not None
            and np.hypot(at[0] - other[0], at[1] - other[1]) <= LAMP_REACH
        )
        far = at is not None and np.hypot(*at) > LAMP_REACH
        known = (
            far
            and lamp is not None
            and at is not None
            and np.hypot(at[0] - lamp[0], at[1] - lamp[1]) <= LAMP_REACH
        )
        support = LAMP_SUPPORT if far else NEAR_SUPPORT
        out.append(at is not None and (agree >= support or known))
    return out


NEAR_SUPPORT = 2  # other dice that must agree on a spot within LAMP_REACH of the centre
# (on the tuning setups a calibration without a lamp left black glossy dice's spots at
# 0.07-0.12 side from the centre, scattered 0.04 about their median, capped as unexplained)


def _spot(count: PipCount) -> tuple[float, float] | None:
    """Where the blob a count set aside as the lamp's lies, when it may be the lamp: beyond
    LAMP_REACH of the face's centre, or nearer but beyond LAMP_CENTRE and much smaller than
    the pips (SPOT_AREA: no middle pip of a 3 or a 5 measures so small)."""
    at = count.glare_at
    if not count.glare or at is None:
        return None
    out = float(np.hypot(*at))
    return at if out > LAMP_REACH or (out > LAMP_CENTRE and _small_spot(count)) else None


def frame_spread(
    found: list[Found], confirmed: list[bool], lamp: tuple[float, float] | None
) -> float | None:
    """How far the spots the frame's dice agree on stray from the frame's lamp (their
    root-mean-square distance, as ``Calibration.lamp_spread``), when at least three agree;
    None otherwise."""
    spots = [
        f.count.glare_at
        for f, ok in zip(found, confirmed, strict=True)
        if ok and f.count.glare_at is not None
    ]
    if lamp is None or len(spots) < 3:
        return None
    d = np.array([np.hypot(x - lamp[0], y - lamp[1]) for x, y in spots])
    return float(np.sqrt(np.mean(d * d)))


def paint_at_centre(count: PipCount) -> bool:
    """Whether a 2 or a 4 has a nearly-pip blob within LAMP_REACH of its face's centre as
    strong as the pips' paint (GLARE_WEAKER of their contrast or more): a middle pip that the
    lamp's spot merged with (too irregular for a pip, its centre pulled toward the lamp) lies
    there, so the die may be a 3 or a 5, and the count is a judgement, never sure (only a sure
    second opinion confirms it, as a set-aside spot). A lamp cannot explain it away (see
    :func:`without_lamp`). So is one of any strength within LAMP_CENTRE of the centre that
    makes a face of a pip more with the others (not ``doubt_idle``): a middle pip greyed by
    the spot lies just there (setup 8501 roll 4 at 640x480, a white 5 read as a 4 at 0.51,
    its middle blob 0.025 side from the centre at 0.6 of the paint's contrast; on seeds
    1400-1911 and 8100-8611 at 640x480 the scored 2s and 4s with such a blob within 0.1 side
    had it 0.059 side out or farther, and were right)."""
    if count.value not in (2, 4):
        return False
    strong = any(
        float(np.hypot(*d)) <= LAMP_REACH
        and k < len(count.doubt_strength)
        and count.doubt_strength[k] >= GLARE_WEAKER * count.contrast
        for k, d in enumerate(count.doubt_at)
    )
    return strong or faint_middle(count)


def faint_middle(count: PipCount) -> bool:
    """Whether a 2 or a 4 has a blob of any strength within LAMP_CENTRE of its face's centre
    that makes a face of a pip more with the others (the second form of
    :func:`paint_at_centre`): a middle pip greyed by the lamp's spot or a highlight. Only
    the dice profile, which knows how these dice's pips look, may confirm such a count: the
    classifier reads the same faint blob and was sure of a 4 where setup 3102 roll 19 at
    640x480 showed a 5 (its middle blob 0.042 side from the centre at 0.52 of the paint's
    contrast)."""
    if count.value not in (2, 4):
        return False
    return any(
        float(np.hypot(*d)) <= LAMP_CENTRE and k < len(count.doubt_idle) and not count.doubt_idle[k]
        for k, d in enumerate(count.doubt_at)
    )


SPOT_MIDDLE_AREA = 0.7  # a 3's or 5's middle blob under this share of the others' median area
SPOT_MIDDLE_STRENGTH = GLARE_WEAKER  # ... and under this share of their contrast may be the
# lamp's spot: on tuning seeds 900-911 and 1000-1011 at 1296x972 painted middle pips beside a
# calibrated lamp measured 0.98 of the contrast and more, the spots taken for a middle pip
# (setup 910) 0.32-0.53 of the area and 0.83-0.85 of the contrast


def middle_reach(spread: float | None) -> float:
    """How far from the lamp a small, faint middle pip may lie and still be suspected of
    being its spot: SPREAD_REACH times the calibration's spread (``spread``), at least
    LAMP_CLOSE and at most FAR_SPOT; LAMP_CLOSE where no spread was measured.

    Wider than :func:`spot_reach`, which explains a blob away and so must stop at LAMP_REACH
    lest it remove a painted middle pip: a suspect is only kept unsure. On tuning setup 2109
    at 1296x972 (spread 0.108) the spot at the centre of a translucent 2 lay 0.102 sides from
    the lamp, 0.38 of a pip's area and 0.83 of its contrast, and was scored as a 3."""
    if spread is None:
        return LAMP_CLOSE
    return float(min(FAR_SPOT, max(LAMP_CLOSE, SPREAD_REACH * spread)))


def spot_for_middle(
    count: PipCount, lamp: tuple[float, float] | None, spread: float | None = None
) -> bool:
    """Whether a 3's or a 5's middle pip may be the lamp's spot at the centre of a 2 or a 4:
    it lies within :func:`middle_reach` of the frame's lamp (``lamp``; ``spread`` as there)
    and is smaller and fainter than the other pips (SPOT_MIDDLE_AREA, SPOT_MIDDLE_STRENGTH),
    as a spot is beside paint. Such a count is a judgement, never sure: the classifier, which
    knows no lamp, takes the spot for a pip too, so only a sure dice profile confirms it."""
    if lamp is None or count.value not in (3, 5) or count.middle_at is None:
        return False
    area, strength = count.middle_share
    x, y = count.middle_at
    return (
        area < SPOT_MIDDLE_AREA
        and strength < SPOT_MIDDLE_STRENGTH
        and float(np.hypot(x - lamp[0], y - lamp[1])) <= middle_reach(spread)
    )


def hidden_by_lamp(
    count: PipCount, lamp: tuple[float, float] | None, side: float
) -> PipCount | None:
    """The count with one more pip, when the lamp's spot may hide one: the count's pips do
    not form a clean face (layout error CLEAN_FIT or more) but do form one of a pip more with
    one place empty (under CLEAN_FIT), and that place lies within SPOT_ON_PIP of the frame's
    lamp (``lamp``): the spot merged with the pip there into a blob too irregular for a pip
    (a 5 read as a 4, a 3 as a 2, on tuning seeds 500-511 at 1296x972). None otherwise.

    It is a candidate, never a sure count: it carries the hidden place as a set-aside spot
    (``glare``), so it is capped below the threshold unless a sure second opinion reads the
    same value. The nearly-pip blobs between that place and the lamp (the merged blob) are
    no longer doubts.
    """
    n = count.value
    if lamp is None or not 2 <= n <= 5 or count.glare or count.side_pips:
        return None
    if count.layout_error < CLEAN_FIT:
        return None
    points = np.array(count.pips, np.float64) / side
    error, place, middle = gap_fit(points, n + 1)
    if error >= CLEAN_FIT:
        return None
    px, py = float(place[0]), float(place[1])
    if float(np.hypot(px - lamp[0], py - lamp[1])) > SPOT_ON_PIP:
        return None
    # the doubts lie from the centre of the count's pips; the face's centre is ``middle``
    shift = points.mean(axis=0) - middle
    merged = [
        float(np.hypot(x + shift[0] - px, y + shift[1] - py)) <= SPOT_ON_PIP
        and float(np.hypot(x + shift[0] - lamp[0], y + shift[1] - lamp[1])) <= SPOT_ON_PIP
        for x, y in count.doubt_at
    ]
    kept = tuple(d for d, e in zip(count.doubt_at, merged, strict=True) if not e)
    strengths = tuple(v for v, e in zip(count.doubt_strength, merged, strict=False) if not e)
    return replace(
        count,
        value=n + 1,
        layout_error=error,
        glare=1,
        glare_at=(px, py),
        doubtful=max(0, count.doubtful - sum(merged)),
        doubt_at=kept,
        doubt_strength=strengths,
        doubt_idle=(),  # judged against the count of n pips: each doubt weighs in full
    )


def lost_beside_spot(
    count: PipCount,
    centre: tuple[float, float],
    side: float,
    lamp: tuple[float, float] | None,
    spread: float | None = None,
) -> PipCount | None:
    """The count with the blob at the lamp taken out as its spot and a pip lost elsewhere
    put back, when both happened on one face: a 4, 5 or 6 whose pips form no clean face
    (layout error CLEAN_FIT or more), one of them within :func:`spot_reach` of the frame's
    lamp (``lamp``, from the die's ``centre``) and the others a face of the same number with
    one place empty (see :func:`vision.pips.missing_pip`). On glossy dice the rim's
    highlight took one pip while the lamp's spot was counted as another: a 4 of three pips
    and the spot (setup 1411 roll 22 at 1296x972). None otherwise.

    The value is the count's; what changes is the evidence for it: the spot is set aside
    (``glare``) and the lost pip is a doubt, so the count is a candidate that only a sure
    dice profile confirms. Fewer pips are no face: two or one of a 3 or a 2 fit a face of
    one more almost anyhow.
    """
    n = count.value
    if lamp is None or not 4 <= n <= 6 or count.glare or count.side_pips:
        return None
    if count.layout_error < CLEAN_FIT:
        return None
    points = np.array(count.pips, np.float64)
    at = np.array(centre, np.float64) + np.array(lamp, np.float64) * side
    reach = spot_reach(spread)
    for i in np.flatnonzero(np.hypot(*(points - at).T) / side <= reach):
        rest = np.delete(points, i, axis=0)
        fewer = replace(
            count,
            value=n - 1,
            pips=tuple((float(x), float(y)) for x, y in rest),
            layout_error=layout_error(rest.astype(np.float32), side),
        )
        lost = missing_pip(fewer, centre, side)
        if lost is not None:
            spot = (points[i] - np.array(centre)) / side
            return replace(lost, glare=1, glare_at=(float(spot[0]), float(spot[1])))
    return None


def spot_as_pip(count: PipCount, side: float) -> PipCount | None:
    """The count with the blob it set aside as the lamp's spot taken back as a pip, when the
    count is a 2 or a 4 and that blob completes a clean face of a pip more (layout error
    under CLEAN_FIT): the middle pip of a 3 or a 5 with the lamp's reflection on it, greyed
    and shrunk until it looks like a spot. None otherwise.

    Like :func:`hidden_by_lamp` it is a candidate, never a sure count (the blob stays the
    set-aside spot, ``glare``): which of the two a face shows, a 4 with the lamp at its
    centre or a 5 whose middle pip carries it, only a dice profile can tell, having been
    taught these dice under this lamp. The generic classifier is not asked: it takes a
    highlight on a dark die for a pip. Except where the blob is darker than the die's body,
    as the other pips are (``glare_darker``: dark paint on a light die): a reflection only
    adds light, so the blob is paint, and the count is no longer a judgement of the lamp
    (``glare`` 0). On tuning setup 2211 at 640x480 (white dice, black pips) the middle pips
    of 3s and 5s, greyed by the spot on them to 0.3-0.5 of a pip's area, were set aside so
    in 18 of 30 rolls; on blue dice with white pips (setup 2209) the spot at a 2's or 4's
    centre, as bright as paint, looks the same but is lighter than the body.

    So is a blob larger than the pips (over ``SPOT_SIZE`` of their median area): the spot
    alone on a die's body is smaller than its pips, and a pip it lies on swells with it. On
    seeds 1400-2611 at 640x480, every die of 30 rolls, the 9 such candidates whose blob was
    the middle pip of a refused 3 or 5 measured 1.19-1.30 of the pips' area, and the two
    bare spots at a 2's or a 4's centre 0.57 and 0.79. On seeds 3100-3611, 6100-6611 and
    7100-7611, not looked at for this, all 20 blobs over SPOT_SIZE were middle pips
    (1.11-1.30) and the 9 bare spots measured 0.30-0.80. A shrunken, greyed middle pip
    (0.23-0.54 there) is still told from a spot by a profile only.
    """
    if not count.glare or count.glare_at is None or count.value not in (2, 4):
        return None
    if count.side_pips:
        return None
    points = np.array(count.pips, np.float32)
    spot = face_centre(points) + np.array(count.glare_at, np.float32) * np.float32(side)
    every = np.vstack([points, spot[None, :]]).astype(np.float32)
    error = layout_error(every, side)
    if error >= CLEAN_FIT:
        return None
    restored = replace(
        count,
        value=count.value + 1,
        pips=(*count.pips, (float(spot[0]), float(spot[1]))),
        layout_error=error,
        doubt_idle=(),
    )
    if set_aside_paint(count):  # the count is a count, not a judgement of the lamp
        return replace(restored, glare=0, glare_at=None, glare_darker=False)
    return restored


def set_aside_paint(count: PipCount) -> bool:
    """Whether the blob the count set aside as the lamp's spot is paint: darker than the die's
    body (``glare_darker``) or larger than its pips (over ``SPOT_SIZE``), as no bare spot is
    (see :func:`spot_as_pip`)."""
    return bool(count.glare) and (count.glare_darker or count.glare_size > SPOT_SIZE)


def middle_as_spot(count: PipCount, side: float) -> PipCount | None:
    """The count of a 3 or a 5 with its middle pip set aside as the lamp's spot: a 2 or a 4
    with the spot at its centre (see :func:`spot_for_middle`), when the other pips form a
    clean face (layout error under CLEAN_FIT). None otherwise.

    The converse of :func:`spot_as_pip`, and like it a candidate, never a sure count (the
    middle blob becomes the set-aside spot, ``glare``), taken only where the dice profile is
    sure of its value: on tuning setup 2109 at 1296x972 (translucent green) the profile read
    the 2s whose centre carries the spot as 2s, sure, while the count read 3s, and seven
    flat rolls of 30 were refused for it.
    """
    if count.value not in (3, 5) or count.middle_at is None or count.side_pips:
        return None
    points = np.array(count.pips, np.float32)
    middle = middle_index(points)
    rest = np.delete(points, middle, axis=0)
    error = layout_error(rest, side)
    if error >= CLEAN_FIT:
        return None
    at = (points[middle] - face_centre(rest)) / np.float32(side)
    return replace(
        count,
        value=count.value - 1,
        pips=tuple((float(x), float(y)) for x, y in rest),
        layout_error=error,
        glare=1,
        glare_at=(float(at[0]), float(at[1])),
        glare_darker=False,
        middle_at=None,
        middle_share=(1.0, 1.0),
        doubt_idle=(),
    )
