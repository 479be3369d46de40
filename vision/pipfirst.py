"""Join fragments of one die by their pips (frames read without calibration).

Without a calibration the die size is learned from the frame and often comes out small, so
one die may be cut into two regions (a lone die split in two, touching dice split into too
many parts). Each fragment then shows only some of the die's pips. Two candidates whose
centres are closer than a die cannot both be dice: when the pips sought across both of
them form a clearer face than either shows alone, they are one die.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.pips import PipCount, assess, confidence, detect_pips
from vision.segment import Region

__all__ = ["Fragment", "join_fragments"]

Fragment = tuple[Region, PipCount, tuple[float, float]]  # region, its pips, the die's centre

NEAREST = 0.9  # candidates closer than this many sides may be fragments of one die
LONGEST = 1.5  # a joined region longer than this many sides is more than one die
CLEAN_FACE = 0.06  # layout error (in sides) the joined pips must fit a face within


def _union(a: Region, b: Region) -> Region:
    """One region covering ``a`` and ``b``: the convex hull of both outlines."""
    hull = cv2.convexHull(np.vstack([a.contour, b.contour]))
    (cx, cy), _, angle = cv2.minAreaRect(hull)
    x, y, w, h = cv2.boundingRect(hull)
    side = float(np.sqrt(cv2.contourArea(hull)))
    return Region(hull, (float(cx), float(cy)), side, float(angle), (x, y, x + w, y + h))


def _joined(image: np.ndarray, a: Fragment, b: Fragment, side: float) -> Fragment | None:
    """``a`` and ``b`` as one die, if their joint pips make a clearer face than either alone."""
    if np.hypot(a[2][0] - b[2][0], a[2][1] - b[2][1]) > NEAREST * side:
        return None
    region = _union(a[0], b[0])
    (_, _), (w, h), _ = region.rect
    if max(w, h) > LONGEST * side:
        return None
    pips, near = detect_pips(image, region.contour, side)
    count = assess(pips, region.center, side, 0, near)
    if not 1 <= count.value <= 6 or count.layout_error >= CLEAN_FACE:
        return None
    if confidence(count) <= max(confidence(a[1]), confidence(b[1])):
        return None
    x, y = np.array(count.pips, np.float64).mean(axis=0)  # the face's centre
    return region, count, (float(x), float(y))


def join_fragments(image: np.ndarray, found: list[Fragment], side: float) -> list[Fragment]:
    """``found`` with fragments of one die joined, the clearest joint face first, until no
    pair of candidates gains by joining (a die cut in three is joined in two steps)."""
    found = list(found)
    while True:
        best: tuple[float, int, int, Fragment] | None = None
        for i in range(len(found)):
            for j in range(i + 1, len(found)):
                joined = _joined(image, found[i], found[j], side)
                if joined is not None:
                    score = confidence(joined[1])
                    if best is None or score > best[0]:
                        best = (score, i, j, joined)
        if best is None:
            return found
        _, i, j, joined = best
        found = [f for k, f in enumerate(found) if k not in (i, j)] + [joined]
