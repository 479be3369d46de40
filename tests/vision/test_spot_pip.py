"""A middle pip carrying the lamp's reflection (vision.lamp.spot_as_pip): the pip count
sets a greyed, shrunken middle pip of a 3 or a 5 aside as the lamp's spot; a dice profile
sure of the value with that pip takes it back, and nothing else does. A blob set aside that
is larger than the pips is a pip the spot swelled, and is taken back by itself."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.vision.pip_faces import CENTRE, GRID, SIDE, found, pips, sure
from vision.lamp import SPOT_SIZE, set_aside_paint, spot_as_pip
from vision.pips import GLARE_CAP, Pip, assess, confidence
from vision.reader import MIN_CONFIDENCE, _die, read_dice
from vision.render import resolve_style
from vision.setups import make_setup

CORNERS = GRID[4]


def face(grid: list[tuple[int, int]], middle: bool) -> list[Pip]:
    """Dark pips of ``grid`` on a light die, and with ``middle`` a pip at the centre greyed
    and shrunk by the lamp's reflection (fainter than paint, under half the others' area,
    washed out to the body's lightness or more). The spot greys dark paint only: on light
    paint a small blob at the centre is the lamp's (``lamp.bare_spot_at_centre``)."""
    painted = [dataclasses.replace(p, darker=True) for p in pips(grid)]
    return [*painted, Pip(100.5, 99.5, 14.0, 1.2)] if middle else painted


def test_a_5_whose_middle_pip_the_count_set_aside_is_a_candidate_5() -> None:
    four = assess(face(CORNERS, middle=True), CENTRE, SIDE, 0)
    assert four.value == 4 and four.glare == 1  # the greyed middle pip taken for the spot
    five = spot_as_pip(four, SIDE)
    assert five is not None and five.value == 5 and five.layout_error < 0.01
    assert len(five.pips) == 5 and np.hypot(five.pips[-1][0] - 100.5, five.pips[-1][1] - 99.5) < 0.5
    assert confidence(five) <= GLARE_CAP  # never sure on its own


def test_a_3_whose_middle_pip_the_count_set_aside_is_a_candidate_3() -> None:
    two = assess(face([(-1, -1), (1, 1)], middle=True), CENTRE, SIDE, 0)
    assert two.value == 2 and two.glare == 1
    three = spot_as_pip(two, SIDE)
    assert three is not None and three.value == 3


def test_only_a_set_aside_spot_completing_a_clean_face_is_a_candidate() -> None:
    clean = assess(face(CORNERS, middle=False), CENTRE, SIDE, 0)
    assert clean.glare == 0 and spot_as_pip(clean, SIDE) is None  # nothing was set aside
    three = assess(face([(-1, -1), (0, 0), (1, 1)], middle=False), CENTRE, SIDE, 0)
    assert spot_as_pip(three, SIDE) is None  # only a 2 or a 4 had a middle pip taken off


def test_the_reader_takes_the_pip_back_only_where_a_sure_profile_reads_it() -> None:
    four = assess(face(CORNERS, middle=True), CENTRE, SIDE, 0)
    alone = _die(found(four), SIDE, None)
    assert alone.confidence < MIN_CONFIDENCE
    taught = _die(found(four), SIDE, None, sure(5))
    assert taught.value == 5 and taught.confidence >= MIN_CONFIDENCE
    # the generic classifier, which takes highlights on dark dice for pips, is not enough
    classified = _die(found(four), SIDE, sure(5))
    assert classified.confidence < MIN_CONFIDENCE
    # a profile sure of the 4 (a 4 with the lamp's spot at its centre) keeps it a 4
    four_taught = _die(found(four), SIDE, None, sure(4))
    assert four_taught.value == 4
    # a profile sure of another value entirely keeps it unsure
    other = _die(found(four), SIDE, None, sure(6))
    assert other.confidence < MIN_CONFIDENCE


@pytest.mark.parametrize("grid", [CORNERS, [(-1, -1), (1, 1)]])
def test_a_blob_set_aside_larger_than_the_pips_is_a_pip_the_spot_lies_on(grid) -> None:
    # the spot alone on a die's body is smaller than its pips; a middle pip it lies on
    # swells with it (1.11-1.30 times the pips' area on the tower setups)
    shrunk = assess(face(grid, middle=True), CENTRE, SIDE, 0)
    assert shrunk.glare == 1 and shrunk.glare_size < SPOT_SIZE and not set_aside_paint(shrunk)
    swollen = dataclasses.replace(shrunk, glare_size=1.2)
    assert set_aside_paint(swollen)
    restored = spot_as_pip(swollen, SIDE)
    assert restored is not None and restored.value == len(grid) + 1 and restored.glare == 0
    assert confidence(restored) >= MIN_CONFIDENCE  # a count like any other
    die = _die(found(swollen), SIDE, None)
    assert die.value == len(grid) + 1 and die.confidence >= MIN_CONFIDENCE
    # a classifier reading the count's own value (it takes no spot for a pip there) keeps
    # it no more than it would keep a count of paint
    hesitant = np.full(6, 0.06)
    hesitant[len(grid) - 1] = 0.7
    assert _die(found(swollen), SIDE, hesitant).value == len(grid) + 1
    # no larger than the pips: a bare spot may be one, and only a profile tells
    level = dataclasses.replace(shrunk, glare_size=SPOT_SIZE)
    assert not set_aside_paint(level)
    assert _die(found(level), SIDE, None).confidence < MIN_CONFIDENCE
    # nothing set aside: nothing to take back, whatever a size says
    assert not set_aside_paint(dataclasses.replace(swollen, glare=0))


@pytest.mark.parametrize(("seed", "number"), [(1710, 10), (7509, 1)])
def test_a_middle_pip_the_spot_swelled_is_scored_without_a_profile(seed: int, number: int) -> None:
    # a 3 whose middle pip, with the lamp's reflection on it, was set aside as the spot at a
    # 2's centre; larger than the other pips (1.24 and 1.29 times), it is no bare spot, and
    # the 3 is scored (setup 1710 was refused before; 7509, of seeds no rule was found on)
    setup = make_setup(seed, (640, 480), resolve_style("setup"))
    assert setup is not None
    frame, truth = setup.roll(number, 0)
    reading = read_dice(frame, setup.calibration, expected=6)
    assert reading.ok, reading.reason
    assert reading.values == tuple(sorted(d["value"] for d in truth["dice"]))
    assert 3 in reading.values
