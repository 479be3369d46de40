"""Made-up pips and second opinions for the pip count's tests: the places of each face's
pips, a die of side SIDE at CENTRE with its pips there, its candidate, and a sure opinion."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.found import Found
from vision.pips import Pip
from vision.segment import square_region

SIDE = 40.0
A = 0.27  # a pip's offset from the centre on the face's grid, in die sides
CENTRE = (100.0, 100.0)
# where each face's pips sit: (u, v) in -1, 0, 1 across and down the face
GRID = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def pips(grid: Sequence[tuple[float, float]], centre: tuple[float, float] = CENTRE) -> list[Pip]:
    """Painted pips at the places ``grid`` names, each (u, v) in -1, 0, 1 (or between)."""
    return [Pip(centre[0] + u * A * SIDE, centre[1] + v * A * SIDE, 40.0, 2.2) for u, v in grid]


def face(value: int, centre: tuple[float, float] = CENTRE) -> list[Pip]:
    """The pips of a flat face of ``value``."""
    return pips(GRID[value], centre)


def found(count: object) -> Found:
    """The die at CENTRE as the reader's candidate, with ``count`` its pip count."""
    return Found(square_region(CENTRE, SIDE), count, CENTRE)  # type: ignore[arg-type]


def sure(value: int) -> np.ndarray:
    """A second opinion sure (0.97) that the die shows ``value``."""
    probs = np.full(6, 0.006)
    probs[value - 1] = 0.97
    return probs
