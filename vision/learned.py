"""Read the dice in a frame without a calibration: the learned detector finds each die, the
learned face reader reads its top face, and the pip count (see :mod:`vision.pips`) is the
second opinion that makes a reading sure.

:func:`vision.reader.read_dice` reads a frame so when no calibration is given and the learned
models ship (:mod:`vision.detect` loads them); tools measuring other models call
:func:`read_learned`, :func:`read_detected` and :func:`read_single` themselves.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

import numpy as np

from vision.detect import (
    COARSE_SIDE,
    DETECTED,
    SURE_TURN,
    Detection,
    Detector,
    FaceReader,
    TurnRule,
    load_face_reader,
)
from vision.pips import PIP_LEVEL, PipCount, PipLevel, confidence, count_pips, face_crop
from vision.profile import DiceProfile
from vision.reading import Die, Reading
from vision.segment import ROUND, outlined_region, square_region, trace
from vision.verdict import AGREE_GAIN, MIN_CONFIDENCE, PROFILE_GAIN, PROFILE_SURE, judge

__all__ = [
    "COCKED",
    "COUNT_LEVELS",
    "COUNT_VOTE_CAP",
    "DISAGREE_CAP",
    "NO_FACE",
    "SURE_CENTRE",
    "SURE_COUNT",
    "UNCHECKED_CAP",
    "PipRule",
    "agreed",
    "detected_count",
    "detected_die",
    "face_hints",
    "read_detected",
    "read_learned",
    "read_single",
    "round_thing",
]

SURE_CENTRE = 0.6  # the detector's centre score from which its presence adds no doubt
NO_FACE = 0.5  # the face reader's "no face" probability from which a die is doubted
COCKED = 0.2  # either network's "cocked / no face" probability from which a die is tilted
DISAGREE_CAP = 0.45  # confidence at most, when the detector reads another face
UNCHECKED_CAP = 0.85  # a single-stage reading at most, when the pips count another value
COUNT_VOTE_CAP = 0.95  # the pip count's vote for its value at most: one opinion, never certain
PipRule = Literal["doubted", "every"]  # which dice's pips read_detected counts


def agreed(d: Detection, face: np.ndarray | None) -> bool:
    """Whether the face reader is sure of a die's face (``SURE_TURN`` or more) and the
    detector's own face classes read the same face: two networks agree, and the die needs no
    pip count to be sure."""
    if face is None:
        return False
    value = int(np.argmax(face))
    sure = value > 0 and float(face[value]) >= SURE_TURN
    return sure and int(np.argmax(d.probs[1:])) + 1 == value


def detected_die(
    image: np.ndarray,
    d: Detection,
    face: np.ndarray | None,
    taught: np.ndarray | None = None,
    single: bool = False,
    count: PipCount | None = None,
) -> tuple[Die, bool, bool]:
    """A die the detector found, read by the face reader and checked by the detector and pips.

    The value is the face reader's (the detector's own guess where no face reader ships).
    Its confidence is the face reader's probability, lowered when the centre score is weak,
    kept below the threshold when the detector reads another face, cut when the pip count is
    sure of another value and raised a little when it is sure of the same (an unsure count is
    no opinion either way); a single-stage reading
    (``single``) is sure (0.9 or more) only where the pips count its value. Also says whether the
    die looks cocked, and whether it is no die at all (a weak centre with no face in it, or
    one that traces a disc: :func:`round_thing`).
    ``count``: the die's pip count, when it was made already; otherwise it is made, except for
    a die whose face the face reader and the detector agree on (:func:`agreed`): the pips
    are then the third opinion, and not counted.
    """
    probs = d.probs if face is None else face
    value = int(np.argmax(probs[1:])) + 1
    conf = float(probs[value]) * min(1.0, d.score / SURE_CENTRE)
    if face is not None and int(np.argmax(d.probs[1:])) + 1 != value:
        conf = min(conf, DISAGREE_CAP)
    if count is None and (single or not agreed(d, face)):
        count = detected_count(image, d)
    if count is not None:
        pips = confidence(count)
        if count.value == value and pips >= MIN_CONFIDENCE:
            conf += (1.0 - conf) * AGREE_GAIN * pips
        elif pips >= MIN_CONFIDENCE:
            conf *= 1.0 - pips
        if 1 <= count.value <= 6 and count.value != value:
            # the count is a vote for its value as strong as it is sure (an unsure count a
            # weak one): with the face reader's probabilities it says which value the die
            # likelier shows, and a die whose value the vote changed stays doubted
            vote = min(max(pips, 1.0 / 6.0), COUNT_VOTE_CAP)
            odds = np.full(6, (1.0 - vote) / 5.0)
            odds[count.value - 1] = vote
            fused = int(np.argmax(probs[1:] * odds)) + 1
            if fused != value:
                value, conf = fused, min(conf, DISAGREE_CAP)
        if single and count.value != value:  # no second network: the pips make a reading sure
            conf = min(conf, UNCHECKED_CAP)
    if taught is not None and float(taught.max()) >= PROFILE_SURE:
        known = int(np.argmax(taught)) + 1
        if known == value:
            conf += (1.0 - conf) * PROFILE_GAIN * float(taught[known - 1])
        else:  # the taught set reads another face: the two readers' product decides
            value = int(np.argmax(probs[1:] * taught)) + 1
            conf = min(conf, DISAGREE_CAP)
    cocked = max(float(d.probs[0]), float(probs[0])) >= COCKED
    absent = d.score < SURE_CENTRE and (
        (face is not None and float(face[0]) >= NO_FACE) or round_thing(image, d)
    )
    die = Die(value=value, center=d.centre, box=d.box, confidence=float(np.clip(conf, 0.0, 1.0)))
    return die, cocked, absent


COUNT_LEVELS: tuple[PipLevel, ...] = (PIP_LEVEL, (0.3, 20.0), (0.6, 30.0))  # the pip
# thresholds a found die is counted at: the calibrated path's, and one lower and one higher
SURE_COUNT = MIN_CONFIDENCE  # a count this sure at the path's threshold is not sought at others


def round_thing(image: np.ndarray, d: Detection) -> bool:
    """Whether what the detector found traces a disc against the floor (``ROUND``): a coin,
    a button or a sticker, which no die is."""
    traced = trace(image, d.centre, d.side)
    return traced is not None and traced.roundness >= ROUND


def detected_count(image: np.ndarray, d: Detection) -> PipCount:
    """The pip count of a die the detector found: on its outline traced against the floor
    (:func:`vision.segment.outlined_region`), else on the upright square of its box.

    The die's pips are counted at the calibrated path's threshold; a count not ``SURE_COUNT``
    sure there is counted at the other ``COUNT_LEVELS`` too, and the surest count is kept (the
    first of equals). A die of any colours met without a calibration may have dull pips under
    its glints (a lower threshold finds them) or marbling beside them (a higher one leaves it
    out), and the pips of the right threshold fit a face best. A count found at another
    threshold is marked ``searched``: the surest of several tries is likelier sure by chance,
    so it is a vote for its value (see :func:`detected_die`), never a sure count.
    """
    region = outlined_region(image, d.centre, d.side) or square_region(d.centre, d.side)
    prepared = face_crop(image, region.contour, region.side)  # made once for every level
    best = count_pips(image, region, region.side, COUNT_LEVELS[0], prepared)
    sure = confidence(best)
    for level in COUNT_LEVELS[1:]:
        if sure >= SURE_COUNT:
            break
        count = count_pips(image, region, region.side, level, prepared)
        if confidence(count) > sure:
            best, sure = replace(count, searched=True), confidence(count)
    return best


def face_hints(d: Detection, count: PipCount | None = None) -> set[int]:
    """The faces the detector (and the pip count, when made) read a die as: the face
    reader's hints, another face among them makes it read all four quarter turns."""
    hints = {int(np.argmax(d.probs[1:])) + 1}
    return hints | ({count.value} if count is not None and 1 <= count.value <= 6 else set())


def read_detected(
    image: np.ndarray,
    detections: list[Detection],
    want: int | None,
    profile: DiceProfile | None = None,
    faces: FaceReader | None = None,
    single: bool = False,
    turns: TurnRule = "adaptive",
    pips: PipRule = "doubted",
) -> Reading:
    """The reading made of the detector's dice (frames without a calibration).

    ``faces`` reads the dice's faces; by default the shipped face reader (a tool measuring
    another model, as leave-one-source-out does, passes its own). ``single``: the detections
    come from a single-stage reader, whose own face classes are read (no face reader).
    ``turns``: which quarter turns of each die the face reader reads (see
    :meth:`FaceReader.read`; by default the other three only where the first is unsure or
    another opinion reads another face). ``pips``: ``"doubted"`` counts the pips of the dice
    whose face the face reader and the detector do not agree on (see :func:`detected_die`);
    ``"every"`` counts every die's first and gives the count to the face reader as a hint
    (the rule before, kept to measure against).
    """
    kept = [d for d in detections if d.score >= DETECTED]
    taught: list[np.ndarray | None] = [None] * len(kept)
    if profile is not None and kept:
        taught = list(profile.read(image, [(d.centre, d.side) for d in kept]))
    counts: list[PipCount | None] = [None] * len(kept)
    if pips == "every":
        counts = [detected_count(image, d) for d in kept]
    faces = None if single else faces or load_face_reader()
    if faces is None:
        face_probs: list[np.ndarray | None] = [None] * len(kept)
    else:
        hints = [face_hints(d, c) for d, c in zip(kept, counts, strict=True)]
        probs, _ = faces.read(image, [(d.centre, d.side) for d in kept], hints, turns)
        face_probs = list(probs)
    dice: list[Die] = []
    tilted: list[Die] = []
    for d, face, known, count in zip(kept, face_probs, taught, counts, strict=True):
        die, cocked, absent = detected_die(image, d, face, known, single, count)
        if absent:
            continue
        if cocked:
            tilted.append(die)
        dice.append(die)
    side = float(np.median([d.side for d in kept])) if kept else 1.0
    dice.sort(key=lambda d: (round(d.center[1] / max(side, 1.0)), d.center[0]))
    ok, reason = judge(dice, [], tilted, want)
    return Reading(tuple(dice), ok, reason)


def read_learned(
    image: np.ndarray,
    detector: Detector,
    want: int | None,
    profile: DiceProfile | None = None,
    faces: FaceReader | None = None,
    turns: TurnRule = "adaptive",
    coarse_side: int | None = COARSE_SIDE,
    pips: PipRule = "doubted",
) -> Reading:
    """The reading of a checked frame by the detector and the face reader, coarse to fine.

    The detector looks first at ``coarse_side`` (about a third of the full side's work for a
    640 x 480 frame); where that look is trusted to have found every die
    (:meth:`Detector.detect_coarse`) and the reading of its dice is ok, that is the reading.
    Otherwise (small or half-seen dice, no dice, a reading that is not ok: a die unsure or
    tilted, a count other than ``want``; or a die the coarse look finds half as likely
    cocked as a tilted die, ``COCKED / 2``) the detector looks again at its full side and that
    reading stands. ``coarse_side=None`` looks at the full side only. ``pips``: whose pips
    are counted (see :func:`read_detected`).
    """
    if coarse_side is not None:
        found = detector.detect_coarse(image, side=coarse_side)
        # fewer dice than wanted cannot make an ok reading (reading only drops dice): look again
        if found is not None and (want is None or sum(d.score >= DETECTED for d in found) >= want):
            reading = read_detected(image, found, want, profile, faces, turns=turns, pips=pips)
            read = {die.center for die in reading.dice}
            # a die the coarse look finds half as likely cocked as a tilt is looked at again
            doubt = any(float(d.probs[0]) >= COCKED / 2 for d in found if d.centre in read)
            if reading.ok and not doubt:
                return reading
    full = detector.detect(image)
    # small dice in a large frame (a pile in a phone photo): look again with more pixels
    full = detector.detect_closer(image, full) or full
    return read_detected(image, full, want, profile, faces, turns=turns, pips=pips)


def read_single(
    image: np.ndarray, model: Detector, want: int | None, profile: DiceProfile | None = None
) -> Reading:
    """The reading of a checked frame by a single-stage reader alone, checked by the pips."""
    return read_detected(image, model.detect(image), want, profile, single=True)
