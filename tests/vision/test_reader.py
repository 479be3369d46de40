"""The dice reader on rendered frames: every difficulty, honesty when unsure, bad input."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from tests.vision.conftest import nearest
from vision import MIN_CONFIDENCE, Reading, read_dice
from vision.bench import scene_calibration
from vision.render import HARD, TOWER, random_scene, random_tray, render_tray


def _check_against_truth(reading: Reading, truth: dict, strict: bool = True) -> None:
    """Every die read confidently has its true value; with ``strict`` every die is found."""
    for die in reading.dice:
        t = min(
            truth["dice"],
            key=lambda d: (
                (d["center"][0] - die.center[0]) ** 2 + (d["center"][1] - die.center[1]) ** 2
            ),
        )
        if die.confidence >= MIN_CONFIDENCE and not t["cocked"]:
            assert die.value == t["value"], (die, t)
    if strict:
        for t in truth["dice"]:
            die = nearest(reading.dice, t["center"], truth["die_px"] * 0.5)
            assert die is not None, f"missed {t}"
            assert die.value == t["value"]


@pytest.mark.parametrize("seed", [0, 1, 3, 4, 5, 6])
def test_tower_frames_read_right_with_calibration(seed: int) -> None:
    frame, truth = random_scene(seed, 6, style="tower", cocked=0)
    cal = scene_calibration(seed, "tower")
    reading = read_dice(frame, cal, expected=6)
    _check_against_truth(reading, truth)
    assert reading.ok, reading.reason
    assert reading.values == tuple(sorted(d["value"] for d in truth["dice"]))


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_tower_frames_read_without_calibration(seed: int) -> None:
    frame, truth = random_scene(seed, 6, style="tower", cocked=0)
    reading = read_dice(frame)
    _check_against_truth(reading, truth, strict=False)
    assert len(reading.dice) >= 4


@pytest.mark.parametrize("height", [250.0, 350.0])
def test_side_faces_of_a_near_camera_are_not_counted(height: float) -> None:
    # a camera close above the tray sees the side faces of dice away from the centre
    style = dataclasses.replace(TOWER, name=f"camera {height}", camera_height_mm=height)
    right = total = oks = 0
    for seed in range(6):
        frame, truth = random_scene(seed, 6, style=style, cocked=0)
        reading = read_dice(frame, scene_calibration(seed, style), expected=6)
        _check_against_truth(reading, truth, strict=False)
        oks += int(reading.ok)
        for t in truth["dice"]:
            die = nearest(reading.dice, t["center"], truth["die_px"] * 0.5)
            right += int(die is not None and die.value == t["value"])
            total += 1
    assert right >= 0.9 * total  # the top face is read, not the top face and a side
    assert oks >= 3  # a flat die showing its sides is not taken for a cocked one


KNOBS = {
    "shadow": {"shadow": 0.6, "shadow_blur_mm": 3.0, "shadow_offset_mm": (2.5, 3.0)},
    "uneven light": {"light_gradient": 0.35, "vignette": 0.4},
    "glare": {"glare": 0.5},
    "noise": {"noise": 9.0},
    "blur": {"blur_px": 1.3},
    "jpeg": {"jpeg_quality": 55},
    "perspective": {"perspective": 0.05},
    "mixed colours": {"mixed_colors": True},
    "size jitter": {"size_jitter": 0.08},
    "touching": {"touching": 1.0},
}


@pytest.mark.parametrize("knob", sorted(KNOBS))
def test_each_difficulty_never_gives_a_confident_wrong_value(knob: str) -> None:
    style = dataclasses.replace(TOWER, name=knob, **KNOBS[knob])
    for seed in range(4):
        frame, truth = random_scene(seed, 6, style=style, cocked=0)
        reading = read_dice(frame, expected=6)
        _check_against_truth(reading, truth, strict=False)
        if reading.ok:
            assert reading.values == tuple(sorted(d["value"] for d in truth["dice"]))


def test_hard_frames_never_ok_with_wrong_values() -> None:
    for seed in range(6):
        frame, truth = random_scene(seed, 6, style=HARD)
        reading = read_dice(frame, expected=6)
        _check_against_truth(reading, truth, strict=False)
        if reading.ok:
            assert reading.values == tuple(sorted(d["value"] for d in truth["dice"]))


def test_cocked_die_without_calibration_is_seldom_ok() -> None:
    # the learned models catch most cocked dice; the tower itself reads calibrated frames
    caught = 0
    for seed in range(40):
        frame, _ = random_scene(seed, 6, style="tower", cocked=1)
        reading = read_dice(frame, expected=6)
        caught += not reading.ok
    # measured: 36 of 40 (84 of the first 100) with the face reader trained with more
    # cocked dice, 30 (76) with the one before; a calibration catches them all
    # (test_cocked_die_is_never_ok)
    assert caught >= 33


def test_cocked_die_is_never_ok() -> None:
    for seed in range(6):
        frame, _ = random_scene(seed, 6, style="tower", cocked=1)
        reading = read_dice(frame, scene_calibration(seed, "tower"), expected=6)
        assert not reading.ok, f"seed {seed}: cocked die passed as {reading.values}"
        assert reading.reason


def test_count_differing_from_expected_is_not_ok(tower_calibration) -> None:
    frame, _ = render_tray(random_tray(11, 5), seed=0, style="tower")
    reading = read_dice(frame, tower_calibration, expected=6)
    assert not reading.ok
    assert "5 dice" in reading.reason and "6" in reading.reason


def test_empty_tray_reads_no_dice(tower_calibration) -> None:
    frame, _ = render_tray([], seed=0, style="tower", frame=5)
    reading = read_dice(frame, tower_calibration, expected=0)
    assert reading.dice == ()
    assert reading.ok
    assert not read_dice(frame, tower_calibration).ok  # nothing found, nothing expected


def test_reading_json_shape() -> None:
    frame, _ = random_scene(0, 6, style="tower", cocked=0)
    data = read_dice(frame, scene_calibration(0, "tower"), expected=6).to_json()
    assert set(data) == {"dice", "ok", "reason"}
    for die in data["dice"]:
        assert 1 <= die["value"] <= 6
        assert 0.0 <= die["confidence"] <= 1.0
        assert len(die["center"]) == 2 and len(die["box"]) == 4


def test_grey_and_bgra_frames_are_accepted() -> None:
    frame, _ = random_scene(0, 6, style="tower", cocked=0)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    assert isinstance(read_dice(grey), Reading)
    bgra = cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA)
    assert read_dice(bgra).values == read_dice(frame).values


@pytest.mark.parametrize(
    ("frame", "words"),
    [
        ("not an image", "numpy array"),
        (np.zeros((480, 640, 3), np.float32), "uint8"),
        (np.zeros((0, 0, 3), np.uint8), "empty"),
        (np.zeros((480, 640, 5), np.uint8), "shape"),
        (np.zeros((10, 10, 3), np.uint8), "too small"),
    ],
)
def test_bad_frames_are_clear_value_errors(frame: object, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        read_dice(frame)  # type: ignore[arg-type]


@pytest.mark.parametrize("expected", [-1, 100, 2.5, True, "6"])
def test_bad_expected_is_a_value_error(expected: object) -> None:
    with pytest.raises(ValueError, match="expected"):
        read_dice(np.zeros((100, 100, 3), np.uint8), expected=expected)  # type: ignore[arg-type]


def test_frame_of_another_size_than_the_calibration(tower_calibration) -> None:
    with pytest.raises(ValueError, match="calibrate again"):
        read_dice(np.zeros((240, 320, 3), np.uint8), tower_calibration)


def test_blank_frame_reads_nothing() -> None:
    reading = read_dice(np.full((480, 640, 3), 128, np.uint8))
    assert reading.dice == () and not reading.ok and reading.reason == "no dice found"


def test_a_smudged_die_makes_the_reading_unsure() -> None:
    frame, truth = random_scene(0, 6, style="tower", cocked=0)
    die = truth["dice"][0]
    x0, y0, x1, y1 = die["box"]
    frame = frame.copy()
    frame[y0:y1, x0:x1] = cv2.GaussianBlur(frame[y0:y1, x0:x1], (0, 0), 6)
    reading = read_dice(frame, scene_calibration(0, "tower"), expected=6)
    assert not reading.ok
    assert "unclear" in reading.reason or "found 5 dice" in reading.reason
    _check_against_truth(reading, truth, strict=False)
