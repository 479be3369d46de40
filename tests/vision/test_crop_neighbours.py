"""benchmarks/crop_neighbours.py: whose face-reader crop holds another die's pips, counted on
rendered dice whose places are known."""

from __future__ import annotations

import numpy as np

from tests.vision.conftest import load_bench
from tests.vision.test_render import CLEAN, grey
from vision.render import render_tray

crop_neighbours = load_bench("crop_neighbours")


def _pair(gap_mm: float, angle: float) -> list[dict[str, object]]:
    """Two dice side by side along the frame's diagonal or its x axis, ``gap_mm`` apart."""
    t = np.radians(angle)
    step = 16.0 + gap_mm
    return [
        {"value": 4, "x": 100.0, "y": 90.0, "angle": angle, "cocked": False},
        {
            "value": 6,
            "x": 100.0 + step * float(np.cos(t)),
            "y": 90.0 + step * float(np.sin(t)),
            "angle": angle,
            "cocked": False,
        },
    ]


def test_the_rendered_pip_centres_lie_on_the_drawn_pips() -> None:
    frame, truth = render_tray(_pair(30.0, 20.0), style=CLEAN, die_mm=16.0)
    g = grey(frame)
    for die in truth["dice"]:
        for x, y in crop_neighbours.pip_centres(die):
            assert g[round(y), round(x)] < 140  # black pips on white dice (236): on a pip


def test_a_squared_neighbour_on_the_diagonal_puts_its_pips_in_the_crop_a_far_one_does_not() -> None:
    _, near = render_tray(_pair(0.5, 45.0), style=CLEAN, die_mm=16.0)
    # the six's middle pips reach into the four's square crop; the four's corner pips stay
    # just outside the six's (0.73 of a side off, the crop reaching 0.65)
    assert crop_neighbours.crowded_dice(near["dice"]) == [(True, True), (False, True)]
    _, along = render_tray(_pair(0.5, 0.0), style=CLEAN, die_mm=16.0)  # square to the crop
    assert crop_neighbours.crowded_dice(along["dice"]) == [(False, True), (False, True)]
    _, far = render_tray(_pair(30.0, 45.0), style=CLEAN, die_mm=16.0)
    assert crop_neighbours.crowded_dice(far["dice"]) == [(False, False), (False, False)]
