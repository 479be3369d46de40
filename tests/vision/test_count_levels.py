"""A die found without a calibration whose count is unsure is counted at other pip thresholds
too and the surest count is kept (``vision.learned.COUNT_LEVELS``): dull pips under a glint
are found at a lower one, and such a count is a vote, never sure."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.learned
from tests.vision.test_outline import _finish, _turned, draw_die, floor
from vision.detect import Detection
from vision.learned import COUNT_LEVELS, SURE_COUNT, detected_count
from vision.pips import (
    PIP_LEVEL,
    SEARCHED_CAP,
    PipCount,
    PipLevel,
    confidence,
    count_pips,
)
from vision.segment import outlined_region
from vision.verdict import MIN_CONFIDENCE

SMOKE = (52, 50, 48)  # a dark body, BGR
DULL_RED = (50, 50, 150)  # its pips: red, dull, close to the body


def _glinting_die(value: int) -> tuple[np.ndarray, Detection]:
    """A dark die with dull red pips and a bright glint along its face, turned 20 degrees."""
    image = floor()
    box = 1.15 * draw_die(image, (100.0, 80.0), 44.0, 20.0, value, body=SMOKE, pip=DULL_RED)
    # a streak down the face's middle column, where a 4 and a 6 have no pip, brighter than
    # any pip
    a, b = _turned((0.0, -0.33 * 44.0), 20.0), _turned((0.0, 0.33 * 44.0), 20.0)
    ends = [(round(100 + p[0]), round(80 + p[1])) for p in (a, b)]
    cv2.line(image, ends[0], ends[1], (250, 250, 250), 2, cv2.LINE_AA)
    return _finish(image), Detection((100.0, 80.0), box, 0.99, np.full(7, 1 / 7))


def test_the_levels_begin_with_the_calibrated_paths_threshold() -> None:
    assert COUNT_LEVELS[0] == PIP_LEVEL
    assert any(share < PIP_LEVEL[0] for share, _ in COUNT_LEVELS)


def test_dull_pips_under_a_glint_are_counted_at_a_lower_threshold() -> None:
    for value in (4, 6):
        image, d = _glinting_die(value)
        region = outlined_region(image, d.centre, d.side)
        assert region is not None
        usual = count_pips(image, region, region.side)  # the glint sets the threshold
        assert usual.value != value
        count = detected_count(image, d)
        assert count.value == value and confidence(count) > confidence(usual)
        # found by searching the thresholds: a vote for its value, never a sure count
        assert count.searched and confidence(count) <= SEARCHED_CAP < MIN_CONFIDENCE


def test_a_sure_count_at_the_first_level_is_not_sought_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image = floor()
    box = draw_die(image, (100.0, 80.0), 40.0, 30.0, 5)
    levels: list[PipLevel] = []

    def counting(*args: object) -> PipCount:
        levels.append(args[3])  # type: ignore[arg-type]
        return count_pips(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(vision.learned, "count_pips", counting)
    count = detected_count(_finish(image), Detection((100.0, 80.0), box, 0.99, np.full(7, 1 / 7)))
    assert count.value == 5 and confidence(count) >= SURE_COUNT
    assert levels == [COUNT_LEVELS[0]]
    image, d = _glinting_die(4)
    levels.clear()
    detected_count(image, d)
    assert levels == list(COUNT_LEVELS)
