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
from vision.reader import MIN_CONFIDENCE, _add_inside, _die
from vision.segment import Group, Region

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


def _group_of_one_square() -> Group:
    import numpy as np

    half = SIDE / 2
    square = np.array(
        [
            [CENTRE[0] - half, CENTRE[1] - half],
            [CENTRE[0] + half, CENTRE[1] - half],
            [CENTRE[0] + half, CENTRE[1] + half],
            [CENTRE[0] - half, CENTRE[1] + half],
        ],
        np.int32,
    ).reshape(-1, 1, 2)
    part = Region(square, CENTRE, SIDE, 0.0, (0, 0, 0, 0), 2)
    return Group(square, (part,))


def test_a_merge_found_first_gives_way_to_the_pips_it_covers() -> None:
    # a touching group's pips are looked for in each die's body colour: in one look two
    # pips of a 6 and the glint between them are one blob, in the other they are apart
    group = _group_of_one_square()
    one, two = pips([(-1, -1)])[0], pips([(-1, 0)])[0]
    merge = Pip((one.x + two.x) / 2, (one.y + two.y) / 2, one.area + two.area + 20.0, 2.3)
    found: list[Pip] = []
    _add_inside(found, [merge], group, SIDE)
    _add_inside(found, [one, two], group, SIDE)
    assert found == [one, two]
    # seen the other way round the merge was never added, as before
    later: list[Pip] = []
    _add_inside(later, [one, two], group, SIDE)
    _add_inside(later, [merge], group, SIDE)
    assert later == [one, two]
    # a blob of a pip's own size found again in another body colour is kept once
    again: list[Pip] = []
    _add_inside(again, [one], group, SIDE)
    _add_inside(again, [dataclasses.replace(one, x=one.x + 1.0, area=one.area * 1.2)], group, SIDE)
    assert again == [one]


def test_a_touching_six_whose_two_pips_one_look_merged_is_read() -> None:
    # setup 15109 roll 13 at 640x480: a translucent green 6 touching a 1, whose look in
    # the 1's body colour joins two of its pips with the glint between them
    reading, values = flat_roll(15109, 13, (640, 480))
    assert reading.ok and tuple(sorted(d.value for d in reading.dice)) == values
