"""A leaning die whose count mixes its faces: one column of a foreshortened 6 read as a 3, a
side face's pip taken and a top-face pip set aside as the lamp's, a side face's small pips
beside the top face's (a "swollen" pip off its place). None of them may be scored, whatever
a second opinion reads; flat dice are read as before."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.vision.conftest import nearest
from tests.vision.pip_faces import CENTRE, SIDE, face, found, sure
from vision.found import Found
from vision.lean import doubt_of_form, face_off_outline
from vision.pips import GLARE_CAP, Pip, PipCount, assess, confidence, pulled_pip
from vision.reader import CONTEST, MIN_CONFIDENCE, _contested, _die, locate, read_dice
from vision.render import resolve_style
from vision.segment import Region, square_region
from vision.setups import make_setup, teach_setup


def _column_of_three() -> list[Pip]:
    """Three pips down the middle of an upright die, a quarter of a side apart: one column
    of a 6 (the other hidden), which fits a 3 only turned 45 degrees from the die's edges."""
    x, y = CENTRE
    return [Pip(x, y + k * 0.25 * SIDE, 40.0, 2.2) for k in (-1, 0, 1)]


def test_a_face_turned_45_degrees_from_the_outline_is_no_face_of_that_die() -> None:
    region = square_region(CENTRE, SIDE)
    column = assess(_column_of_three(), CENTRE, SIDE, 0)
    assert column.value == 3 and face_off_outline(region, column, SIDE)
    for value in (2, 3, 4, 5, 6):
        assert not face_off_outline(region, assess(face(value), CENTRE, SIDE, 0), SIDE)
    assert not face_off_outline(region, assess(face(1), CENTRE, SIDE, 0), SIDE)  # no axes
    # the outline turned with the face: the same 3 on a die turned by 45 degrees is a face
    assert not face_off_outline(_turned_square(45.0), column, SIDE)
    assert face_off_outline(_turned_square(8.0), column, SIDE)  # 37 degrees off


def _turned_square(degrees: float) -> Region:
    """A die's outline at CENTRE turned by ``degrees`` (drawn ten times larger, so that its
    corners' rounding to pixels does not turn it)."""
    t = np.radians(degrees)
    corners = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], float) * 5 * SIDE
    turned = corners @ np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])
    contour = np.round(turned + np.array(CENTRE) * 10).astype(np.int32).reshape(-1, 1, 2)
    return Region(contour, (CENTRE[0] * 10, CENTRE[1] * 10), SIDE * 10, degrees, (0, 0, 1, 1))


def test_a_turned_face_stays_unsure_whatever_a_second_opinion_reads() -> None:
    column = assess(_column_of_three(), CENTRE, SIDE, 0)
    for probs, taught in ((sure(3), None), (None, sure(3)), (None, None)):
        die = _die(found(column), SIDE, probs, taught, leaning=True)
        assert die.confidence < MIN_CONFIDENCE
    assert _die(found(column), SIDE, None, sure(3)).confidence >= MIN_CONFIDENCE  # unturned


def test_a_pip_like_blob_set_aside_is_a_doubt_of_form_a_lamp_s_spot_is_not() -> None:
    # a 2 that formed only by setting aside a blob as flat and as large as its pips (setup
    # 2308 roll 27 at 640x480: a leaning die's count took a side face's pip, left its own)
    pips = ((91.0, 42.0), (92.0, 66.0))
    pip_like = PipCount(2, pips, 0.01, 0.01, 1.8, 0, 0.14, glare=1, glare_size=0.86)
    spot = dataclasses.replace(pip_like, glare_size=0.35)  # much smaller than a pip
    peaked = dataclasses.replace(pip_like, glare_plateau=0.4)  # a reflection's falling peak
    for count in (pip_like, spot, peaked):
        assert confidence(count) < MIN_CONFIDENCE
    assert doubt_of_form(pip_like) and not doubt_of_form(spot) and not doubt_of_form(peaked)
    region = dataclasses.replace(square_region((92.0, 54.0), SIDE), merged=2)
    for count, kept in ((pip_like, False), (spot, True), (peaked, True)):
        die = _die(Found(region, count, (92.0, 54.0)), SIDE, None, sure(2), touching=True)
        assert (die.confidence >= MIN_CONFIDENCE) is kept


def test_a_pip_pulled_off_its_place_is_confirmed_only_by_a_sure_second_opinion() -> None:
    count = dataclasses.replace(
        assess(face(4), CENTRE, SIDE, 0), swollen_at=(-0.25, -0.3), swollen_shift=(-0.075, 0.0)
    )
    assert pulled_pip(count) and confidence(count) <= GLARE_CAP
    hesitant = np.array([0.02, 0.15, 0.0, 0.57, 0.02, 0.23])  # agrees, but is not sure
    assert _die(found(count), SIDE, hesitant).confidence <= GLARE_CAP
    assert _die(found(count), SIDE, sure(4)).confidence >= MIN_CONFIDENCE
    near_place = dataclasses.replace(count, swollen_shift=(0.02, 0.0))  # a glint on its pip
    assert not pulled_pip(near_place)


@pytest.mark.parametrize("seed, number", [(2408, 9), (2409, 30)])
def test_a_leaning_6_read_as_one_column_is_refused(seed: int, number: int) -> None:
    # fresh seeds at 640x480: a 6 leaning on its neighbour, foreshortened across its
    # columns, counted as a 3 of one column at 0.58; the classifier's hesitant nibble left
    # it at 0.50 and the roll was scored
    setup = make_setup(seed, (640, 480), resolve_style("setup"))
    assert setup is not None
    frame, truth = setup.roll(number, 1)
    cocked = next(d for d in truth["dice"] if d["cocked"])
    assert cocked["value"] == 6
    found_dice, side = locate(frame, setup.calibration)
    assert side is not None
    turned = [f for f in found_dice if face_off_outline(f.region, f.count, side)]
    assert [f.count.value for f in turned] == [3]
    reading = read_dice(frame, setup.calibration, expected=6)
    assert not reading.ok and reading.reason.endswith("is leaning: shake again")
    # reported as the 6 the column is part of, and unsure
    die = nearest(reading.dice, list(turned[0].centre), side / 2)
    assert die is not None and die.value == 6 and die.confidence < MIN_CONFIDENCE


def test_a_flat_6_read_as_one_column_is_reported_as_a_6() -> None:
    # setup 2401 roll 14 at 1296x972: a flat 6 whose other column was not counted read as a
    # 3 turned off its outline; refused as leaning, and shown as the 6 it is
    setup = make_setup(2401, (1296, 972), resolve_style("setup"))
    assert setup is not None
    frame, truth = setup.roll(14, 0)
    reading = read_dice(frame, setup.calibration, expected=6)
    assert not reading.ok
    want = min(truth["dice"], key=lambda d: np.hypot(d["center"][0] - 217, d["center"][1] - 197))
    die = nearest(reading.dice, want["center"], setup.calibration.die_side / 2)
    assert die is not None and die.value == want["value"] == 6 and die.confidence < MIN_CONFIDENCE


def test_flat_dice_form_faces_along_their_outlines() -> None:
    setup = make_setup(2400, (640, 480), resolve_style("setup"))
    assert setup is not None
    read = 0
    for number in (1, 2, 4, 5):
        frame, truth = setup.roll(number, 0)
        found_dice, side = locate(frame, setup.calibration)
        assert side is not None
        assert not any(face_off_outline(f.region, f.count, side) for f in found_dice)
        reading = read_dice(frame, setup.calibration, expected=6)
        read += reading.ok and reading.values == tuple(sorted(d["value"] for d in truth["dice"]))
    assert read >= 3


def test_a_leaning_die_whose_count_took_a_side_face_s_pip_is_refused_with_a_profile() -> None:
    setup = make_setup(2308, (640, 480), resolve_style("setup"))
    assert setup is not None
    profile, _ = teach_setup(setup, 12)
    frame, truth = setup.roll(27, 1)
    assert any(d["cocked"] for d in truth["dice"])
    assert not read_dice(frame, setup.calibration, expected=6, profile=profile).ok


def test_a_doubted_touching_die_whose_top_face_reads_otherwise_stays_unsure() -> None:
    two = assess(face(2), CENTRE, SIDE, 0)
    region = dataclasses.replace(square_region(CENTRE, SIDE), merged=2)
    contest = np.array([0.8, 0.11, 0.0, 0.06, 0.0, 0.03])  # reads a 1, not sure of it
    agree = np.array([0.1, 0.8, 0.0, 0.06, 0.0, 0.04])
    assert _contested(2, contest) and not _contested(2, agree) and not _contested(2, None)
    assert not _contested(2, np.array([0.45, 0.4, 0.0, 0.1, 0.0, 0.05]))  # under CONTEST
    assert CONTEST == 0.5
    die = Found(region, two, CENTRE)
    assert _die(die, SIDE, contest, doubted=True).confidence < MIN_CONFIDENCE
    assert _die(die, SIDE, contest).confidence >= MIN_CONFIDENCE  # no lean doubt: a nibble
    assert _die(die, SIDE, agree, doubted=True).confidence >= MIN_CONFIDENCE


def test_a_1_leaning_into_its_neighbour_with_a_side_face_s_pip_is_refused() -> None:
    # fresh seed 2304 roll 3 at 1296x972: a cocked 1 against a 3 counted a side face's pip
    # as a 2 (0.69); the classifier read a 1 at 0.8, which only nibbled, and it was scored
    setup = make_setup(2304, (1296, 972), resolve_style("setup"))
    assert setup is not None
    frame, truth = setup.roll(3, 1)
    assert [d["value"] for d in truth["dice"] if d["cocked"]] == [1]
    reading = read_dice(frame, setup.calibration, expected=6)
    assert not reading.ok and "front wall" in reading.reason
