"""A blank die under a calibration (vision.reader.locate_all, _blank_die): a lone region of a
die's size and shape where no pip was found is a die whose one pip a highlight took, never
sure, reported as a 1; a region of no die's shape is still nothing."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.conftest import nearest
from tests.vision.pip_faces import CENTRE, SIDE, found, sure
from vision import MIN_CONFIDENCE, read_dice
from vision.bench import scene_calibration
from vision.pips import assess
from vision.reader import _blank_die
from vision.render import random_scene, resolve_style
from vision.setups import make_setup


def _scene() -> tuple[np.ndarray, dict]:
    frame, truth = random_scene(0, 6, style="tower", cocked=0)
    return frame.copy(), truth


def _body_colour(frame: np.ndarray, box: list[int]) -> np.ndarray:
    x0, y0, x1, y1 = box
    return np.median(frame[y0:y1, x0:x1].reshape(-1, 3), axis=0)


def _lone(truth: dict) -> dict:
    """A die no other touches (a blank die of a touching group is not judged)."""
    return next(
        t
        for t in truth["dice"]
        if all(
            np.hypot(t["center"][0] - u["center"][0], t["center"][1] - u["center"][1])
            > 1.6 * truth["die_px"]
            for u in truth["dice"]
            if u is not t
        )
    )


def _wipe_pips(frame: np.ndarray, die: dict) -> None:
    """Paint a die's face its body's colour, as a highlight over its pips would."""
    x0, y0, x1, y1 = die["box"]
    inset = max(2, (x1 - x0) // 6)
    frame[y0 + inset : y1 - inset, x0 + inset : x1 - inset] = _body_colour(frame, die["box"])


def test_a_die_with_no_pip_is_a_blank_die_never_sure() -> None:
    frame, truth = _scene()
    calibration = scene_calibration(0, "tower")
    assert read_dice(frame, calibration, expected=6).ok
    wiped = _lone(truth)
    _wipe_pips(frame, wiped)
    reading = read_dice(frame, calibration, expected=6)
    # six dice, not "found 5 dice": the one with no pip is unclear, where it lies
    assert len(reading.dice) == 6 and not reading.ok
    blank = nearest(reading.dice, wiped["center"], truth["die_px"] * 0.5)
    assert blank is not None and blank.value == 1 and blank.confidence == 0.0
    assert "unclear (looks like a 1, confidence 0.00)" in reading.reason
    # the other five keep their readings
    for t in (t for t in truth["dice"] if t is not wiped):
        die = nearest(reading.dice, t["center"], truth["die_px"] * 0.5)
        assert die is not None and die.value == t["value"] and die.confidence >= MIN_CONFIDENCE


def test_a_pipless_region_of_no_die_shape_is_nothing() -> None:
    frame, truth = _scene()
    calibration = scene_calibration(0, "tower")
    side = int(truth["die_px"])
    colour = _body_colour(frame, truth["dice"][0]["box"])
    # a bar a third of a die wide and two dice long (a pencil, a cable) on the empty floor
    taken = np.zeros(frame.shape[:2], bool)
    for t in truth["dice"]:
        x0, y0, x1, y1 = t["box"]
        taken[max(0, y0 - side) : y1 + side, max(0, x0 - side) : x1 + side] = True
    h, w = frame.shape[:2]
    spot = next(
        (x, y)
        for y in range(h // 4, 3 * h // 4, 4)
        for x in range(w // 4, 3 * w // 4, 4)
        if not taken[y : y + side // 3, x : x + 2 * side].any()
    )
    x, y = spot
    frame[y : y + side // 3, x : x + 2 * side] = colour
    reading = read_dice(frame, calibration, expected=6)
    assert reading.ok, reading.reason
    assert len(reading.dice) == 6


def test_a_blank_die_is_no_die_without_a_calibration() -> None:
    frame, truth = _scene()
    wiped = _lone(truth)
    _wipe_pips(frame, wiped)
    reading = read_dice(frame)  # the learned reader: the detector decides what is a die
    die = nearest(reading.dice, wiped["center"], truth["die_px"] * 0.5)
    assert die is None or die.confidence < MIN_CONFIDENCE


@pytest.mark.parametrize(("seed", "number"), [(3209, 10), (6508, 2)])
def test_a_1_whose_pip_the_highlight_took_is_reported_unclear(seed: int, number: int) -> None:
    # glossy dice at 640x480: the lone pip merged with the rim's highlight into a blob no pip
    # is, and the die was left out ("found 5 dice but 6 should be in the tray")
    setup = make_setup(seed, (640, 480), resolve_style("setup"))
    assert setup is not None
    frame, truth = setup.roll(number, 0)
    reading = read_dice(frame, setup.calibration, expected=6)
    assert not reading.ok and "unclear (looks like a 1" in reading.reason
    side = setup.calibration.die_side
    for t in truth["dice"]:
        die = nearest(reading.dice, t["center"], side * 0.5)
        assert die is not None and die.value == t["value"]


def test_a_sure_profile_names_a_blank_die() -> None:
    blank = found(assess([], CENTRE, SIDE, 0))
    assert blank.count.value == 0
    assert _blank_die(blank, None) == _blank_die(blank, sure(1))
    assert _blank_die(blank, None).value == 1 and _blank_die(blank, None).confidence == 0.0
    # a profile taught on these dice, sure of another face, names it; still never sure
    named = _blank_die(blank, sure(3))
    assert named.value == 3 and named.confidence == 0.0
    hesitant = np.array([0.05, 0.05, 0.8, 0.05, 0.03, 0.02])
    assert _blank_die(blank, hesitant).value == 1


def test_a_pipless_part_of_a_touching_group_is_not_judged() -> None:
    # the pips of touching dice are shared out by their centres: a part left with none may
    # be a wrong split as well as a blank die, and is left out, as before
    frame, truth = _scene()
    touching = truth["dice"][0]  # the green 5 beside a 4 in scene 0
    _wipe_pips(frame, touching)
    reading = read_dice(frame, scene_calibration(0, "tower"), expected=6)
    assert nearest(reading.dice, touching["center"], truth["die_px"] * 0.5) is None
    assert reading.reason == "found 5 dice but 6 should be in the tray"
