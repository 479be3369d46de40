"""The calibrated reader on a tower's own dice: leaning dice refused with where they lean,
the classifier vetoing only with evidence, the lamp's reflection not taken for a pip."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.vision.pip_faces import SIDE, face
from vision.pips import GLARE_CAP, Pip, assess, confidence, without_glare
from vision.reader import MIN_CONFIDENCE, VETO_BELOW, fuse, read_dice
from vision.render import STYLES, render_tray
from vision.setups import make_setup


def test_a_sure_classifier_vetoes_only_a_count_with_doubt_of_its_own() -> None:
    sure_two = np.array([0.0, 0.97, 0.03, 0.0, 0.0, 0.0])
    value, conf = fuse(3, 0.97, sure_two)  # a clean count: the classifier only nibbles
    assert value == 3 and conf >= MIN_CONFIDENCE
    value, conf = fuse(3, VETO_BELOW - 0.2, sure_two)  # a doubtful count: vetoed
    assert value == 3 and conf < 0.1


def test_agreement_alone_does_not_make_a_doubtful_count_sure() -> None:
    sure_three = np.array([0.0, 0.0, 0.99, 0.01, 0.0, 0.0])
    assert fuse(3, 0.05, sure_three)[1] < MIN_CONFIDENCE
    assert fuse(3, 0.45, sure_three)[1] > MIN_CONFIDENCE


@pytest.mark.parametrize(("value", "at"), [(1, (0.12, -0.2)), (2, (0.12, -0.2)), (4, (0.26, 0.0))])
def test_a_weaker_blob_off_the_face_is_the_lamp_not_a_pip(
    value: int, at: tuple[float, float]
) -> None:
    pips = face(value)
    spot = Pip(100.0 + at[0] * SIDE, 100.0 + at[1] * SIDE, 40.0, 1.7)
    kept, glare = without_glare([*pips, spot], SIDE)
    assert glare == 1 and len(kept) == value
    count = assess([*pips, spot], (100.0, 100.0), SIDE, 0)
    assert count.value == value and count.glare == 1
    assert confidence(count) <= GLARE_CAP


def test_a_blob_as_strong_as_the_pips_is_not_set_aside() -> None:
    pips = face(4)
    extra = Pip(100.0 + 0.12 * SIDE, 100.0 - 0.2 * SIDE, 40.0, 2.2)
    kept, glare = without_glare([*pips, extra], SIDE)
    assert glare == 0 and len(kept) == 5
    assert without_glare(face(5), SIDE) == (face(5), 0)  # a real face is left alone


@pytest.fixture(scope="module")
def tower():  # a calibrated tower of the setup style
    setup = make_setup(2, (640, 480), STYLES["setup"])
    assert setup is not None
    return setup


def test_a_die_leaning_on_a_wall_is_refused_with_the_wall(tower) -> None:
    style = dataclasses.replace(tower.style, cocked_tilt_deg=(12.0, 12.0))
    spots = [(45.0, 35.0), (200.0, 35.0), (45.0, 150.0), (200.0, 150.0), (125.0, 45.0)]
    flat = [
        {"value": v, "x": x, "y": y, "angle": 20.0 * i}
        for i, (v, (x, y)) in enumerate(zip([1, 2, 3, 4, 5], spots, strict=True))
    ]
    leaning = {"value": 6, "x": 12.0, "y": 120.0, "angle": 0.0, "cocked": True}
    tray = [d | {"cocked": False} for d in flat] + [leaning]
    frame, _ = render_tray(tray, seed=tower.seed, style=style, frame=7)
    reading = read_dice(frame, tower.calibration, expected=6)
    assert not reading.ok
    assert reading.reason == "the die at the left wall is leaning: shake again"


def test_cocked_rolls_of_a_setup_are_never_scored(tower) -> None:
    for number in range(3, 16, 3):
        frame, truth = tower.roll(number, 1)
        assert any(d["cocked"] for d in truth["dice"])
        assert not read_dice(frame, tower.calibration, expected=6).ok


def test_flat_rolls_of_a_setup_are_read_right(tower) -> None:
    oks = 0
    for number in (1, 2, 4, 5, 7, 8):
        frame, truth = tower.roll(number, 0)
        reading = read_dice(frame, tower.calibration, expected=6)
        if reading.ok:
            oks += 1
            assert reading.values == tuple(sorted(d["value"] for d in truth["dice"]))
    assert oks >= 5


@pytest.mark.parametrize(("value", "at"), [(2, (0.06, -0.03)), (4, (0.03, 0.05))])
def test_the_lamp_beside_a_face_centre_is_not_its_middle_pip(
    value: int, at: tuple[float, float]
) -> None:
    """A 2 or 4 with the lamp's spot just off its centre fits a 3 or 5 loosely; a real
    middle pip lies at the centre of the others, so the spot is set aside (and the count is
    not sure unless the lamp is confirmed)."""
    spot = Pip(100.0 + at[0] * SIDE, 100.0 + at[1] * SIDE, 40.0, 2.2)
    kept, glare = without_glare([*face(value), spot], SIDE)
    assert glare == 1 and len(kept) == value
    count = assess([*face(value), spot], (100.0, 100.0), SIDE, 0)
    assert count.value == value and count.glare_at is not None
    assert count.glare_at == pytest.approx(at, abs=1e-3)
    assert confidence(count) <= GLARE_CAP
    centred = Pip(100.0 + 0.01 * SIDE, 100.0, 40.0, 2.2)  # a real middle pip stays
    assert without_glare([*face(value), centred], SIDE)[1] == 0


def test_the_lamp_is_confirmed_by_other_dice_or_the_calibration() -> None:
    from vision.found import Found
    from vision.lamp import lamp_confirmed
    from vision.segment import square_region

    def found(at: tuple[float, float] | None) -> Found:
        count = assess(face(4), (100.0, 100.0), SIDE, 0)
        count = dataclasses.replace(count, glare=int(at is not None), glare_at=at)
        return Found(square_region((100.0, 100.0), SIDE), count, (100.0, 100.0))

    spread = [found((0.15, -0.05)), found((0.17, -0.02)), found(None), found((-0.2, 0.1))]
    assert lamp_confirmed(spread) == [True, True, False, False]
    assert lamp_confirmed([found((0.15, -0.05))]) == [False]  # alone: not confirmed
    assert lamp_confirmed([found((0.15, -0.05))], lamp=(0.14, -0.04)) == [True]
    assert lamp_confirmed([found((0.02, 0.03)), found((0.03, 0.02))]) == [False, False]


def test_small_spots_near_the_centre_are_the_lamp_where_three_dice_agree() -> None:
    from vision.found import Found
    from vision.lamp import LAMP_CLOSE, frame_lamp, frame_spread, lamp_confirmed, without_lamp
    from vision.segment import square_region

    def found(at: tuple[float, float], size: float = 0.3) -> Found:
        count = assess(face(2), (100.0, 100.0), SIDE, 0)
        count = dataclasses.replace(count, glare=1, glare_at=at, glare_size=size)
        return Found(square_region((100.0, 100.0), SIDE), count, (100.0, 100.0))

    # setup 1604 roll 2 at 640x480: black glossy dice, a calibration that saw no lamp
    near = [found((0.04, 0.08)), found((0.1, 0.06)), found((0.07, 0.02))]
    assert lamp_confirmed(near) == [True, True, True]
    pair = [near[0], near[2]]  # both within LAMP_REACH of the centre
    assert lamp_confirmed(pair) == [False, False]  # two dice: a 3 and a 5 may agree
    assert lamp_confirmed([*pair, found((0.05, 0.06), size=0.8)]) == [False] * 3  # a pip
    assert lamp_confirmed([*pair, found((0.03, 0.03))]) == [False] * 3  # a middle pip's place
    assert lamp_confirmed([*pair, found((0.05, 0.06))]) == [True] * 3
    assert lamp_confirmed(near[:2]) == [False, True]  # a spot farther out needs one more
    confirmed = lamp_confirmed(near)
    lamp = frame_lamp(near, confirmed, None)
    spread = frame_spread(near, confirmed, lamp)
    assert lamp == pytest.approx((0.07, 0.06)) and spread == pytest.approx(0.0346, abs=1e-3)
    assert frame_spread(near[:2], [True, True], lamp) is None  # two spots tell no spread
    for die in near:  # each die's spot within two spreads of the frame's lamp
        assert without_lamp(die.count, lamp, spread) is not None
    assert without_lamp(near[2].count, lamp, None) is None  # farther than LAMP_CLOSE alone
    assert LAMP_CLOSE < 0.045


def test_a_small_spot_at_the_centre_is_the_lamp_within_its_spread() -> None:
    from vision.lamp import without_lamp

    # setup 2109 at 640x480: a near camera's calibration saw the lamp 0.10 side out and its
    # spots straying 0.12 about it; a 2's spot fell 0.04 side from its centre
    count = dataclasses.replace(
        assess(face(2), (100.0, 100.0), SIDE, 0), glare=1, glare_at=(0.03, 0.02), glare_size=0.3
    )
    lamp = (0.10, -0.005)
    explained = without_lamp(count, lamp, 0.124)
    assert explained is not None and explained.glare == 0 and confidence(explained) > GLARE_CAP
    assert without_lamp(count, lamp, None) is None  # 0.07 from the lamp: beyond LAMP_CLOSE
    assert without_lamp(count, (0.3, 0.25), 0.124) is None  # far from the lamp
    pip_sized = dataclasses.replace(count, glare_size=0.7)  # a middle pip's size
    assert without_lamp(pip_sized, lamp, 0.124) is None


@pytest.mark.parametrize("number", [2, 4])
def test_a_tower_that_never_saw_its_lamp_learns_it_from_the_frame(number: int) -> None:
    from vision.render import resolve_style
    from vision.setups import make_setup

    setup = make_setup(1604, (640, 480), resolve_style("setup"))
    assert setup is not None and setup.calibration.lamp is None
    frame, truth = setup.roll(number, 0)
    reading = read_dice(frame, setup.calibration, expected=6)
    assert reading.ok and reading.values == tuple(sorted(d["value"] for d in truth["dice"]))


def test_what_the_lamp_explains_is_no_doubt() -> None:
    from vision.lamp import without_lamp

    count = assess(face(2), (100.0, 100.0), SIDE, 0)
    lamp = (0.15, -0.1)
    spotted = dataclasses.replace(
        count,
        glare=1,
        glare_at=(0.16, -0.09),
        doubtful=2,
        doubt_at=((0.3, -0.2), (-0.2, 0.25)),  # the rim toward the lamp; a blob elsewhere
    )
    explained = without_lamp(spotted, lamp)
    assert explained is not None
    assert explained.glare == 0 and explained.doubtful == 1
    assert explained.doubt_at == ((-0.2, 0.25),)
    assert confidence(explained) > confidence(spotted)
    assert without_lamp(spotted, (-0.3, 0.1)) is None  # the lamp is elsewhere
    assert without_lamp(spotted, None) is None
    # a blob at the face's centre is never the lamp, even with the lamp near the centre
    middle = dataclasses.replace(count, doubtful=1, doubt_at=((0.04, -0.03),))
    assert without_lamp(middle, (0.09, -0.06)) is None
    near = dataclasses.replace(count, doubtful=1, doubt_at=((0.16, -0.1),))
    lifted = without_lamp(near, lamp)
    assert lifted is not None and lifted.doubtful == 0


def test_grey_dice_on_a_grey_floor_are_not_taken_for_shadows() -> None:
    """Black dice on a grey floor darken it without a change of hue, as a shadow does: the
    calibration raises the shadow floor above the dice's lightness, so the dice are found
    whole and measured right (a calibration of coloured dice keeps the default)."""
    from vision.segment import MAX_SHADOW_FLOOR, SHADOW_FLOOR

    seen = {}
    for seed in (3000, 3003, 3002, 3005):
        setup = make_setup(seed, (640, 480), STYLES["setup"])
        assert setup is not None
        _, truth = setup.roll(1, 0)
        seen[seed] = (setup.calibration, truth)
    for seed in (3000, 3003):  # black dice on grey
        cal, truth = seen[seed]
        assert cal.shadow_floor is not None
        assert SHADOW_FLOOR < cal.shadow_floor <= MAX_SHADOW_FLOOR
        # the region of a die includes its rounded rim and shading: a little over die_px;
        # found by its pips and rim only, it came out under
        assert 0.97 * truth["die_px"] < cal.die_side < 1.15 * truth["die_px"]
    for seed in (3002, 3005):  # white, green
        assert seen[seed][0].shadow_floor is None


def test_black_dice_just_darker_than_the_default_floor_raise_it_too() -> None:
    """Black dice on a grey floor in long shadows (setup 9606 at 640x480) whose bodies' median
    lightness share lies just under the default shadow floor: half of each body counted as
    shadow, and the calibration measured its dice a tenth small. The floor is raised by the
    same margin above the bodies as for lighter dice."""
    from vision.calibrate import ABOVE_BODY
    from vision.segment import SHADOW_FLOOR

    setup = make_setup(9606, (640, 480), STYLES["setup"])
    assert setup is not None
    _, truth = setup.roll(1, 0)
    cal = setup.calibration
    assert cal.shadow_floor is not None
    assert SHADOW_FLOOR < cal.shadow_floor <= SHADOW_FLOOR + ABOVE_BODY
    assert 0.97 * truth["die_px"] < cal.die_side < 1.15 * truth["die_px"]


def test_a_lamp_near_the_face_centre_explains_only_a_spot_right_at_it() -> None:
    from vision.lamp import LAMP_CENTRE, LAMP_CLOSE, without_lamp

    count = assess(face(2), (100.0, 100.0), SIDE, 0)
    lamp = (0.048, 0.042)  # a glossy set's lamp, 0.064 sides from the face's centre
    spotted = dataclasses.replace(count, glare=1, glare_at=(0.055, 0.035))
    explained = without_lamp(spotted, lamp)
    assert explained is not None and explained.glare == 0
    assert confidence(explained) > confidence(spotted) >= 0.0
    # farther from the lamp than LAMP_CLOSE: not explained
    aside = dataclasses.replace(count, glare=1, glare_at=(0.048 + 1.5 * LAMP_CLOSE, 0.042))
    assert without_lamp(aside, lamp) is None
    # nearer the centre than LAMP_CENTRE and as large as a pip: it may be a middle pip,
    # whatever the lamp; much smaller than one, it is the lamp's spot within its reach
    middle = dataclasses.replace(count, glare=1, glare_at=(0.03, 0.03), glare_size=0.8)
    assert np.hypot(0.03, 0.03) < LAMP_CENTRE
    assert without_lamp(middle, (0.035, 0.03)) is None
    assert without_lamp(middle, lamp) is None
    small = dataclasses.replace(middle, glare_size=0.3)
    assert without_lamp(small, lamp) is not None  # 0.022 from the lamp
    assert without_lamp(small, (0.03 + 1.5 * LAMP_CLOSE, 0.05)) is None
    assert without_lamp(small, (0.035, 0.03)) is None  # a lamp at the centre, no spread
