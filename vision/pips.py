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
LAYOUT_OFFSETS = np.arange(0.22, 0.315, 0.015)  # corner pips' offset from the centre, in sides
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


def _templates(value: int) -> tuple[np.ndarray, float]:
    """Every rotation of a face layout with unit spacing, (rotations, pips, 2), and its RMS
    radius (the spacing of a seen face is its RMS radius over this one)."""
    cached = _TEMPLATE_CACHE.get(value)
    if cached is None:
        base = _template(value, 1.0)
        c, s = np.cos(ANGLES), np.sin(ANGLES)
        rot = np.stack([np.stack([c, s], axis=1), np.stack([-s, c], axis=1)], axis=1)  # (R,2,2)
        rotated = np.einsum("nj,rjk->rnk", base, rot).astype(np.float32)
        rms = float(np.sqrt((base**2).sum(axis=1).mean()))
        cached = (rotated, rms)
        _TEMPLATE_CACHE[value] = cached
    return cached


_TEMPLATE_CACHE: dict[int, tuple[np.ndarray, float]] = {}


def layout_error(points: np.ndarray, side: float) -> float:
    """How far ``points`` (pixels) are from the best standard layout of their count, in sides.

    The spacing is taken from the points' spread (within the range real dice use); the
    rotation is searched.
    """
    n = len(points)
    if n == 0 or n > 6:
        return 1.0
    if n == 1:
        return 0.0
    rel = ((points - points.mean(axis=0)) / side).astype(np.float32)
    rotated, rms = _templates(n)
    spread = float(np.sqrt((rel**2).sum(axis=1).mean()))
    a = float(np.clip(spread / rms, LAYOUT_OFFSETS[0], LAYOUT_OFFSETS[-1]))
    templates = rotated * a  # (R, n, 2)
    d = np.sqrt(((rel[None, :, None, :] - templates[:, None, :, :]) ** 2).sum(axis=3))  # R,n,n
    err = np.maximum(d.min(axis=2).mean(axis=1), d.min(axis=1).mean(axis=1))
    return float(err.min())


@dataclass(frozen=True)
class Pip:
    """One pip: centre (frame pixels), area in pixels, contrast over the threshold."""

    x: float
    y: float
    area: float
    strength: float


def _crop(
    frame: np.ndarray, contour: np.ndarray, pad: int
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """The frame around ``contour`` and the contour's mask there, with the crop's origin."""
    h, w = frame.shape[:2]
    x, y, bw, bh = cv2.boundingRect(contour)
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(w, x + bw + pad), min(h, y + bh + pad)
    crop = frame[y0:y1, x0:x1]
    mask = np.zeros(crop.shape[:2], np.uint8)
    cv2.drawContours(mask, [contour - np.array([x0, y0], np.int32)], -1, 255, cv2.FILLED)
    return crop, mask, x0, y0


def _threshold(inside: np.ndarray) -> float:
    """Pip threshold: just under half the strongest contrast on the face (the pips')."""
    top = float(np.partition(inside, int(len(inside) * 0.99))[int(len(inside) * 0.99)])
    return max(0.45 * top, 30.0)


def detect_pips(
    frame: np.ndarray, contour: np.ndarray, side: float, body_contour: np.ndarray | None = None
) -> tuple[list[Pip], list[Pip]]:
    """Pips inside ``contour`` and the blobs that were nearly pips.

    The die's body colour is the median inside ``body_contour`` (default: ``contour``);
    pips are round blobs of a die-relative size that differ from it.
    """
    crop, mask, ox, oy = _crop(frame, contour, max(2, int(side * 0.1)))
    inner = cv2.erode(mask, np.ones((3, 3), np.uint8), iterations=max(1, int(side * 0.06)))
    if body_contour is not None:
        body_mask = np.zeros_like(mask)
        offset = np.array([ox, oy], np.int32)
        cv2.drawContours(body_mask, [body_contour - offset], -1, 255, cv2.FILLED)
        body_mask &= inner
    else:
        body_mask = inner
    if cv2.countNonZero(body_mask) < 9:
        return [], []
    lab = to_lab(cv2.GaussianBlur(crop, (3, 3), 0))
    body = np.median(lab[body_mask > 0][::2], axis=0)  # every other pixel is plenty
    contrast = np.sqrt(((lab - body) ** 2).sum(axis=2))
    inside = contrast[body_mask > 0]
    threshold = _threshold(inside)
    pip_mask = ((contrast > threshold) & (inner > 0)).astype(np.uint8)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(pip_mask, connectivity=8)
    die_area = side * side
    pips: list[Pip] = []
    near: list[Pip] = []
    for i in range(1, n):
        area = float(stats[i, cv2.CC_STAT_AREA])
        bw, bh = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        roundness = area / (np.pi * (max(bw, bh) / 2.0) ** 2)
        frac = area / die_area
        if frac < PIP_AREA[0] * 0.4:
            continue  # noise
        x, y = stats[i, cv2.CC_STAT_LEFT], stats[i, cv2.CC_STAT_TOP]
        box = (slice(y, y + bh), slice(x, x + bw))
        strength = float(contrast[box][labels[box] == i].max()) / threshold
        blob = Pip(float(centroids[i][0]) + ox, float(centroids[i][1]) + oy, area, strength)
        round_enough = roundness > 0.45 and max(bw, bh) < 2 * min(bw, bh)
        if PIP_AREA[0] <= frac <= PIP_AREA[1] and round_enough:
            pips.append(blob)
        else:
            near.append(blob)
    return pips, near


def assess(pips: list[Pip], centre: tuple[float, float], side: float, doubtful: int) -> PipCount:
    """The value the pips show and how well they fit a real face centred near ``centre``."""
    if not pips:
        return PipCount(0, (), 1.0, 0.0, 0.0, doubtful, 0.0)
    points = np.array([(p.x, p.y) for p in pips], np.float32)
    areas = np.array([p.area for p in pips])
    spread = float(np.std(areas) / np.mean(areas)) if len(areas) > 1 else 0.0
    offset = float(np.linalg.norm(points.mean(axis=0) - np.array(centre, np.float32)) / side)
    return PipCount(
        value=len(pips),
        pips=tuple((p.x, p.y) for p in pips),
        layout_error=layout_error(points, side),
        size_spread=spread,
        contrast=float(np.median([p.strength for p in pips])),
        doubtful=doubtful,
        centre_offset=offset,
    )


def count_pips(frame: np.ndarray, region: Region, side: float) -> PipCount:
    """Find and judge the pips of the lone die ``region``; ``side`` is its side in pixels."""
    pips, near = detect_pips(frame, region.contour, side)
    return assess(pips, region.center, side, len(near))


def face_centre(points: np.ndarray) -> np.ndarray:
    """Where the face's centre is, from its pips: the centroid (also the middle pip of 1, 3, 5)."""
    return np.asarray(points.mean(axis=0), np.float32)


def share_pips(
    pips: list[Pip], centres: np.ndarray, side: float, rounds: int = 3
) -> tuple[list[list[Pip]], np.ndarray]:
    """Give each pip to the nearest die centre, re-centring each die on its own pips.

    A pip is at most 0.4 sides from its die's centre and at least 0.6 from any touching
    die's, so once the centres are near, the sharing is exact.
    """
    centres = centres.astype(np.float32).copy()
    groups: list[list[Pip]] = [[] for _ in centres]
    for _ in range(rounds):
        groups = [[] for _ in centres]
        for p in pips:
            d = np.hypot(centres[:, 0] - p.x, centres[:, 1] - p.y)
            groups[int(np.argmin(d))].append(p)
        moved = False
        for j, group in enumerate(groups):
            if not group:
                continue
            points = np.array([(p.x, p.y) for p in group], np.float32)
            if layout_error(points, side) < 0.05:
                new = face_centre(points)
                moved |= bool(np.hypot(*(new - centres[j])) > 0.5)
                centres[j] = new
        if not moved:
            break
    return groups, centres


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
