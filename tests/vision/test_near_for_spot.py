"""The lamp's spot counted in place of a pip that a glossy die's rim highlight joined
(vision.pips.near_for_spot): the weak blob is set aside as the reflection it is, and the
nearly-pip blob beside the rim is the face's pip."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.vision.pip_faces import GRID
from vision.pips import (
    CLEAN_FIT,
    GLARE_CAP,
    GLARE_WEAKER,
    Pip,
    _fit,
    assess,
    confidence,
    near_for_spot,
)
from vision.reader import read_dice
from vision.setups import make_setup

SIDE = 80.0
A = 0.25 * SIDE  # corner pips' offset from the centre, pixels
CENTRE = (200.0, 200.0)


def _at(u: float, v: float, area: float = 140.0, strength: float = 2.2, plateau: float = 0.75):
    return Pip(CENTRE[0] + A * u, CENTRE[1] + A * v, area, strength, plateau)


def _four_with_spot_for_a_pip(**spot) -> tuple[list[Pip], list[Pip]]:
    """A 4 whose bottom-right pip was set aside as nearly a pip (swollen and not round: a
    rim highlight joined it) and whose count took the lamp's spot near the centre instead."""
    corners = [_at(u, v) for u, v in GRID[4] if (u, v) != (1, 1)]
    lamp = _at(-0.1, 0.7, **({"area": 60.0, "strength": 1.85, "plateau": 0.38} | spot))
    swollen = _at(1.05, 1.1, area=210.0, strength=2.24)
    return [*corners, lamp], [swollen]


def test_the_lamp_s_spot_counted_in_a_pip_s_place_is_swapped_for_that_pip() -> None:
    pips, near = _four_with_spot_for_a_pip()
    assert _fit(np.array([(p.x, p.y) for p in pips], np.float32), SIDE)[0] >= CLEAN_FIT
    kept, left, glare = near_for_spot(pips, near, SIDE)
    assert glare == 1 and left == [] and len(kept) == 4
    assert near[0] in kept and pips[-1] not in kept
    count = assess(pips, CENTRE, SIDE, 0, near)
    assert (count.value, count.glare, count.doubtful) == (4, 1, 0)
    assert count.layout_error < CLEAN_FIT
    assert count.glare_plateau == pytest.approx(0.38)
    spot = pips[-1]
    middle = np.mean([(p.x, p.y) for p in kept], axis=0)
    assert count.glare_at == pytest.approx(
        ((spot.x - middle[0]) / SIDE, (spot.y - middle[1]) / SIDE), abs=1e-4
    )
    # a reflection set aside: only the lamp or a sure second opinion confirms the count
    assert confidence(count) == pytest.approx(GLARE_CAP)


@pytest.mark.parametrize(
    "spot",
    [
        {"strength": 2.2},  # as strong as paint: a pip, not a reflection
        {"area": 140.0, "plateau": 0.75},  # as large and as flat as paint
    ],
)
def test_a_blob_that_looks_like_paint_is_not_taken_for_the_lamp_s_spot(spot) -> None:
    pips, near = _four_with_spot_for_a_pip(**spot)
    assert near_for_spot(pips, near, SIDE) == (pips, near, 0)


def test_a_weak_nearly_pip_blob_is_no_pip_to_swap_in() -> None:
    pips, near = _four_with_spot_for_a_pip()
    strength = float(np.median([p.strength for p in pips[:-1]]))
    faint = [Pip(near[0].x, near[0].y, near[0].area, 0.9 * GLARE_WEAKER * strength)]
    assert near_for_spot(pips, faint, SIDE) == (pips, faint, 0)


def test_a_clean_face_keeps_its_pips_and_a_swap_must_make_one() -> None:
    clean = [_at(u, v) for u, v in GRID[4]]
    rim = [_at(1.9, 0.0, area=200.0)]
    assert near_for_spot(clean, rim, SIDE) == (clean, rim, 0)
    pips, _ = _four_with_spot_for_a_pip()
    off = [_at(1.9, 1.9, area=200.0)]  # beyond the face: swapped in it fits no 4
    assert near_for_spot(pips, off, SIDE) == (pips, off, 0)


@pytest.mark.parametrize(
    ("seed", "number", "centre"),
    [
        # a glossy green 4 whose bottom-right pip a rim highlight joined (set aside as nearly
        # a pip) while the count took the lamp's spot: unsure at 0.35, the roll refused
        (1911, 7, None),
        (3200, 19, (488, 777)),  # the same at 0.49 (its count's confidence 0.2)
    ],
)
def test_a_glossy_die_whose_rim_highlight_joined_a_pip_is_read(seed, number, centre) -> None:
    from vision.render import resolve_style

    setup = make_setup(seed, (1296, 972), resolve_style("setup"))
    assert setup is not None
    frame, truth = setup.roll(number, 0)
    reading = read_dice(frame, setup.calibration, expected=6)
    assert reading.ok, reading.reason
    assert sorted(reading.values) == sorted(d["value"] for d in truth["dice"])
    if centre is not None:
        die = min(
            reading.dice, key=lambda d: math.hypot(d.center[0] - centre[0], d.center[1] - centre[1])
        )
        assert die.value == 4 and die.confidence >= 0.5


def test_a_2_whose_pip_the_rim_joined_is_no_1_with_the_spot_set_aside() -> None:
    # setup 7306 roll 20 at 640x480: a 2 whose top-left pip a rim highlight joined (nearly a
    # pip) and the lamp's spot between its pips. Setting the weak spot aside leaves one pip,
    # a face by itself whatever it is, so the nearly-pip blob that makes a clean 2 with the
    # other pip is the likelier pip
    pip = _at(1.0, 1.0)
    spot = _at(0.3, 0.2, area=40.0, strength=1.5)
    joined = _at(-1.05, -1.1, area=210.0, strength=2.24)
    count = assess([pip, spot], CENTRE, SIDE, 0, [joined])
    assert (count.value, count.glare) == (2, 1)
    assert count.layout_error < CLEAN_FIT
    # with no such blob the spot is set aside all the same, and one pip is left
    alone = assess([pip, spot], CENTRE, SIDE, 0)
    assert (alone.value, alone.glare) == (1, 1)
    # a nearly-pip blob weaker than paint is no pip either
    faint = _at(-1.05, -1.1, area=210.0, strength=1.5)
    assert assess([pip, spot], CENTRE, SIDE, 0, [faint]).value == 1
