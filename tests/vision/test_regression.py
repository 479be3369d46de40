"""Saved frames that once went wrong: touching dice, the hard style, a cocked die."""

from __future__ import annotations

import json

import cv2
import pytest

from tests.vision.conftest import DATA, nearest
from vision import MIN_CONFIDENCE, load_calibration, read_dice

CASES = json.loads((DATA / "cases.json").read_text())
MUST_READ = {"tower-5.jpg", "tower-97.jpg"}  # plain tower frames: these must be ok and right


@pytest.mark.parametrize("case", CASES, ids=[c["image"] for c in CASES])
def test_regression_frame(case: dict) -> None:
    frame = cv2.imread(str(DATA / case["image"]))
    reading = read_dice(frame, load_calibration(DATA / case["calibration"]), expected=6)
    if case["cocked"]:
        assert not reading.ok and reading.reason
    if reading.ok:
        assert list(reading.values) == case["values"]
    if case["image"] in MUST_READ:
        assert reading.ok, reading.reason
    for die in reading.dice:
        if die.confidence < MIN_CONFIDENCE:
            continue
        truth = min(
            case["dice"],
            key=lambda t: (
                (t["center"][0] - die.center[0]) ** 2 + (t["center"][1] - die.center[1]) ** 2
            ),
        )
        if not truth["cocked"]:
            assert die.value == truth["value"], f"confidently wrong: {die}"


def test_regression_frames_find_every_flat_die() -> None:
    for case in CASES:
        if case["image"] not in MUST_READ:
            continue
        frame = cv2.imread(str(DATA / case["image"]))
        reading = read_dice(frame, load_calibration(DATA / case["calibration"]), expected=6)
        for truth in case["dice"]:
            die = nearest(reading.dice, truth["center"], case["die_px"] * 0.5)
            assert die is not None and die.value == truth["value"]
