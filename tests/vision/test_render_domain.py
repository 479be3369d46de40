"""The renderer's wider domain: floors, clutter, oblique views, stretched pixels, motion,
metal dice, engraved and big pips, every colour, piles, sizes and corners (one test a knob)."""

from __future__ import annotations

import dataclasses
from typing import Any

import cv2
import numpy as np
import pytest

from tests.vision.test_render import CLEAN, clean, count_pips, grey, grid_tray
from vision.render import HARD, RenderError, random_pile, random_scene, render_tray
from vision.render.style import (
    ALL_DIE_COLORS,
    ALL_PIP_COLORS,
    FLOOR_KINDS,
    MIN_PIP_CONTRAST,
    _grey,
    pip_colors_for,
)

VALUES = [1, 2, 3, 4, 5, 6]


def floor_mask(truth: dict[str, Any], shrink: float = 0.9) -> np.ndarray:
    """The tray floor, shrunk about its centre (kept off the walls)."""
    floor = np.array(truth["floor"])
    centre = floor.mean(axis=0)
    inner = (centre + (floor - centre) * shrink).round().astype(np.int32)
    h, w = truth["size"][1], truth["size"][0]
    mask = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(mask, inner, 255)
    return mask > 0


def count_dark(frame: np.ndarray, die: dict[str, Any], level: float, shrink: float = 0.8) -> int:
    """Blobs darker than ``level`` inside the die's top face, shrunk about its centre."""
    corners = np.array(die["corners"])
    centre = corners.mean(axis=0)
    mask = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, (centre + (corners - centre) * shrink).round().astype(np.int32), 255)
    dark = ((grey(frame) < level) & (mask > 0)).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(dark)
    return sum(1 for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= 4)


def assert_pips_right(style: Any, die_mm: float = 20.0, **die: Any) -> None:
    frame, truth = render_tray(grid_tray(VALUES, 17.0, **die), style=style, die_mm=die_mm)
    assert [count_pips(frame, d) for d in truth["dice"]] == VALUES


@pytest.mark.parametrize("kind", [k for k in FLOOR_KINDS if k != "matte"])
def test_each_kind_of_floor_shows_and_the_dice_still_read(kind: str) -> None:
    matte, truth = render_tray([], style=CLEAN)
    dressed, _ = render_tray([], style=clean(floor_kinds=(kind,)))
    inside = floor_mask(truth)
    assert grey(matte)[inside].std() < 1.0
    assert grey(dressed)[inside].std() > 3.0, kind  # grain, weave, fuzz, print or reflection
    assert_pips_right(clean(floor_kinds=(kind,)))


def test_a_gritty_floor_is_strewn_with_pip_sized_specks() -> None:
    matte, truth = render_tray(grid_tray(VALUES), style=CLEAN, die_mm=20.0)
    gritty, truth2 = render_tray(grid_tray(VALUES), style=clean(floor_kinds=("grit",)), die_mm=20.0)
    assert truth2["dice"] == truth["dice"]
    inside = floor_mask(truth, 0.8)
    for d in truth["dice"]:  # the floor only: no die's face, nor its shadow
        corners = np.array(d["corners"])
        centre = corners.mean(axis=0)
        box = (centre + (corners - centre) * 1.6).round().astype(np.int32)
        cv2.fillConvexPoly(inside.view(np.uint8), box, 0)
    level = float(np.median(grey(gritty)[inside]))
    dark = ((grey(gritty) < level - 35) & inside).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(dark)
    areas = stats[1:n, cv2.CC_STAT_AREA]
    assert len(areas) >= 15  # specks strewn over the floor
    assert np.median(areas) <= 20 and areas.max() < 200  # most a few pixels: a pip, no die
    assert grey(matte)[inside].std() < 1.0
    assert [count_pips(gritty, d) for d in truth2["dice"]] == VALUES


def test_a_scene_picks_one_of_its_floor_kinds_by_seed() -> None:
    style = clean(floor_kinds=("wood", "cloth", "felt"))
    frames = [render_tray([], seed=s, style=style)[0] for s in range(6)]
    assert np.array_equal(frames[0], render_tray([], seed=0, style=style)[0])
    spreads = {round(float(grey(f).std()), 1) for f in frames}
    assert len(spreads) >= 3


def test_clutter_lies_round_the_edges_and_not_on_the_dice() -> None:
    plain, truth = render_tray(grid_tray(VALUES), style=CLEAN, die_mm=20.0)
    busy, truth2 = render_tray(grid_tray(VALUES), style=clean(clutter=1.0), die_mm=20.0)
    changed = np.abs(grey(busy) - grey(plain)) > 10
    middle = floor_mask(truth, 0.6)
    assert changed[~floor_mask(truth, 1.1)].sum() > 1000  # objects beside the tray
    assert changed[middle].sum() < 0.02 * middle.sum()
    assert truth2["dice"] == truth["dice"]
    assert [count_pips(busy, d) for d in truth2["dice"]] == VALUES


@pytest.mark.parametrize("tilt", [25.0, 45.0])
def test_an_oblique_camera_makes_the_far_side_smaller(tilt: float) -> None:
    frame, truth = render_tray(grid_tray(VALUES, 17.0), style=clean(camera_tilt_deg=tilt))
    floor = np.array(truth["floor"])
    sides = np.hypot(*(np.roll(floor, -1, axis=0) - floor).T)
    # opposite sides differ in length (perspective), unlike the square-on view
    ratio = max(sides[0] / sides[2], sides[2] / sides[0], sides[1] / sides[3], sides[3] / sides[1])
    assert ratio > 1.08
    w, h = truth["size"]
    assert (floor >= -1).all() and (floor[:, 0] <= w + 1).all() and (floor[:, 1] <= h + 1).all()
    assert [count_pips(frame, d) for d in truth["dice"]] == VALUES
    for die in truth["dice"]:
        x0, y0, x1, y1 = die["box"]
        assert x0 < die["center"][0] < x1 and y0 < die["center"][1] < y1


def test_stretched_pixels_widen_the_tray_and_the_dice() -> None:
    _, square = render_tray(grid_tray(VALUES), style=CLEAN, die_mm=20.0)
    frame, wide = render_tray(grid_tray(VALUES), style=clean(pixel_aspect=1.4), die_mm=20.0)

    def aspect(points: list[list[float]]) -> float:
        p = np.array(points)
        return float(np.ptp(p[:, 0]) / np.ptp(p[:, 1]))

    assert aspect(wide["floor"]) / aspect(square["floor"]) == pytest.approx(1.4, rel=0.03)
    die = wide["dice"][0]["corners"]
    assert aspect(die) == pytest.approx(1.4, rel=0.08)
    assert [count_pips(frame, d) for d in wide["dice"]] == VALUES


def test_motion_blur_smears_and_changes_with_the_frame() -> None:
    tray = grid_tray(VALUES)
    sharp, _ = render_tray(tray, style=CLEAN, die_mm=20.0)
    style = clean(motion_blur_px=12.0)
    a, _ = render_tray(tray, style=style, die_mm=20.0, frame=0)
    b, _ = render_tray(tray, style=style, die_mm=20.0, frame=1)

    def edges(frame: np.ndarray) -> float:
        return float(np.abs(cv2.Laplacian(grey(frame), cv2.CV_64F)).mean())

    assert edges(a) < 0.8 * edges(sharp) and edges(b) < 0.8 * edges(sharp)
    assert not np.array_equal(a, b)
    assert np.array_equal(a, render_tray(tray, style=style, die_mm=20.0, frame=0)[0])


def body_spread(frame: np.ndarray, die: dict[str, Any]) -> float:
    """Spread of the grey level over a die's top face (pips included)."""
    corners = np.array(die["corners"])
    centre = corners.mean(axis=0)
    mask = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, (centre + (corners - centre) * 0.8).round().astype(np.int32), 255)
    return float(
        np.percentile(grey(frame)[mask > 0], 90) - np.percentile(grey(frame)[mask > 0], 50)
    )


def test_metal_dice_shine_in_a_band_and_their_pips_count() -> None:
    style = clean(die_colors=("silver",), metallic=1.0, pip_colors=("black",))
    solid, _ = render_tray(grid_tray(VALUES), style=clean(die_colors=("silver",)), die_mm=24.0)
    metal, truth2 = render_tray(grid_tray(VALUES), style=style, die_mm=24.0)
    assert all(body_spread(metal, d) > body_spread(solid, d) + 8 for d in truth2["dice"])
    assert [count_dark(metal, d, 60) for d in truth2["dice"]] == VALUES


def test_engraved_pips_have_a_dark_rim() -> None:
    base = clean(die_colors=("black",), pip_colors=("white",))
    painted, truth = render_tray(grid_tray([1]), style=base, die_mm=40.0)
    engraved, _ = render_tray(
        grid_tray([1]), style=dataclasses.replace(base, engraved=1.0), die_mm=40.0
    )
    centre = np.array(truth["dice"][0]["center"]).round().astype(int)
    r = 40 * 2.29 * 0.085  # the pip's radius in pixels at this scale
    ys, xs = np.mgrid[0 : painted.shape[0], 0 : painted.shape[1]]
    ring = np.abs(np.hypot(xs - centre[0], ys - centre[1]) - 0.9 * r) < 1.0
    assert grey(engraved)[ring].mean() < grey(painted)[ring].mean() - 40
    assert_pips_right(dataclasses.replace(base, engraved=1.0), die_mm=24.0)


def test_a_big_one_is_one_big_pip() -> None:
    base = clean(die_colors=("white",), pip_colors=("black",))
    small, truth = render_tray(grid_tray([1]), style=base, die_mm=30.0)
    big, _ = render_tray(grid_tray([1]), style=dataclasses.replace(base, big_one=1.0), die_mm=30.0)
    x0, y0, x1, y1 = truth["dice"][0]["box"]
    dark_small = (grey(small)[y0:y1, x0:x1] < 100).sum()
    dark_big = (grey(big)[y0:y1, x0:x1] < 100).sum()
    assert dark_big > 4 * dark_small
    assert count_pips(big, truth["dice"][0]) == 1
    assert_pips_right(dataclasses.replace(base, big_one=1.0))  # the other faces are as before


@pytest.mark.parametrize("color", sorted(ALL_DIE_COLORS))
def test_every_body_colour_with_pips_of_every_palette_colour_that_shows(color: str) -> None:
    palette = tuple(ALL_PIP_COLORS)
    pips = pip_colors_for(color, palette)
    assert pips
    body = _grey(ALL_DIE_COLORS[color])
    shows = [p for p in pips if abs(_grey(ALL_PIP_COLORS[p]) - body) >= MIN_PIP_CONTRAST]
    assert shows == list(pips) or len(pips) == 1  # a fallback only when none contrasts
    assert_pips_right(CLEAN, color=color, pip_color=pips[0])


def test_a_style_of_every_colour_draws_them_all() -> None:
    style = dataclasses.replace(
        HARD,
        die_colors=tuple(ALL_DIE_COLORS),
        pip_colors=tuple(ALL_PIP_COLORS),
        translucent=0.3,
        marbled=0.2,
        metallic=0.2,
    )
    seen = set()
    for seed in range(6):
        _, truth = random_scene(seed, 12, style=style)
        seen |= {(d["color"], d["pip_color"]) for d in truth["dice"]}
    assert len({c for c, _ in seen}) >= 12 and len({p for _, p in seen}) >= 5


def test_piles_of_forty_touching_dice() -> None:
    _, truth = random_pile(3, 40, style="tower", cocked=0)
    assert len(truth["dice"]) == 40 and not any(d["occluded"] for d in truth["dice"])
    centres = np.array([d["center"] for d in truth["dice"]])
    gaps = np.hypot(*(centres[:, None] - centres[None]).transpose(2, 0, 1)) + np.eye(40) * 1e9
    assert (gaps.min(axis=1) < 1.2 * truth["die_px"]).mean() > 0.6  # most touch a neighbour
    with pytest.raises(RenderError, match=r"n_dice=41; a pile holds 0\.\.40 dice"):
        random_pile(3, 41)
    _, small = random_pile(4, 10, style="hard")
    assert len(small["dice"]) == 10


@pytest.mark.parametrize(("die_mm", "px"), [(8.8, 20), (57.0, 130)])
def test_dice_from_20_to_130_pixels(die_mm: float, px: int) -> None:
    frame, truth = random_scene(1, 4, style=CLEAN, die_mm=die_mm, cocked=0)
    assert truth["die_px"] == pytest.approx(px, rel=0.05)
    values = [d["value"] for d in truth["dice"]]
    if px >= 100:
        assert [count_pips(frame, d) for d in truth["dice"]] == values
    else:  # pips a few pixels wide: at least the lone pip of a 1 and the dice themselves show
        assert all(count_dark(frame, d, 100, 0.7) >= 1 for d in truth["dice"])


@pytest.mark.parametrize("corner", [0.0, 0.45])
def test_sharp_and_round_corners(corner: float) -> None:
    frame, truth = render_tray(grid_tray(VALUES), style=clean(corner_radius=corner), die_mm=24.0)
    die = truth["dice"][0]
    corners = np.array(die["corners"])
    at = tuple(np.round(corners[0] + (corners.mean(axis=0) - corners[0]) * 0.06).astype(int))
    body = grey(frame)[at[1], at[0]] > 150  # the white body reaches into a sharp corner
    assert body == (corner == 0.0)
    assert [count_dark(frame, d, 100, 0.7) for d in truth["dice"]] == VALUES


def test_hard_shadows_have_sharp_edges() -> None:
    soft, _ = render_tray(grid_tray([6]), style=clean(shadow=0.8, shadow_blur_mm=4.0), die_mm=24.0)
    hard, _ = render_tray(grid_tray([6]), style=clean(shadow=0.8, shadow_blur_mm=0.0), die_mm=24.0)
    empty, _ = render_tray([], style=CLEAN)
    step = [float(np.abs(np.diff(grey(f), axis=1)).max()) for f in (soft, hard)]
    assert step[1] > step[0]
    assert grey(hard).min() < grey(empty).min() - 20


@pytest.mark.parametrize(
    ("knob", "value", "words"),
    [
        ("floor_kinds", ("marble",), "floor_kinds"),
        ("floor_kinds", (), "floor_kinds"),
        ("clutter", 1.5, "clutter=1.5 is out of range"),
        ("camera_tilt_deg", 50.0, "camera_tilt_deg=50.0 is out of range; use 0..45"),
        ("pixel_aspect", 2.0, "pixel_aspect=2.0"),
        ("motion_blur_px", 30.0, "motion_blur_px=30.0 is out of range"),
        ("metallic", -0.1, "metallic=-0.1 is out of range"),
        ("engraved", 2.0, "engraved=2.0 is out of range"),
        ("big_one", 1.1, "big_one=1.1 is out of range"),
        ("pip_colors", ("plaid",), "pip colours"),
        ("die_colors", ("plaid",), "unknown die colour"),
    ],
)
def test_a_knob_out_of_range_is_a_clear_error(knob: str, value: Any, words: str) -> None:
    with pytest.raises(RenderError, match=words):
        clean(**{knob: value})


def test_every_new_knob_is_fixed_by_the_seed_and_off_by_default() -> None:
    wide = dataclasses.replace(
        HARD,
        floor_kinds=FLOOR_KINDS,
        clutter=0.5,
        camera_tilt_deg=30.0,
        pixel_aspect=1.2,
        motion_blur_px=5.0,
        metallic=0.3,
        engraved=0.3,
        big_one=0.3,
    )
    a, ta = random_scene(5, 10, style=wide)
    b, tb = random_scene(5, 10, style=wide)
    assert np.array_equal(a, b) and ta == tb
    off = dataclasses.replace(HARD, name="hard")
    assert np.array_equal(random_scene(5, 10, style=off)[0], random_scene(5, 10, style=HARD)[0])
    assert not np.array_equal(a, random_scene(5, 10, style=HARD)[0])
