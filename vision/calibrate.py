"""Calibrating the tower's camera: an empty tray and the six dice in, a :class:`Calibration` out.

This sits above the reader (it reads the dice frame with the new calibration
to report on it); :mod:`vision.calibration` below the reader holds the
calibration itself and its file format.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from vision.calibration import Calibration, CalibrationError, find_tray
from vision.pips import count_pips, learn_die_side
from vision.reader import LAMP_REACH, LAMP_SUPPORT, locate, read_dice
from vision.reading import check_frame
from vision.segment import dice_regions, find_blobs, working_scale

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
    tray_found = outline is not None
    if outline is None:
        outline = np.array([[0, 0], [w // s - 1, 0], [w // s - 1, h // s - 1], [0, h // s - 1]])
    tray = tuple((int(x * s), int(y * s)) for x, y in outline)
    ok_png, png = cv2.imencode(".png", small)
    if not ok_png:
        raise CalibrationError("the empty tray frame could not be encoded")
    draft = Calibration((w, h), tray, png.tobytes(), die_side=16.0, pip_contrast=0.0)
    blobs, scale, _ = find_blobs(dice, background=draft.background, tray=draft.tray_mask)
    side = learn_die_side(dice, blobs, scale)
    if side is None:
        raise CalibrationError(
            "no dice found in the dice frame; put the dice flat in the tray, pips up, and retry"
        )
    sized = Calibration((w, h), tray, png.tobytes(), die_side=side, pip_contrast=0.0)
    cal = Calibration((w, h), tray, png.tobytes(), side, cal_contrast(dice, sized))
    lamp = lamp_spot(dice, cal)
    if lamp is not None:
        cal = replace(cal, lamp=lamp)
    reading = read_dice(dice, cal, expected=expected)
    return cal, _report(cal, tray_found, reading, expected)


def lamp_spot(frame: np.ndarray, cal: Calibration) -> tuple[float, float] | None:
    """Where the lamp's reflection lies on the flat dice of ``frame``: the median of the
    blobs the dice set aside as a reflection, when at least LAMP_SUPPORT + 1 dice agree on
    it (within LAMP_REACH of the median); None when the dice show no such reflection."""
    found, _ = locate(frame, cal)
    spots = np.array([f.count.glare_at for f in found if f.count.glare_at is not None])
    if len(spots) < LAMP_SUPPORT + 1:
        return None
    middle = np.median(spots, axis=0)
    near = spots[np.hypot(*(spots - middle).T) <= LAMP_REACH]
    if len(near) < LAMP_SUPPORT + 1:
        return None
    at = near.mean(axis=0)
    return float(at[0]), float(at[1])


def cal_contrast(frame: np.ndarray, cal: Calibration) -> float:
    """Median pip contrast (over the detection threshold) of the dice in ``frame``."""
    blobs, scale, _ = find_blobs(frame, background=cal.background, tray=cal.tray_mask)
    values = [
        count_pips(frame, r, cal.die_side).contrast
        for r in dice_regions(frame, blobs, scale, cal.die_side)
    ]
    values = [v for v in values if v > 0]
    return float(np.median(values)) if values else 0.0


def _report(cal: Calibration, tray_found: bool, reading: Any, expected: int) -> dict[str, Any]:
    """The quality report a person reads after calibrating."""
    w, h = cal.frame_size
    tray_area = cv2.contourArea(np.array(cal.tray, np.float32)) / float(w * h)
    word = _contrast_word(cal.pip_contrast)
    parts = [
        f"tray found ({tray_area:.0%} of the frame)"
        if tray_found
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
        "tray_fraction": round(tray_area, 3),
        "die_px": round(cal.die_side, 1),
        "dice_found": found,
        "expected": expected,
        "values": list(reading.values),
        "pip_contrast": round(cal.pip_contrast, 2),
        "contrast": word,
        "text": "; ".join(parts),
    }
