"""The reader's fast paths give the same bits as the plain code they replace (kept beside
them as the checked path), on random inputs and on the shapes the reader feeds them."""

from __future__ import annotations

import numpy as np
import pytest

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
