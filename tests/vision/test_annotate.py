"""Annotation: boxes and values drawn on a copy, unsure dice marked apart, the reason shown."""

from __future__ import annotations

import numpy as np
import pytest

from vision import Die, Reading, annotate
from vision.annotate import PROBLEM, SURE, UNSURE


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
