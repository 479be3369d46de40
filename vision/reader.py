"""Read the dice in a frame: find die-shaped regions, count their pips, judge the reading.

The reader never guesses: a die it is not sure of, a count that differs from what the tray
should hold, or a die that looks tilted makes ``ok`` false with a reason a person can act on
(the tower then shakes again).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.pips import Pip, PipCount, assess, confidence, count_pips, detect_pips, share_pips
from vision.reading import Die, Reading, check_frame
from vision.segment import Group, Region, dice_groups, find_blobs, single_die_regions

__all__ = ["MIN_CONFIDENCE", "Die", "Reading", "read_dice"]

MIN_CONFIDENCE = 0.5  # a die below this is "unsure": the reading is not ok
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


def _tilted(region: Region, side: float) -> bool:
    """A top face much larger or smaller than a die, or far from square, suggests a cocked die."""
    ratio = region.side / side
    (_, _), (w, h), _ = cv2.minAreaRect(region.contour)
    aspect = max(w, h) / max(1.0, min(w, h))
    return region.merged == 1 and (ratio > 1.45 or ratio < 0.6 or aspect > 1.25)


def _shape_doubt(region: Region, side: float) -> float:
    """1 for a die-sized square region, falling to 0 for a part of a die or several dice."""
    (_, _), (w, h), _ = cv2.minAreaRect(region.contour)
    short, long = min(w, h) / side, max(w, h) / side
    off = max(0.0, 0.85 - short) + max(0.0, long - 1.35)
    return float(np.exp(-((off / 0.12) ** 2)))


def _die(
    region: Region, count: PipCount, side: float, centre: tuple[float, float] | None = None
) -> Die:
    conf = confidence(count) * _shape_doubt(region, side)
    if _tilted(region, side):
        conf = min(conf, 0.3)
    return Die(
        value=count.value,
        center=centre or region.center,
        box=region.box,
        confidence=conf,
    )


def _where(die: Die) -> str:
    return f"at ({die.center[0]:.0f}, {die.center[1]:.0f})"


def _judge(
    dice: list[Die], unreadable: list[Region], tilted: list[Die], expected: int | None
) -> tuple[bool, str]:
    """Whether the reading can be trusted, and if not, why (the first problem found)."""
    if tilted:
        return False, f"the die {_where(tilted[0])} looks tilted or stacked; shake again"
    if unreadable:
        x, y = unreadable[0].center
        return False, f"something at ({x:.0f}, {y:.0f}) looks like dice on top of each other"
    if expected is not None and len(dice) != expected:
        return False, f"found {len(dice)} dice but {expected} should be in the tray"
    if not dice and expected is None:
        return False, "no dice found"
    unsure = [d for d in dice if d.confidence < MIN_CONFIDENCE]
    if unsure:
        d = unsure[0]
        return False, (
            f"the die {_where(d)} is unclear (looks like a {d.value}, "
            f"confidence {d.confidence:.2f}); shake again"
        )
    return True, ""


def _add_inside(found: list[Pip], new: list[Pip], group: Group, side: float) -> None:
    """Add the blobs of ``new`` that sit inside a die's face and are not in ``found`` yet.

    The seam between two touching dice shades like a pip; real pips sit inside a face.
    """
    for p in new:
        inside = any(
            cv2.pointPolygonTest(q.contour, (p.x, p.y), True) > 0.08 * side for q in group.parts
        )
        if inside and all(np.hypot(p.x - q.x, p.y - q.y) > 0.1 * side for q in found):
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
    for part in group.parts:  # each part's body colour finds the pips on dice of that colour
        found, unsure = detect_pips(image, group.outline, side, body_contour=part.contour)
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
        doubtful = owners.count(j) + (TANGLED if tangled else 0)
        count = assess(own, part.center, side, doubtful)  # off-centre pips: shared wrongly
        out.append((part, count, (float(c[0]), float(c[1]))))
    return out


def learn_die_side(image: np.ndarray, blobs: list[np.ndarray], scale: int) -> float | None:
    """The die size in this frame: the median side of lone blobs whose pips form a real face."""
    sides = []
    for region in single_die_regions(blobs, scale, min(image.shape[:2])):
        count = count_pips(image, region, region.side)
        if 1 <= count.value <= 6 and count.layout_error < 0.08:
            sides.append(region.side)
    return float(np.median(sides)) if sides else None


def read_dice(
    frame: np.ndarray, calibration: Calibration | None = None, expected: int | None = None
) -> Reading:
    """Read the dice in a BGR uint8 ``frame``; works without ``calibration``, better with one.

    ``expected`` is the number of dice that should be in the tray (a different count is not ok).
    Raises ``ValueError`` for a frame that is not an image.
    """
    image = check_frame(frame)
    want = _check_expected(expected)
    if calibration is not None:
        calibration.check_frame_size(image)
        blobs, scale, _ = find_blobs(
            image, background=calibration.background, tray=calibration.tray_mask
        )
        side: float | None = calibration.die_side
    else:
        blobs, scale, _ = find_blobs(image)
        side = learn_die_side(image, blobs, scale)
    if side is None:
        return Reading((), False, "no dice found")
    dice: list[Die] = []
    unreadable: list[Region] = []
    tilted: list[Die] = []
    for group in dice_groups(image, blobs, scale, side):
        for region, count, centre in _read_group(image, group, side):
            if count.value == 0:
                continue  # no pips: a mark, a cable, a shadow, not a die
            if count.value > 6:
                unreadable.append(region)
                continue
            die = _die(region, count, side, centre)
            if _tilted(region, side):
                tilted.append(die)
            dice.append(die)
    dice.sort(key=lambda d: (round(d.center[1] / max(side or 1.0, 1.0)), d.center[0]))
    ok, reason = _judge(dice, unreadable, tilted, want)
    return Reading(tuple(dice), ok, reason)
