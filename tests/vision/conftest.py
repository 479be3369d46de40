"""Fixtures for the dice reader tests: rendered scenes with their calibrations."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.calibration import Calibration
from vision.reading import Die

DATA = Path(__file__).resolve().parent.parent / "data" / "vision"


def nearest(dice: tuple[Die, ...], center: list[float], radius: float) -> Die | None:
    """The read die whose centre is within ``radius`` of ``center``, if any."""
    best = None
    for die in dice:
        d = ((die.center[0] - center[0]) ** 2 + (die.center[1] - center[1]) ** 2) ** 0.5
        if d <= radius and (best is None or d < best[0]):
            best = (d, die)
    return None if best is None else best[1]


@pytest.fixture(scope="session")
def tower_calibration() -> Calibration:
    """A calibration of rendered scene 0 in the tower style."""
    from vision.bench import scene_calibration

    cal = scene_calibration(0, "tower")
    assert cal is not None
    return cal
