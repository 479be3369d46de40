"""Read the dice in a frame: find die-shaped regions, count their pips, judge the reading.

The reader never guesses: a die it is not sure of, a count that differs from what the tray
should hold, or a die that looks tilted makes ``ok`` false with a reason a person can act on
(the tower then shakes again).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from functools import cache, partial

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.classify import face_patch, load_classifier
from vision.detect import FaceReader, load_detector, load_face_reader, load_single
from vision.found import Found
from vision.lamp import (
    explain,
    faint_middle,
    frame_lamp,
    frame_spread,
    hidden_by_lamp,
    lamp_confirmed,
    lost_beside_spot,
    middle_as_spot,
    paint_at_centre,
    set_aside_paint,
    spot_as_pip,
    spot_for_middle,
)
from vision.lean import (
    WALL_REACH,
    agreed_near_views,
    doubt_of_form,
    doubts_touching,
    face_off_outline,
    far_calibration,
    frame_leaning,
    free_standing,
    looks_tilted,
    nearest_wall,
    shows_dashes,
    side_face_unseen,
)
from vision.learned import read_learned, read_single
from vision.pipfirst import Fragment, join_fragments
from vision.pips import (
    GLARE_CAP,
    Pip,
    PipCount,
    assess,
    confidence,
    count_pips,
    detect_pips,
    face_crop,
    free_six,
    learn_die_side,
    merged_pip,
    missing_pip,
    pip_in_doubt,
    pulled_pip,
    share_pips,
    side_pips_as_doubts,
)
from vision.profile import DiceProfile
from vision.reading import Die, Reading, check_frame
from vision.segment import Group, Region, dice_groups, find_blobs
from vision.verdict import AGREE_GAIN, MIN_CONFIDENCE, PROFILE_GAIN, PROFILE_SURE, judge, where

__all__ = ["MIN_CONFIDENCE", "Die", "Reading", "read_dice"]

log = logging.getLogger(__name__)

SURE_CLASSIFIER = 0.9  # the classifier's probability at which it may contradict the pips
AGREE_FLOOR = 0.2  # a count less sure than this is not made sure by agreement alone
VETO_BELOW = 0.85  # the classifier may overrule only a count less sure than this: a count
# whose pips fit a face this well, evenly sized, strongly contrasted, with no nearly-pip
# blob and centred on the die gives no evidence against it (a dark die's highlight or a
# glossy finish puzzles the classifier, not the pips)
UNCHALLENGED = 0.95  # a count this sure is not put to the classifier: against it, the
# classifier only nibbles (to 0.66 at least), and agreement would only confirm it
FACE_DOUBT = 0.9  # a die read less surely than this is put to the face reader, ...
NO_FACE = 0.5  # ... and leans where it sees no face there at this or more: two signs of a
# leaning die, neither a verdict alone (tuning setups 1400, 3100, 6100, 7100, 7200, 8100,
# 9100 and 9600, 12 each, 30 rolls, both sizes: the three cocked dice scored before, read at
# 0.79-0.82 with the side face's pips taken for the top's, "no face" 0.51-0.96; 3 of 3,723
# accepted flat rolls refused. Fresh setups 10100, 10600, 11100 and 11600: none of 1,891)
NO_FACE_TURNS = NO_FACE / 2  # a first quarter turn seeing no face at this or more is read
# in all four turns; one seeing less is a face (set at half NO_FACE before measuring; on
# 9100, 9300, 12100 and 14600 at 640x480, of 931 dice asked, the six that four turns judged
# faceless showed 0.50-0.71 in their first turn)
MERGED = 1.5  # a pooled blob this many times the area of each of two pips it covers ...
ALIKE = 0.5  # ... which are of like size (the smaller this share of the larger or more) is
# the two merged in another body colour's look (see _add_inside)
MAX_DICE = 30
TANGLED = 5  # doubt added to every die of a group of touching dice that cannot be untangled


def _check_expected(expected: object) -> int | None:
    if expected is None:
        return None
    if isinstance(expected, bool) or not isinstance(expected, int | np.integer):
        raise ValueError(f"expected must be a whole number of dice or None, not {expected!r}")
    if not 0 <= int(expected) <= MAX_DICE:
        raise ValueError(f"expected must be between 0 and {MAX_DICE} dice, not {expected}")
    return int(expected)


def _shape_doubt(region: Region, side: float) -> float:
    """1 for a die-sized square region, falling to 0 for a part of a die or several dice."""
    (_, _), (w, h), _ = region.rect
    short, long = min(w, h) / side, max(w, h) / side
    off = max(0.0, 0.85 - short) + max(0.0, long - 1.35)
    return float(np.exp(-((off / 0.12) ** 2)))


def _die(
    found: Found,
    side: float,
    probs: np.ndarray | None,
    taught: np.ndarray | None = None,
    leaning: bool = False,
    lamp: tuple[float, float] | None = None,
    doubted: bool = False,
    spread: float | None = None,
    touching: bool = False,
    walled: bool = False,
) -> Die:
    """The die as reported: value and confidence from the pips, checked by the dice profile
    where it is sure, else by the classifier. ``lamp``: where the frame's lamp lies on a top
    face (see :func:`frame_lamp`); what it explains is no doubt, and the classifier, which
    knows no lamp, may then not veto the count. ``doubted``: the lean check doubts the die
    (see :func:`vision.lean.doubts_touching`): a doubtful count is then not raised by the
    second opinions, which see its top face only, and a count a second opinion contests (see
    :func:`_contested`) stays unsure: two signs of a leaning die, each no verdict alone.
    ``spread``: how far the calibration's dice (or the frame's, for a lamp of the frame's own
    spots) showed the lamp's spot to stray from it (see :func:`vision.lamp.spot_reach`). A
    count the lamp's spot may hide a pip of (see :func:`vision.lamp.hidden_by_lamp`) takes
    the pip only when a sure second opinion reads that value, and stays unsure otherwise.
    ``touching``: a die of a touching group under a calibration that witnessed a far camera;
    a doubtful count of one whose pips do not form a clean face (see
    :func:`vision.lean.doubt_of_form`) is not raised by the second opinions either.
    ``walled``: the die lies within WALL_REACH of the tray's wall (see
    :func:`vision.lean.nearest_wall`); a touching die there may lean on the wall.
    ``leaning``: the lean check calls the die leaning, or its pips form a face turned away
    from its calibrated outline (see :func:`vision.lean.face_off_outline`: no face of that
    die): it stays unsure, whatever a second opinion reads. An unsure count whose lost pip
    lies in its one swollen blob (see :func:`vision.pips.merged_pip`: two pips joined by a
    highlight) is the count of both on its own word, as any count a second opinion may
    veto; a lost pip only guessed from the layout needs a sure dice profile."""
    count, explained = explain(found.count, lamp, spread, side)
    pips = confidence(count)
    value, conf = fuse_taught(count.value, pips, probs, taught, veto=not explained)
    hidden = hidden_by_lamp(count, lamp, side) if conf < MIN_CONFIDENCE else None
    if hidden is not None and (_sure_of(taught, hidden.value) or _sure_of(probs, hidden.value)):
        # a pip more, hidden under the lamp's spot, as a sure second opinion reads it
        count, pips = hidden, confidence(hidden)
        value, conf = fuse_taught(count.value, pips, probs, taught)
    # (judged on the pips as found: the lamp may have taken the merged blob for a pip it
    # swelled, as it takes a reflection on one)
    merged = (
        merged_pip(found.count, found.region.center, side)
        if conf < MIN_CONFIDENCE and not (doubted or touching)
        else None
    )
    if merged is not None:  # two pips merged into one blob: the count of both, on its own
        count, pips = merged, confidence(merged)
        value, conf = fuse_taught(count.value, pips, probs, taught)
    # a pip lost in a highlight on the rim, as the profile, which knows these dice, reads;
    # not on a die the lean check doubts, nor on one touching another at a wall: away from
    # the walls a touching die can lean on its neighbour only, and the lean check has
    # looked there; at a wall it may lean on the wall with its pips in the seam (a lost pip
    # beside the lamp's spot is taken on a lone die only)
    lost = None
    if conf < MIN_CONFIDENCE and not doubted:
        if not (touching and walled):
            lost = missing_pip(count, found.region.center, side)
        if lost is None and not touching:
            lost = lost_beside_spot(count, found.region.center, side, lamp, spread)
    if lost is not None and _sure_of(taught, lost.value):
        count, pips = lost, confidence(lost)
        value, conf = fuse_taught(count.value, pips, probs, taught)
    # a pip seen as a doubt where a reflection pulled the count's fit, as a sure second
    # opinion reads (judged on the pips as found, as the merged blob above); not on a
    # touching die or one the lean check doubts
    completed = (
        pip_in_doubt(found.count, found.region.center, side)
        if conf < MIN_CONFIDENCE and not (doubted or touching)
        else None
    )
    if completed is not None and (
        _sure_of(taught, completed.value) or _sure_of(probs, completed.value)
    ):
        count, pips = completed, confidence(completed)
        value, conf = fuse_taught(count.value, pips, probs, taught)
    restored = spot_as_pip(count, side) if conf < MIN_CONFIDENCE or set_aside_paint(count) else None
    if restored is not None and (not restored.glare or _sure_of(taught, restored.value)):
        # the spot set aside was a pip with the lamp's reflection on it: dark paint on a
        # light die, which no reflection is, a blob larger than the pips, which no bare
        # spot is, or as the profile reads
        count, pips = restored, confidence(restored)
        value, conf = fuse_taught(count.value, pips, probs, taught)
    if (doubted or (touching and doubt_of_form(count))) and pips < MIN_CONFIDENCE:
        conf = min(conf, pips)  # a leaning die's doubt: its top face's value is no evidence
    if doubted and _contested(value, probs, taught):
        conf = min(conf, GLARE_CAP)  # the lean check's doubt, and the top face reads otherwise
    if (count.glare or paint_at_centre(count) or pulled_pip(count)) and not (
        _sure_of(taught, value) or (_sure_of(probs, value) and not faint_middle(count))
    ):
        conf = min(conf, GLARE_CAP)
    spot_in_middle: PipCount | None = None  # the count with a suspect middle pip set aside
    if spot_for_middle(count, lamp, spread) and not _sure_of(taught, value):
        aside = middle_as_spot(count, side)
        if aside is not None and _sure_of(taught, aside.value):
            # the middle pip was the lamp's spot at the centre of a 2 or a 4, as the profile
            # reads (the classifier, which knows no lamp, is not asked)
            count, pips = aside, confidence(aside)
            value, conf = fuse_taught(count.value, pips, None, taught)
        else:
            conf = min(conf, GLARE_CAP)  # a middle pip that may be the lamp's spot
            spot_in_middle = aside
    if not found.near_view:
        conf *= _shape_doubt(found.region, side)
    if leaning or looks_tilted(found, side):
        conf = min(conf, 0.3)
    if conf < MIN_CONFIDENCE:
        value = _best_guess(count, value, probs, taught, found.region.center, side, spot_in_middle)
    return Die(value=value, center=found.centre, box=found.region.box, confidence=conf)


def _no_face(image: np.ndarray, die: Die, own: Die, side: float) -> bool:
    """Whether ``die``, which would be scored (MIN_CONFIDENCE or more) though the reader's
    own doubt (``own``: the die as read without a dice profile) is under FACE_DOUBT, shows
    no face to the face reader (NO_FACE or more; its four quarter turns, the crop a side
    wide; the first alone where that sees a face plainly, under NO_FACE_TURNS): a leaning
    die whose side face's pips the count took for its top face's. A die left unsure is
    refused as unclear already. Never where no face reader ships."""
    if die.confidence < MIN_CONFIDENCE or own.confidence >= FACE_DOUBT:
        return False
    if (faces := _second_sign_reader()) is None:
        return False
    # the other three quarter turns are read only where the first doubts the face at all
    return bool(faces.no_face(image, [(die.center, side)], NO_FACE_TURNS)[0] >= NO_FACE)


@cache
def _second_sign_reader() -> FaceReader | None:
    """The shipped face reader for :func:`_no_face`; None where none ships or its file is
    broken (said once in the log: the calibrated reader then judges leaning dice by their
    geometry alone, as it did before the face reader was asked)."""
    try:
        return load_face_reader()
    except ValueError as exc:
        log.warning("the face reader is not asked about doubted dice: %s", exc)
        return None


def _best_guess(
    count: PipCount,
    value: int,
    probs: np.ndarray | None,
    taught: np.ndarray | None,
    centre: tuple[float, float],
    side: float,
    spot_in_middle: PipCount | None = None,
) -> int:
    """The value to report for an unsure die read as ``value`` from ``count``: the face its
    pips fit best, for the person who straightens it or says what it shows. Where no second
    opinion favours the count's value, a count whose pips form no face of their number but
    one of a pip more lost a pip (:func:`vision.pips.missing_pip`), and a 2 or a 4 whose
    set-aside spot completes a 3 or a 5 (:func:`vision.lamp.spot_as_pip`) is that face where
    the classifier is sure of it. A 3 or a 5 whose middle pip may be the lamp's spot
    (``spot_in_middle``: the count without it, see :func:`vision.lamp.middle_as_spot`) is
    reported as that 2 or 4 unless the dice profile reads the count's value: the classifier,
    which knows no lamp, takes the spot for a pip as readily as the count does (on the tower
    setups every such die left unsure showed the 2 or 4). The die's confidence is not this
    function's to change. A dice profile sure of a face reads it: taught on this tower's
    dice, it knows where their pips hide (on seeds 1400-2611 and 3100-3611, 20 taught rolls,
    of the 9 unsure flat dice whose count it was sure against, it named the true face of 7;
    the count was right for the other 2). Without one, a classifier sure of a face names it:
    a count left unsure has lost or gained a pip more often than the classifier errs (on the
    tower setups' ranges 1400-2611, 3100-3611 and 6100-9611 without a profile, of the unsure
    flat dice it was sure against, it named the true face of 16 at 640x480 and of 6 at
    1296x972; the count was right for 1 at each size)."""
    if value != count.value:
        return value  # a second opinion's value already
    if (named := _named(taught)) is not None:
        return named  # the dice profile, which knows these dice, reads another face
    if spot_in_middle is not None and not (taught is not None and _favours(taught, value)):
        return spot_in_middle.value
    if (named := _named(probs)) is not None:
        return named  # the classifier, sure of another face than an unsure count
    if any(p is not None and _favours(p, value) for p in (probs, taught)):
        return value
    guess = missing_pip(count, centre, side)
    if guess is not None:
        return guess.value
    aside = spot_as_pip(count, side)
    if aside is not None and _sure_of(probs, aside.value):
        return aside.value
    return value


CONTEST = 0.5  # a second opinion this sure of another value contests a count


def _contested(value: int, *opinions: np.ndarray | None) -> bool:
    """Whether a second opinion reads another value than ``value`` with CONTEST or more."""
    return any(
        p is not None and int(np.argmax(p)) + 1 != value and p.max() >= CONTEST for p in opinions
    )


def _favours(probs: np.ndarray, value: int) -> bool:
    """Whether a second opinion finds ``value`` the likeliest."""
    return int(np.argmax(probs)) + 1 == value


def _named(probs: np.ndarray | None) -> int | None:
    """The face a second opinion is sure of (see :func:`_sure_of`), None where it is unsure."""
    if probs is None:
        return None
    likeliest = int(np.argmax(probs)) + 1
    return likeliest if _sure_of(probs, likeliest) else None


def _sure_of(probs: np.ndarray | None, value: int) -> bool:
    """Whether a second opinion is sure the die shows ``value``."""
    return probs is not None and _favours(probs, value) and probs.max() >= 0.9


def fuse(value: int, conf: float, probs: np.ndarray | None, veto: bool = True) -> tuple[int, float]:
    """Combine the pip count (``value``, ``conf``) with the classifier's probabilities.

    Agreement raises the confidence; disagreement lowers it, and only a confident classifier
    against a doubtful count changes the value (still below the confidence threshold). A sure
    classifier vetoes only a count that shows doubt of its own (below ``VETO_BELOW``); sure
    means sure of another value, or sure it is not the counted one (that value's probability
    at most 1 - SURE_CLASSIFIER, the rest shared by two others).
    A count that set a reflection aside is confirmed only by a sure classifier.
    ``veto=False`` (a count whose reflection the frame confirmed as the lamp's: the
    classifier, which knows no lamp, takes the spot for pips) lets it only nibble.
    """
    if probs is None:
        return value, conf
    best = int(np.argmax(probs)) + 1
    p_best = float(probs[best - 1])
    if best == value:
        raised = conf + (1.0 - conf) * AGREE_GAIN * p_best
        return value, raised if conf >= AGREE_FLOOR else min(raised, MIN_CONFIDENCE - 0.01)
    # sure against the count: its own value at most 1 - SURE_CLASSIFIER, though the
    # classifier may hesitate between two others (a 2 or a 3 where a 1 was counted)
    against = float(probs[value - 1]) <= 1.0 - SURE_CLASSIFIER if 1 <= value <= 6 else False
    if not (p_best >= SURE_CLASSIFIER or against) or conf >= VETO_BELOW or not veto:
        return value, conf * (1.0 - 0.3 * p_best)  # hesitant, or no evidence: only nibbles
    if conf < MIN_CONFIDENCE:
        return best, p_best * (1.0 - conf) * 0.5
    return value, conf * (1.0 - p_best)


PROFILE_CAP = 0.45  # confidence at most, when a sure profile reads another value


def fuse_taught(
    value: int,
    conf: float,
    probs: np.ndarray | None,
    taught: np.ndarray | None,
    veto: bool = True,
) -> tuple[int, float]:
    """:func:`fuse` with the dice profile's probabilities ``taught`` (None: no profile).

    A profile sure of the counted value raises the confidence and overrules the generic
    classifier (it knows these dice, their glints and finish); a profile sure of another
    value keeps the die below the threshold, taking its value when the count is doubtful;
    an unsure profile leaves the classifier's verdict.
    """
    if taught is None:
        return fuse(value, conf, probs, veto)
    best = int(np.argmax(taught)) + 1
    p_best = float(taught[best - 1])
    if p_best < PROFILE_SURE:
        return fuse(value, conf, probs, veto)
    if best == value:
        raised = conf + (1.0 - conf) * PROFILE_GAIN * p_best
        return value, raised if conf >= AGREE_FLOOR else min(raised, MIN_CONFIDENCE - 0.01)
    if conf < MIN_CONFIDENCE:
        return best, min(PROFILE_CAP, p_best * (1.0 - conf) * 0.5)
    return value, min(conf, PROFILE_CAP) * (1.0 - p_best)


def _place(die: Die, calibration: Calibration, dice: list[Die]) -> str:
    """Where a die is, in words a person at the tray understands: at a wall of the
    calibrated tray floor, against another die, and where on the floor (see
    :func:`_area`; its pixel position where the calibration found no floor)."""
    side = calibration.die_side
    x, y = die.center
    name, gap = nearest_wall(calibration, die.center)
    if gap < WALL_REACH:
        return f"at {name}"
    area = _area(calibration, die.center) or where(die)
    near = [d for d in dice if d is not die and np.hypot(d.center[0] - x, d.center[1] - y)]
    if any(np.hypot(d.center[0] - x, d.center[1] - y) < 1.6 * side for d in near):
        return f"against another die {area}"
    return area


AREA_ROWS = ("back", "", "front")  # the floor's thirds from the top of the frame down
AREA_COLUMNS = ("left", "", "right")  # ... and from its left


def _area(calibration: Calibration, point: tuple[float, float]) -> str:
    """The third of the calibrated tray floor, across and along, that ``point`` lies in, in
    words: "at the back left of the tray", "on the right of the tray", "in the middle of the
    tray"; "" without a floor."""
    box = calibration.tray_box
    if box is None:
        return ""
    x0, y0, x1, y1 = box
    column = min(2, max(0, int(3 * (point[0] - x0) / max(1.0, x1 - x0))))
    row = min(2, max(0, int(3 * (point[1] - y0) / max(1.0, y1 - y0))))
    across, along = AREA_ROWS[row], AREA_COLUMNS[column]
    if across:
        return f"at the {' '.join(w for w in (across, along) if w)} of the tray"
    return f"on the {along} of the tray" if along else "in the middle of the tray"


def _add_inside(found: list[Pip], new: list[Pip], group: Group, side: float) -> None:
    """Add the blobs of ``new`` that sit inside a die's face and are not in ``found`` yet.

    The seam between two touching dice shades like a pip; real pips sit inside a face. A
    blob whose reach (the radius of a disc of its area) covers a blob found already is that
    one seen in another body colour, merged with its surroundings (two pips and the lamp's
    spot between them), not another. Seen the other way round, a blob found already that
    covers two or more new blobs of like size (ALIKE), each MERGED times smaller or more, is
    those pips merged in an earlier look: they take its place. A blob found already that
    covers a pip and a smaller spot stays as it was found (the count sets a spot aside).
    """

    def reach(p: Pip) -> float:
        return max(0.1 * side, float(np.sqrt(p.area / np.pi)))

    inside = [
        p
        for p in new
        if any(cv2.pointPolygonTest(q.contour, (p.x, p.y), True) > 0.08 * side for q in group.parts)
    ]
    for q in list(found):
        covered = [
            p.area
            for p in inside
            if q.area >= MERGED * p.area and np.hypot(p.x - q.x, p.y - q.y) <= reach(q)
        ]
        if len(covered) >= 2 and min(covered) >= ALIKE * max(covered):
            found.remove(q)
    for p in inside:
        if all(np.hypot(p.x - q.x, p.y - q.y) > reach(p) for q in found):
            found.append(p)


def _read_group(
    image: np.ndarray, group: Group, side: float
) -> list[tuple[Region, PipCount, tuple[float, float] | None]]:
    """Count the pips of each die in a group; touching dice share the group's pips by centre."""
    if len(group.parts) == 1:
        region = group.parts[0]
        return [(region, count_pips(image, region, side), None)]
    pips: list[Pip] = []
    near: list[Pip] = []
    prepared = face_crop(image, group.outline, side)  # one crop, blur and Lab for the group
    for part in group.parts:  # each part's body colour finds the pips on dice of that colour
        found, unsure = detect_pips(
            image, group.outline, side, body_contour=part.contour, prepared=prepared
        )
        _add_inside(pips, found, group, side)
        _add_inside(near, unsure, group, side)
    centres = np.array([part.center for part in group.parts], np.float32)
    shared, centres = share_pips(pips, centres, side)
    owners = [int(np.argmin(np.hypot(*(centres - (b.x, b.y)).T))) for b in near]
    gaps = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(gaps, np.inf)
    # dice cannot overlap, and every die shows at least one pip: otherwise the pips were
    # shared out wrongly and no value in this group is trusted
    tangled = bool(gaps.min() < 0.85 * side) or any(not own for own in shared)
    out: list[tuple[Region, PipCount, tuple[float, float] | None]] = []
    for j, (part, own, c) in enumerate(zip(group.parts, shared, centres, strict=True)):
        mine = [b for b, o in zip(near, owners, strict=True) if o == j]
        # off-centre pips: shared wrongly; the nearly-pip blobs are judged as a lone die's
        # (where they lie on its face, how strong), so that the lamp can explain them
        count = assess(own, part.center, side, TANGLED if tangled else 0, mine)
        out.append((part, count, (float(c[0]), float(c[1]))))
    return out


def locate(image: np.ndarray, calibration: Calibration | None) -> tuple[list[Found], float | None]:
    """Candidate dice in a checked frame with their pip counts, and the die side in pixels."""
    found, _, side = locate_all(image, calibration)
    return found, side


BLANK_SHAPE = 0.5  # a region with no pip this die-shaped (see _shape_doubt) is a blank die


GroupRead = list[tuple[Region, PipCount, tuple[float, float] | None]]  # see _read_group
GroupKey = tuple[bytes, tuple[tuple[bytes, float, float, float], ...]]  # see _group_key


def _group_key(group: Group) -> GroupKey:
    """What a group's count depends on besides the frame: its outline and its parts'."""
    parts = tuple((p.contour.tobytes(), p.side, *p.center) for p in group.parts)
    return group.outline.tobytes(), parts


@dataclass
class FrameMemo:
    """What locating a frame's dice has found already, kept for another look at the same
    frame: its blobs at the working scale, their scale and the die side, and the groups
    counted, by :func:`_group_key`."""

    blobs: tuple[list[np.ndarray], int, float | None] | None = None
    counted: dict[GroupKey, GroupRead] = field(default_factory=dict)


def locate_all(
    image: np.ndarray,
    calibration: Calibration | None,
    traced_look: bool = False,
    memo: FrameMemo | None = None,
) -> tuple[list[Found], list[Found], float | None]:
    """:func:`locate`'s candidates and die side, and apart from them the blank dice: under a
    calibration, a lone region of a die's size and shape where no pip was found. The tray's
    floor is known there, so such a region is a die whose one pip a highlight or blur took
    (on the tower setups of seeds 1400-2611, 3100-3611, 6100-6611 and 7100-7611 at 640x480,
    30 rolls each, all 13 were 1s); without a calibration it may be anything. A part of a
    touching group left with no pip is not one: the group's pips may be shared out wrongly.
    ``traced_look`` (under a calibration): each blob is traced again at full resolution where
    the working scale may have cut it (:func:`vision.segment.retraced`,
    :func:`vision.segment.traced_outline`). ``memo``: what an earlier look at this frame
    found, filled as it is found."""
    if memo is not None and memo.blobs is not None:
        blobs, scale, side = memo.blobs
    else:
        blobs, scale, side = _blobs(image, calibration)
        if memo is not None:
            memo.blobs = blobs, scale, side
    if side is None:
        return [], [], None
    candidates: list[Fragment] = []
    blank: list[Found] = []
    retrace = traced_look and calibration is not None
    for group in dice_groups(image, blobs, scale, side, retrace=retrace):
        key = _group_key(group)
        if memo is not None and key in memo.counted:
            read = memo.counted[key]
        else:
            read = _read_group(image, group, side)
            if memo is not None:
                memo.counted[key] = read
        for region, count, centre in read:
            if count.value > 0:
                candidates.append((region, count, centre or region.center))
            elif (
                calibration is not None
                and len(group.parts) == 1
                and _shape_doubt(region, side) >= BLANK_SHAPE
            ):
                blank.append(Found(region, count, region.center))
            # otherwise no pips: a mark, a cable, a shadow, not a die
    if calibration is None:  # a learned die size may cut a die in parts
        candidates = join_fragments(image, candidates, side)
    return [Found(region, count, centre) for region, count, centre in candidates], blank, side


def _blobs(
    image: np.ndarray, calibration: Calibration | None
) -> tuple[list[np.ndarray], int, float | None]:
    """The frame's blobs at the working scale, that scale, and the die side: the
    calibration's, or learned from the blobs (None where none is)."""
    if calibration is not None:
        blobs, scale, _ = find_blobs(
            image,
            background=calibration.background,
            tray=calibration.tray_mask,
            shadow_floor=calibration.shadows,
        )
        return blobs, scale, calibration.die_side
    blobs, scale, _ = find_blobs(image)
    return blobs, scale, learn_die_side(image, blobs, scale)


def _blank_die(found: Found, taught: np.ndarray | None) -> Die:
    """A blank die as reported: never sure, since no pip confirms any reading, and read as a
    1 (the one face whose every pip a single highlight can take), or as a dice profile sure
    of another face reads it. The classifier is not asked: of the 13 blank 1s of the tower
    setups (see :func:`locate_all`) it read 5 as a 1, 7 as a 3 and one as a 2."""
    value = _named(taught) or 1
    return Die(value=value, center=found.centre, box=found.region.box, confidence=0.0)


def second_opinions(
    image: np.ndarray,
    found: list[Found],
    side: float,
    taught: list[np.ndarray | None] | None = None,
    unchallenged: bool = False,
) -> list[np.ndarray | None]:
    """The classifier's probabilities for each candidate (None each when no model ships;
    None for a die the dice profile is sure of, since a sure profile overrules the classifier,
    and with ``unchallenged`` for a count of UNCHALLENGED or more, which the classifier could
    only nibble: the reader does not ask it there)."""
    model = load_classifier()
    known = taught if taught is not None else [None] * len(found)
    wanted = [
        i
        for i, t in enumerate(known)
        if (t is None or float(t.max()) < PROFILE_SURE)
        and not (unchallenged and confidence(found[i].count) >= UNCHALLENGED)
    ]
    out: list[np.ndarray | None] = [None] * len(found)
    if model is None or not wanted:
        return out
    patches = np.stack([face_patch(image, found[i].centre, side) for i in wanted])
    for i, probs in zip(wanted, model.probabilities(patches), strict=True):
        out[i] = probs
    return out


def taught_opinions(
    image: np.ndarray, found: list[Found], side: float, profile: DiceProfile | None
) -> list[np.ndarray | None]:
    """The dice profile's probabilities for each candidate (None each without a profile)."""
    if profile is None or not found:
        return [None] * len(found)
    return list(profile.read(image, [(f.centre, side) for f in found]))


def read_dice(
    frame: np.ndarray,
    calibration: Calibration | None = None,
    expected: int | None = None,
    profile: DiceProfile | None = None,
) -> Reading:
    """Read the dice in a BGR uint8 ``frame``; works without ``calibration``, better with one.

    Without a calibration the learned single-stage reader reads the dice where it ships, else
    the learned detector and face reader; with one (or without the learned models) dice are
    found by their colour against the background.
    ``expected`` is the number of dice that should be in the tray (a different count is not ok).
    ``profile`` is the tower's taught dice set (see :mod:`vision.profile`).
    Raises ``ValueError`` for a frame that is not an image, ``CalibrationError`` or
    ``ProfileError`` for a calibration or profile made for another frame or calibration.
    """
    image = check_frame(frame)
    want = _check_expected(expected)
    if profile is not None:
        profile.check_for(calibration, (image.shape[1], image.shape[0]))
    if calibration is not None:
        calibration.check_frame_size(image)
    elif (single := load_single()) is not None:
        return read_single(image, single, want, profile)
    elif (detector := load_detector()) is not None:
        return read_learned(image, detector, want, profile)
    memo = FrameMemo()
    located = locate_all(image, calibration, memo=memo)
    reading = _read_by_colour(image, calibration, want, profile, located)
    if calibration is not None and not reading.ok:
        # a refused frame is looked at again with its dice traced at full resolution, where
        # the working scale may have cut them (see vision.segment.retraced); that look costs
        # a few milliseconds a frame, so it is spent only where it may spare a reshake; the
        # blobs and the groups counted are the first look's, and the frame is read again
        # only where the traced look found another outline
        traced = locate_all(image, calibration, traced_look=True, memo=memo)
        if _outlines(traced) != _outlines(located):
            again = _read_by_colour(image, calibration, want, profile, traced)
            if again.ok:
                return again
    return reading


Located = tuple[list[Found], list[Found], float | None]  # what locate_all returns


def _outlines(located: Located) -> list[tuple[tuple[float, float], float, int]]:
    """Where each candidate and blank die of ``located`` lies, how large and how merged."""
    found, blank, _ = located
    return [(f.region.center, f.region.side, f.region.merged) for f in (*found, *blank)]


def _read_by_colour(
    image: np.ndarray,
    calibration: Calibration | None,
    want: int | None,
    profile: DiceProfile | None,
    located: Located,
) -> Reading:
    """:func:`read_dice` of a checked frame by the dice's colour against the background,
    from the candidates ``located`` (:func:`locate_all`)."""
    found, blank, side = located
    if side is None:
        return Reading((), False, "no dice found")
    unreadable = [f.region for f in found if f.count.value > 6]
    middle = (image.shape[1] / 2.0, image.shape[0] / 2.0)
    # a calibration whose flat dice showed no side face witnessed a camera far above: the
    # frame's dice then show no near view, whatever their shadows stretch
    cal_far = calibration is not None and far_calibration(calibration)
    candidates = [f for f in found if f.count.value <= 6]
    readable = candidates if cal_far else agreed_near_views(candidates, side, middle)
    if calibration is not None:  # a die with nothing to lean on shows no side face's pips
        readable = [
            replace(f, count=free_six(f.count)) if free_standing(f, calibration) else f
            for f in readable
        ]
        # nor does a lone die whose side face the frame does not show
        readable = [
            replace(f, count=side_pips_as_doubts(f.count))
            if side_face_unseen(
                image, f, calibration, [(g.region, g.count) for g in readable if g is not f]
            )
            else f
            for f in readable
        ]
    dice: list[Die] = []
    tilted: list[Die] = []
    # a camera far above (no near view agreed by the frame's dice) sees no side face of a
    # flat die: there a stretched region or a side face's pips mean a leaning die
    far = calibration is not None and not any(f.near_view for f in readable)
    taught = taught_opinions(image, readable, side, profile)
    opinions = second_opinions(image, readable, side, taught, unchallenged=True)
    confirmed = lamp_confirmed(readable, None if calibration is None else calibration.lamp)
    lamp = frame_lamp(readable, confirmed, calibration)
    # the calibration's spread belongs to the calibration's lamp only; a lamp of the
    # frame's own spots strays as far as they do
    if calibration is not None and calibration.lamp is not None and lamp == calibration.lamp:
        spread = calibration.lamp_spread
    else:
        spread = frame_spread(readable, confirmed, lamp)
    for f, probs, known in zip(readable, opinions, taught, strict=True):
        # a touching die is judged leaning from a count the reader could score: the count
        # with what the lamp explains taken out, as _die scores it
        scored, _ = explain(f.count, lamp, spread, side)
        leaning = looks_tilted(f, side) or (
            far and frame_leaning(image, f, readable, calibration, cal_far, scored)
        )
        # the lean check judges a doubtful count, and a sure one a second opinion contests
        contested = _contested(f.count.value, probs, known)
        doubted = (
            cal_far
            and calibration is not None
            and not leaning
            and (confidence(f.count) < MIN_CONFIDENCE or contested)
            and doubts_touching(
                image,
                calibration,
                f.region,
                f.count,
                [(g.region, g.count) for g in readable if g is not f],
            )
        )
        touching = cal_far and f.region.merged > 1
        walled = calibration is not None and nearest_wall(calibration, f.centre)[1] < WALL_REACH
        # a near camera's perspective turns a face's pips against its outline: only a
        # camera far above sees the face square to the die's edges
        turned = far and face_off_outline(f.region, f.count, side)
        # a face turned off its die's outline is a leaning die's
        leaning = leaning or turned
        die = _die(f, side, probs, known, leaning, lamp, doubted, spread, touching, walled)
        if calibration is not None and not leaning:
            # judged on the reader's own doubt, before a dice profile vouches for the die:
            # taught on crops of these dice, it reads a leaning die's as readily as the count
            own = die
            if known is not None:
                own = _die(f, side, probs, None, False, lamp, doubted, spread, touching, walled)
            # an unsure count of what is no face, or the count of a die with something to
            # lean on holding a side face's dashes
            if _no_face(image, die, own, side) or (
                cal_far
                and die.confidence >= MIN_CONFIDENCE
                and not free_standing(f, calibration)
                and shows_dashes(image, f.count, side)
            ):
                leaning = True
                die = _die(f, side, probs, known, True, lamp, doubted, spread, touching, walled)
        if turned and die.value == f.count.value == 3:
            # one column of a 6, the other hidden or given to a neighbour: reported as the
            # 6 it is part of (unsure, as a leaning die is)
            die = replace(die, value=6)
        if leaning:
            tilted.append(die)
        dice.append(die)
    for f, known in zip(blank, taught_opinions(image, blank, side, profile), strict=True):
        die = _blank_die(f, known)
        if looks_tilted(f, side):
            tilted.append(die)
        dice.append(die)
    dice.sort(key=lambda d: (round(d.center[1] / max(side, 1.0)), d.center[0]))
    place = None if calibration is None else partial(_place, calibration=calibration, dice=dice)
    ok, reason = judge(dice, unreadable, tilted, want, place)
    return Reading(tuple(dice), ok, reason)
