"""The tray renderer: geometry, pips, every difficulty knob, determinism and bad input."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.render import (
    DIE_COLORS,
    DIE_MM,
    HARD,
    MAX_RANDOM_DICE,
    PIP_COLORS,
    TOWER,
    TRAY_MM,
    RenderError,
    RenderStyle,
    pip_colors_for,
    random_scene,
    random_tray,
    render_tray,
)

CLEAN = RenderStyle(
    name="clean",
    floor_colors=((120, 120, 120),),
    die_colors=("white",),
    size_jitter=0.0,
    color_jitter=0.0,
    perspective=0.0,
    shadow=0.0,
    light_gradient=0.0,
    vignette=0.0,
    glare=0.0,
    floor_texture=0.0,
    noise=0.0,
    blur_px=0.0,
    jpeg_quality=0,
    flicker=0.0,
)


def clean(**changes: Any) -> RenderStyle:
    """The clean style with some knobs turned up."""
    return dataclasses.replace(CLEAN, **changes)


def grid_tray(values: list[int], angle: float = 0.0, **extra: Any) -> list[dict[str, Any]]:
    """Dice well apart on a grid, so each box holds one die."""
    return [
        {"value": v, "x": 30.0 + 45.0 * (i % 5), "y": 40.0 + 50.0 * (i // 5), "angle": angle}
        | {"cocked": False}
        | extra
        for i, v in enumerate(values)
    ]


def grey(frame: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float64)


def count_pips(frame: np.ndarray, die: dict[str, Any]) -> int:
    """Blobs of the pip colour inside the die's top face (shrunk to keep off the edge)."""
    corners = np.array(die["corners"])
    centre = corners.mean(axis=0)
    inner = (centre + (corners - centre) * 0.85).round().astype(np.int32)
    mask = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, inner, 255)
    g = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    values = g[mask > 0]
    threshold = (int(values.min()) + int(values.max())) / 2
    body_darker = np.median(values) < threshold
    pips = (g > threshold) if body_darker else (g < threshold)
    pips = (pips & (mask > 0)).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(pips)
    return sum(1 for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= 4)


# --- geometry and truth ---------------------------------------------------------------------


def test_frame_shape_and_truth_shape() -> None:
    frame, truth = render_tray(grid_tray([1, 2, 3]), size=(320, 240))
    assert frame.shape == (240, 320, 3) and frame.dtype == np.uint8
    assert truth["size"] == [320, 240]
    assert [d["value"] for d in truth["dice"]] == [1, 2, 3]
    for die in truth["dice"]:
        x0, y0, x1, y1 = die["box"]
        assert x0 < die["center"][0] < x1 and y0 < die["center"][1] < y1
        assert die["cocked"] is False and die["occluded"] is False


@pytest.mark.parametrize("perspective", [0.0, 0.06])
def test_boxes_contain_every_die_pixel(perspective: float) -> None:
    style = clean(perspective=perspective)
    tray = random_tray(3, 8, touching=0.5, cocked=2)
    empty, _ = render_tray([], seed=3, style=style)
    frame, truth = render_tray(tray, seed=3, style=style)
    changed = np.abs(grey(frame) - grey(empty)) > 2
    inside = np.zeros_like(changed)
    for die in truth["dice"]:
        x0, y0, x1, y1 = die["box"]
        inside[y0 : y1 + 1, x0 : x1 + 1] = True
        assert changed[y0 : y1 + 1, x0 : x1 + 1].sum() > 0.4 * (x1 - x0) * (y1 - y0)
    assert changed.sum() > 0
    assert not (changed & ~inside).any()


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("angle", [0.0, 17.0, 45.0, 290.0])
def test_pip_count_on_a_clean_frame(value: int, angle: float) -> None:
    frame, truth = render_tray(grid_tray([value], angle), style=CLEAN)
    assert count_pips(frame, truth["dice"][0]) == value


@pytest.mark.parametrize("die_color", sorted(DIE_COLORS))
def test_pip_count_for_each_colour_pair(die_color: str) -> None:
    for pip in pip_colors_for(die_color):
        tray = grid_tray([1, 2, 3, 4, 5, 6], 30.0, color=die_color, pip_color=pip)
        frame, truth = render_tray(tray, style=CLEAN)
        counted = [count_pips(frame, die) for die in truth["dice"]]
        assert counted == [1, 2, 3, 4, 5, 6], (die_color, pip)


def test_pip_counts_on_tower_frames() -> None:
    checked = 0
    for seed in range(12):
        frame, truth = random_scene(seed, 6, style="tower", touching=0.0)
        for die in truth["dice"]:
            assert count_pips(frame, die) == die["value"], (seed, die)
            checked += 1
    assert checked == 72


def test_two_three_and_six_turn_with_the_die() -> None:
    """The diagonal of a 2 and the columns of a 6 follow the die's angle."""
    upright, _ = render_tray(grid_tray([6], 0.0), style=CLEAN)
    turned, _ = render_tray(grid_tray([6], 90.0), style=CLEAN)
    assert not np.array_equal(upright, turned)
    again, _ = render_tray(grid_tray([6], 180.0), style=CLEAN)
    assert np.abs(grey(upright) - grey(again)).max() < 40  # a 6 is symmetric under a half turn
    two_a, _ = render_tray(grid_tray([2], 0.0), style=CLEAN)
    two_b, _ = render_tray(grid_tray([2], 90.0), style=CLEAN)
    assert np.abs(grey(two_a) - grey(two_b)).max() > 100  # the other diagonal


def dark_blobs(frame: np.ndarray, box: list[int]) -> int:
    """Dark pip-sized blobs in a box of a clean frame (white dice, black pips, grey floor)."""
    x0, y0, x1, y1 = box
    dark = (grey(frame)[y0 : y1 + 1, x0 : x1 + 1] < 70).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(dark)
    return sum(1 for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= 3)


def test_cocked_die_shows_a_side_face_and_is_flagged() -> None:
    flat_tray = grid_tray([5], color="white", pip_color="black")
    flat, flat_truth = render_tray(flat_tray, style=CLEAN)
    assert dark_blobs(flat, flat_truth["dice"][0]["box"]) == 5
    cocked, truth = render_tray([dict(flat_tray[0], cocked=True)], style=CLEAN)
    die = truth["dice"][0]
    assert die["cocked"] is True
    assert count_pips(cocked, die) == 5  # the top face still shows the value
    assert dark_blobs(cocked, die["box"]) > 5  # and the side face its own pips


def test_near_camera_shows_side_faces_away_from_the_middle() -> None:
    tray = [
        {"value": 1, "x": 120.0, "y": 90.0, "angle": 0.0},  # under the camera
        {"value": 1, "x": 25.0, "y": 25.0, "angle": 10.0},  # in a corner
    ]
    tray = [d | {"cocked": False, "color": "white", "pip_color": "black"} for d in tray]
    far, far_truth = render_tray(tray, style=CLEAN)
    near, near_truth = render_tray(tray, style=clean(camera_height_mm=250.0))
    assert [dark_blobs(far, d["box"]) for d in far_truth["dice"]] == [1, 1]
    middle, corner = near_truth["dice"]
    assert dark_blobs(near, middle["box"]) == 1
    assert dark_blobs(near, corner["box"]) > 1  # two side faces with their pips
    assert count_pips(near, corner) == 1
    # the corner die's top face is pushed away from the middle by parallax
    assert corner["center"][0] < far_truth["dice"][1]["center"][0]


def test_random_scene_cocked_count_and_leaning() -> None:
    _, truth = random_scene(5, 6, cocked=2)
    assert sum(d["cocked"] for d in truth["dice"]) == 2
    assert len(truth["tray"]) == 6


def test_style_chances_drive_random_scenes() -> None:
    _, truth = random_scene(6, 6, style=clean(cocked=1.0))
    assert all(d["cocked"] for d in truth["dice"])
    _, truth = random_scene(6, 6, style=clean(cocked=0.0))
    assert not any(d["cocked"] for d in truth["dice"])

    def nearest(style: RenderStyle) -> float:
        _, truth = random_scene(12, 6, style=style)
        tray = truth["tray"]
        return min(
            math.hypot(a["x"] - b["x"], a["y"] - b["y"])
            for i, a in enumerate(tray)
            for b in tray[i + 1 :]
        )

    assert nearest(clean(touching=1.0)) < DIE_MM * 1.15 < nearest(clean(touching=0.0))


def test_overlapping_dice_are_marked_occluded() -> None:
    tray = [
        {"value": 3, "x": 100.0, "y": 90.0, "angle": 0.0, "cocked": False},
        {"value": 4, "x": 108.0, "y": 90.0, "angle": 20.0, "cocked": False},
    ]
    _, truth = render_tray(tray, style=CLEAN)
    assert [d["occluded"] for d in truth["dice"]] == [True, False]


def test_zero_and_twelve_dice() -> None:
    frame, truth = random_scene(1, 0)
    assert truth["dice"] == [] and frame.shape == (480, 640, 3)
    _, truth = random_scene(1, MAX_RANDOM_DICE, style="hard")
    assert len(truth["dice"]) == MAX_RANDOM_DICE


def test_random_dice_do_not_overlap_unless_cocked() -> None:
    for seed in range(10):
        _, truth = random_scene(seed, 12, touching=0.5, cocked=0)
        assert not any(d["occluded"] for d in truth["dice"]), seed


def test_touching_places_dice_edge_to_edge() -> None:
    def nearest(touching: float) -> float:
        tray = random_tray(11, 6, touching=touching)
        return min(
            math.hypot(a["x"] - b["x"], a["y"] - b["y"])
            for i, a in enumerate(tray)
            for b in tray[i + 1 :]
        )

    assert nearest(1.0) < DIE_MM * 1.15
    assert nearest(0.0) > DIE_MM * 1.15


# --- determinism ------------------------------------------------------------------------------


@pytest.mark.parametrize("style", ["tower", "hard"])
def test_same_seed_same_frame(style: str) -> None:
    a, truth_a = random_scene(42, 6, style=style)
    b, truth_b = random_scene(42, 6, style=style)
    assert np.array_equal(a, b) and truth_a == truth_b
    c, _ = random_scene(43, 6, style=style)
    assert not np.array_equal(a, c)


def test_frame_index_varies_only_the_sensor() -> None:
    _, truth = random_scene(8, 6)
    first, t1 = render_tray(truth["tray"], seed=8, frame=1)
    second, t2 = render_tray(truth["tray"], seed=8, frame=2)
    assert t1["dice"] == t2["dice"]
    diff = np.abs(grey(first) - grey(second))
    assert 0 < diff.mean() < 6


# --- each difficulty knob ----------------------------------------------------------------------

FLOOR_PATCH = (slice(200, 260), slice(260, 380))  # rows, columns of empty floor


def test_noise_knob_sets_the_noise_level() -> None:
    still, _ = render_tray([], style=CLEAN)
    noisy, _ = render_tray([], style=clean(noise=8.0))
    spread = (noisy.astype(float) - still.astype(float))[FLOOR_PATCH].std()
    assert 6.5 < spread < 9.5


def test_blur_knob_softens_edges() -> None:
    tray = grid_tray([5, 6])
    sharp, _ = render_tray(tray, style=CLEAN)
    soft, _ = render_tray(tray, style=clean(blur_px=2.0))
    assert cv2.Laplacian(soft, cv2.CV_64F).var() < 0.5 * cv2.Laplacian(sharp, cv2.CV_64F).var()


def test_jpeg_knob_compresses() -> None:
    tray = grid_tray([1, 2, 3, 4])
    raw, _ = render_tray(tray, style=clean(noise=4.0))
    packed, _ = render_tray(tray, style=clean(noise=4.0, jpeg_quality=30))
    diff = np.abs(raw.astype(float) - packed.astype(float))
    assert 0.5 < diff.mean() < 10


def test_vignette_darkens_the_corners() -> None:
    plain, _ = render_tray([], style=CLEAN)
    vignetted, _ = render_tray([], style=clean(vignette=0.5))
    corner, middle = (slice(60, 80), slice(60, 80)), (slice(230, 250), slice(310, 330))
    drop = grey(plain)[corner].mean() - grey(vignetted)[corner].mean()
    assert drop > 15
    assert abs(grey(plain)[middle].mean() - grey(vignetted)[middle].mean()) < 3


def test_light_gradient_makes_one_side_brighter() -> None:
    def spread(frame: np.ndarray) -> float:
        g = grey(frame)
        patches = [g[y : y + 20, x : x + 20].mean() for y in (70, 390) for x in (70, 550)]
        return max(patches) - min(patches)

    assert spread(render_tray([], style=CLEAN)[0]) < 1
    assert spread(render_tray([], style=clean(light_gradient=0.5))[0]) > 20


def test_glare_adds_a_bright_spot() -> None:
    plain, _ = render_tray([], style=CLEAN)
    glared, _ = render_tray([], style=clean(glare=0.8))
    assert grey(glared).max() - grey(plain).max() > 60


def test_shadow_darkens_the_floor_beside_a_die() -> None:
    tray = grid_tray([4])
    lit, truth = render_tray(tray, style=CLEAN)
    shaded, _ = render_tray(tray, style=clean(shadow=0.8, shadow_offset_mm=(3.0, 3.0)))
    x0, _, x1, y1 = truth["dice"][0]["box"]
    below = (slice(y1 + 1, y1 + 6), slice(x0 + 10, x1 + 5))
    assert grey(lit)[below].mean() - grey(shaded)[below].mean() > 15


def test_perspective_tilts_the_floor() -> None:
    _, square = render_tray([], style=CLEAN)
    _, tilted = render_tray([], style=clean(perspective=0.08))
    (a, b, _, d) = np.array(square["floor"])
    assert a[1] == b[1] and a[0] == d[0]
    (a, b, _, d) = np.array(tilted["floor"])
    assert abs(a[1] - b[1]) > 2 or abs(a[0] - d[0]) > 2


def test_size_jitter_varies_die_sizes() -> None:
    def widths(style: RenderStyle) -> set[float]:
        _, truth = render_tray(grid_tray([1, 2, 3, 4, 5, 6, 1, 2]), style=style)
        return {round(d["corners"][1][0] - d["corners"][0][0]) for d in truth["dice"]}

    assert len(widths(CLEAN)) == 1
    assert len(widths(clean(size_jitter=0.15))) > 2


def test_corner_radius_rounds_the_corners() -> None:
    tray = grid_tray([1])

    def corner_grey(radius: float) -> float:
        frame, truth = render_tray(tray, style=clean(corner_radius=radius))
        x, y = np.array(truth["dice"][0]["corners"][0]) + 1.5
        return float(grey(frame)[int(y), int(x)])

    assert corner_grey(0.0) > 150  # die colour right at the corner
    assert corner_grey(0.4) < 140  # floor shows where the corner is rounded off


def test_mixed_colours_and_one_set() -> None:
    _, tower = random_scene(2, 12, style=TOWER)
    assert len({(d["color"], d["pip_color"]) for d in tower["dice"]}) == 1
    _, hard = random_scene(2, 12, style=HARD)
    assert len({d["color"] for d in hard["dice"]}) > 2


def test_style_lists_become_tuples() -> None:
    style = RenderStyle(floor_colors=[[90, 90, 90]], die_colors=["red"])  # type: ignore[arg-type]
    assert style.floor_colors == ((90, 90, 90),) and hash(style)
    _, truth = random_scene(0, 2, style=style)
    assert {d["color"] for d in truth["dice"]} == {"red"}


def test_one_set_of_dice_gets_a_floor_it_stands_out_on() -> None:
    for seed in range(40):
        frame, truth = random_scene(seed, 1, style=TOWER)
        body = np.asarray(DIE_COLORS[truth["dice"][0]["color"]], dtype=float)
        floor = frame[FLOOR_PATCH].reshape(-1, 3).mean(axis=0)
        assert np.linalg.norm(floor - body) > 50, seed


def test_pips_always_contrast() -> None:
    for body in DIE_COLORS:
        pips = pip_colors_for(body)
        assert pips
        for pip in pips:
            assert np.abs(np.subtract(DIE_COLORS[body], PIP_COLORS[pip])).max() > 80


def test_floor_texture_adds_grain() -> None:
    smooth, _ = render_tray([], style=CLEAN)
    grainy, _ = render_tray([], style=clean(floor_texture=6.0))
    assert grey(smooth)[FLOOR_PATCH].std() < 0.5
    assert grey(grainy)[FLOOR_PATCH].std() > 2


def test_flicker_changes_brightness_between_frames() -> None:
    style = clean(flicker=0.05)
    levels = {round(grey(render_tray([], style=style, frame=k)[0]).mean(), 1) for k in range(4)}
    assert len(levels) > 1
    steady = {round(grey(render_tray([], style=CLEAN, frame=k)[0]).mean(), 1) for k in range(4)}
    assert len(steady) == 1


def test_color_jitter_varies_body_brightness() -> None:
    tray = grid_tray([1, 1, 1, 1, 1, 1])

    def bodies(style: RenderStyle) -> set[int]:
        frame, truth = render_tray(tray, style=style)
        return {
            int(grey(frame)[int(d["center"][1]) + 5, int(d["center"][0]) + 5])
            for d in truth["dice"]
        }

    assert len(bodies(CLEAN)) == 1
    assert len(bodies(clean(color_jitter=0.2))) > 2


def face_pixels(frame: np.ndarray, die: dict[str, Any], shrink: float = 0.8) -> np.ndarray:
    """BGR pixels of a die's top face, kept off its rounded edge."""
    corners = np.array(die["corners"])
    centre = corners.mean(axis=0)
    inner = (centre + (corners - centre) * shrink).round().astype(np.int32)
    mask = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, inner, 255)
    return np.asarray(frame[mask > 0], np.float64)


def body_spread(frame: np.ndarray, die: dict[str, Any]) -> float:
    """How much a face's body varies: a robust spread that the pips (under a third) leave out."""
    pixels = face_pixels(frame, die)
    away = np.linalg.norm(pixels - np.median(pixels, axis=0), axis=1)
    return float(np.percentile(away, 60))


def test_marbled_dice_have_veins_and_countable_pips() -> None:
    tray = grid_tray([1, 2, 3, 4, 5, 6], 20.0)
    solid, truth = render_tray(tray, style=CLEAN, die_mm=24.0)
    marbled, truth2 = render_tray(tray, style=clean(marbled=1.0), die_mm=24.0)
    assert max(body_spread(solid, d) for d in truth["dice"]) < 2
    assert sum(body_spread(marbled, d) > 4 for d in truth2["dice"]) >= 3  # some veins are faint
    assert [count_pips(marbled, d) for d in truth2["dice"]] == [1, 2, 3, 4, 5, 6]


def test_translucent_dice_let_the_floor_show_through() -> None:
    tray = grid_tray([1, 1, 1], 0.0, color="red")

    def body(style: RenderStyle, floor: tuple[int, int, int]) -> np.ndarray:
        frame, truth = render_tray(
            tray, style=dataclasses.replace(style, floor_colors=(floor,)), die_mm=24.0
        )
        return np.array([np.median(face_pixels(frame, d), axis=0) for d in truth["dice"]])

    dark, light = (40, 40, 40), (220, 220, 220)
    assert np.abs(body(CLEAN, dark) - body(CLEAN, light)).max() < 2
    clear = clean(translucent=1.0)
    assert np.abs(body(clear, dark) - body(clear, light)).mean() > 25


def test_glints_light_up_part_of_a_dark_face() -> None:
    tray = grid_tray([6, 6, 6, 6, 6, 6], 10.0, color="black", pip_color="red")
    plain, truth = render_tray(tray, style=CLEAN, die_mm=24.0)
    shiny, _ = render_tray(tray, style=clean(glints=1.0), die_mm=24.0)

    def brightest(frame: np.ndarray) -> list[float]:
        g = (face_pixels(frame, d) @ np.array([0.114, 0.587, 0.299]) for d in truth["dice"])
        return [float(v.max()) for v in g]

    assert max(brightest(plain)) < 90
    assert sum(v > 120 for v in brightest(shiny)) >= 4  # a streak may fall off the face's middle


def test_finishes_are_fixed_by_the_seed_and_leave_other_styles_alone() -> None:
    style = dataclasses.replace(HARD, marbled=0.5, translucent=0.3, glints=0.5)
    a, truth_a = random_scene(5, 6, style=style)
    b, truth_b = random_scene(5, 6, style=style)
    assert np.array_equal(a, b) and truth_a == truth_b
    plain, _ = random_scene(5, 6, style=HARD)
    assert not np.array_equal(a, plain)
    for knob in ("marbled", "translucent", "glints"):
        with pytest.raises(RenderError, match=f"{knob}=1.5 is out of range"):
            RenderStyle(**{knob: 1.5})


# --- bad input --------------------------------------------------------------------------------

GOOD = {"value": 3, "x": 50.0, "y": 50.0, "angle": 0.0, "cocked": False}


@pytest.mark.parametrize(
    ("die", "words"),
    [
        (GOOD | {"value": 7}, "value=7"),
        (GOOD | {"value": 0}, "value=0"),
        (GOOD | {"value": "3"}, "value='3'"),
        (GOOD | {"value": True}, "value=True"),
        (GOOD | {"x": -1.0}, "off the tray"),
        (GOOD | {"y": TRAY_MM[1] + 5}, "off the tray"),
        (GOOD | {"x": float("nan")}, "finite"),
        ({"value": 2, "y": 3.0}, "x=None"),
        (GOOD | {"cocked": "yes"}, "cocked"),
        (GOOD | {"color": "purple"}, "color"),
        ("die", "expected a dict"),
    ],
)
def test_bad_die_is_a_clear_error(die: Any, words: str) -> None:
    with pytest.raises(RenderError, match="die 1") as caught:
        render_tray([GOOD, die])
    assert words in str(caught.value)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("size", [(-640, 480), (640, 0), (640,), (640.0, 480), (10, 10)])
def test_bad_size_is_a_clear_error(size: Any) -> None:
    with pytest.raises(RenderError, match="frame size"):
        render_tray([GOOD], size=size)


def test_bad_style_seed_and_counts() -> None:
    with pytest.raises(RenderError, match="unknown render style 'shiny'"):
        render_tray([GOOD], style="shiny")
    with pytest.raises(RenderError, match="noise=-1"):
        RenderStyle(noise=-1.0)
    with pytest.raises(RenderError, match="jpeg_quality"):
        RenderStyle(jpeg_quality=101)
    with pytest.raises(RenderError, match="unknown die colour"):
        RenderStyle(die_colors=("gold",))
    with pytest.raises(RenderError, match="seed"):
        render_tray([GOOD], seed=-1)
    with pytest.raises(RenderError, match="frame=-2"):
        render_tray([GOOD], frame=-2)
    with pytest.raises(RenderError, match="colour"):
        RenderStyle(floor_colors=((0, 0, 300),))
    with pytest.raises(RenderError, match="shadow_offset_mm"):
        RenderStyle(shadow_offset_mm=(1.0, 50.0))
    with pytest.raises(RenderError, match="n_dice=13"):
        random_scene(0, 13)
    with pytest.raises(RenderError, match="cocked=7"):
        random_scene(0, 6, cocked=7)
    with pytest.raises(RenderError, match="list of dice"):
        render_tray("1 2 3")  # type: ignore[arg-type]


# --- any valid tray renders -------------------------------------------------------------------

dice_strategy = st.fixed_dictionaries(
    {
        "value": st.integers(1, 6),
        "x": st.floats(0, TRAY_MM[0]),
        "y": st.floats(0, TRAY_MM[1]),
        "angle": st.floats(-720, 720),
        "cocked": st.booleans(),
    }
)


@settings(max_examples=30, deadline=None)
@given(
    tray=st.lists(dice_strategy, max_size=12),
    seed=st.integers(0, 2**32),
    style=st.sampled_from(["tower", "hard"]),
    frame=st.integers(0, 1000),
)
def test_any_valid_tray_renders_with_sane_truth(
    tray: list[dict[str, Any]], seed: int, style: str, frame: int
) -> None:
    image, truth = render_tray(tray, size=(320, 240), seed=seed, style=style, frame=frame)
    assert image.shape == (240, 320, 3)
    assert len(truth["dice"]) == len(tray)
    for die, given_die in zip(truth["dice"], tray, strict=True):
        x0, y0, x1, y1 = die["box"]
        assert 0 <= x0 <= x1 <= 319 and 0 <= y0 <= y1 <= 239
        assert die["value"] == given_die["value"] and die["cocked"] == given_die["cocked"]
