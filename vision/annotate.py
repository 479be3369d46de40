"""Draw a reading on a frame, for the calibration page and for debugging."""

from __future__ import annotations

import cv2
import numpy as np

from vision.reader import MIN_CONFIDENCE
from vision.reading import Reading, check_frame

SURE = (60, 200, 60)  # BGR green: a die read with confidence
UNSURE = (0, 140, 255)  # orange: a die below the confidence threshold
PROBLEM = (40, 40, 230)  # red: the reason a reading is not ok
BANNER = 22  # px across the top that hold the reason
GAP = 4  # px between a box and its label

Rect = tuple[int, int, int, int]  # x0, y0, x1, y1


def _scale(image: np.ndarray) -> float:
    return max(0.4, float(min(image.shape[:2])) / 900.0)


def _label(image: np.ndarray, text: str, origin: tuple[int, int], colour: tuple[int, ...]) -> None:
    """Text with a dark outline so it reads on any background."""
    scale = _scale(image)
    cv2.putText(image, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(image, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


def _overlaps(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def label_places(
    boxes: list[Rect], sizes: list[tuple[int, int]], frame: tuple[int, int], top: int = 0
) -> list[tuple[int, int]]:
    """Where each box's label of ``sizes[k]`` (width, height) goes: the text's bottom-left
    corner above its box, else below it, else inside its top, whichever first covers no
    label placed before and no row above ``top`` (the banner); above the box if none is
    free. Every label is kept inside the ``frame`` (width, height)."""
    width, height = frame
    taken: list[Rect] = []
    places = []
    for (x0, y0, _x1, y1), (w, h) in zip(boxes, sizes, strict=True):
        x = min(max(0, x0), max(0, width - w))
        tries = [y0 - GAP, y1 + GAP + h, y0 + GAP + h]
        fits = [
            y
            for y in tries
            if y - h >= top
            and y <= height
            and not any(_overlaps((x, y - h - 1, x + w, y + 2), r) for r in taken)
        ]
        y = fits[0] if fits else min(max(top + h, tries[0]), height)
        taken.append((x, y - h - 1, x + w, y + 2))
        places.append((x, y))
    return places


def annotate(frame: np.ndarray, reading: Reading) -> np.ndarray:
    """A copy of ``frame`` with each die's box, value and confidence; unsure dice in orange
    with a dashed look, and the reason across the top when the reading is not ok."""
    image = check_frame(frame).copy()
    texts, colours = [], []
    for die in reading.dice:
        sure = die.confidence >= MIN_CONFIDENCE
        colour = SURE if sure else UNSURE
        x0, y0, x1, y1 = die.box
        cv2.rectangle(image, (x0, y0), (x1, y1), colour, 2 if sure else 1)
        if not sure:
            cv2.drawMarker(image, (x1, y0), colour, cv2.MARKER_TILTED_CROSS, 8, 2)
        texts.append(f"{die.value} {die.confidence:.2f}" + ("" if sure else "?"))
        colours.append(colour)
    scale = _scale(image)
    sizes = [cv2.getTextSize(t, cv2.FONT_HERSHEY_SIMPLEX, scale, 3)[0] for t in texts]
    boxes = [die.box for die in reading.dice]
    frame_size = (image.shape[1], image.shape[0])
    top = 0 if reading.ok else BANNER
    places = label_places(boxes, [(int(w), int(h)) for w, h in sizes], frame_size, top)
    for text, origin, colour in zip(texts, places, colours, strict=True):
        _label(image, text, origin, colour)
    if not reading.ok:
        cv2.rectangle(image, (0, 0), (image.shape[1], BANNER), (0, 0, 0), cv2.FILLED)
        _label(image, reading.reason, (4, 16), PROBLEM)
    return image
