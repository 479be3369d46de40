"""A pip lost where a highlight on the die's rim merged with it (vision.pips.missing_pip): the
pips of a count that do not form a face of their number but form one of a pip more, centred
on the die, are a candidate for that value, taken only where the dice profile is sure of it;
so is a count whose lost pip's place was taken by the lamp's spot
(vision.lamp.lost_beside_spot)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.vision.pip_faces import CENTRE, GRID, SIDE, A, found, pips, sure
from vision.found import Found
from vision.lamp import lost_beside_spot
from vision.pips import (
    CLEAN_FIT,
    GLARE_CAP,
    Pip,
    PipCount,
    assess,
    confidence,
    lost_pip_face,
    missing_pip,
    top_face,
)
from vision.reader import MIN_CONFIDENCE, _best_guess, _die, read_dice
from vision.render import resolve_style
from vision.segment import square_region
from vision.setups import make_setup, teach_setup


def _six_short_of(place: int) -> PipCount:
    """A 6's count with the pip at ``place`` of its grid lost."""
    grid = [p for i, p in enumerate(GRID[6]) if i != place]
    return assess(pips(grid), CENTRE, SIDE, 0)


@pytest.mark.parametrize("place", range(6))
def test_a_6_one_pip_short_is_a_candidate_6(place: int) -> None:
    five = _six_short_of(place)
    assert five.value == 5 and confidence(five) < MIN_CONFIDENCE  # two columns, one short
    six = missing_pip(five, CENTRE, SIDE)
    assert six is not None and six.value == 6 and six.layout_error < 0.01
    assert six.doubtful == five.doubtful + 1  # the lost pip is a doubt, never seen


def test_a_clean_face_is_never_a_candidate_for_a_pip_more() -> None:
    # a 4 fits a 5 with its middle empty, a 2 a 3: both fit cleanly as themselves
    for value in (1, 2, 3, 4, 5, 6):
        assert missing_pip(assess(pips(GRID[value]), CENTRE, SIDE, 0), CENTRE, SIDE) is None


def test_a_face_a_pip_more_must_be_centred_on_the_die() -> None:
    five = _six_short_of(2)
    # the same pips on a die whose outline lies a quarter side away: the 6 they would
    # complete is off that die's centre
    off = (CENTRE[0] + 0.25 * SIDE, CENTRE[1])
    assert missing_pip(five, off, SIDE) is None
    # a count that set a side face aside is a judgement already: offered nothing more
    assert missing_pip(dataclasses.replace(five, side_pips=1), CENTRE, SIDE) is None


@pytest.mark.parametrize("corner", [(-1, -1), (1, -1), (1, 1), (-1, 1)])
def test_a_lone_pip_where_a_2_has_a_corner_pip_is_a_candidate_2(corner: tuple[int, int]) -> None:
    # the 2's other pip joined by a highlight into a blob no pip is: one pip counted, a
    # corner's reach from the die's centre, where a 1's pip never lies
    one = assess(pips([corner]), CENTRE, SIDE, 0)
    assert one.value == 1 and confidence(one) < MIN_CONFIDENCE  # its pip off the centre
    two = missing_pip(one, CENTRE, SIDE)
    assert two is not None and two.value == 2 and two.doubtful == one.doubtful + 1
    assert _die(found(one), SIDE, None, sure(2)).confidence >= MIN_CONFIDENCE
    alone = _die(found(one), SIDE, None)
    assert alone.value == 2 and alone.confidence < MIN_CONFIDENCE  # reported as it fits
    # a classifier sure of the 2 takes nothing: it is not asked about a lost pip
    assert _die(found(one), SIDE, sure(2)).confidence < MIN_CONFIDENCE


@pytest.mark.parametrize("reach", [0.0, 0.15, 0.55])
def test_a_lone_pip_elsewhere_on_the_die_is_no_2(reach: float) -> None:
    # at the centre a 1; a fifth of a side out, or at the rim, no pip of any 2
    one = assess([Pip(CENTRE[0] + reach * SIDE, CENTRE[1], 40.0, 2.2)], CENTRE, SIDE, 0)
    assert one.value == 1 and missing_pip(one, CENTRE, SIDE) is None


def test_the_reader_takes_the_lost_pip_only_where_the_profile_is_sure_of_it() -> None:
    five = _six_short_of(3)
    alone = _die(found(five), SIDE, None)
    assert alone.value == 6 and alone.confidence < MIN_CONFIDENCE  # reported as it fits
    taught = _die(found(five), SIDE, None, sure(6))
    assert taught.value == 6 and taught.confidence >= MIN_CONFIDENCE
    # the generic classifier, puzzled by highlights, does not confirm a pip never seen
    assert _die(found(five), SIDE, sure(6), None).confidence < MIN_CONFIDENCE
    # a profile sure of 5 agrees with a count that fits no 5: still unsure, and a 5
    agreed = _die(found(five), SIDE, None, sure(5))
    assert agreed.value == 5 and agreed.confidence < MIN_CONFIDENCE
    # nor on a die touching another at a wall, or one the lean check doubts: a leaning die's
    # pips go missing into the seam, and its top face's value is no evidence
    touching = Found(dataclasses.replace(square_region(CENTRE, SIDE), merged=2), five, CENTRE)
    walled = _die(touching, SIDE, None, sure(6), touching=True, walled=True)
    assert walled.confidence < MIN_CONFIDENCE
    assert _die(found(five), SIDE, None, sure(6), doubted=True).confidence < MIN_CONFIDENCE
    # away from the walls a touching die can lean on its neighbour only, where the lean
    # check looked (not doubted): its lost pip is taken as a lone die's is
    assert _die(touching, SIDE, None, sure(6), touching=True).confidence >= MIN_CONFIDENCE
    assert _die(touching, SIDE, None, None, touching=True).confidence < MIN_CONFIDENCE
    assert _die(found(five), SIDE, None, sure(6), leaning=True).confidence < MIN_CONFIDENCE


# the five pips of a flat 6 of wide-set pips, one lost (setup 9606 roll 2 at 640x480): where
# each lies from the die's centre and its area, in sides; a 6 turned 25 degrees, corner pips
# 0.38 side out, and the first pip swollen by the highlight that took its neighbour
WIDE_SIX_SHORT = [
    (-0.176, -0.232, 0.0522),
    (0.367, -0.055, 0.0282),
    (-0.381, 0.07, 0.024),
    (0.209, 0.162, 0.0268),
    (0.051, 0.393, 0.0282),
]
# and three of a 4's (setup 9606 roll 29)
FOUR_SHORT = [(-0.274, -0.093, 0.0388), (0.388, 0.11, 0.0254), (-0.072, 0.364, 0.0254)]


def _at(
    points: list[tuple[float, float, float]], centre: tuple[float, float] = CENTRE
) -> list[Pip]:
    return [
        Pip(centre[0] + x * SIDE, centre[1] + y * SIDE, area * SIDE * SIDE, 2.2)
        for x, y, area in points
    ]


@pytest.mark.parametrize(("points", "value"), [(WIDE_SIX_SHORT, 6), (FOUR_SHORT, 4)])
def test_pips_a_face_of_one_more_explains_are_no_side_face(
    points: list[tuple[float, float, float]], value: int
) -> None:
    # without the die's centre, the best clean face left is set aside from a side face's
    # pips: a column of the 6 (or a diagonal of the 4) and a leaning die
    assert top_face(_at(points), SIDE)[1] > 0
    # with it, all of them make the face of a pip more centred on the die, one place empty
    assert lost_pip_face(np.array([(p.x, p.y) for p in _at(points)]), CENTRE, SIDE)
    kept, aside = top_face(_at(points), SIDE, CENTRE)
    assert (len(kept), aside) == (len(points), 0)
    count = assess(_at(points), CENTRE, SIDE, 0)
    assert count.side_pips == 0 and confidence(count) < MIN_CONFIDENCE
    lost = missing_pip(count, CENTRE, SIDE)
    assert lost is not None and lost.value == value  # a candidate for the profile to read
    assert _die(found(count), SIDE, None, sure(value)).value == value


def test_a_face_of_one_more_off_the_die_s_centre_leaves_the_side_face() -> None:
    # the same pips on a die whose centre lies a quarter side away: they complete no face
    # of that die, so the column and the side face's pips stand
    off = (CENTRE[0] + 0.25 * SIDE, CENTRE[1])
    points = np.array([(p.x, p.y) for p in _at(WIDE_SIX_SHORT)])
    assert not lost_pip_face(points, off, SIDE)
    assert top_face(_at(WIDE_SIX_SHORT), SIDE, off)[1] > 0
    # two pips fit a 3 with a place empty at some spacing whatever they are: never offered
    assert not lost_pip_face(points[:2], CENTRE, SIDE)


@pytest.mark.parametrize(
    ("seed", "number", "size", "refused_without"),
    [
        # blue dice with a glossy rim: the highlight joined two of a 6's pips into one
        # blob, counted once, and the five blobs form no 5; without a profile it is read
        # too, the lost pip being seen in that blob (see test_merged_pip)
        (2208, 14, (640, 480), False),
        # blue translucent dice: the rim took a 4's pip and the lamp's spot was counted in
        # its place, three pips and the spot forming no face; without a profile it is read
        # too, the pip the rim joined being among the nearly-pip blobs (see
        # test_near_for_spot)
        (1411, 22, (1296, 972), False),
        # translucent green dice: a specular highlight joined a 2's pip into a blob too
        # large for a pip, and the count read one pip off the centre (a lone pip at a 2's
        # corner, pips._lost_beside_one); without a profile it is read too, that blob being
        # the nearly-pip blob that makes a clean 2 with the other (see test_near_for_spot)
        (3409, 4, (640, 480), False),
        # white dice touching in pairs away from the walls, the lamp's spot on a pip of each
        # 6 (one pip short, the spot's pip a doubt): refused without a profile
        (9605, 17, (640, 480), True),
    ],
)
def test_a_die_whose_rim_highlight_took_a_pip_is_read_with_a_profile(
    seed: int, number: int, size: tuple[int, int], refused_without: bool
) -> None:
    setup = make_setup(seed, size, resolve_style("setup"))
    assert setup is not None
    profile = teach_setup(setup, 20)[0]  # 20 taught rolls, as the bench teaches
    frame, truth = setup.roll(number, 0)
    reading = read_dice(frame, setup.calibration, expected=6, profile=profile)
    assert reading.ok, reading.reason
    assert reading.values == tuple(sorted(d["value"] for d in truth["dice"]))
    without = read_dice(frame, setup.calibration, expected=6)
    assert without.ok is not refused_without  # a lost pip guessed from the layout stays unsure


def test_a_touching_die_at_a_wall_is_not_completed_by_the_profile() -> None:
    # a 6 leaning on the left wall beside a flat 3, its side face in its region: five pips
    # counted, which form a 6 with one place empty; the profile reads the top face's 6
    setup = make_setup(1905, (1296, 972), resolve_style("setup"))
    assert setup is not None
    profile = teach_setup(setup, 20)[0]
    frame, truth = setup.roll(27, 1)
    assert any(d["cocked"] for d in truth["dice"])
    reading = read_dice(frame, setup.calibration, expected=6, profile=profile)
    assert not reading.ok and "left wall" in reading.reason


LAMP = (0.13, 0.02)  # where the lamp's spot lies from a face's centre, in sides


def _three_and_the_spot() -> PipCount:
    """A 4 whose top-right pip was lost, counted with the lamp's spot as its fourth pip."""
    grid = [(-1, -1), (-1, 1), (1, 1), (LAMP[0] / A, LAMP[1] / A)]
    return assess(pips(grid), CENTRE, SIDE, 0)


def test_a_4_of_three_pips_and_the_lamp_s_spot_is_a_candidate_4() -> None:
    four = _three_and_the_spot()
    assert four.value == 4 and four.layout_error >= CLEAN_FIT
    assert confidence(four) < 0.2  # too poor a face for a profile's agreement to raise
    candidate = lost_beside_spot(four, CENTRE, SIDE, LAMP)
    assert candidate is not None and candidate.value == 4 and candidate.glare == 1
    assert candidate.glare_at is not None
    assert (
        abs(candidate.glare_at[0] - LAMP[0]) < 0.01 and abs(candidate.glare_at[1] - LAMP[1]) < 0.01
    )
    assert candidate.doubtful == four.doubtful + 1
    assert confidence(candidate) <= GLARE_CAP  # never sure on its own
    # no lamp, or a lamp elsewhere: no spot there, nothing offered
    assert lost_beside_spot(four, CENTRE, SIDE, None) is None
    assert lost_beside_spot(four, CENTRE, SIDE, (-0.2, 0.2)) is None
    # three pips and the spot of a 3 or a 2 would fit almost anything: never offered
    three = assess(pips([(-1, -1), (1, 1), (LAMP[0] / A, LAMP[1] / A)]), CENTRE, SIDE, 0)
    assert lost_beside_spot(three, CENTRE, SIDE, LAMP) is None


def test_the_reader_takes_the_spot_and_the_lost_pip_only_with_a_sure_profile() -> None:
    four = _three_and_the_spot()
    assert _die(found(four), SIDE, None, sure(4), lamp=LAMP).confidence >= MIN_CONFIDENCE
    assert _die(found(four), SIDE, None, sure(4), lamp=None).confidence < MIN_CONFIDENCE
    assert _die(found(four), SIDE, sure(4), None, lamp=LAMP).confidence < MIN_CONFIDENCE
    assert _die(found(four), SIDE, None, None, lamp=LAMP).confidence < MIN_CONFIDENCE


def test_an_unsure_die_is_reported_as_the_face_its_pips_fit_best() -> None:
    five = _six_short_of(1)
    # what the TV shows ("looks like a 6") and the phone offers to correct: the face the
    # pips fit with one lost, unless a second opinion favours the count's own value
    assert _die(found(five), SIDE, None).value == 6
    hesitant = np.array([0.02, 0.02, 0.02, 0.02, 0.5, 0.42])
    assert _die(found(five), SIDE, hesitant).value == 5
    for value in (2, 4, 6):  # a count that fits its own face is reported as it is
        clean = assess(pips(GRID[value]), CENTRE, SIDE, 3)  # three doubts: unsure
        die = _die(found(clean), SIDE, None)
        assert die.confidence < MIN_CONFIDENCE and die.value == value


def test_an_unsure_die_is_reported_as_a_sure_profile_reads_it() -> None:
    # a count of 4 sure enough to score (four clean pips) that a profile sure of a 5 vetoes:
    # unsure, and reported as the 5 the profile, taught on these dice, reads (seed 3102 roll
    # 19 at 640x480: a 5 whose middle pip a highlight hid)
    four = assess(pips(GRID[4]), CENTRE, SIDE, 0)
    assert confidence(four) >= MIN_CONFIDENCE
    vetoed = _die(found(four), SIDE, None, sure(5))
    assert vetoed.confidence < MIN_CONFIDENCE and vetoed.value == 5
    # a profile unsure of it leaves the count's own face
    hesitant = np.array([0.02, 0.02, 0.02, 0.1, 0.8, 0.04])
    doubtful = assess(pips(GRID[4]), CENTRE, SIDE, 3)  # three doubts: unsure
    assert _die(found(doubtful), SIDE, None, hesitant).value == 4
    # and a profile sure of the count's face keeps it
    assert _die(found(doubtful), SIDE, None, sure(4)).value == 4


def test_an_unsure_die_is_reported_as_a_sure_classifier_reads_it() -> None:
    # a count of 2 left unsure that the classifier may not overrule (here: too clean a count
    # to veto, capped by something else): the face the classifier is sure of, where no
    # profile names one; a hesitant classifier leaves the count's own face
    two = assess(pips(GRID[2]), CENTRE, SIDE, 3)
    assert _best_guess(two, 2, sure(3), None, CENTRE, SIDE) == 3
    hesitant = np.array([0.02, 0.4, 0.5, 0.04, 0.02, 0.02])
    assert _best_guess(two, 2, hesitant, None, CENTRE, SIDE) == 2
    assert _best_guess(two, 2, sure(3), sure(2), CENTRE, SIDE) == 2  # the profile names it


def test_a_two_counted_as_three_is_reported_as_the_classifier_reads_it() -> None:
    # setup 7410 roll 26 at 640x480, no profile: a 2 against another die at the right, whose
    # count took a third pip and which the lean check calls leaning, is unsure, and reported
    # as the 2 the classifier is sure of (0.98)
    setup = make_setup(7410, (640, 480), resolve_style("setup"))
    assert setup is not None
    frame, truth = setup.roll(26, 0)
    reading = read_dice(frame, setup.calibration, expected=6)
    die = min(reading.dice, key=lambda d: np.hypot(d.center[0] - 491, d.center[1] - 278))
    assert not reading.ok and die.confidence < MIN_CONFIDENCE
    assert die.value == 2 and sorted(d.value for d in reading.dice) == sorted(
        d["value"] for d in truth["dice"]
    )
