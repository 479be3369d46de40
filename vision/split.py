"""Split a blob of touching dice into one region per die.

The cores of the dice (points far from the blob's edge) each claim the blob's pixels nearest
to them; where the cores of dice lying edge to edge run together, k-means on the core's
pixels divides it. K-means over the whole blob, started from that sharing, then centres each
part on its die (the mean of a die's pixels is its centre; a core's is biased inwards).
"""

from __future__ import annotations

import cv2
import numpy as np

CORE = 0.3  # a core point is at least this many die sides from the blob's edge


def _cores(mask: np.ndarray, side: float, k: int) -> np.ndarray:
    """Marker image: one label (1..) per die core found in ``mask``."""
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
    core = (dist > CORE * side).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)
    if n - 1 == 0:
        return np.zeros(mask.shape, np.int32)
    shares = _shares(areas, k)
    # a core standing for one die keeps its pixels under its new label (one look-up for all
    # of them); a core standing for several is divided by k-means, in the same order
    lut = np.zeros(n, np.int32)
    divided: list[tuple[int, int, int]] = []  # component, share, first label
    next_label = 1
    for i, share in enumerate(shares, start=1):
        if share <= 1 or int(stats[i, cv2.CC_STAT_AREA]) < share * 2:
            lut[i] = next_label
            next_label += 1
        else:
            divided.append((i, share, next_label))
            next_label += share
    markers: np.ndarray = lut[labels]
    for i, share, first in divided:
        ys, xs = np.nonzero(labels == i)
        points = np.column_stack([xs, ys]).astype(np.float32)
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
        cv2.setRNGSeed(1)
        _, parts, _ = cv2.kmeans(points, share, None, criteria, 3, cv2.KMEANS_PP_CENTERS)
        for j in range(share):
            sel = parts.ravel() == j
            markers[ys[sel], xs[sel]] = first + j
    return markers


def _shares(areas: np.ndarray, k: int) -> list[int]:
    """How many dice each core stands for: one each, the rest given to the longest cores."""
    shares = [1] * len(areas)
    for _ in range(max(0, k - len(areas))):
        i = int(np.argmax(areas / np.array(shares)))
        shares[i] += 1
    return shares


def _settle(owner: np.ndarray, mask: np.ndarray, count: int) -> np.ndarray:
    """Refine a first sharing of the blob's pixels with k-means (centres of equal squares)."""
    ys, xs = np.nonzero(mask)
    points = np.column_stack([xs, ys]).astype(np.float32)
    first = owner[ys, xs].astype(np.int32).reshape(-1, 1)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.2)
    _, labels, _ = cv2.kmeans(points, count, first, criteria, 1, cv2.KMEANS_USE_INITIAL_LABELS)
    settled = np.full(mask.shape, -1, np.int32)
    settled[ys, xs] = np.asarray(labels).ravel()
    return settled


def split_touching(frame: np.ndarray, contour: np.ndarray, k: int, side: float) -> list[np.ndarray]:
    """Outlines (full-resolution) of the dice in the blob ``contour`` of about ``k`` dice."""
    h, w = frame.shape[:2]
    x, y, bw, bh = cv2.boundingRect(contour)
    pad = 3
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(w, x + bw + pad), min(h, y + bh + pad)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(mask, [contour - np.array([x0, y0], np.int32)], -1, 255, cv2.FILLED)
    markers = _cores(mask, side, k)
    count = int(markers.max())
    if count < 2:
        return [contour]
    # each pixel of the blob goes to the nearest core: touching dice of one size meet halfway
    reach = np.stack(
        [
            cv2.distanceTransform((markers != label).view(np.uint8), cv2.DIST_L2, 3)
            for label in range(1, count + 1)
        ]
    )
    owner = _settle(np.argmin(reach, axis=0), mask, count) + 1
    parts = []
    for label in range(1, count + 1):
        part = (owner == label).view(np.uint8)  # owners are 0 beyond the blob
        found, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if found:
            best = max(found, key=cv2.contourArea)
            parts.append(best + np.array([x0, y0], np.int32))
    return parts
