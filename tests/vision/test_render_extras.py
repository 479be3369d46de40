"""The finishes of real dice the learned reader missed (vision/render/finishes.py): hidden
pips showing through translucent dice, dull coloured pips, a ring light's arc, swirled
bodies; off by default, and every older style's frames kept byte for byte."""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import typing
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tests.vision.conftest import load_tool
from tests.vision.test_render import CLEAN, body_spread, clean, face_pixels, grid_tray
from vision.detect import DETECTOR_FILE
from vision.render import DIE_MM, HARD, TOWER, RenderError, random_scene, render_tray, resolve_style
from vision.render.finishes import DULL_CONTRAST, SWIRL_PIP_CONTRAST, swirl_partner
from vision.render.style import ALL_DIE_COLORS, ALL_PIP_COLORS, _grey, pip_colors_for

train_detector = load_tool("train_detector")
train_faces = load_tool("train_faces")
GREY = np.array([0.114, 0.587, 0.299])

#: Every older knob turned on at once (the second --finishes recipe's kinds and more).
OLDER_KNOBS = dataclasses.replace(
    HARD,
    name="old-finishes",
    marbled=0.3,
    translucent=0.3,
    glints=0.4,
    highlight=0.4,
    glossy=0.5,
    metallic=0.25,
    engraved=0.2,
    big_one=0.3,
    die_colors=tuple(ALL_DIE_COLORS),
    pip_colors=tuple(ALL_PIP_COLORS),
    pip_contrast=40.0,
    mixed_colors=True,
    floor_kinds=("wood", "cloth", "glossy"),
    clutter=0.3,
    camera_tilt_deg=20.0,
)


@pytest.mark.parametrize(
    ("style", "digest"),
    [
        (TOWER, "26bb36b763cdf3e3"),
        (HARD, "1d27bdcf6900fce2"),
        (resolve_style("setup"), "6df86bc67f7a3215"),
        (OLDER_KNOBS, "19f8bb2f6eccf3cc"),
    ],
    ids=["tower", "hard", "setup", "older-knobs"],
)
def test_styles_without_the_new_finishes_keep_their_frames_byte_for_byte(
    style: Any, digest: str
) -> None:
    # the digests were taken from the renderer before these finishes were added
    frames = [random_scene(seed, 10, style=style)[0] for seed in (0, 1, 2)]
    assert hashlib.sha256(b"".join(f.tobytes() for f in frames)).hexdigest()[:16] == digest


def _inside_tops(shape: tuple[int, ...], truth: dict[str, Any], grow: float = 1.08) -> np.ndarray:
    mask = np.zeros(shape[:2], np.uint8)
    for die in truth["dice"]:
        corners = np.array(die["corners"])
        centre = corners.mean(axis=0)
        cv2.fillConvexPoly(mask, (centre + (corners - centre) * grow).round().astype(np.int32), 1)
    return mask > 0


def test_show_through_adds_dark_marks_inside_translucent_top_faces_only() -> None:
    tray = grid_tray([1, 2, 3, 4, 5, 6], 15.0, color="white", pip_color="black")
    light = ((220, 220, 220),)
    clear = clean(translucent=1.0, floor_colors=light)
    off, truth = render_tray(tray, style=clear, die_mm=24.0)
    on, _ = render_tray(tray, style=dataclasses.replace(clear, show_through=1.0), die_mm=24.0)
    changed = np.abs(on.astype(int) - off.astype(int)).max(axis=2) > 0
    assert changed.any() and not (changed & ~_inside_tops(on.shape, truth)).any()
    for die in truth["dice"]:  # every die shows some of its hidden faces' pips, darker
        darker = face_pixels(off, die) @ GREY - face_pixels(on, die) @ GREY
        assert (darker > 15).sum() >= 10
    solid = clean(floor_colors=light)  # a die that is not translucent shows nothing through
    assert np.array_equal(
        render_tray(tray, style=solid, die_mm=24.0)[0],
        render_tray(tray, style=dataclasses.replace(solid, show_through=1.0), die_mm=24.0)[0],
    )


def _pip_and_body(frame: np.ndarray, die: dict[str, Any]) -> tuple[np.ndarray, float]:
    """A lone pip's colour at the face's centre, and the body's median grey."""
    x, y = (round(v) for v in np.array(die["corners"]).mean(axis=0))
    pip = frame[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3).astype(np.float64).mean(axis=0)
    return pip, float(np.median(face_pixels(frame, die) @ GREY))


def test_dull_pips_sit_within_the_asked_grey_contrast_and_keep_their_hue() -> None:
    tray = grid_tray([1] * 10, 0.0, color="black", pip_color="red")
    plain, truth = render_tray(tray, style=CLEAN, die_mm=30.0)
    pip, body = _pip_and_body(plain, truth["dice"][0])
    assert abs(pip @ GREY - body) > DULL_CONTRAST[1] + 5  # red on black: about 52
    dull, _ = render_tray(tray, style=clean(dull_pips=1.0), die_mm=30.0)
    low, high = DULL_CONTRAST
    for die in truth["dice"]:
        pip, body = _pip_and_body(dull, die)
        assert low - 1.5 <= abs(pip @ GREY - body) <= high + 1.5
        assert pip[2] > pip[1] + 20 and pip[2] > pip[0] + 20  # still red
    black = grid_tray([1] * 4, 0.0)  # black pips have no hue of their own: never dull
    keep = clean(pip_colors=("black",))
    assert np.array_equal(
        render_tray(black, style=keep, die_mm=30.0)[0],
        render_tray(black, style=dataclasses.replace(keep, dull_pips=1.0), die_mm=30.0)[0],
    )


def test_ring_glare_draws_a_sharp_bright_arc_on_the_top_face_only() -> None:
    tray = grid_tray([2, 3, 4, 5, 6, 1], 10.0, color="black", pip_color="red")
    plain, truth = render_tray(tray, style=CLEAN, die_mm=26.0)
    ring, _ = render_tray(tray, style=clean(ring_glare=1.0), die_mm=26.0)
    changed = np.abs(ring.astype(int) - plain.astype(int)).max(axis=2) > 0
    assert not (changed & ~_inside_tops(ring.shape, truth)).any()
    for die in truth["dice"]:
        before, after = face_pixels(plain, die) @ GREY, face_pixels(ring, die) @ GREY
        assert before.max() < 90 and after.max() > 150
        assert 0.005 < (after > 120).mean() < 0.2  # a thin arc, not a patch


def test_swirled_bodies_mix_two_colours_and_keep_their_pips_countable() -> None:
    tray = grid_tray([1, 2, 3, 4, 5, 6], 20.0, color="blue", pip_color="red")
    solid, truth = render_tray(tray, style=CLEAN, die_mm=24.0)
    swirled, _ = render_tray(tray, style=clean(swirl=1.0), die_mm=24.0)
    assert max(body_spread(solid, d) for d in truth["dice"]) < 2
    assert sum(body_spread(swirled, d) > 8 for d in truth["dice"]) >= 3  # some are mostly one
    red = np.array(ALL_PIP_COLORS["red"], np.float64)
    assert [pips_of_colour(swirled, d, red) for d in truth["dice"]] == [1, 2, 3, 4, 5, 6]


def pips_of_colour(frame: np.ndarray, die: dict[str, Any], color: np.ndarray) -> int:
    """Blobs of about ``color`` inside the die's top face (shrunk to keep off the edge)."""
    corners = np.array(die["corners"])
    centre = corners.mean(axis=0)
    inner = (centre + (corners - centre) * 0.85).round().astype(np.int32)
    mask = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, inner, 1)
    near = np.linalg.norm(frame.astype(np.float64) - color, axis=2) < 60
    n, _, stats, _ = cv2.connectedComponentsWithStats((near & (mask > 0)).astype(np.uint8))
    return sum(1 for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= 4)


@pytest.mark.parametrize("body", sorted(ALL_DIE_COLORS))
def test_a_swirl_partner_never_comes_near_the_pips_grey(body: str) -> None:
    for pip in pip_colors_for(body, tuple(ALL_PIP_COLORS), 40.0):
        for shade in (0.2, 0.4, 0.55):
            partner = swirl_partner(body, pip, shade)
            assert abs(_grey(partner) - _grey(ALL_PIP_COLORS[pip])) >= SWIRL_PIP_CONTRAST - 1


@pytest.mark.parametrize("knob", ["show_through", "dull_pips", "ring_glare", "swirl"])
def test_a_finish_knob_out_of_range_is_a_clear_error(knob: str) -> None:
    with pytest.raises(RenderError, match=f"style {knob}=1.5 is out of range; use 0..1.0"):
        clean(**{knob: 1.5})


def test_the_third_finishes_recipe_draws_the_new_finishes_under_its_own_name() -> None:
    assert train_detector.FINISHES == "finishes3"
    styles = [train_detector.rendered_style(np.random.default_rng(s), True) for s in range(40)]
    assert all(s.show_through >= 0.5 for s in styles)
    assert all(s.touching >= 0.4 for s in styles)
    assert 10 <= sum(s.touch_turn > 0 for s in styles) <= 30  # half the styles turn them
    for knob in ("dull_pips", "ring_glare", "swirl", "highlight", "glossy"):
        assert sum(getattr(s, knob) > 0 for s in styles) >= 35, knob
    plain = [train_detector.rendered_style(np.random.default_rng(s)) for s in range(20)]
    assert all(s.show_through == s.dull_pips == s.ring_glare == s.swirl == 0.0 for s in plain)
    assert all(s.touch_turn == 0.0 for s in plain)


def _touching_pairs(tray: list[dict[str, Any]], side: float) -> list[tuple[float, float]]:
    """(centre distance in sides, relative turn in degrees 0..45) of dice edge to edge."""
    out = []
    for i, a in enumerate(tray):
        for b in tray[i + 1 :]:
            gap = float(np.hypot(a["x"] - b["x"], a["y"] - b["y"])) / side
            turn = abs((a["angle"] - b["angle"] + 45.0) % 90.0 - 45.0)
            if gap < 1.5:
                out.append((gap, turn))
    return out


def test_touch_turn_turns_touching_dice_against_each_other_without_overlap() -> None:
    squared = clean(touching=1.0)
    turned = clean(touching=1.0, touch_turn=40.0)
    before = [
        p
        for s in range(6)
        for p in _touching_pairs(random_scene(s, 8, style=squared)[1]["tray"], DIE_MM)
    ]
    after = [
        p
        for s in range(6)
        for p in _touching_pairs(random_scene(s, 8, style=turned)[1]["tray"], DIE_MM)
    ]
    assert before and after
    assert max(turn for _, turn in before) <= 8.0  # squared up, within a degree a link
    assert sum(turn > 10.0 for _, turn in after) >= len(after) // 3
    assert min(gap for gap, _ in after) >= 1.0  # a corner meets a face: never overlapping
    with pytest.raises(RenderError, match=r"style touch_turn=50.0 is out of range; use 0\.\.45\.0"):
        clean(touch_turn=50.0)


def test_the_second_finishes_form_can_still_be_drawn_frame_for_frame() -> None:
    # the form measured with a source left out: the same draws as the third's first five
    for seed in range(20):
        second = train_detector.rendered_style(np.random.default_rng(seed), True, form=2)
        third = train_detector.rendered_style(np.random.default_rng(seed), True, form=3)
        assert second.show_through == second.dull_pips == second.ring_glare == 0.0
        assert second.swirl == second.touch_turn == 0.0 and second.touching <= 0.6
        assert (second.marbled, second.glints, second.metallic) == (
            third.marbled,
            third.glints,
            third.metallic,
        )
        assert second.pip_contrast == third.pip_contrast and second.translucent <= 0.2
        assert second.translucent == pytest.approx(third.translucent * 2 / 3, abs=1e-12)
    assert train_detector.finishes_name(2) == "finishes2"
    assert train_faces.cache_path(Path("c"), 5, True, DETECTOR_FILE, 2).name.startswith(
        "faces-800000-5-finishes2-"
    )
    with pytest.raises(SystemExit):
        train_faces.main(["--photos", "x", "--finishes", "--finishes-form", "8"])


def test_the_fourth_finishes_form_lays_grit_under_the_third_forms_scenes() -> None:
    grit = 0
    for seed in range(40):
        third = train_detector.rendered_style(np.random.default_rng(seed), True, form=3)
        fourth = train_detector.rendered_style(np.random.default_rng(seed), True, form=4)
        assert third.floor_kinds == ("matte",) and fourth.floor_kinds in {("matte",), ("grit",)}
        assert dataclasses.replace(fourth, floor_kinds=("matte",)) == third
        grit += fourth.floor_kinds == ("grit",)
    assert 8 <= grit <= 24  # two scenes in five
    assert train_faces.cache_path(Path("c"), 5, True, DETECTOR_FILE, 4).name.startswith(
        "faces-800000-5-finishes4-"
    )


def test_the_fifth_finishes_form_squares_up_the_fourths_touching_dice() -> None:
    turned = 0
    for seed in range(40):
        fourth = train_detector.rendered_style(np.random.default_rng(seed), True, form=4)
        fifth = train_detector.rendered_style(np.random.default_rng(seed), True, form=5)
        assert fifth.touch_turn == 0.0 and fifth.touching >= 0.4
        assert dataclasses.replace(fourth, touch_turn=0.0) == fifth
        turned += fourth.touch_turn > 0.0
    assert turned >= 10  # the fourth turns about half its styles' touching dice
    assert train_faces.cache_path(Path("c"), 5, True, DETECTOR_FILE, 5).name.startswith(
        "faces-800000-5-finishes5-"
    )


def test_the_sixth_finishes_form_hides_the_fourths_show_through_pips() -> None:
    shown = 0
    for seed in range(40):
        fourth = train_detector.rendered_style(np.random.default_rng(seed), True, form=4)
        sixth = train_detector.rendered_style(np.random.default_rng(seed), True, form=6)
        assert sixth.show_through == 0.0 and sixth.translucent == fourth.translucent
        assert dataclasses.replace(fourth, show_through=0.0) == sixth
        shown += fourth.show_through > 0.0
    assert shown == 40  # every fourth-form style lets a translucent die show its pips
    parser = argparse.ArgumentParser()
    train_detector.add_form_argument(parser)
    assert parser.parse_args(["--finishes-form", "6"]).finishes_form == 6
    assert train_faces.cache_path(Path("c"), 5, True, DETECTOR_FILE, 6).name.startswith(
        "faces-800000-5-finishes6-"
    )


def test_the_seventh_finishes_form_lays_grit_under_fewer_of_the_fourths_scenes() -> None:
    grit = {4: 0, 7: 0}
    for seed in range(200):
        fourth = train_detector.rendered_style(np.random.default_rng(seed), True, form=4)
        seventh = train_detector.rendered_style(np.random.default_rng(seed), True, form=7)
        assert dataclasses.replace(seventh, floor_kinds=fourth.floor_kinds) == fourth
        if seventh.floor_kinds == ("grit",):
            assert fourth.floor_kinds == ("grit",)  # a gritty floor of the fourth's, kept
        grit[4] += fourth.floor_kinds == ("grit",)
        grit[7] += seventh.floor_kinds == ("grit",)
    assert 60 <= grit[4] <= 100 and 15 <= grit[7] <= 45  # two in five; three in twenty
    assert train_faces.cache_path(Path("c"), 5, True, DETECTOR_FILE, 7).name.startswith(
        "faces-800000-5-finishes7-"
    )


def test_the_form_option_takes_every_form_the_recipe_draws() -> None:
    parser = argparse.ArgumentParser()
    train_detector.add_form_argument(parser)
    for form in typing.get_args(train_detector.FinishForm):
        assert parser.parse_args(["--finishes-form", str(form)]).finishes_form == form
    assert typing.get_args(train_detector.FinishForm) == train_detector.FINISH_FORMS
