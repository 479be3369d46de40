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


def five_short_of_a_pip() -> PipCount:
    """A 5 counted as 4: its last corner pip a doubt as strong as paint, its middle pip
    swollen by a reflection."""
    grid = GRID[5]
    count = assess(pips(grid[:4]), CENTRE, SIDE, 0)
    assert count.value == 4 and count.layout_error >= CLEAN_FIT
    middle = face_centre(np.array(count.pips, np.float32))
    u, v = grid[4]
    corner = (CENTRE[0] + u * 0.27 * SIDE, CENTRE[1] + v * 0.27 * SIDE)
    return dataclasses.replace(
        count,
        doubtful=1,
        doubt_at=(((corner[0] - middle[0]) / SIDE, (corner[1] - middle[1]) / SIDE),),
        doubt_strength=(count.contrast,),
        doubt_idle=(False,),
        swollen_at=(0.0, 0.1),
        swollen_shift=(0.0, 0.1),
    )


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
