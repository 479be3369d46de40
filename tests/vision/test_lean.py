"""A leaning die's side face measured at full resolution (vision.lean), the calibration's
witness of a far camera, and the reader refusing a lone die that leans only a little."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

from tests.vision.conftest import cocked_roll
from vision.calibration import Calibration, CalibrationError, load_calibration
from vision.lean import FAR_CALIBRATION, LEAN_EXCESS, far_calibration, side_excess
from vision.pips import confidence
from vision.reader import locate, read_dice
from vision.setups import make_setup
from vision.verdict import MIN_CONFIDENCE


@pytest.fixture(scope="module")
def tower():
    from vision.render import resolve_style

    setup = make_setup(3008, (640, 480), resolve_style("setup"))  # blue on green, far camera
    assert setup is not None
    return setup


def _excesses(tower, number: int) -> list[tuple[bool, int, float]]:
    """(cocked, merged, side excess) of each die found in roll ``number``."""
    frame, truth = tower.roll(number, 1 if number % 3 == 0 else 0)
    found, _ = locate(frame, tower.calibration)
    out = []
    for f in found:
        nearest = min(
            truth["dice"],
            key=lambda d: math.hypot(d["center"][0] - f.centre[0], d["center"][1] - f.centre[1]),
        )
        others = [(g.region, g.count) for g in found if g is not f]
        excess = side_excess(frame, tower.calibration, f.region, f.count, others)
        out.append((bool(nearest["cocked"]), f.region.merged, excess))
    return out


def test_a_lone_die_leaning_a_little_shows_its_side_face(tower) -> None:
    # roll 6 holds a die leaning on the left wall whose region at the working scale is
    # 1.10 sides long: as long as the old rule allowed a flat die
    seen = _excesses(tower, 6)
    leaning = [e for cocked, merged, e in seen if cocked]
    flat = [e for cocked, merged, e in seen if not cocked and merged == 1]
    assert leaning and leaning[0] > LEAN_EXCESS
    assert flat and max(flat) < LEAN_EXCESS / 2
    frame, _ = tower.roll(6, 1)
    reading = read_dice(frame, tower.calibration, expected=6)
    assert not reading.ok
    assert reading.reason == "the die at the left wall is leaning: shake again"


def test_flat_lone_dice_show_no_side_face(tower) -> None:
    for number in (1, 2, 4, 5):
        for cocked, merged, excess in _excesses(tower, number):
            assert not cocked
            if merged == 1:
                assert excess < LEAN_EXCESS


def test_the_calibration_witnesses_a_far_camera(tower, tmp_path: Path) -> None:
    cal = tower.calibration
    assert cal.flat_excess is not None and cal.flat_excess <= FAR_CALIBRATION
    assert far_calibration(cal)
    data = cal.to_json()
    again = Calibration.from_json(json.loads(json.dumps(data)))
    assert again.flat_excess == pytest.approx(cal.flat_excess, abs=1e-4)
    assert not far_calibration(dataclasses.replace(cal, flat_excess=None))
    assert not far_calibration(dataclasses.replace(cal, flat_excess=0.2))
    for bad in (-0.1, 2.0, "far", True):
        path = tmp_path / "calibration.json"
        path.write_text(json.dumps({**data, "flat_excess": bad}))
        with pytest.raises(CalibrationError, match="flat_excess"):
            load_calibration(path)
    old = {k: v for k, v in data.items() if k != "flat_excess"}  # a file from before
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    assert load_calibration(path).flat_excess is None


def test_a_near_camera_calibration_does_not_witness_a_far_one() -> None:
    from vision.bench import bench_style, scene_calibration

    near = scene_calibration(5, bench_style("tower@250"))
    assert near is not None
    assert near.flat_excess is None or near.flat_excess > FAR_CALIBRATION


def test_a_side_face_s_pips_under_a_far_calibration_lean_even_when_touching(tower) -> None:
    from vision.lean import frame_leaning

    frame, _ = tower.roll(1, 0)
    found, _ = locate(frame, tower.calibration)
    assert found
    for f in found:
        assert not frame_leaning(frame, f, found, tower.calibration, True)
        sided = dataclasses.replace(f, count=dataclasses.replace(f.count, side_pips=2))
        others = [sided if g is f else g for g in found]
        assert frame_leaning(frame, sided, others, tower.calibration, True)


def test_the_lean_threshold_follows_the_calibration_s_flat_dice(tower) -> None:
    from vision.lean import FLAT_MARGIN, LEAN_FLOOR, lean_excess

    cal = tower.calibration
    assert lean_excess(dataclasses.replace(cal, flat_excess=None)) == LEAN_EXCESS
    assert lean_excess(dataclasses.replace(cal, flat_excess=0.2)) == LEAN_EXCESS  # near camera
    assert lean_excess(dataclasses.replace(cal, flat_excess=0.002)) == LEAN_FLOOR
    assert lean_excess(dataclasses.replace(cal, flat_excess=0.02)) == pytest.approx(
        FLAT_MARGIN * 0.02
    )
    for excess in (0.0, 0.01, 0.025, 0.03):
        assert (
            LEAN_FLOOR <= lean_excess(dataclasses.replace(cal, flat_excess=excess)) <= LEAN_EXCESS
        )


@pytest.fixture(scope="module")
def black_on_grey():
    from vision.render import resolve_style

    setup = make_setup(0, (640, 480), resolve_style("setup"))  # black dice, grey floor
    assert setup is not None
    return setup


@pytest.mark.parametrize("number", [6])
def test_a_lone_die_leaning_ten_degrees_is_refused_under_its_tower_s_threshold(
    black_on_grey, number: int
) -> None:
    # the roll holds a lone die leaning about 10 degrees whose side face measures 0.049
    # square sides: under the global LEAN_EXCESS, but well over what this tower's
    # calibration saw beside its flat dice
    from vision.lean import lean_excess

    cal = black_on_grey.calibration
    seen = [e for cocked, merged, e in _excesses(black_on_grey, number) if cocked and merged == 1]
    assert seen and lean_excess(cal) < max(seen) < LEAN_EXCESS
    frame, _ = black_on_grey.roll(number, 1)
    reading = read_dice(frame, cal, expected=6)
    assert not reading.ok and "leaning" in reading.reason
    for clean in (1, 2, 4, 5):  # the same tower's flat rolls still pass
        frame, _ = black_on_grey.roll(clean, 0)
        assert "leaning" not in read_dice(frame, cal, expected=6).reason


def test_a_doubtful_touching_die_the_lean_check_doubts_is_not_raised_by_a_second_opinion() -> None:
    # setup 8 roll 6: a die leaning on its neighbour counts one pip at 0.30, its side face
    # measures 0.10 square sides; the classifier, agreeing with the top face, raised it to 0.51
    from vision.render import resolve_style

    setup = make_setup(8, (640, 480), resolve_style("setup"))
    assert setup is not None
    frame, truth = setup.roll(6, 1)
    reading = read_dice(frame, setup.calibration, expected=6)
    assert not reading.ok
    cocked = next(d for d in truth["dice"] if d["cocked"])
    die = min(
        reading.dice,
        key=lambda d: math.hypot(
            d.center[0] - cocked["center"][0], d.center[1] - cocked["center"][1]
        ),
    )
    assert die.confidence < 0.5


def test_a_doubtful_touching_die_with_half_the_threshold_beside_an_edge_is_not_raised() -> None:
    # setup 1409 roll 9 at 1296x972: a 1 leaning on its neighbour counts a side face's pip
    # with its own as a 2 at 0.45; its side face measures 0.97 times the tower's threshold
    # (over TOUCH_LEAST of it), and a profile taught 20 rolls, sure of a 2, raised it to 0.89
    from vision.lean import TOUCH_LEAST, doubts_touching, lean_excess
    from vision.render import resolve_style
    from vision.setups import teach_setup

    setup = make_setup(1409, (1296, 972), resolve_style("setup"))
    assert setup is not None
    frame, truth = setup.roll(9, 1)
    cocked = next(d for d in truth["dice"] if d["cocked"])
    found, _ = locate(frame, setup.calibration)
    die = min(
        found,
        key=lambda f: math.hypot(
            f.centre[0] - cocked["center"][0], f.centre[1] - cocked["center"][1]
        ),
    )
    others = [(g.region, g.count) for g in found if g is not die]
    ratio = side_excess(frame, setup.calibration, die.region, die.count, others) / lean_excess(
        setup.calibration
    )
    assert die.region.merged > 1 and TOUCH_LEAST < ratio < 1.0
    assert doubts_touching(frame, setup.calibration, die.region, die.count, others)
    reading = read_dice(frame, setup.calibration, expected=6, profile=teach_setup(setup, 20)[0])
    assert not reading.ok


def test_a_doubted_die_keeps_its_count_s_doubt_against_a_sure_profile() -> None:
    import numpy as np

    from vision.found import Found
    from vision.pips import PipCount, confidence
    from vision.reader import MIN_CONFIDENCE, _die
    from vision.segment import square_region

    count = PipCount(1, ((100.0, 100.0),), 0.0, 0.0, 2.0, 2, 0.0)  # two nearly-pip blobs
    found = Found(square_region((100.0, 100.0), 40.0), count, (100.0, 100.0))
    sure = np.array([0.99, 0.002, 0.002, 0.002, 0.002, 0.002])
    assert confidence(count) < MIN_CONFIDENCE
    assert _die(found, 40.0, None, sure).confidence >= MIN_CONFIDENCE
    assert _die(found, 40.0, None, sure, doubted=True).confidence == confidence(count)


def test_a_flat_die_stretched_by_its_shadow_is_not_leaning_under_a_far_calibration(
    black_on_grey,
) -> None:
    # roll 20: a flat black die whose region at the working scale is 1.107 sides long (its
    # shadow), with only 0.019 square sides beside its edges at full resolution
    frame, truth = black_on_grey.roll(20, 0)
    reading = read_dice(frame, black_on_grey.calibration, expected=6)
    assert reading.ok, reading.reason
    assert reading.values == tuple(sorted(d["value"] for d in truth["dice"]))


@pytest.fixture(scope="module")
def red_touching():
    from vision.render import resolve_style

    setup = make_setup(210, (640, 480), resolve_style("setup"))  # red dice, far camera
    assert setup is not None
    return setup


def test_a_touching_die_leaning_with_a_clean_count_is_refused(red_touching) -> None:
    # roll 6: a die leaning on its neighbour counts its four pips at 0.58; its side face
    # measures 0.11 square sides beside one edge, 2.8 times this tower's threshold
    from vision.lean import TOUCH_MARGIN, lean_excess

    cal = red_touching.calibration
    seen = _excesses(red_touching, 6)
    leaning = [e for cocked, merged, e in seen if cocked]
    assert leaning and leaning[0] > TOUCH_MARGIN * lean_excess(cal)
    assert [merged for cocked, merged, _ in seen if cocked] == [2]
    frame, _ = red_touching.roll(6, 1)
    reading = read_dice(frame, cal, expected=6)
    assert not reading.ok and "leaning" in reading.reason


def test_flat_touching_dice_are_not_leaning(red_touching, monkeypatch) -> None:
    import vision.reader as reader
    from vision.lean import TOUCH_MARGIN, lean_excess

    # the lean check's geometry alone, without the face reader's second sign (roll 7 holds
    # two flat red 2s touching corner to corner whose crops hold both: see the next test)
    monkeypatch.setattr(reader, "_second_sign_reader", lambda: None)
    cal = red_touching.calibration
    touching = 0
    for number in (1, 2, 4, 5, 7, 8, 10, 11):
        for cocked, merged, excess in _excesses(red_touching, number):
            assert not cocked
            if merged > 1:
                touching += 1
                assert excess < TOUCH_MARGIN * lean_excess(cal)
        frame, _ = red_touching.roll(number, 0)
        assert "leaning" not in read_dice(frame, cal, expected=6).reason
    assert touching >= 2  # the rolls hold touching dice


def test_the_face_reader_s_sign_leaves_flat_touching_dice_alone(red_touching) -> None:
    # the second sign (see vision.reader.FACE_DOUBT) on flat touching dice: roll 7's two 2s
    # touch corner to corner, one read at 0.83, and the face reader's crop of it holds both.
    # The face reader trained with more cocked dice (train_faces.py --cocked-scale 3) sees a
    # face there; the one before saw "no face" (0.63) and had the roll shaken again
    for number in (1, 2, 4, 5, 7, 8, 10, 11):
        frame, truth = red_touching.roll(number, 0)
        reading = read_dice(frame, red_touching.calibration, expected=6)
        assert reading.ok, f"roll {number}: {reading.reason}"
        assert sorted(reading.values) == sorted(d["value"] for d in truth["dice"])


def test_a_far_calibration_agrees_no_near_view() -> None:
    # setup 202 at 1296x972, roll 9: three dice's shadows stretch their regions a little
    # toward the frame's centre (0.012-0.016 of their distance), which passed for a camera
    # close above and let a lone die leaning on the back wall (0.11 square sides beside one
    # edge) through; this tower's calibration saw no side face beside its flat dice
    from vision.lean import agreed_near_views, far_calibration
    from vision.render import resolve_style

    setup = make_setup(202, (1296, 972), resolve_style("setup"))
    assert setup is not None and far_calibration(setup.calibration)
    frame, _ = setup.roll(9, 1)
    found, side = locate(frame, setup.calibration)
    assert side is not None
    middle = (frame.shape[1] / 2.0, frame.shape[0] / 2.0)
    assert any(f.near_view for f in agreed_near_views(found, side, middle))
    reading = read_dice(frame, setup.calibration, expected=6)
    assert not reading.ok and "leaning" in reading.reason
    for clean in (1, 2, 4, 5):  # the same tower's flat rolls are read as before
        frame, _ = setup.roll(clean, 0)
        reading = read_dice(frame, setup.calibration, expected=6)
        assert "leaning" not in reading.reason


def test_a_touching_die_is_judged_leaning_only_from_a_count_the_reader_could_score() -> None:
    from vision.lean import SURE_COUNT
    from vision.reader import MIN_CONFIDENCE

    assert SURE_COUNT == MIN_CONFIDENCE


@pytest.fixture(scope="module")
def drawn_out():
    from vision.render import resolve_style

    setup = make_setup(509, (640, 480), resolve_style("setup"))  # a far camera, touching dice
    assert setup is not None
    return setup


def _touching_shifts(setup, number: int) -> list[tuple[bool, float, float, float]]:
    """(cocked, side face over the tower's threshold, region shift, count's confidence) of
    each touching die found in roll ``number``."""
    from vision.lean import lean_excess, region_shift, side_face
    from vision.pips import confidence

    frame, truth = setup.roll(number, 1 if number % 3 == 0 else 0)
    found, side = locate(frame, setup.calibration)
    assert side is not None
    out = []
    for f in found:
        if f.region.merged == 1 or not 1 <= f.count.value <= 6:
            continue
        nearest = min(
            truth["dice"],
            key=lambda d: math.hypot(d["center"][0] - f.centre[0], d["center"][1] - f.centre[1]),
        )
        others = [(g.region, g.count) for g in found if g is not f]
        area, outward = side_face(frame, setup.calibration, f.region, f.count, others)
        shift = region_shift(f.region, f.count, outward, side)
        ratio = area / lean_excess(setup.calibration)
        out.append((bool(nearest["cocked"]), ratio, shift, confidence(f.count)))
    return out


@pytest.mark.parametrize(
    ("seed", "number", "size"),
    [
        # a 1 leaning on its neighbour, a side face's pip counted with its own as a 2 at 0.77:
        # its side face measures 1.13 times the tower's threshold, its region's centre lies
        # 0.066 side out through that edge
        (1602, 21, (640, 480)),
        # the same at 0.69, 0.77 times the threshold and 0.061 side out
        (2304, 3, (1296, 972)),
    ],
)
def test_a_touching_die_drawn_out_through_its_side_face_is_refused(
    seed: int, number: int, size: tuple[int, int]
) -> None:
    from vision.lean import TOUCH_LEAST, TOUCH_MARGIN, TOUCH_SHIFT
    from vision.render import resolve_style

    setup = make_setup(seed, size, resolve_style("setup"))
    assert setup is not None
    leaning = [s for s in _touching_shifts(setup, number) if s[0]]
    assert leaning
    _, ratio, shift, sure = leaning[0]
    assert TOUCH_LEAST < ratio < TOUCH_MARGIN and shift > TOUCH_SHIFT and sure >= 0.5
    frame, _ = setup.roll(number, 1)
    reading = read_dice(frame, setup.calibration, expected=6)
    assert not reading.ok and "leaning" in reading.reason


def test_flat_touching_dice_are_centred_on_their_faces(drawn_out) -> None:
    from vision.lean import TOUCH_SHIFT

    touching = 0
    for number in (1, 2, 4, 5, 7, 8, 10, 11, 13, 14):
        for cocked, _, shift, sure in _touching_shifts(drawn_out, number):
            assert not cocked
            touching += 1
            if sure >= 0.5:
                assert shift < TOUCH_SHIFT
        frame, _ = drawn_out.roll(number, 0)
        assert "leaning" not in read_dice(frame, drawn_out.calibration, expected=6).reason
    assert touching >= 2  # the rolls hold touching dice


def test_a_region_shift_is_measured_out_through_the_edge() -> None:
    from vision.lean import region_shift
    from vision.pips import Pip, assess
    from vision.segment import square_region

    side = 40.0
    a = 0.27 * side
    pips = [Pip(100.0 + u * a, 100.0 + v * a, 40.0, 2.2) for u, v in ((-1, -1), (1, 1))]
    count = assess(pips, (100.0, 100.0), side, 0)
    drawn = square_region((104.0, 100.0), side)  # 0.1 side to the right of the face
    assert region_shift(drawn, count, (1.0, 0.0), side) == pytest.approx(0.1, abs=0.01)
    assert region_shift(drawn, count, (-1.0, 0.0), side) == pytest.approx(-0.1, abs=0.01)
    assert region_shift(drawn, count, (0.0, 1.0), side) == pytest.approx(0.0, abs=0.01)


def test_a_touching_die_whose_pips_form_no_clean_face_is_not_raised_by_a_second_opinion() -> None:
    # a leaning die's top face is foreshortened, its pips off the die's centre, a side
    # face's pips beyond it: a second opinion, sure of the top face's value, may not make
    # such a doubtful count of a touching die sure; one whose only doubt is nearly-pip blobs
    # on the face (a flat die beside a neighbour) is raised as before
    import numpy as np

    from vision.found import Found
    from vision.lean import doubt_of_form
    from vision.pips import PipCount, confidence
    from vision.reader import MIN_CONFIDENCE, _die
    from vision.segment import square_region

    side = 40.0
    region = dataclasses.replace(square_region((100.0, 100.0), side), merged=2)
    pips = ((89.0, 89.0), (111.0, 111.0))
    sure = np.array([0.002, 0.99, 0.002, 0.002, 0.002, 0.002])
    leaning = PipCount(2, pips, 0.05, 0.1, 2.0, 0, 0.17, beyond=1)  # skewed, off, a blob beyond
    flat = PipCount(2, pips, 0.0, 0.1, 2.0, 2, 0.0)  # two nearly-pip blobs on the face
    lamp = PipCount(2, pips, 0.0, 0.1, 2.0, 0, 0.0, glare=1)  # a spot set aside, no lamp known
    for count in (leaning, flat, lamp):
        assert 0.2 <= confidence(count) < MIN_CONFIDENCE
    assert doubt_of_form(leaning) and not doubt_of_form(flat) and not doubt_of_form(lamp)
    for taught, probs in ((sure, None), (None, sure)):  # the profile, the classifier
        raised = _die(Found(region, leaning, (100.0, 100.0)), side, probs, taught, touching=True)
        assert raised.confidence == pytest.approx(confidence(leaning))
        for count in (flat, lamp):
            found = Found(region, count, (100.0, 100.0))
            assert _die(found, side, probs, taught, touching=True).confidence >= MIN_CONFIDENCE
        # a lone die, or one under a calibration that witnessed no far camera, as before
        lone = _die(Found(region, leaning, (100.0, 100.0)), side, probs, taught)
        assert lone.confidence >= MIN_CONFIDENCE


@pytest.mark.parametrize("size", [(640, 480), (1296, 972)])
def test_a_lone_die_leaning_on_a_wall_is_looked_at_in_full_though_its_region_is_square(
    size: tuple[int, int],
) -> None:
    # seed 809 roll 24: a lone die leaning on the wall, 1.017-1.034 sides long at the working
    # scale (under SUSPECT_LONG), 1.4 sides from the outline, its side face 2.75-3.5 times the
    # tower's threshold; flat lone dice away from the walls are still not looked at
    from vision.lean import SUSPECT_LONG, WALL_REACH, lean_excess, long_side, nearest_wall
    from vision.render import resolve_style

    setup = make_setup(809, size, resolve_style("setup"))
    assert setup is not None
    cal = setup.calibration
    frame, truth = setup.roll(24, 1)
    found, side = locate(frame, cal)
    assert side is not None
    cocked = next(d for d in truth["dice"] if d["cocked"])
    die = min(
        found,
        key=lambda f: math.hypot(
            f.centre[0] - cocked["center"][0], f.centre[1] - cocked["center"][1]
        ),
    )
    others = [(g.region, g.count) for g in found if g is not die]
    assert die.region.merged == 1 and long_side(die.region) <= SUSPECT_LONG * side
    assert nearest_wall(cal, die.centre)[1] < WALL_REACH
    assert side_excess(frame, cal, die.region, die.count, others) > 2 * lean_excess(cal)
    reading = read_dice(frame, cal, expected=6)
    assert not reading.ok and reading.reason == "the die at the left wall is leaning: shake again"
    for number in (1, 2, 4, 5, 7, 8, 10, 11):  # the same tower's flat rolls
        frame, _ = setup.roll(number, 0)
        assert "leaning" not in read_dice(frame, cal, expected=6).reason


def test_the_nearest_wall_is_measured_in_die_sides_from_the_tray_outline(tower) -> None:
    from vision.lean import nearest_wall

    cal = dataclasses.replace(
        tower.calibration, tray=((100, 50), (500, 50), (500, 400), (100, 400))
    )
    side = cal.die_side
    assert nearest_wall(cal, (100 + 1.5 * side, 200)) == ("the left wall", pytest.approx(1.5))
    assert nearest_wall(cal, (300, 50 + 0.5 * side)) == ("the back wall", pytest.approx(0.5))
    assert nearest_wall(cal, (300, 400 - side))[0] == "the front wall"
    assert nearest_wall(cal, (500 - 3 * side, 220))[0] == "the right wall"


def _nearest_found(found, point):
    return min(found, key=lambda f: math.hypot(f.centre[0] - point[0], f.centre[1] - point[1]))


def test_a_leaning_touching_die_with_no_clean_face_is_not_lifted_by_the_classifier() -> None:
    # setup 8 roll 3 at 1296x972: a die leaning on its neighbour counts doubtfully, its side
    # face under the tower's threshold (nearer the neighbour's square); the classifier, sure
    # of its top face's value, raised it and the roll was scored
    from vision.lean import doubt_of_form
    from vision.pips import confidence
    from vision.render import resolve_style

    setup = make_setup(8, (1296, 972), resolve_style("setup"))
    assert setup is not None
    frame, truth = setup.roll(3, 1)
    found, _ = locate(frame, setup.calibration)
    cocked = next(d for d in truth["dice"] if d["cocked"])
    die = _nearest_found(found, cocked["center"])
    assert die.region.merged > 1 and confidence(die.count) < 0.5 and doubt_of_form(die.count)
    reading = read_dice(frame, setup.calibration, expected=6)
    assert not reading.ok


def test_a_flat_touching_die_doubted_for_nearly_pip_blobs_only_is_still_raised() -> None:
    # tuning seed 905 roll 8 at 640x480: a flat 1 beside a neighbour with two nearly-pip blobs
    # on its face; its single pip is a clean face, and neither blob completes one with it
    # (PipCount.doubt_idle), so the count is no longer held under 0.5 by them (it was 0.36)
    from vision.lean import doubt_of_form
    from vision.pips import confidence
    from vision.render import resolve_style

    setup = make_setup(905, (640, 480), resolve_style("setup"))
    assert setup is not None
    frame, truth = setup.roll(8, 0)
    found, _ = locate(frame, setup.calibration)
    doubted = [f for f in found if f.region.merged > 1 and f.count.value == 1 and f.count.doubtful]
    assert doubted and not any(doubt_of_form(f.count) for f in doubted)
    assert all(all(f.count.doubt_idle) and confidence(f.count) >= 0.5 for f in doubted)
    reading = read_dice(frame, setup.calibration, expected=6)
    assert reading.ok, reading.reason
    assert reading.values == tuple(sorted(d["value"] for d in truth["dice"]))


@pytest.mark.parametrize("degrees", [0.0, 12.0, 28.0, 44.0, 61.0, 152.0])
def test_a_turned_face_s_pips_lie_on_its_own_axes(degrees: float) -> None:
    # the pips of a 6 turned by ``degrees`` are where the layout puts them on the face's own
    # axes, both where the side face is measured (lean) and where a blob's distance from the
    # grid is (pips): turned back by the face's turn, not turned on by it again
    from vision.lean import _face_coordinates
    from vision.pips import _grid_distance, _template, face_turn

    side, offset = 80.0, 0.27
    layout = _template(6, offset * side)
    t = math.radians(degrees)
    turned = layout @ np.array([[math.cos(t), math.sin(t)], [-math.sin(t), math.cos(t)]])
    points = (turned + np.array([300.0, 200.0])).astype(np.float32)
    turn = face_turn(points, side)
    u, v = _face_coordinates(points[:, 0], points[:, 1], np.array([300.0, 200.0]), turn)
    # the same six places (a 6 repeats after a half turn, so each pip lands on one of them)
    seen = np.stack([u, v], axis=1)
    apart = np.hypot(*(seen[:, None, :] - layout[None, :, :]).transpose(2, 0, 1))
    assert apart.min(axis=1).max() < 1.0  # pixels: the turn is found to 4 degrees
    assert sorted(apart.argmin(axis=1)) == list(range(6))
    # every pip is one corner offset from the face's centre along its own axes
    assert _grid_distance(points, points, side) == pytest.approx(np.ones(6), abs=0.03)


def _lone_with_side_pips(setup, number: int, cocked: int):
    """The frame of roll ``number`` and its lone die whose count set pips aside as a side
    face's, with the frame's other dice."""
    frame, _ = setup.roll(number, cocked)
    found, _ = locate(frame, setup.calibration)
    die = next(f for f in found if f.count.side_pips and f.region.merged == 1)
    return frame, die, [(g.region, g.count) for g in found if g is not die]


def test_side_pips_that_come_with_no_side_face_are_doubts_of_a_flat_die() -> None:
    # setup 2108 roll 4 at 640x480: a flat green 6 turned about 45 degrees whose darker
    # corner the count set aside as a side face's pip (capped at 0.45, and called leaning):
    # nothing beside any edge of its top face stands out from the floor
    from vision.lean import side_face_unseen
    from vision.pips import BEYOND_DOUBT, side_pips_as_doubts
    from vision.render import resolve_style

    setup = make_setup(2108, (640, 480), resolve_style("setup"))
    assert setup is not None
    frame, die, others = _lone_with_side_pips(setup, 4, 0)
    assert side_face_unseen(frame, die, setup.calibration, others)
    doubts = side_pips_as_doubts(die.count)
    assert doubts.side_pips == 0 and doubts.beyond == die.count.beyond + die.count.side_pips
    assert doubts.value == die.count.value and doubts.pips == die.count.pips
    assert confidence(die.count) <= 0.45
    assert confidence(doubts) == pytest.approx(
        confidence(dataclasses.replace(doubts, beyond=die.count.beyond))
        * BEYOND_DOUBT**die.count.side_pips
    )
    reading = read_dice(frame, setup.calibration, expected=6)
    assert reading.ok, reading.reason
    # a touching die's side face may be given to its neighbour's square: its side pips stand
    merged = dataclasses.replace(die, region=dataclasses.replace(die.region, merged=2))
    assert not side_face_unseen(frame, merged, setup.calibration, others)


def test_a_lone_leaning_die_s_side_pips_come_with_its_side_face() -> None:
    # tuning seed 809 roll 9 at 640x480: a lone die leaning on a wall whose count set a side
    # face's pip aside; its side face measures 1.38 times the tower's threshold, the least of
    # the tuning seeds' lone leaning dice with side pips
    from vision.lean import UNSEEN_SIDE, lean_excess, side_face_unseen
    from vision.render import resolve_style

    setup = make_setup(809, (640, 480), resolve_style("setup"))
    assert setup is not None
    frame, die, others = _lone_with_side_pips(setup, 9, 1)
    area = side_excess(frame, setup.calibration, die.region, die.count, others)
    assert area > 2 * UNSEEN_SIDE * lean_excess(setup.calibration)
    assert not side_face_unseen(frame, die, setup.calibration, others)
    reading = read_dice(frame, setup.calibration, expected=6)
    assert not reading.ok and "leaning" in reading.reason


@pytest.mark.parametrize(
    ("seed", "number", "size"),
    [
        # a blue 1 leaning on the right wall beside another 1: its side face's three pips
        # and its top's one counted as a 2 at 0.80; "no face" 0.51
        (9600, 3, (640, 480)),
        # a black 1 leaning on a 2 at the front wall, counted with its side face's pips as a
        # 2 at 0.82; "no face" 0.96
        (7202, 3, (640, 480)),
        # an ivory 6 leaning at the front wall, its side face's three dashes below it: a 6 at
        # 0.79; "no face" 0.77
        (1408, 30, (1296, 972)),
    ],
)
def test_an_unsure_die_the_face_reader_sees_no_face_in_leans(
    seed: int, number: int, size: tuple[int, int]
) -> None:
    reading, truth, side = cocked_roll(seed, number, size)
    assert not reading.ok
    assert "leaning" in reading.reason
    (cocked,) = [d for d in truth["dice"] if d["cocked"]]
    # the die refused is the cocked one (the count's centre drawn towards its side face)
    doubted = [d for d in reading.dice if d.confidence < 0.5]
    assert doubted and all(math.dist(d.center, cocked["center"]) < side for d in doubted)


def test_a_dice_profile_does_not_vouch_for_a_die_the_face_reader_sees_no_face_in() -> None:
    from vision.render import resolve_style
    from vision.setups import teach_setup

    # setup 9600 roll 3 again, with the setup's profile taught on 20 rolls: sure of the
    # crop's 2, it raises the leaning die to 0.94; the reader's own doubt (0.80) still
    # puts it to the face reader
    setup = make_setup(9600, (640, 480), resolve_style("setup"))
    assert setup is not None
    profile, _ = teach_setup(setup, 20)
    frame, _ = setup.roll(3, 1)
    reading = read_dice(frame, setup.calibration, expected=6, profile=profile)
    assert not reading.ok
    assert "leaning" in reading.reason


def test_only_an_unsure_die_is_put_to_the_face_reader(monkeypatch) -> None:
    import vision.reader as reader
    from vision.render import resolve_style

    tower = make_setup(1405, (640, 480), resolve_style("setup"))  # dice often read at 0.5-0.9
    assert tower is not None

    class NoFaceAnywhere:
        def no_face(self, image, dice, doubt_from):
            return np.ones(len(dice))

    unsure = 0
    for number in range(1, 31):
        frame, _ = tower.roll(number, 1 if number % 3 == 0 else 0)
        monkeypatch.setattr(reader, "_second_sign_reader", lambda: None)
        plain = read_dice(frame, tower.calibration, expected=6)
        monkeypatch.setattr(reader, "_second_sign_reader", NoFaceAnywhere)
        doubting = read_dice(frame, tower.calibration, expected=6)
        assert len(plain.dice) == len(doubting.dice)
        for before, after in zip(plain.dice, doubting.dice, strict=True):
            if not MIN_CONFIDENCE <= before.confidence < reader.FACE_DOUBT:
                assert after == before  # a sure die is never asked, an unsure one refused
            else:
                assert after.confidence <= 0.3  # a doubted one where no face is seen leans
                unsure += 1
        doubted = any(MIN_CONFIDENCE <= d.confidence < 0.9 for d in plain.dice)
        assert doubting.ok == plain.ok if not doubted else "leaning" in doubting.reason
    assert unsure >= 3  # the rolls hold dice read unsurely


def test_a_broken_face_reader_leaves_leaning_dice_to_the_geometry(monkeypatch, caplog) -> None:
    import vision.reader as reader

    def broken() -> None:
        raise ValueError("model file dice_faces.onnx is not a readable ONNX model")

    monkeypatch.setattr(reader, "_second_sign_reader", lambda: None)
    geometry, _, _ = cocked_roll(9600, 3, (640, 480))
    monkeypatch.undo()
    monkeypatch.setattr(reader, "load_face_reader", broken)
    reader._second_sign_reader.cache_clear()
    try:
        with caplog.at_level("WARNING", logger="vision.reader"):
            first, _, _ = cocked_roll(9600, 3, (640, 480))
            again, _, _ = cocked_roll(9600, 3, (640, 480))
    finally:
        reader._second_sign_reader.cache_clear()
    # read as without the face reader, no exception, and said once
    assert first == again == geometry
    said = [r.getMessage() for r in caplog.records if r.name == "vision.reader"]
    assert said == [
        "the face reader is not asked about doubted dice: "
        "model file dice_faces.onnx is not a readable ONNX model"
    ]


def _blob_frame(*discs: tuple[int, int, int, int]) -> np.ndarray:
    """A white die face with black ellipses (centre x, centre y, width, height) drawn on it."""
    import cv2

    frame = np.full((60, 60, 3), 235, np.uint8)
    for x, y, width, height in discs:
        cv2.ellipse(frame, (x, y), (width // 2, height // 2), 30.0, 0, 360, (20, 20, 20), -1)
    return frame


def test_a_pip_s_axes_tell_round_from_drawn_out() -> None:
    from vision.lean import DASH, pip_axes

    side = 50.0
    round_pip = pip_axes(_blob_frame((30, 30, 10, 10)), (30.0, 30.0), side)
    dash = pip_axes(_blob_frame((30, 30, 12, 4)), (30.0, 30.0), side)
    assert round_pip is not None and round_pip[0] > 0.9 * round_pip[1]
    assert round_pip[1] == pytest.approx(10.0, abs=1.5)  # an axis in pixels, end to end
    assert dash is not None and dash[0] < DASH * dash[1]
    assert dash[1] == pytest.approx(12.0, abs=1.5)
    # no blob at the centre, or a patch beyond the frame: no measure
    assert pip_axes(np.full((60, 60, 3), 235, np.uint8), (30.0, 30.0), side) is None
    assert pip_axes(_blob_frame((30, 30, 10, 10)), (3.0, 30.0), side) is None


@pytest.mark.parametrize("size", [(640, 480), (1296, 972)])
def test_a_count_holding_a_side_face_s_dashes_leans(size: tuple[int, int]) -> None:
    # setup 13102 roll 30: an ivory 6 leaning away from the 6 it touches; its count took two
    # of its side face's four dashes (0.40 and 0.41 of round, under half the widest pip's
    # width, at 1296x972) and four of its top's pips for a 6 of clean layout, read at
    # 0.96-0.97 with the face reader seeing a face
    from vision.lean import shows_dashes

    reading, truth, side = cocked_roll(13102, 30, size)
    assert not reading.ok
    assert "leaning" in reading.reason
    (cocked,) = [d for d in truth["dice"] if d["cocked"]]
    # the one die refused is the cocked one (its count's centre a quarter side off its own)
    assert [d.confidence <= 0.3 for d in reading.dice] == [
        math.dist(d.center, cocked["center"]) < 0.5 * side for d in reading.dice
    ]
    # the flat dice of the setup's flat rolls show no dashes
    from vision.render import resolve_style

    setup = make_setup(13102, size, resolve_style("setup"))
    assert setup is not None
    for number in (1, 2, 4, 5):
        frame, _ = setup.roll(number, 0)
        found, _ = locate(frame, setup.calibration)
        assert not any(shows_dashes(frame, f.count, side) for f in found)


@pytest.mark.parametrize(
    ("seed", "number", "size"),
    [(9600, 4, (1296, 972)), (9600, 7, (1296, 972)), (9201, 2, (640, 480)), (9311, 14, (640, 480))],
)
def test_a_flat_6_s_drawn_out_pips_are_no_dashes(
    seed: int, number: int, size: tuple[int, int]
) -> None:
    # flat 6s with two pips as drawn out as a side face's dashes (0.39-0.47 of round): of
    # wide-set pips, two of a column joined into blobs 0.37-0.42 sides long but a pip wide
    # (9600 rolls 4 and 7, 9201 roll 2); of faint red pips, the lower middle pair cut small
    # by the blob's level, shorter than a pip is wide (9311 roll 14). No dash is either.
    from vision.lean import DASH, pip_axes, shows_dashes
    from vision.render import resolve_style

    setup = make_setup(seed, size, resolve_style("setup"))
    assert setup is not None
    frame, truth = setup.roll(number, 0)
    side = setup.calibration.die_side
    found, _ = locate(frame, setup.calibration)
    (six,) = [
        f
        for f in found
        if sum(
            1
            for a in (pip_axes(frame, p, side) for p in f.count.pips)
            if a is not None and a[0] < DASH * a[1]
        )
        >= 2
    ]
    assert six.count.value == 6
    assert not shows_dashes(frame, six.count, side)
    reading = read_dice(frame, setup.calibration, expected=6)
    assert reading.ok, reading.reason
    assert reading.values == tuple(sorted(int(d["value"]) for d in truth["dice"]))
