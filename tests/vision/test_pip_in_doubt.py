"""A pip the count saw as a doubt (vision.pips.pip_in_doubt): a reflection merged with one
pip pulls that blob off its place, so the count fits its pips to a face of a pip fewer and
keeps a pip it saw, as strong as paint, as a doubt. With a swollen pip, that doubt and the
pips forming a clean face of a pip more, a sure second opinion may read the face."""

from __future__ import annotations

import dataclasses

import numpy as np

from tests.vision.conftest import flat_roll
from tests.vision.pip_faces import CENTRE, GRID, SIDE, found, pips, sure
from vision.pips import CLEAN_FIT, PipCount, assess, confidence, face_centre, pip_in_doubt
from vision.reader import MIN_CONFIDENCE, _die


def short_of_a_pip(value: int, beyond: bool = False) -> PipCount:
    """A face of ``value`` counted a pip short, its middle pip swollen by a reflection: its
    last place kept as a blob as strong as paint, a doubt on the face the other pips fit or,
    with ``beyond``, beyond it."""
    grid = GRID[value]
    count = assess(pips(grid[:-1]), CENTRE, SIDE, 0)
    assert count.value == value - 1 and count.layout_error >= CLEAN_FIT
    middle = face_centre(np.array(count.pips, np.float32))
    u, v = grid[-1]
    at = (
        (CENTRE[0] + u * 0.27 * SIDE - middle[0]) / SIDE,
        (CENTRE[1] + v * 0.27 * SIDE - middle[1]) / SIDE,
    )
    count = dataclasses.replace(
        count, swollen_at=(0.0, 0.1), swollen_shift=None if beyond else (0.0, 0.1)
    )
    if beyond:
        return dataclasses.replace(
            count, beyond=1, beyond_at=(at,), beyond_strength=(count.contrast,)
        )
    return dataclasses.replace(
        count, doubtful=1, doubt_at=(at,), doubt_strength=(count.contrast,), doubt_idle=(False,)
    )


def five_short_of_a_pip() -> PipCount:
    """A 5 counted as 4: its last corner pip a doubt as strong as paint."""
    return short_of_a_pip(5)


def test_the_doubt_completes_a_clean_face_of_a_pip_more() -> None:
    count = five_short_of_a_pip()
    five = pip_in_doubt(count, CENTRE, SIDE)
    assert five is not None and five.value == 5
    assert five.layout_error < CLEAN_FIT and five.doubtful == 0 and five.doubt_at == ()
    assert five.swollen_at is None and confidence(five) > confidence(count)


def test_only_with_a_swollen_pip_and_a_doubt_as_strong_as_paint() -> None:
    count = five_short_of_a_pip()
    assert pip_in_doubt(dataclasses.replace(count, swollen_at=None), CENTRE, SIDE) is None
    faint = dataclasses.replace(count, doubt_strength=(count.contrast * 0.5,))
    assert pip_in_doubt(faint, CENTRE, SIDE) is None
    # a blob off every place of a face of a pip more
    astray = dataclasses.replace(count, doubt_at=((0.45, 0.05),))
    assert pip_in_doubt(astray, CENTRE, SIDE) is None
    # nor a face far off the die's centre
    assert pip_in_doubt(count, (CENTRE[0] + 0.3 * SIDE, CENTRE[1]), SIDE) is None


def test_a_sure_second_opinion_reads_the_face() -> None:
    count = five_short_of_a_pip()
    assert _die(found(count), SIDE, None).confidence < MIN_CONFIDENCE
    die = _die(found(count), SIDE, sure(5))
    assert die.value == 5 and die.confidence >= MIN_CONFIDENCE
    hesitant = np.array([0.0, 0.0, 0.0, 0.3, 0.6, 0.1])
    assert _die(found(count), SIDE, hesitant).confidence < MIN_CONFIDENCE


def test_setup_2300_roll_11() -> None:
    # a translucent green 5 at 1296x972 whose middle pip merged with the lamp's spot
    # (swollen, its centre pulled 0.19 side toward the spot), counted as a 4 at 0.03 with
    # its corner pip a doubt; the classifier sure of a 5
    reading, values = flat_roll(2300, 11, (1296, 972))
    assert reading.ok, reading.reason
    assert reading.values == values


def three_fitted_as_two() -> PipCount:
    """A 3 counted as 2 from a corner and its middle pip: the grid those two fit puts the
    other corner beyond the face, where the count kept it as a blob as strong as paint."""
    return short_of_a_pip(3, beyond=True)


def test_a_blob_beyond_the_fitted_face_completes_a_clean_face_of_a_pip_more() -> None:
    count = three_fitted_as_two()
    three = pip_in_doubt(count, CENTRE, SIDE)
    assert three is not None and three.value == 3 and three.layout_error < CLEAN_FIT
    assert three.beyond == 0 and three.beyond_at == () and three.beyond_strength == ()
    assert three.doubtful == count.doubtful
    # a side face's pip lies beyond the top face's grid: it completes no face of the die
    side_pip = dataclasses.replace(count, beyond_at=((0.0, 0.62),))
    assert pip_in_doubt(side_pip, CENTRE, SIDE) is None
    faint = dataclasses.replace(count, beyond_strength=(count.contrast * 0.5,))
    assert pip_in_doubt(faint, CENTRE, SIDE) is None
    assert pip_in_doubt(dataclasses.replace(count, swollen_at=None), CENTRE, SIDE) is None


def test_a_light_three_counted_as_two_from_setups_never_looked_at() -> None:
    # setups 7207 roll 23 and 7404 roll 14 at 640x480: a light 3 whose middle pip swelled,
    # counted as a 2 at 0.01-0.03 with its third pip beyond the fitted face (0.98-1.01 of the
    # pips' contrast; with them a 3 of layout error 0.011-0.021, 0.013-0.023 sides off the
    # die's centre); the classifier sure of a 3
    for seed, number in ((7207, 23), (7404, 14)):
        reading, values = flat_roll(seed, number, (640, 480))
        assert reading.ok, reading.reason
        assert reading.values == values
