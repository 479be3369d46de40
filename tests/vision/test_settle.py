"""Settle detection on rendered sequences: tumbling dice, then still dice with sensor noise."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vision.render import TRAY_MM, random_tray, render_tray
from vision.settle import SettleDetector, SettleError


def tumble(tray: list[dict[str, Any]], rng: np.random.Generator, step_mm: float) -> list[dict]:
    """Every die moved by about ``step_mm`` and turned a little: one frame of tumbling."""
    moved = []
    for die in tray:
        heading = rng.uniform(0, 2 * np.pi)
        x = float(np.clip(die["x"] + step_mm * np.cos(heading), 14, TRAY_MM[0] - 14))
        y = float(np.clip(die["y"] + step_mm * np.sin(heading), 14, TRAY_MM[1] - 14))
        angle = (die["angle"] + rng.uniform(-25, 25)) % 360
        value = int(rng.integers(1, 7))
        moved.append(die | {"x": x, "y": y, "angle": angle, "value": value})
    return moved


def sequence(
    seed: int, tumbling: int, still: int, style: str = "tower", step_mm: float = 6.0
) -> list[np.ndarray]:
    """``tumbling`` frames of dice in new places, then ``still`` more frames of the last tray."""
    rng = np.random.default_rng(seed)
    tray = random_tray(seed, 6)
    frames = []
    for k in range(tumbling + still):
        if k < tumbling:
            tray = tumble(tray, rng, step_mm)
        frames.append(render_tray(tray, seed=seed, style=style, frame=k)[0])
    return frames


@pytest.mark.parametrize("style", ["tower", "hard"])
@pytest.mark.parametrize("seed", [1, 2])
def test_settles_after_k_still_frames(style: str, seed: int) -> None:
    detector = SettleDetector(still_frames=3)
    results = [detector.update(f) for f in sequence(seed, tumbling=8, still=6, style=style)]
    # frames 0..7 each show the dice somewhere new; frames 8, 9, 10 repeat frame 7's tray
    # and are the three quiet comparisons
    assert results == [False] * 10 + [True] * 4


def test_motion_is_reported_for_logs() -> None:
    detector = SettleDetector()
    frames = sequence(3, tumbling=3, still=3)
    detector.update(frames[0])
    assert detector.status()["motion"] == 1.0  # nothing to compare with yet
    detector.update(frames[1])
    moving = detector.motion
    for frame in frames[2:]:
        detector.update(frame)
    assert moving > 0.005
    assert detector.motion <= detector.max_motion
    assert detector.status() == {
        "motion": round(detector.motion, 5),
        "noise": round(detector.noise, 2),
        "still": 3,
        "settled": True,
        "frames": 6,
    }


@pytest.mark.parametrize(("style", "step_mm"), [("tower", 0.5), ("hard", 1.0)])
@pytest.mark.parametrize("seed", [4, 10])
def test_one_die_sliding_slowly_is_motion(style: str, step_mm: float, seed: int) -> None:
    tray = random_tray(seed, 6)
    detector = SettleDetector(still_frames=2)
    for k in range(8):
        slid = [dict(d) for d in tray]
        slid[0]["x"] = tray[0]["x"] + step_mm * k  # 1.2 or 2.3 pixels a frame
        assert detector.update(render_tray(slid, seed=seed, style=style, frame=k)[0]) is False


def test_slow_lighting_drift_and_flicker_are_not_motion() -> None:
    tray = random_tray(5, 6)
    detector = SettleDetector(still_frames=4)
    results = []
    for k in range(8):
        frame = render_tray(tray, seed=5, style="hard", frame=k)[0].astype(np.float32)
        frame *= 1.0 + 0.015 * k  # exposure creeping up 1.5 % a frame
        results.append(detector.update(np.clip(frame, 0, 255).astype(np.uint8)))
    assert results == [False] * 4 + [True] * 4


def test_reset_after_a_shake_starts_over() -> None:
    frames = sequence(6, tumbling=0, still=6)
    detector = SettleDetector(still_frames=2)
    assert [detector.update(f) for f in frames[:3]] == [False, False, True]
    detector.reset()
    assert detector.settled is False
    assert [detector.update(f) for f in frames[3:]] == [False, False, True]


def test_movement_after_settling_unsettles() -> None:
    still = sequence(7, tumbling=0, still=4)
    moving = sequence(8, tumbling=1, still=0)
    detector = SettleDetector(still_frames=2)
    assert [detector.update(f) for f in still][-1] is True
    assert detector.update(moving[0]) is False


def test_a_change_of_frame_size_restarts_the_comparison() -> None:
    detector = SettleDetector(still_frames=1)
    big = render_tray(random_tray(9, 6), seed=9)[0]
    small = render_tray(random_tray(9, 6), seed=9, size=(320, 240))[0]
    assert detector.update(big) is False
    assert detector.update(small) is False
    assert detector.update(small) is True


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"still_frames": 0}, "still_frames=0"),
        ({"still_frames": 2.5}, "still_frames=2.5"),
        ({"max_motion": -0.1}, "max_motion"),
        ({"pixel_level": 0.0}, "pixel_level"),
        ({"width": 4}, "width=4"),
    ],
)
def test_bad_settings(options: dict[str, Any], words: str) -> None:
    with pytest.raises(SettleError, match=words):
        SettleDetector(**options)


@pytest.mark.parametrize(
    "frame", [None, np.zeros((10, 10), np.uint8), np.zeros((10, 10, 3), np.float32)]
)
def test_bad_frame_is_a_clear_error(frame: Any) -> None:
    with pytest.raises(ValueError, match="settle detector input"):
        SettleDetector().update(frame)
