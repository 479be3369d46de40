"""Pips of a close grey but another hue (``pip_contrast``), and the training recipe's finishes
(marbled, translucent, glinting and metal dice with such pips)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.vision.conftest import load_tool
from tests.vision.test_render import clean
from vision.render import HARD, RenderError, random_scene
from vision.render.style import LEAST_PIP_CONTRAST, MIN_PIP_CONTRAST, pip_colors_for

train_detector = load_tool("train_detector")


def test_a_lower_pip_contrast_lets_red_pips_onto_black_dice() -> None:
    assert pip_colors_for("black") == ("white",)
    assert pip_colors_for("black", least=LEAST_PIP_CONTRAST) == ("white", "red")
    assert pip_colors_for("red", least=LEAST_PIP_CONTRAST) == ("black", "white")
    style = dataclasses.replace(HARD, die_colors=("black", "red"), pip_contrast=LEAST_PIP_CONTRAST)
    seen = set()
    for seed in range(8):
        _, truth = random_scene(seed, 12, style=style)
        seen |= {(d["color"], d["pip_color"]) for d in truth["dice"]}
    assert ("black", "red") in seen and ("red", "black") in seen
    for seed in range(8):  # at the default contrast never
        _, truth = random_scene(seed, 12, style=dataclasses.replace(style, pip_contrast=90.0))
        assert {d["pip_color"] for d in truth["dice"] if d["color"] == "black"} <= {"white"}


def test_the_default_pip_contrast_keeps_every_frame() -> None:
    same = dataclasses.replace(HARD, pip_contrast=MIN_PIP_CONTRAST)
    assert np.array_equal(random_scene(3, 10, style=same)[0], random_scene(3, 10, style=HARD)[0])


@pytest.mark.parametrize("value", [LEAST_PIP_CONTRAST - 1, MIN_PIP_CONTRAST + 1, -5.0])
def test_a_pip_contrast_out_of_range_is_a_clear_error(value: float) -> None:
    with pytest.raises(RenderError, match=f"pip_contrast={value}; use 40..90 grey levels"):
        clean(pip_contrast=value)
