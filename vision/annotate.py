"""Draw a reading on a frame, for the calibration page and for debugging."""

from __future__ import annotations

import cv2
import numpy as np

from vision.reader import MIN_CONFIDENCE
from vision.reading import Reading, check_frame

SURE = (60, 200, 60)  # BGR green: a die read with confidence
UNSURE = (0, 140, 255)  # orange: a die below the confidence threshold
PROBLEM = (40, 40, 230)  # red: the reason a reading is not ok


def _label(image: np.ndarray, text: str, origin: tuple[int, int], colour: tuple[int, ...]) -> None:
    """Text with a dark outline so it reads on any background."""
    scale = max(0.4, min(image.shape[:2]) / 900.0)
    cv2.putText(image, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(image, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


def annotate(frame: np.ndarray, reading: Reading) -> np.ndarray:
    """A copy of ``frame`` with each die's box, value and confidence; unsure dice in orange
    with a dashed look, and the reason across the top when the reading is not ok."""
    image = check_frame(frame).copy()
    for die in reading.dice:
        sure = die.confidence >= MIN_CONFIDENCE
        colour = SURE if sure else UNSURE
        x0, y0, x1, y1 = die.box
        cv2.rectangle(image, (x0, y0), (x1, y1), colour, 2 if sure else 1)
        if not sure:
            cv2.drawMarker(image, (x1, y0), colour, cv2.MARKER_TILTED_CROSS, 8, 2)
        text = f"{die.value} {die.confidence:.2f}" + ("" if sure else "?")
        _label(image, text, (x0, max(12, y0 - 4)), colour)
    if not reading.ok:
        cv2.rectangle(image, (0, 0), (image.shape[1], 22), (0, 0, 0), cv2.FILLED)
        _label(image, reading.reason, (4, 16), PROBLEM)
    return image
