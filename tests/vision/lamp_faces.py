"""Made-up pips and second opinions for the tests of the lamp's rules (vision.lamp): a die
of side SIDE at CENTRE with its pips on the usual grid, its candidate, and a sure opinion."""

from __future__ import annotations

import numpy as np

from vision.found import Found
from vision.pips import Pip
from vision.segment import square_region

SIDE = 40.0
A = 0.27  # a pip's offset from the centre on the face's grid, in die sides
CENTRE = (100.0, 100.0)


def pips(grid: list[tuple[int, int]]) -> list[Pip]:
    """Painted pips at the places ``grid`` names, each (u, v) in -1, 0, 1."""
    return [Pip(CENTRE[0] + u * A * SIDE, CENTRE[1] + v * A * SIDE, 40.0, 2.2) for u, v in grid]


def found(count: object) -> Found:
    """The die at CENTRE as the reader's candidate, with ``count`` its pip count."""
    return Found(square_region(CENTRE, SIDE), count, CENTRE)  # type: ignore[arg-type]


def sure(value: int) -> np.ndarray:
    """A second opinion sure (0.97) that the die shows ``value``."""
    probs = np.full(6, 0.006)
    probs[value - 1] = 0.97
    return probs
