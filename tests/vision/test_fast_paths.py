"""The reader's fast paths give the same bits as the plain code they replace (kept beside
them as the checked path), on random inputs and on the shapes the reader feeds them."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision import kernels, lean, profile, segment, split
from vision import pips as pipmod
from vision.calibration import Calibration
from vision.segment import to_lab, to_lab_checked


@pytest.mark.parametrize("shape", [(1, 1), (7, 5), (48, 64), (120, 160)])
def test_to_lab_equals_the_plain_conversion(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(sum(shape))
    image = rng.integers(0, 256, (*shape, 3), dtype=np.uint8)
    fast, plain = to_lab(image), to_lab_checked(image)
    assert fast.dtype == plain.dtype == np.float32
    assert fast.shape == plain.shape
    assert np.array_equal(fast, plain)


def test_to_lab_of_a_view_equals_the_plain_conversion() -> None:
    rng = np.random.default_rng(3)
    frame = rng.integers(0, 256, (60, 90, 3), dtype=np.uint8)
    view = frame[5:50:2, 10:80]  # not contiguous, as crops of a frame are
    assert np.array_equal(to_lab(view), to_lab_checked(view))


def test_to_lab_covers_every_colour_level() -> None:
    """Every 8-bit level of every channel: a cube of colours through the whole range."""
    levels = np.arange(256, dtype=np.uint8)
    b, g, r = np.meshgrid(levels[::5], levels[::5], levels, indexing="ij")
    image = np.stack([b, g, r], axis=-1).reshape(-1, 256, 3)
    assert np.array_equal(to_lab(image), to_lab_checked(image))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7])
def test_layout_fit_equals_the_plain_fit(n: int) -> None:
    rng = np.random.default_rng(n)
    for trial in range(200):
        side = float(rng.uniform(12, 90))
        points = (rng.normal(0, 0.25 * side, (n, 2)) + rng.uniform(0, 600, 2)).astype(np.float32)
        if trial % 3 == 0:  # a real face, turned and a little off
            points = _face_points(n, side, rng) if n <= 6 else points
        assert pipmod._fit_now(points, side) == pipmod._fit_checked(points, side)


def _face_points(n: int, side: float, rng: np.random.Generator) -> np.ndarray:
    rotated, _ = pipmod._templates(n)
    a = float(rng.uniform(0.2, 0.33))
    face = rotated[int(rng.integers(len(rotated)))] * a * side
    return (face + rng.normal(0, 0.02 * side, face.shape) + (300.0, 200.0)).astype(np.float32)


@pytest.mark.parametrize("count", [9, 10, 57, 300, 1201])
def test_body_colour_equals_the_median(count: int) -> None:
    rng = np.random.default_rng(count)
    lab = (rng.normal(0, 40, (50, 60, 3))).astype(np.float32)
    pixels = np.sort(rng.choice(50 * 60, count, replace=False))
    expected = np.median(lab.reshape(-1, 3)[pixels], axis=0)
    got = kernels.body_colour(lab, pixels)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)


def test_colour_distance_equals_the_plain_sum() -> None:
    rng = np.random.default_rng(5)
    lab = rng.normal(0, 60, (97, 83, 3)).astype(np.float32)
    body = rng.normal(0, 30, 3).astype(np.float32)
    expected = np.sqrt(((lab - body) ** 2).sum(axis=2))
    got = kernels.colour_distance(lab, body)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)


@pytest.mark.parametrize("n", [*range(1, 14), 40, 129])
def test_small_statistics_equal_numpys(n: int) -> None:
    rng = np.random.default_rng(100 + n)
    for _ in range(100):
        values = rng.lognormal(3.0, 0.6, n)
        assert kernels.small_median(values.tolist()) == float(np.median(values))
        if n > 1:
            expected = float(np.std(values) / np.mean(values))
            assert kernels.size_spread(values) == expected


def test_touching_dice_share_pips_by_the_nearest_centre() -> None:
    """Each pip goes to the centre nearest it by float32 distance, the first on a tie."""
    rng = np.random.default_rng(11)
    for trial in range(300):
        centres = rng.uniform(0, 300, (int(rng.integers(2, 5)), 2)).astype(np.float32)
        pips = [pipmod.Pip(*rng.uniform(0, 300, 2).tolist(), 20.0, 1.5) for _ in range(9)]
        if trial % 4 == 0:  # a pip exactly at a centre, and one halfway between two
            pips[0] = pipmod.Pip(float(centres[0, 0]), float(centres[0, 1]), 20.0, 1.5)
            mid = (centres[0] + centres[1]) / 2
            pips[1] = pipmod.Pip(float(mid[0]), float(mid[1]), 20.0, 1.5)
        groups, _ = pipmod.share_pips(pips, centres, 40.0, rounds=1)
        for p in pips:
            d = np.hypot(centres[:, 0] - p.x, centres[:, 1] - p.y)
            assert p in groups[int(np.argmin(d))]


def _random_floats(rng: np.random.Generator, trial: int) -> np.ndarray:
    """A float32 or float64 array of 1-3 axes, of any scale, some with ties."""
    shape = tuple(int(s) for s in rng.integers(1, 9, int(rng.integers(1, 4))))
    dtype = np.float32 if trial % 2 else np.float64
    values = rng.normal(0.0, 10.0 ** rng.uniform(-3, 4), shape).astype(dtype)
    if trial % 5 == 0:
        values = np.abs(values)
    if trial % 7 == 0:
        values = np.round(values)
    return values


def test_mean_equals_numpys_mean() -> None:
    rng = np.random.default_rng(21)
    for trial in range(2000):
        values = _random_floats(rng, trial)
        for axis in [None, *range(values.ndim)]:
            expected, got = values.mean(axis=axis), kernels.mean_of(values, axis)
            assert type(got) is type(expected) and got.dtype == expected.dtype
            assert np.array_equal(got, expected)


def test_median_equals_numpys_median() -> None:
    rng = np.random.default_rng(22)
    for trial in range(2000):
        values = _random_floats(rng, trial)
        for axis in range(values.ndim):
            expected, got = np.median(values, axis=axis), kernels.median_of(values, axis)
            assert type(got) is type(expected) and np.shape(got) == np.shape(expected)
            assert got.dtype == expected.dtype and np.array_equal(got, expected)


@pytest.mark.parametrize("shape", [(1, 1), (5, 9), (53, 49), (120, 160)])
def test_label_peaks_equal_each_labels_maximum(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(shape[0])
    for _ in range(20):
        count = int(rng.integers(1, 12))
        labels = rng.integers(0, count, shape).astype(np.int32)
        values = rng.normal(0, 50, shape).astype(np.float32)
        peaks = kernels.label_peaks(labels, values, count)
        assert peaks.dtype == values.dtype and peaks.shape == (count,)
        assert peaks[0] == -np.inf
        for i in range(1, count):
            chosen = values[labels == i]
            assert peaks[i] == (chosen.max() if chosen.size else -np.inf)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_layout_fit_of_rounded_and_float64_points_equals_the_plain_fit(n: int) -> None:
    """Pixel-exact pips (ties between rotations) and points given as float64."""
    rng = np.random.default_rng(30 + n)
    for _ in range(200):
        side = float(rng.uniform(12, 90))
        points = np.round(_face_points(n, side, rng))
        assert pipmod._fit_now(points, side) == pipmod._fit_checked(points, side)
        wide = points.astype(np.float64) + rng.normal(0, 0.3, points.shape)
        assert pipmod._fit_now(wide, side) == pipmod._fit_checked(wide, side)


def test_calibration_fingerprint_kept_equals_a_fresh_one(tower_calibration: Calibration) -> None:
    """The fingerprints kept per calibration are the ones made from its file's content, and
    a calibration differing in any field gets its own."""
    first = profile.calibration_id(tower_calibration)
    assert first == profile._fingerprint(tower_calibration)
    assert profile.calibration_id(tower_calibration) == first
    others = [
        replace(tower_calibration, die_side=tower_calibration.die_side + 1.0),
        replace(tower_calibration, lamp=(0.1, -0.05)),
        replace(tower_calibration, tray=tower_calibration.tray[1:]),
    ]
    for other in others:
        assert profile.calibration_id(other) == profile._fingerprint(other) != first
    assert profile.calibration_id(tower_calibration) == first


def test_background_lab_kept_equals_a_fresh_conversion() -> None:
    """The Lab kept for a background is its own: one pixel changed is another background."""
    rng = np.random.default_rng(9)
    first = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)
    second = first.copy()
    second[60, 80] ^= 1
    third = rng.integers(0, 256, (121, 162, 3), dtype=np.uint8)
    for background in [first, second, first, third, second, third, first]:
        assert np.array_equal(segment._background_lab(background), to_lab_checked(background))
    frame = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)
    plain_bg, plain = to_lab_checked(first), to_lab_checked(frame)
    d = plain - plain_bg
    chroma = np.sqrt(d[:, :, 1] ** 2 + d[:, :, 2] ** 2)
    shadow = (d[:, :, 0] < 0) & (plain[:, :, 0] > 0.45 * plain_bg[:, :, 0]) & (chroma < 14.0)
    dist = np.sqrt(d[:, :, 0] ** 2 + chroma**2)
    expected = np.where(shadow, chroma + 0.15 * np.abs(d[:, :, 0]), dist)
    for kept in (False, True, True):
        assert np.array_equal(segment.difference(frame, first, 0.45, kept=kept), expected)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_layout_fits_of_many_subsets_equal_one_fit_each(n: int) -> None:
    """The fits made together for a pip's possible side faces, as each alone."""
    rng = np.random.default_rng(40 + n)
    for trial in range(150):
        side = float(rng.uniform(12, 90))
        count = n + 1
        points = (rng.normal(0, 0.25 * side, (count, 2)) + rng.uniform(0, 600, 2)).astype(
            np.float32
        )
        if trial % 3 == 0 and count <= 6:
            points = _face_points(count, side, rng)
        if trial % 5 == 0:
            points = np.round(points)
        subsets = [[j for j in range(count) if j != i] for i in range(count)]
        if n <= 6:
            stack = np.ascontiguousarray(points[np.array(subsets)])
            assert pipmod._fits_now(stack, side) == [pipmod._fit_now(s, side) for s in stack]
        pipmod._FIT_CACHE.clear()
        expected = [pipmod._fit_checked(points[s], side) for s in subsets]
        assert pipmod._fits(points, subsets, side) == expected
        assert pipmod._fits(points, subsets, side) == expected  # now from the kept fits


def _swollen_plain(
    points: np.ndarray, areas: np.ndarray, side: float
) -> tuple[tuple[float, float] | None, tuple[float, float] | None, float] | None:
    """Whether :func:`pips._swollen` finds no swollen pip, as numpy's argmax, delete and
    median decide it (None: it finds one, and goes on)."""
    if not 2 <= len(areas) <= 6:
        return None, None, 0.0
    big = int(np.argmax(areas))
    if areas[big] < pipmod.SWOLLEN * float(np.median(np.delete(areas, big))):
        return None, None, 0.0
    return None


def test_swollen_pip_is_found_as_numpy_finds_it() -> None:
    rng = np.random.default_rng(50)
    for trial in range(2000):
        n = int(rng.integers(1, 8))
        areas = rng.choice([20.0, 21.0, 30.0, 40.0], n) if trial % 2 else rng.uniform(5, 60, n)
        points = _face_points(n, 40.0, rng) if n <= 6 else rng.uniform(0, 99, (n, 2))
        plain = _swollen_plain(points.astype(np.float32), areas, 40.0)
        got = pipmod._swollen(points.astype(np.float32), areas, 40.0)
        if plain is not None:
            assert got == plain
        else:
            assert got[0] is not None


def _cores_plain(mask: np.ndarray, side: float, k: int) -> np.ndarray:
    """:func:`vision.split._cores` written plainly: each core's pixels found and labelled
    one core after another."""
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
    core = (dist > split.CORE * side).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=8)
    if n - 1 == 0:
        return np.zeros(mask.shape, np.int32)
    shares = split._shares(stats[1:, cv2.CC_STAT_AREA].astype(np.float64), k)
    markers = np.zeros(mask.shape, np.int32)
    next_label = 1
    for i, share in enumerate(shares, start=1):
        ys, xs = np.nonzero(labels == i)
        if share <= 1 or len(xs) < share * 2:
            markers[ys, xs] = next_label
            next_label += 1
            continue
        points = np.column_stack([xs, ys]).astype(np.float32)
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
        cv2.setRNGSeed(1)
        _, parts, _ = cv2.kmeans(points, share, None, criteria, 3, cv2.KMEANS_PP_CENTERS)  # type: ignore[call-overload]
        for j in range(share):
            sel = parts.ravel() == j
            markers[ys[sel], xs[sel]] = next_label
            next_label += 1
    return markers


def test_touching_dice_cores_equal_the_plain_labelling() -> None:
    """Blobs of two to four touching squares (some run together edge to edge)."""
    rng = np.random.default_rng(60)
    for _ in range(150):
        side = float(rng.uniform(14, 50))
        mask = np.zeros((200, 200), np.uint8)
        k = int(rng.integers(2, 5))
        x, y = 40.0, 60.0
        for _ in range(k):
            box = cv2.boxPoints(((x, y), (side, side), float(rng.uniform(0, 90))))
            cv2.fillPoly(mask, [np.round(box).astype(np.int32)], 255)
            x += side * float(rng.uniform(0.8, 1.1))
            y += side * float(rng.uniform(-0.3, 0.3))
        expected = _cores_plain(mask, side, k)
        got = split._cores(mask, side, k)
        assert got.dtype == expected.dtype and np.array_equal(got, expected)
        contour = max(
            cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0],
            key=cv2.contourArea,
        )
        for part in split.split_touching(np.zeros((200, 200, 3), np.uint8), contour, k, side):
            assert part.dtype == np.int32 and len(part) >= 3


def test_inner_lab_equals_the_whole_crops_lab_inside_its_box() -> None:
    rng = np.random.default_rng(70)
    for trial in range(400):
        h, w = int(rng.integers(3, 120)), int(rng.integers(3, 120))
        frame = rng.integers(0, 256, (h + 6, w + 6, 3), dtype=np.uint8)
        if trial % 2:
            frame = cv2.GaussianBlur(frame, (0, 0), 2)
        crop = frame[2 : 2 + h, 3 : 3 + w]  # a view, as crops of a frame are
        inner = np.zeros((h, w), np.uint8)
        x0, y0 = int(rng.integers(0, w)), int(rng.integers(0, h))
        inner[y0 : int(rng.integers(y0, h + 1)), x0 : int(rng.integers(x0, w + 1))] = 255
        x, y, bw, bh = cv2.boundingRect(inner)
        box = (slice(y, y + bh), slice(x, x + bw))
        (got, reads), expected = pipmod._inner_lab(crop, inner), pipmod._crop_lab_checked(crop)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert np.array_equal(got[box], expected[box])
        assert np.array_equal(got[reads], expected[reads])
        covered = np.zeros_like(inner)
        covered[reads] = 1
        assert not np.any((inner > 0) & (covered == 0))  # the box holds every inner pixel


def _drawn_die(rng: np.random.Generator, side: float) -> tuple[np.ndarray, np.ndarray]:
    """A frame with one die (a turned square of a random body colour with round pips of
    another) on a random floor, and the die's outline."""
    floor = rng.integers(0, 256, 3).tolist()
    frame = np.full((160, 160, 3), floor, np.uint8)
    frame = cv2.add(frame, rng.integers(0, 12, frame.shape, dtype=np.uint8))
    centre, turn = (80.0 + rng.uniform(-5, 5), 80.0 + rng.uniform(-5, 5)), rng.uniform(0, 90)
    outline = np.round(cv2.boxPoints((centre, (side, side), turn))).astype(np.int32)
    cv2.fillPoly(frame, [outline], rng.integers(0, 256, 3).tolist())
    rotated, _ = pipmod._templates(int(rng.integers(1, 7)))
    for x, y in rotated[int(rng.integers(len(rotated)))] * 0.27 * side + centre:
        cv2.circle(frame, (round(x), round(y)), max(1, round(0.09 * side)), (20, 20, 20), -1)
    return cv2.GaussianBlur(frame, (3, 3), 0), outline.reshape(-1, 1, 2)


def test_pips_found_on_the_inner_lab_equal_those_on_the_whole_crops_lab() -> None:
    rng = np.random.default_rng(71)
    found = 0
    for _ in range(120):
        side = float(rng.uniform(20, 70))
        frame, outline = _drawn_die(rng, side)
        fast = pipmod.face_crop(frame, outline, side)
        x, y = fast.origin
        h, w = fast.mask.shape[:2]
        crop = frame[y : y + h // fast.zoom, x : x + w // fast.zoom]
        if fast.zoom > 1:
            (crop,) = pipmod._enlarge(fast.zoom, crop)
        plain = replace(fast, lab=pipmod._crop_lab_checked(crop), reads=(slice(None), slice(None)))
        pips = pipmod.detect_pips(frame, outline, side, prepared=fast)
        assert pips == pipmod.detect_pips(frame, outline, side, prepared=plain)
        found += bool(pips[0])
    assert found > 100  # the drawn dice show their pips


def test_a_crop_of_the_full_backgrounds_lab_is_the_lab_of_the_crop(
    tower_calibration: Calibration,
) -> None:
    """The side-face check converts the full-size empty tray once and crops the result."""
    full = tower_calibration.full_background
    whole = tower_calibration.full_background_lab
    weighted = tower_calibration.full_background_weighted_lab
    rng = np.random.default_rng(80)
    h, w = full.shape[:2]
    frame = rng.integers(0, 256, full.shape, dtype=np.uint8)
    for _ in range(30):
        x0, y0 = int(rng.integers(0, w - 3)), int(rng.integers(0, h - 3))
        x1, y1 = int(rng.integers(x0 + 3, w + 1)), int(rng.integers(y0 + 3, h + 1))
        crop = full[y0:y1, x0:x1]
        lab = segment.weighted_lab(whole[y0:y1, x0:x1])
        assert np.array_equal(lab, to_lab_checked(crop))
        assert np.array_equal(weighted[y0:y1, x0:x1], lab)
        image = frame[y0:y1, x0:x1]
        assert np.array_equal(
            segment.difference(image, crop, 0.45, background_lab=lab),
            segment.difference(image, crop, 0.45),
        )


def test_crops_cut_together_equal_each_die_cut_alone() -> None:
    """Dice of one side whose windows are smoothed side by side, at the frame's edges too,
    and dice of several sides (some shrunk without smoothing) in one call."""
    rng = np.random.default_rng(90)
    for trial in range(160):
        h, w = int(rng.integers(60, 400)), int(rng.integers(60, 500))
        frame = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        if trial % 2:
            frame = cv2.GaussianBlur(frame, (0, 0), 1.5)
        side = float(rng.uniform(20, 130)) if trial % 3 else float(rng.uniform(34.0, 37.0))
        dice = [
            ((float(rng.uniform(-5, w + 5)), float(rng.uniform(-5, h + 5))), side)
            for _ in range(int(rng.integers(1, 9)))
        ]
        if trial % 4 == 0:  # another die size in the same frame
            dice.append(((float(rng.uniform(0, w)), float(rng.uniform(0, h))), side * 0.8))
        together = profile.die_window_crops(frame, dice)
        alone = [profile.die_window_crop(frame, centre, s) for centre, s in dice]
        assert len(together) == len(alone)
        for got, expected in zip(together, alone, strict=True):
            assert got.flags["C_CONTIGUOUS"] and np.array_equal(got, expected)


def test_smoothed_window_middles_fit_their_windows() -> None:
    """Every die side whose crop is smoothed gets the shared smoothing."""
    for side in np.arange(30.0, 700.0, 0.37):
        smoothed = profile.crop_smoothing(float(side), profile.CROP_PX) > 0
        assert (profile._smoothed_half(float(side)) is not None) == smoothed


@pytest.mark.parametrize("n", [1, 2, 6, 11])
def test_crop_features_equal_the_plain_features(n: int) -> None:
    rng = np.random.default_rng(100 + n)
    for trial in range(12):
        crops = [rng.integers(0, 256, (32, 32, 3), dtype=np.uint8) for _ in range(n)]
        if trial % 2:
            crops = [cv2.GaussianBlur(c, (0, 0), 1.2) for c in crops]
        fast, plain = profile.crop_features(crops), profile.crop_features_checked(crops)
        assert fast.dtype == plain.dtype and fast.shape == plain.shape
        assert np.array_equal(fast, plain)


def test_colour_distance_of_crops_equals_numpys() -> None:
    """Views of a crop of every shape a die gives, some of one row or column, and colours
    of few levels (many equal differences)."""
    rng = np.random.default_rng(120)
    for trial in range(600):
        h, w = int(rng.integers(1, 80)), int(rng.integers(1, 80))
        lab = rng.normal(0, 60, (h + 4, w + 4, 3)).astype(np.float32)
        if trial % 3 == 0:
            lab = np.round(lab)
        view = lab[2 : 2 + h, 1 : 1 + w] if trial % 2 else lab
        body = rng.normal(0, 40, 3).astype(np.float32)
        expected = np.sqrt(((view - body) ** 2).sum(axis=2))
        fast = kernels.colour_distance(view, body)
        for got in (fast, kernels.colour_distance_checked(view, body)):
            assert got.dtype == expected.dtype and np.array_equal(got, expected)


def test_a_regions_rectangle_is_its_outlines() -> None:
    """Regions keep their outline's minimum-area rectangle once made."""
    rng = np.random.default_rng(130)
    for _ in range(50):
        centre = (float(rng.uniform(20, 600)), float(rng.uniform(20, 400)))
        box = cv2.boxPoints((centre, tuple(rng.uniform(5, 80, 2)), float(rng.uniform(0, 90))))
        contour = np.round(box).astype(np.int32).reshape(-1, 1, 2)
        region = segment._region(contour, int(rng.integers(1, 5)))
        assert region.rect == cv2.minAreaRect(region.contour)
        assert region.rect is region.rect


def _two_place_median(values: np.ndarray, axis: int) -> np.ndarray:
    """The middle of ``values`` by numpy's own two-place partition (what np.median does)."""
    n = values.shape[axis]
    before = (slice(None),) * (axis % values.ndim)
    if n % 2:
        odd: np.ndarray = np.partition(values, n // 2, axis=axis)[(*before, n // 2)]
        return odd
    part = np.partition(values, (n // 2 - 1, n // 2), axis=axis)
    pair = part[(*before, n // 2 - 1)] + part[(*before, n // 2)]
    middle: np.ndarray = pair / values.dtype.type(2)
    return middle


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    signs = np.array_equal(np.signbit(a), np.signbit(b))
    return a.dtype == b.dtype and np.array_equal(a, b) and signs


def test_medians_by_one_selection_equal_the_two_place_partition() -> None:
    """Vectors and arrays of many ties, zeros of both signs among them."""
    rng = np.random.default_rng(140)
    for trial in range(3000):
        shape = [int(rng.integers(1, 6)) for _ in range(int(rng.integers(1, 4)))]
        axis = int(rng.integers(0, len(shape)))
        shape[axis] = int(rng.integers(1, 60))
        values = rng.normal(0, 3, shape).astype(np.float32 if trial % 3 else np.float64)
        if trial % 4 == 0:
            values = np.round(values)
        if trial % 5 == 0:
            values[values < 0.5] = 0.0
        if trial % 7 == 0:  # zeros of both signs
            values = np.round(values) * np.sign(rng.normal(size=shape)).astype(values.dtype) * 0
        assert _same_bits(kernels.median_of(values, axis), _two_place_median(values, axis))
        lab = np.round(rng.normal(0, 3, (9, 11, 3))).astype(np.float32) * (trial % 2)
        pixels = np.sort(rng.choice(99, int(rng.integers(1, 99)), replace=False))
        flat = np.ascontiguousarray(lab.reshape(-1, 3)[pixels].T)
        assert _same_bits(kernels.body_colour(lab, pixels), _two_place_median(flat, 1))


def _die_at(
    rng: np.random.Generator, frame: np.ndarray, centre: tuple[float, float], side: float
) -> np.ndarray:
    """A turned die (maybe with a side face's band beyond one edge, maybe with a shadow)
    drawn on ``frame`` at ``centre``, with its pips; its outline at full resolution."""
    turn = float(rng.uniform(0, 90))
    body = rng.integers(0, 256, 3).tolist()
    if rng.random() < 0.5:  # a side face: a band a fraction of a side deep beyond an edge
        depth = float(rng.uniform(0.05, 0.35)) * side
        a = math.radians(turn)
        shifted = (centre[0] + depth / 2 * math.cos(a), centre[1] + depth / 2 * math.sin(a))
        band = cv2.boxPoints((shifted, (side + depth, side), turn))
        cv2.fillPoly(frame, [np.round(band).astype(np.int32)], [v // 2 for v in body])
    if rng.random() < 0.3:  # a shadow beside it
        shadow = cv2.boxPoints(
            ((centre[0] + 0.2 * side, centre[1] + 0.2 * side), (side, side), turn)
        )
        cv2.fillPoly(frame, [np.round(shadow).astype(np.int32)], (40, 40, 40))
    outline = np.round(cv2.boxPoints((centre, (side, side), turn))).astype(np.int32)
    cv2.fillPoly(frame, [outline], body)
    rotated, _ = pipmod._templates(int(rng.integers(1, 7)))
    for x, y in rotated[int(rng.integers(len(rotated)))] * 0.27 * side + centre:
        cv2.circle(frame, (round(x), round(y)), max(1, round(0.09 * side)), (20, 20, 20), -1)
    return outline.reshape(-1, 1, 2)


def test_side_face_equals_the_plain_grid(tower_calibration: Calibration) -> None:
    """Dice drawn on the calibrated empty tray (lone, in pairs and threes, at the frame's
    edges, flat or with a side face's band): the side face measured on the pixels that
    stand out equals the one measured over the crop's whole grid, and so does one of a die
    nothing stands out of."""
    rng = np.random.default_rng(150)
    side = tower_calibration.die_side
    h, w = tower_calibration.full_background.shape[:2]
    looked = 0
    for trial in range(60):
        frame = tower_calibration.full_background.copy()
        if trial % 2:
            frame = cv2.add(frame, rng.integers(0, 9, frame.shape, dtype=np.uint8))
        x = float(rng.uniform(0.0, 0.1)) * w if trial % 5 == 0 else float(rng.uniform(0.2, 0.8)) * w
        y = float(rng.uniform(0.2, 0.8)) * h
        dice = []
        for _ in range(int(rng.integers(1, 4))):
            if not (0 <= x < w and 0 <= y < h):
                break
            outline = _die_at(rng, frame, (x, y), side * float(rng.uniform(0.9, 1.1)))
            dice.append(outline)
            x += side * float(rng.uniform(0.95, 1.6))
            y += side * float(rng.uniform(-0.4, 0.4))
        frame = cv2.GaussianBlur(frame, (3, 3), 0)
        found = [
            (
                segment._region(o, 1, len(dice)),
                pipmod.count_pips(frame, segment._region(o, 1), side),
            )
            for o in dice
        ]
        for i, (region, count) in enumerate(found):
            others = [f for j, f in enumerate(found) if j != i]
            got = lean.side_face(frame, tower_calibration, region, count, others)
            assert got == lean.side_face_checked(frame, tower_calibration, region, count, others)
            looked += got[0] > 0
    assert looked > 30  # the drawn dice show something beyond their squares
    region, count = found[0]
    empty = tower_calibration.full_background
    assert lean.side_face(empty, tower_calibration, region, count) == lean.side_face_checked(
        empty, tower_calibration, region, count
    )
