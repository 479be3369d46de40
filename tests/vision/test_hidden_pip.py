"""A pip hidden under the lamp's spot (vision.lamp.hidden_by_lamp): the pips of a count that
do not form a face but form one of a pip more with its empty place at the lamp are a
candidate for that value, taken only where a sure second opinion reads it."""

from __future__ import annotations

import numpy as np

from tests.vision.pip_faces import CENTRE, GRID, SIDE, A, found, pips, sure
from vision.lamp import hidden_by_lamp
from vision.pips import GLARE_CAP, assess, confidence
from vision.reader import MIN_CONFIDENCE, _die

FIVE = GRID[5]


def test_a_5_missing_the_corner_under_the_lamp_is_a_candidate_5() -> None:
    four = assess(pips(FIVE[1:]), CENTRE, SIDE, 0)  # the top-left corner's pip is hidden
    assert four.value == 4 and confidence(four) < MIN_CONFIDENCE
    lamp = (-0.2, -0.22)  # the spot lies on that corner's pip
    five = hidden_by_lamp(four, lamp, SIDE)
    assert five is not None and five.value == 5 and five.layout_error < 0.01
    assert five.glare_at is not None and np.hypot(five.glare_at[0] + A, five.glare_at[1] + A) < 0.02
    assert confidence(five) <= GLARE_CAP  # never sure on its own
    # the lamp elsewhere hides no pip there
    assert hidden_by_lamp(four, (0.2, 0.22), SIDE) is None
    assert hidden_by_lamp(four, None, SIDE) is None


def test_a_clean_face_is_never_a_candidate_for_a_pip_more() -> None:
    four = assess(pips([(-1, -1), (1, -1), (-1, 1), (1, 1)]), CENTRE, SIDE, 0)
    assert hidden_by_lamp(four, (0.0, 0.05), SIDE) is None  # a clean 4 under a central lamp
    two = assess(pips([(-1, -1), (1, 1)]), CENTRE, SIDE, 0)
    assert hidden_by_lamp(two, (0.0, 0.0), SIDE) is None


def test_a_3_missing_a_corner_is_a_candidate_3() -> None:
    two = assess(pips([(0, 0), (1, 1)]), CENTRE, SIDE, 0)
    assert two.value == 2
    three = hidden_by_lamp(two, (-0.22, -0.25), SIDE)
    assert three is not None and three.value == 3


def test_the_reader_takes_the_hidden_pip_only_where_a_sure_second_opinion_reads_it() -> None:
    four = assess(pips(FIVE[1:]), CENTRE, SIDE, 0)
    lamp = (-0.2, -0.22)
    alone = _die(found(four), SIDE, None, lamp=lamp)
    # unsure, and reported as the 5 its pips fit (see vision.pips.missing_pip)
    assert alone.value == 5 and alone.confidence < MIN_CONFIDENCE
    agreed = _die(found(four), SIDE, sure(5), lamp=lamp)
    assert agreed.value == 5 and agreed.confidence >= MIN_CONFIDENCE
    taught = _die(found(four), SIDE, None, sure(5), lamp=lamp)
    assert taught.value == 5 and taught.confidence >= MIN_CONFIDENCE
    # a profile sure of another value keeps it unsure, whatever the classifier says
    against = _die(found(four), SIDE, sure(5), sure(4), lamp=lamp)
    assert against.confidence < MIN_CONFIDENCE
    # a sure opinion of 5 where the lamp hides nothing changes nothing
    elsewhere = _die(found(four), SIDE, sure(5), lamp=(0.2, 0.22))
    assert elsewhere.confidence < MIN_CONFIDENCE


def test_a_glossy_die_whose_spot_hides_a_pip_is_read_right_where_a_second_opinion_agrees() -> None:
    # tuning seed 502 at 1296x972 (glossy): rolls 2 and 8 hold a die one pip short where the
    # lamp's spot merged with a pip, shaken again before with the count unsure; the classifier
    # is sure of the value with the pip, and the empty place of that face lies at the lamp.
    # Roll 1 holds no such die and reads as before.
    from vision.reader import read_dice
    from vision.render import STYLES
    from vision.setups import make_setup

    setup = make_setup(502, (1296, 972), STYLES["setup"])
    assert setup is not None and setup.calibration.lamp is not None
    for number in (1, 2, 8):
        frame, truth = setup.roll(number, 0)
        reading = read_dice(frame, setup.calibration, expected=6)
        assert reading.ok, (number, reading.reason)
        assert reading.values == tuple(sorted(d["value"] for d in truth["dice"]))
