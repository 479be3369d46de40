"""Where the reader's reasons put a die: a wall, another die, or the third of the calibrated
tray floor it lies in, in words a person at the tray understands (vision.reader._place)."""

from __future__ import annotations

import dataclasses

import pytest

from vision.reader import _place, read_dice
from vision.reading import Die
from vision.render import STYLES
from vision.setups import Setup, make_setup


@pytest.fixture(scope="module")
def setup() -> Setup:
    made = make_setup(2209, (640, 480), STYLES["setup"])
    assert made is not None and made.calibration.tray_box is not None
    return made


def die_at(x: float, y: float) -> Die:
    return Die(value=4, center=(x, y), box=(int(x) - 10, int(y) - 10, 20, 20), confidence=0.3)


def test_a_die_is_placed_by_the_third_of_the_floor_it_lies_in(setup: Setup) -> None:
    cal = setup.calibration
    assert cal.tray_box is not None
    x0, y0, x1, y1 = cal.tray_box
    w, h = x1 - x0, y1 - y0
    cases = {
        (0.5, 0.5): "in the middle of the tray",
        (0.2, 0.2): "at the back left of the tray",
        (0.5, 0.2): "at the back of the tray",
        (0.8, 0.5): "on the right of the tray",
        (0.8, 0.8): "at the front right of the tray",
    }
    for (u, v), words in cases.items():
        die = die_at(x0 + u * w, y0 + v * h)
        assert _place(die, cal, [die]) == words
    # beside another die: said so, and where
    one, other = (
        die_at(x0 + 0.5 * w, y0 + 0.5 * h),
        die_at(x0 + 0.5 * w + cal.die_side, y0 + 0.5 * h),
    )
    assert _place(one, cal, [one, other]) == "against another die in the middle of the tray"
    # at a wall: the wall
    assert _place(die_at(x0 + 0.5 * cal.die_side, y0 + 0.5 * h), cal, []) == "at the left wall"
    # a calibration that found no floor: the pixel position
    bare = dataclasses.replace(cal, tray=())
    assert _place(die_at(100.0, 120.0), bare, []) == "at (100, 120)"


def test_an_unclear_die_is_named_by_its_place_not_its_pixels(setup: Setup) -> None:
    # the setup's first flat roll refused as unclear (roll 29 before the count found the
    # pips a rim highlight joins, see pips.near_for_spot)
    readings = (read_dice(setup.roll(n, 0)[0], setup.calibration, expected=6) for n in range(1, 60))
    reading = next(r for r in readings if not r.ok and "is unclear" in r.reason)
    assert "is unclear (looks like a " in reading.reason
    assert "of the tray" in reading.reason or "wall" in reading.reason
    assert "(" not in reading.reason.split(" is unclear")[0]
