"""A middle pip carrying the lamp's reflection (vision.lamp.spot_as_pip): the pip count
sets a greyed, shrunken middle pip of a 3 or a 5 aside as the lamp's spot; a dice profile
sure of the value with that pip takes it back, and nothing else does."""

from __future__ import annotations

import numpy as np

from tests.vision.pip_faces import CENTRE, GRID, SIDE, found, pips, sure
from vision.lamp import spot_as_pip
from vision.pips import GLARE_CAP, Pip, assess, confidence
from vision.reader import MIN_CONFIDENCE, _die

CORNERS = GRID[4]


def face(grid: list[tuple[int, int]], middle: bool) -> list[Pip]:
    """Pips of ``grid``, and with ``middle`` a pip at the centre greyed and shrunk by the lamp's
    reflection (fainter than paint, under half the others' area)."""
    painted = pips(grid)
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
