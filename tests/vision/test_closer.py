"""The detector's closer look: small dice (a pile in a phone photo) are looked for again with
more of the frame's pixels, or in the frame enlarged where it has no more."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.vision.conftest import LookingDetector
from vision.detect import (
    CLOSER_BELOW,
    CLOSER_MOST,
    CLOSER_SIDE,
    DETECTED,
    WORK_SIDE,
    Detection,
    prepare,
)
from vision.learned import read_learned
from vision.reading import Reading
from vision.render import random_pile, random_scene


@pytest.fixture
def detector() -> LookingDetector:
    return LookingDetector()


def _dice(side: float, n: int = 5, score: float = 0.9) -> list[Detection]:
    probs = np.full(7, 1 / 7)
    return [Detection((50.0 + 60 * k, 50.0), side, score, probs) for k in range(n)]


@pytest.mark.parametrize(
    ("shape", "side", "score", "closer"),
    [
        ((480, 640), CLOSER_BELOW, 0.9, None),  # big enough where they were seen
        ((480, 640), CLOSER_BELOW - 4, 0.9, round(WORK_SIDE * CLOSER_SIDE / (CLOSER_BELOW - 4))),
        ((240, 320), 16.0, 0.9, 640),  # a small frame: the side that brings 16 px to 32
        ((960, 1280), 2 * CLOSER_BELOW, 0.9, None),  # seen at half their side
        ((960, 1280), 2 * CLOSER_BELOW - 2, 0.9, round(WORK_SIDE * CLOSER_SIDE * 2 / 46)),
        ((960, 1280), 8.0, 0.9, CLOSER_MOST),  # tiny: at most CLOSER_MOST
        ((960, 1280), 20.0, DETECTED / 2, None),  # nothing found
    ],
)
def test_a_closer_look_is_taken_only_for_small_dice(
    detector: LookingDetector,
    monkeypatch: pytest.MonkeyPatch,
    shape: tuple[int, int],
    side: float,
    score: float,
    closer: int | None,
) -> None:
    seen: list[tuple[int, bool]] = []

    def look(
        image: np.ndarray, threshold: float = 0.2, work_side: int = WORK_SIDE, enlarge: bool = False
    ) -> list[Any]:
        seen.append((work_side, enlarge))
        return []

    monkeypatch.setattr(detector, "detect", look)
    frame = np.zeros((*shape, 3), np.uint8)
    found = detector.detect_closer(frame, _dice(side, score=score))
    assert (found is None) == (closer is None)
    assert seen == ([] if closer is None else [(closer, True)])


def test_prepare_enlarges_only_when_asked() -> None:
    frame = np.zeros((240, 320, 3), np.uint8)
    assert prepare(frame, 640)[0].shape == (1, 3, 240, 320)
    blob, scale = prepare(frame, 640, enlarge=True)
    assert blob.shape == (1, 3, 480, 640) and scale == 2.0


def _right(reading: Reading, truth: dict[str, Any]) -> int:
    """Labelled dice read with their value, each matched to the nearest reported die."""
    px = truth["die_px"]
    right = 0
    for d in truth["dice"]:
        if d["cocked"] or d["occluded"]:
            continue
        near = [
            r
            for r in reading.dice
            if np.hypot(r.center[0] - d["center"][0], r.center[1] - d["center"][1]) < px / 2
        ]
        right += any(r.value == d["value"] for r in near)
    return right


def test_a_pile_of_small_dice_in_a_large_frame_is_read_better_closer(
    detector: LookingDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    piles = [
        random_pile(seed, 30, style="hard", die_mm=8.0, size=(1280, 960)) for seed in (3, 4, 5)
    ]
    closer = [_right(read_learned(frame, detector, None), truth) for frame, truth in piles]
    assert max(detector.sides) > WORK_SIDE
    monkeypatch.setattr(detector, "detect_closer", lambda image, found, threshold=0.2: None)
    plain = [_right(read_learned(frame, detector, None), truth) for frame, truth in piles]
    assert sum(closer) > sum(plain), (closer, plain)


def test_a_tower_frame_is_not_looked_at_closer_at_either_size(detector: LookingDetector) -> None:
    for size in ((640, 480), (1296, 972)):
        frame, truth = random_scene(2, 6, style="tower", size=size)
        reading = read_learned(frame, detector, 6)
        assert all(side <= WORK_SIDE for side in detector.sides)
        assert _right(reading, truth) == 6


def test_a_pile_of_small_dice_in_a_small_frame_is_read_better_enlarged(
    detector: LookingDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    piles = [random_pile(seed, 30, style="hard", die_mm=6.5) for seed in (3, 4, 5)]
    closer = [_right(read_learned(frame, detector, None), truth) for frame, truth in piles]
    assert max(detector.sides) > WORK_SIDE
    monkeypatch.setattr(detector, "detect_closer", lambda image, found, threshold=0.2: None)
    plain = [_right(read_learned(frame, detector, None), truth) for frame, truth in piles]
    assert sum(closer) > sum(plain), (closer, plain)
