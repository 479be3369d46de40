"""Small numeric steps of the reader, made fast without changing a bit of their results.

Each is equal to a plain numpy expression named in its docstring (tests compare them on
random inputs): numpy's reductions add a few numbers from left to right, so the same sums
in the same order give the same values without the overhead of the general functions.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np


def small_median(values: Sequence[float]) -> float:
    """``float(np.median(values))`` of a few finite numbers, without its overhead: the
    middle one, or the mean of the middle two (the same value)."""
    ordered = sorted(values)
    half = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[half])
    return (float(ordered[half - 1]) + float(ordered[half])) / 2.0


def size_spread(areas: np.ndarray) -> float:
    """``float(np.std(areas) / np.mean(areas))`` of a float64 vector, by the same sums in
    the same order without the overhead of those functions."""
    n = len(areas)
    mean = np.add.reduce(areas) / n
    deviation = areas - mean
    variance = np.add.reduce(deviation * deviation) / n
    return float(np.sqrt(variance) / mean)


def body_colour(lab: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """The median colour (3,) of the flat ``pixels`` of ``lab`` (H, W, 3), channel by
    channel: ``np.median(lab.reshape(-1, 3)[pixels], axis=0)`` without its overhead."""
    chosen = np.ascontiguousarray(np.take(lab.reshape(-1, 3), pixels, axis=0).T)
    n = chosen.shape[1]
    half = n // 2
    if n % 2:
        chosen.partition(half, axis=1)
        return np.ascontiguousarray(chosen[:, half])
    chosen.partition((half - 1, half), axis=1)
    out: np.ndarray = (chosen[:, half - 1] + chosen[:, half]) / chosen.dtype.type(2)
    return out


def colour_distance(lab: np.ndarray, body: np.ndarray) -> np.ndarray:
    """Each pixel's distance (H, W) from the colour ``body``: the same sums, in the same
    order, as ``np.sqrt(((lab - body) ** 2).sum(axis=2))`` of a float32 ``lab`` (H, W, 3),
    made by OpenCV's arithmetic on the channels apart (each step is one correctly rounded
    float32 operation, as numpy's; fewer passes over a die's few thousand pixels)."""
    if lab.dtype != np.float32 or lab.ndim != 3 or lab.shape[2] != 3 or lab.size == 0:
        return colour_distance_checked(lab, body)
    level = (float(body[0]), float(body[1]), float(body[2]), 0.0)
    d = cv2.subtract(lab, level)  # type: ignore[call-overload]  # a scalar per channel
    first, second, third = cv2.split(cv2.multiply(d, d))
    out: np.ndarray = cv2.sqrt(cv2.add(cv2.add(first, second), third))
    return out


def colour_distance_checked(lab: np.ndarray, body: np.ndarray) -> np.ndarray:
    """:func:`colour_distance` by numpy alone (what the fast path must equal)."""
    d = lab - body
    np.multiply(d, d, out=d)
    total = d[:, :, 0] + d[:, :, 1]
    total += d[:, :, 2]
    out: np.ndarray = np.sqrt(total, out=total)
    return out


def mean_of(values: np.ndarray, axis: int | None = None) -> np.ndarray:
    """``values.mean(axis=axis)`` of a float array without the overhead of its general
    function: the same sum (``np.add.reduce``), divided by the count in the array's own
    precision (numpy divides in float64 and rounds to float32, which gives the same bits
    for a float32 array: a quotient rounded twice this way is rounded once). A numpy
    scalar for ``axis=None``, as ``mean`` gives."""
    count = values.size if axis is None else values.shape[axis]
    total = np.add.reduce(values, axis)
    out: np.ndarray = total / total.dtype.type(count)
    return out


def median_of(values: np.ndarray, axis: int = 0) -> np.ndarray:
    """``np.median(values, axis=axis)`` of finite floats without the overhead of its
    general function: the same partition (the middle values do not depend on which other
    places it also sorts), then the middle one, or the mean of the middle two (their sum
    halved, as ``mean`` makes it; of a vector, see :func:`_middle_two`)."""
    n = values.shape[axis]
    if n == 0:  # numpy's own warning and NaN
        empty: np.ndarray = np.median(values, axis=axis)
        return empty
    half = n // 2
    before = (slice(None),) * (axis % values.ndim)
    if n % 2:
        odd: np.ndarray = np.partition(values, half, axis=axis)[(*before, half)]
        return odd
    if values.ndim == 1:  # one selection and a maximum (along another axis, two selections
        # are the faster: a maximum across a middle axis reads the array out of order)
        lower, upper = _middle_two(values, half)
    else:
        part = np.partition(values, (half - 1, half), axis=axis)
        lower, upper = part[(*before, half - 1)], part[(*before, half)]
    middle: np.ndarray = (lower + upper) / values.dtype.type(2)
    return middle


def _middle_two(values: np.ndarray, half: int) -> tuple[np.ndarray, np.ndarray]:
    """The two middle values of a vector of ``half * 2`` finite floats, as
    ``np.partition(values, (half - 1, half))`` puts them at ``half - 1`` and ``half``.
    One partition at ``half`` leaves the ``half`` smallest before it, whose largest is the
    other middle value (one selection and a maximum instead of two selections). The two
    differ only in the sign of a zero, which each partition chooses as it goes: where a middle
    value is zero, the two-place partition is made, as numpy's median makes it."""
    part = np.partition(values, half)
    upper, lower = part[half], part[:half].max()
    if lower == 0 or upper == 0:
        part = np.partition(values, (half - 1, half))
        return part[half - 1], part[half]
    return lower, upper


def label_peaks(labels: np.ndarray, values: np.ndarray, count: int) -> np.ndarray:
    """The largest of ``values`` on each label 0..count-1 of ``labels`` (a label image of
    the same shape), as ``values[labels == i].max()`` gives it for every label at once
    (-inf for a label with no pixel, and for label 0, the background, which is left out)."""
    flat = labels.ravel()
    on = np.flatnonzero(flat)
    peaks = np.full(count, -np.inf, values.dtype)
    np.maximum.at(peaks, flat[on], values.ravel()[on])
    return peaks
