"""The detector's coarse look first: trusted for big dice, the full side for small, half-seen
or doubtful ones (the shipped models on rendered frames, and hand-made detector outputs)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from tests.vision.conftest import LookingDetector
from vision.detect import (
    COARSE_LEAST_SIDE,
    COARSE_SIDE,
    OUTPUTS,
    STRIDE,
    WORK_SIDE,
    Detector,
)
from vision.learned import COCKED, read_detected, read_learned
from vision.reading import Reading
from vision.render import DIE_MM, random_scene


@pytest.fixture
def detector() -> LookingDetector:
    return LookingDetector()


def _values(reading: Reading) -> list[tuple[int, int, int]]:
    return sorted((d.value, round(d.center[0]), round(d.center[1])) for d in reading.dice)


def _truth(truth: dict[str, Any]) -> list[int]:
    return sorted(int(d["value"]) for d in truth["dice"])


def test_a_frame_of_big_dice_is_read_from_the_coarse_look_alone(detector: LookingDetector) -> None:
    frame, truth = random_scene(4, 6, style="tower", cocked=0, die_mm=DIE_MM * 1.25)
    reading = read_learned(frame, detector, 6)
    assert detector.coarse == 1 and detector.full == 0
    assert reading.ok and sorted(d.value for d in reading.dice) == _truth(truth)
    full = read_detected(frame, detector.detect(frame), 6)
    assert [v for v, _, _ in _values(full)] == [v for v, _, _ in _values(reading)]


def test_a_frame_of_small_dice_takes_the_full_look(
    detector: LookingDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = DIE_MM * 0.5  # under COARSE_LEAST_SIDE pixels at the coarse side
    frame, truth = random_scene(5, 6, style="tower", cocked=0, die_mm=small)
    assert truth["die_px"] * COARSE_SIDE / WORK_SIDE < COARSE_LEAST_SIDE
    assert detector.detect_coarse(frame) is None
    # dice this small are looked at closer too (test_closer.py); here only the full look
    monkeypatch.setattr(detector, "detect_closer", lambda image, found, threshold=0.2: None)
    reading = read_learned(frame, detector, 6)
    assert detector.full == 1
    assert _values(reading) == _values(read_detected(frame, detector.detect(frame), 6))


def test_a_reading_that_is_not_ok_is_looked_at_again_at_the_full_side(
    detector: LookingDetector,
) -> None:
    frame, _ = random_scene(4, 6, style="tower", cocked=0, die_mm=DIE_MM * 1.25)
    assert detector.detect_coarse(frame) is not None
    reading = read_learned(frame, detector, 7)  # seven expected: not ok from either look
    assert detector.full == 1 and not reading.ok
    assert _values(reading) == _values(read_detected(frame, detector.detect(frame), 7))


def test_no_coarse_side_and_small_frames_look_at_the_full_side_only(
    detector: LookingDetector,
) -> None:
    frame, _ = random_scene(4, 6, style="tower", cocked=0, die_mm=DIE_MM * 1.25)
    read_learned(frame, detector, 6, coarse_side=None)
    assert detector.coarse == 0 and detector.full == 1
    small, _ = random_scene(4, 3, size=(320, 240), style="tower")
    assert detector.detect_coarse(small) is None  # no cheaper look than the full one
    assert detector.detect_coarse(frame, side=WORK_SIDE) is None


def _grid(frame: np.ndarray) -> np.ndarray:
    """A coarse look's output for ``frame`` with no centre anywhere."""
    scale = COARSE_SIDE / max(frame.shape[:2])
    rows = -(-round(frame.shape[0] * scale) // STRIDE)
    cols = -(-round(frame.shape[1] * scale) // STRIDE)
    out = np.zeros((1, OUTPUTS, rows, cols), np.float32)
    out[0, 0] = -10.0
    return out


def _put(out: np.ndarray, i: int, j: int, score: float, side_px: float) -> None:
    out[0, 0, i, j] = np.log(score / (1 - score))
    out[0, 3, i, j] = np.log(side_px / STRIDE)
    out[0, 4:, i, j] = -5.0
    out[0, 4 + 3, i, j] = 5.0


@pytest.mark.parametrize(
    ("second", "dice"),
    [
        (None, 1),  # one big, sure die
        ((30, 40, 0.9, 24.0), 2),  # two
        ((30, 40, 0.2, 24.0), None),  # a centre half seen, far from the die found
        ((30, 40, 0.1, 24.0), 1),  # too faint to count
        ((30, 40, 0.9, COARSE_LEAST_SIDE - 2), None),  # a die smaller than trained on
    ],
)
def test_the_coarse_look_is_trusted_only_without_small_or_half_seen_dice(
    detector: LookingDetector,
    monkeypatch: pytest.MonkeyPatch,
    second: tuple[Any, ...] | None,
    dice: int | None,
) -> None:
    frame = np.full((480, 640, 3), 128, np.uint8)
    out = _grid(frame)
    _put(out, 10, 10, 0.95, 24.0)
    if second is not None:
        _put(out, *second)
    monkeypatch.setattr(detector, "raw", lambda blob: out)
    found = detector.detect_coarse(frame)
    assert (found is None) == (dice is None)
    if found is not None:
        assert len(found) == dice
        assert found[0].side == pytest.approx(24.0 * max(frame.shape[:2]) / COARSE_SIDE, rel=1e-4)


def test_nothing_found_by_the_coarse_look_is_not_trusted(
    detector: LookingDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame = np.full((480, 640, 3), 128, np.uint8)
    out = _grid(frame)
    monkeypatch.setattr(detector, "raw", lambda blob: out)
    assert detector.detect_coarse(frame) is None


def test_a_die_the_coarse_look_half_suspects_of_leaning_is_looked_at_again(
    detector: LookingDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, _ = random_scene(4, 6, style="tower", cocked=0, die_mm=DIE_MM * 1.25)
    found = Detector.detect_coarse(detector, frame)
    assert found is not None and read_detected(frame, found, 6).ok
    leaning = COCKED * 0.75  # under the tilt threshold, over half of it
    first = found[0]
    faces = first.probs[1:] * (1 - leaning) / first.probs[1:].sum()
    doubtful = [dataclasses.replace(first, probs=np.r_[leaning, faces]), *found[1:]]
    monkeypatch.setattr(detector, "detect_coarse", lambda image, side=COARSE_SIDE: doubtful)
    assert read_detected(frame, doubtful, 6).ok  # the coarse reading alone would pass
    reading = read_learned(frame, detector, 6)
    assert detector.full == 1
    assert _values(reading) == _values(read_detected(frame, detector.detect(frame), 6))
