"""Pips of a close grey but another hue (``pip_contrast``), and the training recipe's finishes
(marbled, translucent, glinting and metal dice with such pips)."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import numpy as np
import pytest

from tests.vision.conftest import load_tool
from tests.vision.test_render import clean
from vision.render import DIE_COLORS, HARD, RenderError, random_scene
from vision.render.style import (
    ALL_DIE_COLORS,
    ALL_PIP_COLORS,
    CLASSIC_PIPS,
    LEAST_PIP_CONTRAST,
    MIN_PIP_CONTRAST,
    pip_colors_for,
)

train_detector = load_tool("train_detector")
train_faces = load_tool("train_faces")


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


def test_the_recipe_without_finishes_keeps_its_frames() -> None:
    for seed in range(20):
        style = train_detector.rendered_style(np.random.default_rng(seed))
        assert style.die_colors == tuple(DIE_COLORS) and style.metallic == 0.0
        assert style.pip_colors == CLASSIC_PIPS and style.pip_contrast == MIN_PIP_CONTRAST
        assert style.marbled == style.translucent == style.glints == 0.0
    # the bytes of the recipe's first frames, as rendered before the finishes' second recipe
    items = train_detector.rendered_items(4, False)
    digest = hashlib.sha256(b"".join(i.image.tobytes() for i in items)).hexdigest()
    assert digest.startswith("0b990393d49c6c22")


def test_the_finishes_recipe_renders_metal_dice_of_every_colour_and_close_grey_pips() -> None:
    styles = [train_detector.rendered_style(np.random.default_rng(s), True) for s in range(40)]
    assert all(s.die_colors == tuple(ALL_DIE_COLORS) for s in styles)
    assert all(s.pip_colors == tuple(ALL_PIP_COLORS) for s in styles)
    assert sum(s.metallic > 0 for s in styles) >= 30 and max(s.metallic for s in styles) <= 0.25
    assert {s.pip_contrast for s in styles} == {MIN_PIP_CONTRAST, LEAST_PIP_CONTRAST}
    assert all(s.marbled > 0 or s.translucent > 0 or s.glints > 0 for s in styles)
    metal = dataclasses.replace(styles[0], metallic=1.0, mixed_colors=True)
    plain = dataclasses.replace(styles[0], metallic=0.0, mixed_colors=True)
    assert not np.array_equal(
        random_scene(2, 8, style=metal)[0], random_scene(2, 8, style=plain)[0]
    )
    _, truth = random_scene(2, 12, style=dataclasses.replace(metal, pip_contrast=40.0))
    assert len({d["color"] for d in truth["dice"]}) >= 6


def test_the_finishes_recipe_keeps_its_faces_apart_in_the_cache(tmp_path: Path) -> None:
    detector = tmp_path / "d.onnx"
    detector.write_bytes(b"model")
    plain = train_faces.cache_path(tmp_path, 2000, False, detector)
    finished = train_faces.cache_path(tmp_path, 2000, True, detector)
    assert plain.name.startswith("faces-800000-2000-") and "finishes" not in plain.name
    assert f"-{train_detector.FINISHES}-" in finished.name and finished != plain


def test_a_crops_scale_spreads_as_side_jitter_says(capsys: pytest.CaptureFixture[str]) -> None:
    frame = np.full((120, 120, 3), 40, np.uint8)
    frame[40:80, 40:80] = 230  # one light die, 40 px, on a dark floor
    geometry = np.array([[60.0, 60.0, 40.0]], np.float32)
    index = np.zeros(1, int)

    def light_shares(jitter: float) -> np.ndarray:
        rng = np.random.default_rng(7)
        batch = train_faces.crop_batch(
            [frame], index, geometry, np.zeros(200, int), rng, 32, side_jitter=jitter
        )
        return np.asarray((batch.mean(axis=1) > 0.0).mean(axis=(1, 2)))

    still, loose = light_shares(0.0), light_shares(0.3)
    assert still.std() < 0.05 < loose.std()  # the die fills a crop as far as its scale says
    with pytest.raises(SystemExit):
        train_faces.main(["--photos", "x", "--side-jitter", "0.9"])
    assert "--side-jitter is 0.9; expected 0 to 0.5" in capsys.readouterr().err


def test_cocked_scale_leans_more_dice_in_the_same_styles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for seed in range(12):
        plain = train_detector.rendered_style(np.random.default_rng(seed), True, 2)
        more = train_detector.rendered_style(np.random.default_rng(seed), True, 2, 3.0)
        assert more.cocked == pytest.approx(3.0 * plain.cocked)
        assert dataclasses.replace(more, cocked=plain.cocked) == plain

    def faceless(scale: float) -> int:  # cocked (or hidden) dice: class 0
        items = train_detector.rendered_items(30, False, cocked_scale=scale)
        return sum(int((item.dice[:, 3] == 0).sum()) for item in items)

    assert faceless(4.0) > faceless(1.0) + 5
    detector = tmp_path / "d.onnx"
    detector.write_bytes(b"model")
    usual = train_faces.cache_path(tmp_path, 2000, True, detector, 2)
    assert train_faces.cache_path(tmp_path, 2000, True, detector, 2, 1.0) == usual
    assert "-cocked3-" in train_faces.cache_path(tmp_path, 2000, True, detector, 2, 3.0).name
    with pytest.raises(SystemExit):
        train_faces.main(["--photos", "x", "--cocked-scale", "-1"])
    assert "--cocked-scale is -1.0; expected 0 to 5" in capsys.readouterr().err
