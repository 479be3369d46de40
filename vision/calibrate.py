"""Calibrating the tower's camera: an empty tray and the six dice in, a :class:`Calibration` out.

This sits above the reader (it reads the dice frame with the new calibration
to report on it); :mod:`vision.calibration` below the reader holds the
calibration itself and its file format.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from vision.calibration import Calibration, CalibrationError, find_tray, grown_outline
from vision.found import Found
from vision.lamp import LAMP_REACH, LAMP_SUPPORT
from vision.lean import side_excess
from vision.pips import CORNER_REACH, count_pips, learn_die_side, lone_pip_reach
from vision.reader import locate, read_dice
from vision.reading import check_frame
from vision.segment import (
    MAX_SHADOW_FLOOR,
    SHADOW_CHROMA,
    SHADOW_FLOOR,
    dice_regions,
    find_blobs,
    to_lab,
    working_scale,
)

GOOD_CONTRAST = 2.0  # median pip contrast over the detection threshold
WEAK_CONTRAST = 1.4


def _contrast_word(contrast: float) -> str:
    if contrast >= GOOD_CONTRAST:
        return "good"
    return "weak" if contrast >= WEAK_CONTRAST else "poor"


def calibrate(
    empty_frame: np.ndarray, dice_frame: np.ndarray, expected: int = 6
) -> tuple[Calibration, dict[str, Any]]:
    """Calibrate from a frame of the empty tray and one with ``expected`` dice lying flat.

    Returns the calibration and a quality report; ``report["text"]`` reads like
    "tray found; dice 64 px; pip contrast good". Raises ``CalibrationError`` when no dice
    can be measured (the report would have nothing to say).
    """
    empty = check_frame(empty_frame, "empty tray frame")
    dice = check_frame(dice_frame, "dice frame")
    if empty.shape != dice.shape:
        raise CalibrationError(
            f"the empty tray frame is {empty.shape[1]}x{empty.shape[0]} px and the dice frame "
            f"{dice.shape[1]}x{dice.shape[0]} px; take both with the same camera settings"
        )
    h, w = empty.shape[:2]
    s = working_scale(empty.shape)
    small = cv2.resize(empty, (w // s, h // s), interpolation=cv2.INTER_AREA)
    outline = find_tray(small)
    whole = np.array([[0, 0], [w // s - 1, 0], [w // s - 1, h // s - 1], [0, h // s - 1]])
    ok_png, png = cv2.imencode(".png", small)
    if not ok_png:
        raise CalibrationError("the empty tray frame could not be encoded")
    draft = Calibration((w, h), _full(whole, s), png.tobytes(), die_side=16.0, pip_contrast=0.0)
    blobs, scale, _ = find_blobs(dice, background=draft.background, tray=draft.tray_mask)
    side = learn_die_side(dice, blobs, scale)
    if side is None:
        raise CalibrationError(
            "no dice found in the dice frame; put the dice flat in the tray, pips up, and retry"
        )
    # the watched region reaches a die beyond the floor: a camera close above sees the top
    # of a die by a wall outside the floor's outline, as perspective pushes it outwards
    tray = _full(whole if outline is None else grown_outline(outline, side / s, small.shape[:2]), s)
    sized = Calibration((w, h), tray, png.tobytes(), die_side=side, pip_contrast=0.0)
    floor = shadow_floor(dice, sized)
    if floor is not None:
        sized = replace(sized, shadow_floor=floor)
        blobs, scale, _ = find_blobs(
            dice, background=sized.background, tray=sized.tray_mask, shadow_floor=floor
        )
        side = learn_die_side(dice, blobs, scale) or side
        sized = replace(sized, die_side=side)
    cal = replace(sized, pip_contrast=cal_contrast(dice, sized))
    lamp = lamp_spot(dice, cal)
    if lamp is not None:
        cal = replace(cal, lamp=lamp[0], lamp_spread=lamp[1])
    excess = flat_excess(dice, cal)
    if excess is not None:
        cal = replace(cal, flat_excess=excess)
    reading = read_dice(dice, cal, expected=expected)
    area = float(small.shape[0] * small.shape[1])
    share = None if outline is None else cv2.contourArea(outline.astype(np.float32)) / area
    return cal, _report(cal, share, reading, expected)


def _full(outline: np.ndarray, s: int) -> tuple[tuple[int, int], ...]:
    """A working-scale outline in the frame's pixels."""
    return tuple((int(x * s), int(y * s)) for x, y in outline)


SHADOW_LIKE = 0.5  # share of a die's middle that darkens the floor without a change of hue
ABOVE_BODY = 0.1  # the shadow floor is raised to this much above the dice's lightness share


def shadow_floor(frame: np.ndarray, cal: Calibration) -> float | None:
    """A raised shadow floor for dice as hueless against the floor as a shadow (black or
    grey dice on a grey floor), None for all others.

    Such dice's bodies would count as shadow and the dice be found by their pips and rims
    only. Where the middle of most found dice darkens the floor without a change of hue,
    pixels darker than the dice's median lightness share plus ABOVE_BODY are dice, and only
    lighter darkening (a shadow is lighter than a black die) is shadow. Dice whose median
    share lies under SHADOW_FLOOR by less than that margin have part of each body above
    it, so the floor is raised for them too (black dice in long shadows, measured a tenth
    small otherwise); only dice darker by the whole margin keep the default.
    """
    found, side = locate(frame, cal)
    if not found or side is None:
        return None
    s = cal.scale
    h, w = cal.background.shape[:2]
    small = cv2.resize(frame, (w, h), interpolation=cv2.INTER_AREA)
    lab, bg = to_lab(small), to_lab(cal.background)
    delta = lab - bg
    hueless = (delta[:, :, 0] < 0) & (np.hypot(delta[:, :, 1], delta[:, :, 2]) < SHADOW_CHROMA)
    share = lab[:, :, 0] / np.maximum(bg[:, :, 0], 1.0)
    ys, xs = np.mgrid[0:h, 0:w]
    middles = np.zeros((h, w), bool)
    for f in found:
        x, y = (f.centre[0] - (s - 1) / 2) / s, (f.centre[1] - (s - 1) / 2) / s
        middles |= np.hypot(xs - x, ys - y) * s < 0.3 * side
    if not middles.any() or float(hueless[middles].mean()) < SHADOW_LIKE:
        return None
    body = float(np.median(share[middles]))
    if body + ABOVE_BODY <= SHADOW_FLOOR:
        return None  # darker than any shadow already, by the same margin
    return float(min(MAX_SHADOW_FLOOR, body + ABOVE_BODY))


def lamp_spot(frame: np.ndarray, cal: Calibration) -> tuple[tuple[float, float], float] | None:
    """Where the lamp's reflection lies on the flat dice of ``frame`` and how far a die's
    spot strays from there: the mean of the blobs the dice set aside as a reflection, when at
    least LAMP_SUPPORT + 1 dice agree on it (within LAMP_REACH of their median), and the
    root-mean-square distance a further die's spot is expected at from that mean (the
    sample's spread, with the mean's own uncertainty, taken at its 95% upper bound: see
    :func:`spread_bound`). None when the dice show no such reflection.

    A die's place under the lamp and the camera moves its spot on the face; how much is the
    tower's own, and the calibration's dice, spread over the tray, measure it.
    """
    found, _ = locate(frame, cal)
    spots = np.array([f.count.glare_at for f in found if f.count.glare_at is not None])
    if len(spots) < LAMP_SUPPORT + 1:
        return None
    middle = np.median(spots, axis=0)
    near = spots[np.hypot(*(spots - middle).T) <= LAMP_REACH]
    n = len(near)
    if n < LAMP_SUPPORT + 1:
        return None
    at = near.mean(axis=0)
    squares = float(np.sum((near - at) ** 2))
    spread = float(np.sqrt(squares / (n - 1) * (1.0 + 1.0 / n)))
    return (float(at[0]), float(at[1])), spread * spread_bound(n)


SPREAD_CONFIDENCE = 1.645  # normal deviate of the one-sided 95% bound on a measured spread


def spread_bound(n: int) -> float:
    """How much larger than its estimate from ``n`` spots the spread may be, at 95%: a
    spread measured on a few dice is often measured small (the sum of squares about their
    mean has 2(n - 1) degrees of freedom, the lower 5% quantile of its chi-square
    distribution taken by the Wilson-Hilferty approximation). Six spots: 1.59 times."""
    k = 2.0 * (n - 1)
    z = 2.0 / (9.0 * k)
    low = k * (1.0 - z - SPREAD_CONFIDENCE * math.sqrt(z)) ** 3
    return math.sqrt(k / low)


def flat_excess(frame: np.ndarray, cal: Calibration) -> float | None:
    """The largest side-face area beside the flat dice of ``frame`` (see
    :func:`vision.lean.side_excess`), None when fewer than three dice show a face: near
    zero for a camera far above, larger for one whose view takes in the sides of the dice
    away from the frame's centre. A die counted as one pip that lies where a 2's corner pip
    lies (``CORNER_REACH`` from its region's centre, where a 1's pip never does, however
    near the camera) is passed over: its face's square, placed on that one pip, would take
    the die's own body for a side face."""
    found, _ = locate(frame, cal)
    values = [
        side_excess(
            frame, cal, f.region, f.count, [(g.region, g.count) for g in found if g is not f]
        )
        for f in found
        if 1 <= f.count.value <= 6 and not _corner_pip(f, cal.die_side)
    ]
    return float(np.max(values)) if len(values) >= 3 else None


def _corner_pip(found: Found, side: float) -> bool:
    """Whether ``found`` is counted as one pip that lies a 2's corner pip's distance or more
    from its region's centre (a 2 whose other pip was lost)."""
    if found.count.value != 1:
        return False
    return lone_pip_reach(found.count, found.region.center, side) >= CORNER_REACH[0]


def cal_contrast(frame: np.ndarray, cal: Calibration) -> float:
    """Median pip contrast (over the detection threshold) of the dice in ``frame``."""
    blobs, scale, _ = find_blobs(
        frame, background=cal.background, tray=cal.tray_mask, shadow_floor=cal.shadows
    )
    values = [
        count_pips(frame, r, cal.die_side).contrast
        for r in dice_regions(frame, blobs, scale, cal.die_side)
    ]
    values = [v for v in values if v > 0]
    return float(np.median(values)) if values else 0.0


def _report(cal: Calibration, floor: float | None, reading: Any, expected: int) -> dict[str, Any]:
    """The quality report a person reads after calibrating (``floor``: the tray floor's
    share of the frame, None when no floor was found)."""
    w, h = cal.frame_size
    watched = cv2.contourArea(np.array(cal.tray, np.float32)) / float(w * h)
    word = _contrast_word(cal.pip_contrast)
    tray_found = floor is not None
    parts = [
        f"tray found ({floor:.0%} of the frame)"
        if floor is not None
        else "tray edges not found (the whole frame is watched)",
        f"dice {cal.die_side:.0f} px",
        f"pip contrast {word}",
    ]
    found = len(reading.dice)
    if found != expected:
        parts.append(f"{found} of {expected} dice seen")
    elif not reading.ok:
        parts.append(reading.reason)
    return {
        "ok": found == expected and reading.ok and word != "poor",
        "tray_found": tray_found,
        "tray_fraction": round(watched if floor is None else floor, 3),
        "die_px": round(cal.die_side, 1),
        "dice_found": found,
        "expected": expected,
        "values": list(reading.values),
        "pip_contrast": round(cal.pip_contrast, 2),
        "contrast": word,
        "text": "; ".join(parts),
    }
