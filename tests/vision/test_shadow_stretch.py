"""A lone die whose region its shadow stretched, under a calibration that witnessed no far
camera (vision.lean.shadow_stretched): the full-resolution look finds no side face, so the
stretch is no lean. Setup 9606 at 640x480 (small black dice, long shadows) calibrated with
the default shadow floor, as it was before black dice just darker than it raised it
(vision.calibrate.shadow_floor): its dice measured a tenth small, it counted a flat 2 as one
pip and so measured a side face beside it, a near camera's witness."""

from __future__ import annotations

import importlib
from collections.abc import Iterator

import numpy as np
import pytest

from tests.vision.conftest import true_values
from vision.found import Found
from vision.lean import far_calibration, leans, seen_from_far, shadow_stretched
from vision.reader import locate, read_dice
from vision.render import resolve_style
from vision.setups import Setup, make_setup

SIZE = (640, 480)
calibrate_module = importlib.import_module("vision.calibrate")  # the function shadows it


@pytest.fixture(scope="module")
def setup_9606() -> Iterator[Setup]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(calibrate_module, "shadow_floor", lambda frame, cal: None)
        setup = make_setup(9606, SIZE, resolve_style("setup"))
    assert setup is not None
    yield setup


def _long_lone_dice(frame: np.ndarray, setup: Setup) -> list[tuple[Found, list[Found]]]:
    """The lone dice longer than a die on a frame whose other dice look unstretched: those
    the region alone would call leaning."""
    found, _ = locate(frame, setup.calibration)
    side = setup.calibration.die_side
    middle = (frame.shape[1] / 2.0, frame.shape[0] / 2.0)
    return [
        (f, found)
        for f in found
        if 1 <= f.count.value <= 6 and leans(f, side) and seen_from_far(f, found, side, middle)
    ]


def test_the_calibration_witnessed_no_far_camera(setup_9606: Setup) -> None:
    assert not far_calibration(setup_9606.calibration)


def test_a_flat_die_stretched_by_its_shadow_is_read(setup_9606: Setup) -> None:
    frame, truth = setup_9606.roll(2, 0)
    suspects = _long_lone_dice(frame, setup_9606)
    assert suspects, "roll 2 holds a lone die its shadow stretched"
    cal = setup_9606.calibration
    for f, found in suspects:
        others = [(g.region, g.count) for g in found if g is not f]
        assert shadow_stretched(frame, cal, f, others)
    reading = read_dice(frame, cal, expected=6)
    assert reading.ok, reading.reason
    assert reading.values == true_values(truth)


def test_a_leaning_die_shows_its_side_face() -> None:
    # setup 200 (a tuning seed) roll 9: a die leaning on its own, long and seen from far
    setup = make_setup(200, SIZE, resolve_style("setup"))
    assert setup is not None
    frame, truth = setup.roll(9, 1)
    cocked = next(d for d in truth["dice"] if d["cocked"])
    side = setup.calibration.die_side
    leaning = [
        (f, found)
        for f, found in _long_lone_dice(frame, setup)
        if np.hypot(f.centre[0] - cocked["center"][0], f.centre[1] - cocked["center"][1]) < side
    ]
    assert len(leaning) == 1
    f, found = leaning[0]
    others = [(g.region, g.count) for g in found if g is not f]
    assert not shadow_stretched(frame, setup.calibration, f, others)


def test_every_roll_of_9606_with_a_cocked_die_is_refused(setup_9606: Setup) -> None:
    for number in range(3, 31, 3):
        frame, truth = setup_9606.roll(number, 1)
        assert any(d["cocked"] for d in truth["dice"])
        reading = read_dice(frame, setup_9606.calibration, expected=6)
        assert not reading.ok, f"roll {number} scored {reading.values}"


def test_touching_dice_and_side_pips_are_never_so_forgiven(setup_9606: Setup) -> None:
    import dataclasses

    frame, _ = setup_9606.roll(2, 0)
    f, found = _long_lone_dice(frame, setup_9606)[0]
    cal = setup_9606.calibration
    others = [(g.region, g.count) for g in found if g is not f]
    with_pip = dataclasses.replace(f, count=dataclasses.replace(f.count, side_pips=1))
    assert not shadow_stretched(frame, cal, with_pip, others)
    touching = dataclasses.replace(f, region=dataclasses.replace(f.region, merged=2))
    assert not shadow_stretched(frame, cal, touching, others)
