"""The lamp's spot at the centre of a 2 or a 4, counted as a middle pip (a 3 or a 5 whose
middle pip is small, faint and where the lamp's spot lies): a dice profile sure of the
count without that pip takes it (vision.lamp.middle_as_spot); nothing else does."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.conftest import true_values
from tests.vision.pip_faces import sure
from tests.vision.test_spot_for_middle import LAMP, SIDE, SPREAD
from tests.vision.test_spot_for_middle import five as spot_five
from vision.found import Found
from vision.lamp import middle_as_spot, spot_for_middle
from vision.pips import GLARE_CAP, Pip, assess, confidence
from vision.reader import MIN_CONFIDENCE, _die, read_dice
from vision.render import STYLES
from vision.segment import square_region
from vision.setups import make_setup, teach_setup

CENTRE = (200.0, 200.0)


def five(middle_area: float = 67.5, middle_strength: float = 1.85) -> list[Pip]:
    """A 5 whose middle pip is small and faint, as setup 910's spots (see test_spot_for_middle)."""
    return spot_five(middle_area, middle_strength)


def test_a_suspect_5_without_its_middle_pip_is_a_candidate_4() -> None:
    count = assess(five(), CENTRE, SIDE, 0)
    assert count.value == 5 and spot_for_middle(count, LAMP, SPREAD)
    four = middle_as_spot(count, SIDE)
    assert four is not None and four.value == 4 and four.glare == 1
    assert four.glare_at == pytest.approx((0.0, 0.0), abs=1e-6) and four.layout_error < 0.01
    assert confidence(four) <= GLARE_CAP  # never sure on its own
    four_pips = assess(five()[:2] + five()[3:], CENTRE, SIDE, 0)
    assert middle_as_spot(four_pips, SIDE) is None  # only a 3 or a 5 has a middle pip


def test_only_a_sure_profile_takes_the_middle_pip_for_the_spot() -> None:
    count = assess(five(), CENTRE, SIDE, 0)
    found = Found(square_region(CENTRE, SIDE), count, CENTRE)
    taught = _die(found, SIDE, None, sure(4), lamp=LAMP, spread=SPREAD)
    assert taught.value == 4 and taught.confidence >= MIN_CONFIDENCE
    # the classifier knows no lamp: its 4 is no evidence, and the die stays unsure
    classified = _die(found, SIDE, sure(4), None, lamp=LAMP, spread=SPREAD)
    assert classified.confidence < MIN_CONFIDENCE
    unsure = _die(found, SIDE, None, np.full(6, 1 / 6), lamp=LAMP, spread=SPREAD)
    assert unsure.confidence <= GLARE_CAP
    assert unsure.value == 4  # reported as the 4 it is with the spot set aside, see below
    # a painted middle pip (as large and as strong as the others) is never taken away
    painted = assess(five(150.0, 2.2), CENTRE, SIDE, 0)
    real = _die(
        Found(square_region(CENTRE, SIDE), painted, CENTRE),
        SIDE,
        None,
        sure(4),
        lamp=LAMP,
        spread=SPREAD,
    )
    assert real.value != 4 or real.confidence < MIN_CONFIDENCE


def test_an_unsure_die_with_a_suspect_middle_pip_is_reported_without_it() -> None:
    # the classifier knows no lamp and reads the spot as a pip as readily as the count does:
    # its sure 5 changes nothing; only a dice profile that favours the 5 keeps it
    found = Found(square_region(CENTRE, SIDE), assess(five(), CENTRE, SIDE, 0), CENTRE)
    for probs in (None, sure(5), sure(4)):
        die = _die(found, SIDE, probs, None, lamp=LAMP, spread=SPREAD)
        assert die.confidence < MIN_CONFIDENCE and die.value == 4
    leaning_to_5 = np.full(6, 0.05)
    leaning_to_5[4] = 0.75
    die = _die(found, SIDE, None, leaning_to_5, lamp=LAMP, spread=SPREAD)
    assert die.confidence < MIN_CONFIDENCE and die.value == 5
    # a 5 with no lamp near its middle pip is reported as the 5 it counts
    far = _die(found, SIDE, None, None, lamp=(0.3, 0.3), spread=SPREAD)
    assert far.value == 5


@pytest.mark.slow
def test_a_taught_tower_reads_its_2s_with_the_spot_at_their_centre() -> None:
    # tuning setup 2109 at 1296x972 (translucent green): roll 13's 2 carries the lamp's spot
    # at its centre; with a profile it is read right (and, its paint light, without one:
    # see test_spot_for_middle.py)
    setup = make_setup(2109, (1296, 972), STYLES["setup"])
    assert setup is not None
    profile, _ = teach_setup(setup, 20)
    frame, truth = setup.roll(13, 0)
    reading = read_dice(frame, setup.calibration, expected=6, profile=profile)
    assert reading.ok and reading.values == true_values(truth) == (1, 2, 3, 3, 3, 6)
