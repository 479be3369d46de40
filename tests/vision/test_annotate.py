"""Annotation: boxes and values drawn on a copy, unsure dice marked apart, the reason shown."""

from __future__ import annotations

import numpy as np
import pytest

from vision import Die, Reading, annotate
from vision.annotate import PROBLEM, SURE, UNSURE, label_places


def _frame() -> np.ndarray:
    return np.full((240, 320, 3), 90, np.uint8)


def _has(image: np.ndarray, colour: tuple[int, int, int]) -> bool:
    return bool(np.all(image == np.array(colour, np.uint8), axis=2).any())


def test_sure_and_unsure_dice_are_drawn_differently() -> None:
    frame = _frame()
    reading = Reading(
        (
            Die(4, (80.0, 80.0), (60, 60, 100, 100), 0.97),
            Die(2, (200.0, 150.0), (180, 130, 220, 170), 0.2),
        ),
        ok=False,
        reason="the die at (200, 150) is unclear",
    )
    out = annotate(frame, reading)
    assert out.shape == frame.shape and out is not frame
    assert np.all(frame == 90), "the input frame is left untouched"
    assert _has(out[55:105, 55:105], SURE) and not _has(out[55:105, 55:105], UNSURE)
    assert _has(out[125:175, 175:225], UNSURE) and not _has(out[125:175, 175:225], SURE)
    assert _has(out[:22], PROBLEM), "the reason is written across the top"


def test_an_ok_reading_has_no_banner() -> None:
    reading = Reading((Die(6, (80.0, 80.0), (60, 60, 100, 100), 0.9),), ok=True)
    out = annotate(_frame(), reading)
    assert not _has(out[:22], PROBLEM)


def test_annotate_checks_the_frame() -> None:
    with pytest.raises(ValueError, match="uint8"):
        annotate(np.zeros((100, 100, 3), np.float64), Reading((), ok=False, reason="x"))


def _rect(origin: tuple[int, int], size: tuple[int, int]) -> tuple[int, int, int, int]:
    (x, y), (w, h) = origin, size
    return x, y - h, x + w, y


def test_labels_of_dice_side_by_side_do_not_overlap() -> None:
    # three dice in a row, a label's width apart at most: each label finds a free place
    boxes = [(100, 100, 130, 130), (120, 104, 150, 134), (140, 96, 170, 126)]
    sizes = [(60, 12)] * 3
    places = label_places(boxes, sizes, (320, 240))
    rects = [_rect(o, s) for o, s in zip(places, sizes, strict=True)]
    for i, a in enumerate(rects):
        assert a[0] >= 0 and a[2] <= 320 and a[1] >= 0 and a[3] <= 240
        for b in rects[i + 1 :]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)
    assert places[0] == (100, 96), "the first label sits above its box"


def test_a_label_keeps_off_the_banner_and_inside_the_frame() -> None:
    box = (300, 5, 318, 23)  # at the top right corner
    ((x, y),) = label_places([box], [(50, 12)], (320, 240), top=22)
    assert y - 12 >= 22 and x + 50 <= 320
