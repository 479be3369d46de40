"""A die with nothing to lean on (lone, away from every wall, under a calibration that
witnessed a far camera) shows no side face: the nearly-pip blobs at a clean 6's rim are
then no side face's pips and weigh as idle doubts (vision.lean.free_standing,
vision.pips.free_six). A 6 touching another die, or at a wall, keeps their weight: a
leaning 6's side-face pips lie just there (setup 2100 roll 15 at 1296x972)."""

from __future__ import annotations

import dataclasses

import pytest

from tests.vision.conftest import flat_roll
from tests.vision.pip_faces import CENTRE, SIDE, A, face, pips
from vision.found import Found
from vision.lean import WALL_REACH, free_standing
from vision.pips import CLEAN_FIT, Pip, assess, confidence, free_six
from vision.reader import MIN_CONFIDENCE
from vision.render import resolve_style
from vision.segment import square_region
from vision.setups import make_setup


def rim(u: float, v: float) -> Pip:
    """A nearly-pip blob at (u, v) on the face's grid, as a glossy rim leaves one."""
    return Pip(CENTRE[0] + u * A * SIDE, CENTRE[1] + v * A * SIDE, 30.0, 1.1)


def test_a_clean_six_with_nothing_to_lean_on_weighs_its_rim_blobs_as_idle() -> None:
    count = assess(face(6), CENTRE, SIDE, 0, [rim(1.5, 0.2), rim(-0.2, 1.6)])
    assert count.doubtful == 2 and count.doubt_idle == (False, False)  # at the rim
    free = free_six(count)
    assert free.doubt_idle == (True, True)
    assert confidence(count) < MIN_CONFIDENCE <= confidence(free)


def test_only_a_clean_six_is_freed() -> None:
    loose = assess(
        pips([(-1, -1), (1, -1), (-1, 0), (1, 0.6), (-1, 1), (1, 1)]),
        CENTRE,
        SIDE,
        0,
        [rim(0, 1.6)],
    )
    assert loose.layout_error >= CLEAN_FIT and free_six(loose) == loose
    five = assess(face(5), CENTRE, SIDE, 0, [rim(1.6, 0)])
    assert free_six(five) == five  # a 5 may lack a pip: its doubts are the count's own
    clean = assess(face(6), CENTRE, SIDE, 0)
    assert free_six(clean) == clean  # nothing to free


@pytest.fixture(scope="module")
def far_tower():
    setup = make_setup(3008, (640, 480), resolve_style("setup"))  # blue on green, far camera
    assert setup is not None
    return setup


def _die_at(point: tuple[float, float], side: float, merged: int = 1) -> Found:
    region = dataclasses.replace(square_region(point, side), merged=merged)
    return Found(region, assess(face(6, point), point, side, 0), point)


def test_a_lone_die_away_from_the_walls_is_free_standing(far_tower) -> None:
    cal = dataclasses.replace(
        far_tower.calibration, tray=((100, 50), (540, 50), (540, 430), (100, 430))
    )
    side = cal.die_side
    middle = (320.0, 240.0)
    assert free_standing(_die_at(middle, side), cal)
    assert not free_standing(_die_at(middle, side, merged=2), cal)  # a neighbour to lean on
    near_wall = (100 + (WALL_REACH - 0.5) * side, 240.0)
    assert not free_standing(_die_at(near_wall, side), cal)  # a wall to lean on
    near = dataclasses.replace(cal, flat_excess=0.2)  # a camera close above shows side faces
    assert not free_standing(_die_at(middle, side), near)


@pytest.mark.slow
def test_a_lone_glossy_six_with_rim_blobs_is_read_without_a_profile() -> None:
    # setup 3409 roll 28 at 640x480: a translucent green 6, clean, whose rim highlights left
    # three nearly-pip blobs at its edge (confidence 0.49 with a sure profile before)
    reading, values = flat_roll(3409, 28, (640, 480))
    assert reading.ok, reading.reason
    assert reading.values == values
