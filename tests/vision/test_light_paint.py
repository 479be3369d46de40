"""A small spot at the centre of a 2 or a 4 of light paint is the lamp's (vision.lamp.
bare_spot_at_centre, PipCount.light_paint): the spot only adds light, so it greys a dark
middle pip into a small blob but never a light one. The classifier, which takes the spot for
a middle pip, may not veto such a count; on dark paint the same blob stays a judgement."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from tests.vision.conftest import flat_roll, nearest
from tests.vision.pip_faces import CENTRE, GRID, SIDE, found, pips, sure
from tests.vision.test_spot_for_middle import five
from vision.found import Found
from vision.lamp import LAMP_CENTRE, bare_spot_at_centre, explain, light_middle_as_spot
from vision.pips import PEAKED, SHAPE_SIDE, SPOT_AREA, Pip, assess, confidence, detect_pips
from vision.reader import MIN_CONFIDENCE, _die
from vision.render import resolve_style
from vision.segment import square_region
from vision.setups import make_setup


def face(value: int, paint_darker: bool, at: tuple[float, float] = (0.5, -0.5)) -> list[Pip]:
    """The pips of ``value`` (2 or 4) and the lamp's spot ``at`` pixels from the centre, a third
    of a pip's area and fainter than paint: light paint on a dark die, or dark paint on a
    light one (the spot lighter than the body either way)."""
    painted = [dataclasses.replace(p, darker=paint_darker) for p in pips(GRID[value])]
    return [*painted, Pip(CENTRE[0] + at[0], CENTRE[1] + at[1], 13.0, 1.2)]


@pytest.mark.parametrize("value", [2, 4])
def test_a_small_spot_at_the_centre_of_light_paint_is_the_lamp(value: int) -> None:
    count = assess(face(value, paint_darker=False), CENTRE, SIDE, 0)
    assert count.value == value and count.glare == 1 and count.light_paint
    assert count.glare_size < SPOT_AREA
    assert bare_spot_at_centre(count)
    scored, explained = explain(count, None)
    assert explained and scored.glare == 0 and confidence(scored) >= MIN_CONFIDENCE
    # the classifier sure of a pip more (the spot taken for a middle pip) does not veto it
    die = _die(found(count), SIDE, sure(value + 1))
    assert die.value == value and die.confidence >= MIN_CONFIDENCE


@pytest.mark.parametrize("value", [2, 4])
def test_the_same_spot_on_dark_paint_stays_a_judgement(value: int) -> None:
    # a dark middle pip greyed by the spot looks just so: a 3 or a 5 read as a 2 or a 4
    count = assess(face(value, paint_darker=True), CENTRE, SIDE, 0)
    assert count.value == value and count.glare == 1 and not count.light_paint
    assert not bare_spot_at_centre(count)
    assert _die(found(count), SIDE, sure(value + 1)).confidence < MIN_CONFIDENCE
    assert _die(found(count), SIDE, None).confidence < MIN_CONFIDENCE


def test_only_a_small_spot_right_at_the_centre_is_so_taken() -> None:
    count = assess(face(4, paint_darker=False), CENTRE, SIDE, 0)
    assert bare_spot_at_centre(count)
    off = (LAMP_CENTRE + 0.02, 0.0)
    assert not bare_spot_at_centre(dataclasses.replace(count, glare_at=off))
    assert not bare_spot_at_centre(dataclasses.replace(count, glare_size=SPOT_AREA))
    assert not bare_spot_at_centre(dataclasses.replace(count, light_paint=False))
    assert not bare_spot_at_centre(dataclasses.replace(count, glare=0))
    three = assess([*pips(GRID[3])], CENTRE, SIDE, 0)
    assert not bare_spot_at_centre(dataclasses.replace(three, glare=1, glare_at=(0.0, 0.0)))


def test_a_flat_topped_blob_on_a_wide_die_is_a_pip_however_small() -> None:
    # dice SHAPE_SIDE wide or more show a blob's shape: a painted pip is flat-topped (PEAKED
    # of its pixels at full contrast or more), the lamp's spot peaked; a highlight beside a
    # middle pip shrinks the blob found, never peaks it
    count = assess(face(2, paint_darker=False), CENTRE, SIDE, 0)
    spot = dataclasses.replace(count, glare_plateau=PEAKED - 0.1)
    flat = dataclasses.replace(count, glare_plateau=PEAKED)
    assert bare_spot_at_centre(spot, SHAPE_SIDE) and bare_spot_at_centre(spot)
    assert not bare_spot_at_centre(flat, SHAPE_SIDE)
    # narrower dice blur a pip's edge as wide as the pip: their blobs' shape says nothing
    assert bare_spot_at_centre(flat, SHAPE_SIDE - 1) and bare_spot_at_centre(flat)
    assert explain(flat, None, side=SHAPE_SIDE) == (flat, False)


def test_setup_6603_roll_10() -> None:
    # a touching black 3 at 1296x972 whose middle pip, lit by the highlight beside it,
    # measured 0.42 of the other pips (plateau 0.66): it was taken for the lamp's spot on a 2
    reading, values = flat_roll(6603, 10, (1296, 972))
    assert not reading.ok or reading.values == values
    three = nearest(reading.dice, [263.0, 730.3], 20.0)  # where the 3 lies
    assert three is not None and three.value == 3


def test_a_small_faint_middle_pip_of_light_paint_is_the_lamp() -> None:
    # dice wide enough to show a blob's shape count the faint spot as a middle pip (0.45 of
    # the pips' area, 0.84 of their contrast, as setup 910's): on light paint it is the
    # lamp's, a 4, sure without a profile, whatever the classifier takes the spot for
    side = 80.0
    light = assess(five(67.5, 1.85, dark=False), (200.0, 200.0), side, 0)
    assert light.value == 5 and light.light_paint
    four = light_middle_as_spot(light, side)
    assert four is not None and four.value == 4 and four.glare == 0
    assert explain(light, None, None, side) == (four, True)
    die = _die(found_at(light, side), side, sure(5))
    assert die.value == 4 and die.confidence >= MIN_CONFIDENCE
    # of dark paint it may be a middle pip the spot greyed: a judgement, as before
    dark = assess(five(67.5, 1.85), (200.0, 200.0), side, 0)
    assert not dark.light_paint and light_middle_as_spot(dark, side) is None
    # a middle pip as large or as strong as the others, or off the centre, is a pip
    for middle in ((150.0, 1.85), (67.5, 2.2)):
        assert (
            light_middle_as_spot(assess(five(*middle, dark=False), (200.0, 200.0), side, 0), side)
            is None
        )
    off = dataclasses.replace(light, middle_at=(LAMP_CENTRE + 0.02, 0.0))
    assert light_middle_as_spot(off, side) is None


def found_at(count: object, side: float) -> Found:
    return Found(square_region((200.0, 200.0), side), count, (200.0, 200.0))  # type: ignore[arg-type]


def test_detect_pips_sees_light_paint() -> None:
    frame = np.full((200, 200, 3), 60, np.uint8)  # a dark floor
    cv2.rectangle(frame, (60, 60), (140, 140), (150, 60, 20), cv2.FILLED)  # a blue die
    for u, v in GRID[4]:
        cv2.circle(frame, (100 + u * 22, 100 + v * 22), 7, (245, 245, 245), cv2.FILLED)
    cv2.circle(frame, (100, 100), 5, (200, 150, 120), cv2.FILLED)  # the lamp's spot, fainter
    contour = np.array([[[60, 60]], [[140, 60]], [[140, 140]], [[60, 140]]], np.int32)
    blobs, near = detect_pips(frame, contour, 80.0)
    assert not any(p.darker for p in blobs + near)
    count = assess(blobs, (100.0, 100.0), 80.0, 0, near)
    assert count.value == 4 and count.glare == 1 and count.light_paint


@pytest.mark.parametrize("number", [5, 8])
def test_blue_dice_whose_calibration_saw_no_lamp_are_read(number: int) -> None:
    # setup 8304 at 640x480: blue dice with white pips, the lamp's spot at every die's centre;
    # its calibration saw the spot on one die only, so it knows no lamp. Roll 5's 4 and roll
    # 8's 2 were read as a 5 and a 3 (the classifier sure of them at 0.99 and 0.96) and the
    # rolls refused
    setup = make_setup(8304, (640, 480), resolve_style("setup"))
    assert setup is not None and setup.calibration.lamp is None
    reading, values = flat_roll(8304, number, (640, 480))
    assert reading.ok, reading.reason
    assert reading.values == values
