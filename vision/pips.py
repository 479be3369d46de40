"""Count the pips on one die's top face and judge how sure that count is.

Pips are the small round blobs that differ in colour from the die's body (whatever the
colours are). The count is checked against the standard d6 layouts: a count whose pips do
not sit where a real face puts them is not trusted.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.segment import Region, to_lab

PIP_AREA = (0.006, 0.07)  # pip area as a fraction of the die's area
LAYOUT_OFFSETS = np.arange(0.20, 0.345, 0.02)  # corner pips' offset from the centre, in sides
ANGLES = np.deg2rad(np.arange(0.0, 180.0, 4.0))  # 2, 3 and 6 repeat only every half turn


def _template(value: int, a: float) -> np.ndarray:
    """Canonical pip positions of a face (die side = 1, centre at 0)."""
    layouts: dict[int, list[tuple[float, float]]] = {
        1: [(0, 0)],
        2: [(-a, -a), (a, a)],
        3: [(-a, -a), (0, 0), (a, a)],
        4: [(-a, -a), (a, -a), (-a, a), (a, a)],
        5: [(-a, -a), (a, -a), (0, 0), (-a, a), (a, a)],
        6: [(-a, -a), (a, -a), (-a, 0), (a, 0), (-a, a), (a, a)],
    }
    return np.array(layouts[value], np.float32)


@dataclass(frozen=True)
class PipCount:
    """Pips found on one die: value (0 when none), pip centres, and how well they fit a face."""

    value: int
    pips: tuple[tuple[float, float], ...]
    layout_error: float  # mean distance to the best-fitting face layout, in die sides
    size_spread: float  # coefficient of variation of the pip areas
    contrast: float  # median pip contrast over the threshold (1 = at threshold)
    doubtful: int  # blobs that were nearly pips (count might be off by these)
    centre_offset: float  # distance of the pips' centre from the die's centre, in sides


def _templates(value: int) -> np.ndarray:
    """Every rotation and spacing of a face layout: (layouts, pips, 2)."""
    cached = _TEMPLATE_CACHE.get(value)
    if cached is None:
        base = np.stack([_template(value, float(a)) for a in LAYOUT_OFFSETS])  # (A, n, 2)
        c, s = np.cos(ANGLES), np.sin(ANGLES)
        rot = np.stack([np.stack([c, s], axis=1), np.stack([-s, c], axis=1)], axis=1)  # (R,2,2)
        cached = np.einsum("anj,rjk->rank", base, rot).reshape(-1, value, 2).astype(np.float32)
        _TEMPLATE_CACHE[value] = cached
    return cached


_TEMPLATE_CACHE: dict[int, np.ndarray] = {}


def layout_error(points: np.ndarray, side: float) -> float:
    """How far ``points`` (pixels) are from the best standard layout of their count, in sides."""
    n = len(points)
    if n == 0 or n > 6:
        return 1.0
    if n == 1:
        return 0.0
    rel = ((points - points.mean(axis=0)) / side).astype(np.float32)
    templates = _templates(n)  # (T, n, 2)
    d = np.sqrt(((rel[None, :, None, :] - templates[:, None, :, :]) ** 2).sum(axis=3))  # T,n,n
    err = np.maximum(d.min(axis=2).mean(axis=1), d.min(axis=1).mean(axis=1))
    return float(err.min())


def _crop(frame: np.ndarray, region: Region) -> tuple[np.ndarray, np.ndarray, int, int]:
    """The frame around ``region`` and the region's mask there, with the crop's origin."""
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = region.box
    pad = max(2, int(region.side * 0.1))
    x0, y0 = max(0, x0 - pad), max(0, y0 - pad)
    x1, y1 = min(w, x1 + pad), min(h, y1 + pad)
    crop = frame[y0:y1, x0:x1]
    mask = np.zeros(crop.shape[:2], np.uint8)
    cv2.drawContours(mask, [region.contour - np.array([x0, y0], np.int32)], -1, 255, cv2.FILLED)
    return crop, mask, x0, y0


def count_pips(frame: np.ndarray, region: Region, side: float) -> PipCount:
    """Find the pips inside ``region`` of ``frame``; ``side`` is the expected die side in px."""
    side = max(side, region.side * 0.8) if region.merged > 1 else region.side
    crop, mask, ox, oy = _crop(frame, region)
    inner = cv2.erode(mask, np.ones((3, 3), np.uint8), iterations=max(1, int(side * 0.06)))
    if cv2.countNonZero(inner) < 9:
        return PipCount(0, (), 1.0, 0.0, 0.0, 0, 0.0)
    lab = to_lab(cv2.GaussianBlur(crop, (3, 3), 0))
    body = np.median(lab[inner > 0], axis=0)
    contrast = np.sqrt(((lab - body) ** 2).sum(axis=2))
    inside = contrast[inner > 0]
    threshold = max(0.45 * float(np.percentile(inside, 99)), 30.0)
    pip_mask = ((contrast > threshold) & (inner > 0)).astype(np.uint8)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(pip_mask, connectivity=8)
    die_area = side * side
    pips: list[tuple[float, float]] = []
    areas: list[float] = []
    strengths: list[float] = []
    doubtful = 0
    for i in range(1, n):
        area = float(stats[i, cv2.CC_STAT_AREA])
        bw, bh = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        roundness = area / (np.pi * (max(bw, bh) / 2.0) ** 2)
        frac = area / die_area
        if (
            PIP_AREA[0] <= frac <= PIP_AREA[1]
            and roundness > 0.45
            and max(bw, bh) < 2 * min(bw, bh)
        ):
            pips.append((float(centroids[i][0]) + ox, float(centroids[i][1]) + oy))
            areas.append(area)
            strengths.append(float(contrast[labels == i].max()) / threshold)
        elif frac >= PIP_AREA[0] * 0.4:
            doubtful += 1
    if not pips:
        return PipCount(0, (), 1.0, 0.0, 0.0, doubtful, 0.0)
    points = np.array(pips, np.float32)
    spread = float(np.std(areas) / np.mean(areas)) if len(areas) > 1 else 0.0
    centre = np.array(region.center, np.float32)
    offset = float(np.linalg.norm(points.mean(axis=0) - centre) / side)
    return PipCount(
        value=len(pips),
        pips=tuple(pips),
        layout_error=layout_error(points, side),
        size_spread=spread,
        contrast=float(np.median(strengths)),
        doubtful=doubtful,
        centre_offset=offset,
    )


def confidence(count: PipCount) -> float:
    """Map the evidence for a count to 0..1; an honest threshold is 0.5 (see the bench)."""
    if not 1 <= count.value <= 6:
        return 0.0
    score = 1.0
    score *= float(np.exp(-((count.layout_error / 0.06) ** 2)))
    score *= float(np.exp(-((max(0.0, count.size_spread - 0.25) / 0.3) ** 2)))
    score *= min(1.0, max(0.0, (count.contrast - 1.0) / 0.6))
    score *= 0.6**count.doubtful
    score *= float(np.exp(-((max(0.0, count.centre_offset - 0.12) / 0.12) ** 2)))
    return float(np.clip(score, 0.0, 1.0))
