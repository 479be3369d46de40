"""Two neighbouring pips of a 6 merged into one blob by a highlight or blur, counted once:
the count of five fits a 6 with one place empty beside that double-sized blob
(vision.pips.merged_pip). The merged blob is seen evidence of the lost pip, so the reader
takes the 6 on the count's own word, where it only guesses a pip lost from the layout."""

from __future__ import annotations

import dataclasses

import pytest

from tests.vision.conftest import flat_roll
from tests.vision.pip_faces import CENTRE, SIDE, A, face, found, pips, sure
from vision.pips import Pip, assess, confidence, merged_pip, missing_pip
from vision.reader import MIN_CONFIDENCE, _die

COLUMN = [(1, -1), (1, 0), (1, 1), (-1, 1)]  # a 6's pips other than the two merged


def merged_six(at: tuple[float, float] = (-1, -0.7), area: float = 75.0) -> list[Pip]:
    """A 6 whose top-left and middle-left pips are one blob ``area`` large at ``at``
    (nearer the corner pip, as a highlight on the rim leaves it)."""
    blob = Pip(CENTRE[0] + at[0] * A * SIDE, CENTRE[1] + at[1] * A * SIDE, area, 2.2)
    return [*pips(COLUMN), blob]


def test_a_six_with_two_pips_merged_is_counted_as_a_six() -> None:
    count = assess(merged_six(), CENTRE, SIDE, 0)
    assert count.value == 5 and count.swollen_at is not None
    assert confidence(count) < MIN_CONFIDENCE  # five pips that are no face of five
    six = merged_pip(count, CENTRE, SIDE)
    assert six is not None and six.value == 6
    assert six.doubtful == count.doubtful  # no guessed pip: the blob is two
    assert confidence(six) >= MIN_CONFIDENCE
    guessed = missing_pip(count, CENTRE, SIDE)
    assert guessed is not None and confidence(guessed) < confidence(six)


def test_the_reader_takes_the_merged_six_without_a_second_opinion() -> None:
    count = assess(merged_six(), CENTRE, SIDE, 0)
    die = _die(found(count), SIDE, None)
    assert die.value == 6 and die.confidence >= MIN_CONFIDENCE
    vetoed = _die(found(count), SIDE, sure(4))  # a sure classifier of another value still vetoes
    assert vetoed.confidence < MIN_CONFIDENCE


def test_a_large_blob_away_from_the_empty_place_explains_nothing() -> None:
    # the same five blobs, the large one in the right column: the empty place of the 6
    # they form lies across the face from it
    blob = Pip(CENTRE[0] + A * SIDE, CENTRE[1], 80.0, 2.2)
    others = pips([(1, -1), (1, 1), (-1, 1), (-1, 0)])
    count = assess([*others, blob], CENTRE, SIDE, 0)
    assert count.value == 5
    assert missing_pip(count, CENTRE, SIDE) is not None
    assert merged_pip(count, CENTRE, SIDE) is None


def test_a_five_with_a_swollen_pip_is_a_five() -> None:
    five = face(5)
    five[0] = dataclasses.replace(five[0], area=80.0)  # the lamp on a corner pip
    count = assess(five, CENTRE, SIDE, 0)
    assert count.value == 5 and count.swollen_at is not None
    assert merged_pip(count, CENTRE, SIDE) is None  # a clean 5 is offered nothing


def test_without_a_swollen_blob_the_lost_pip_stays_a_guess() -> None:
    count = assess(pips([*COLUMN, (-1, -0.7)]), CENTRE, SIDE, 0)
    assert count.value == 5 and count.swollen_at is None
    assert merged_pip(count, CENTRE, SIDE) is None
    assert _die(found(count), SIDE, None).confidence < MIN_CONFIDENCE


@pytest.mark.slow
def test_a_tower_six_with_two_pips_merged_is_read_without_a_profile() -> None:
    # setup 2208 roll 14 at 640x480: a 6 whose two pips the rim's highlight joined, read
    # as a 5 at 0.05 and refused before
    reading, values = flat_roll(2208, 14, (640, 480))
    assert reading.ok, reading.reason
    assert reading.values == values
