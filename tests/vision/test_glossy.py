"""Glossy dice with light pips under one lamp: its sharp spot on a pip, its bright rim
beside a pip, and pips that still count (vision.pips, vision.lamp)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.lamp import without_lamp
from vision.pips import GLARE_CAP, Pip, _cores, assess, confidence, without_glare
from vision.reader import read_dice
from vision.render import STYLES
from vision.setups import make_setup

SIDE = 40.0


def face(value: int, areas: dict[int, float] | None = None) -> list[Pip]:
    a = 0.27 * SIDE
    grid = {
        2: [(-1, -1), (1, 1)],
        3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    }[value]
    sizes = areas or {}
    return [
        Pip(100.0 + u * a, 100.0 + v * a, sizes.get(k, 40.0), 2.2) for k, (u, v) in enumerate(grid)
    ]


def test_a_rim_touching_a_pip_leaves_the_pip_and_a_thin_remnant() -> None:
    die_area = 40.0**2
    blob = np.zeros((30, 40), np.uint8)
    cv2.circle(blob, (12, 15), 4, 1, -1)  # a pip 0.2 sides wide
    cv2.line(blob, (14, 13), (38, 3), 1, 2)  # a rim 2 px thick running off it
    contrast = np.where(blob > 0, 100.0, 0.0)
    contrast[blob > 0] = 60.0
    cv2.circle(contrast, (12, 15), 4, 110.0, -1)
    cores, rest = _cores(blob > 0, contrast, 50.0, die_area)
    assert len(cores) == 1
    x, y, _, strength = cores[0]
    assert abs(x - 12) < 1.0 and abs(y - 15) < 1.0 and strength == pytest.approx(2.2)
    assert len(rest) == 1 and rest[0][3] == pytest.approx(1.2)  # the rim: fainter
    line = np.zeros((30, 40), np.uint8)
    cv2.line(line, (2, 25), (38, 3), 1, 2)  # a streak alone is no pip
    assert _cores(line > 0, np.where(line > 0, 60.0, 0.0), 50.0, die_area) == ([], [])


def test_a_middle_pip_with_the_spot_on_it_is_not_set_aside() -> None:
    pips = face(3, {1: 62.0})  # the middle pip swollen by the lamp's spot, pulled toward it
    pips[1] = dataclasses.replace(pips[1], x=pips[1].x + 0.05 * SIDE, y=pips[1].y - 0.03 * SIDE)
    kept, glare = without_glare(pips, SIDE)
    assert glare == 0 and len(kept) == 3
    count = assess(pips, (100.0, 100.0), SIDE, 0)
    assert count.value == 3 and count.swollen_at is not None
    assert confidence(count) <= GLARE_CAP  # the spot on it, or a spot beside a 2's centre?
    explained = without_lamp(count, (0.15, -0.1))  # the lamp lies where it is pulled
    assert explained is not None and explained.swollen_at is None
    assert confidence(explained) > 0.5 > GLARE_CAP
    assert without_lamp(count, (-0.15, 0.1)) is None  # a lamp the other way explains nothing
    # a lone spot beside the centre, no larger than a pip, is still set aside
    small = face(3, {1: 20.0})
    small[1] = dataclasses.replace(small[1], x=small[1].x + 0.07 * SIDE)
    assert without_glare(small, SIDE)[1] == 1


def test_a_faint_blob_on_the_rim_toward_the_lamp_is_no_doubt_but_a_strong_one_is() -> None:
    count = assess(face(2), (100.0, 100.0), SIDE, 0)
    rim = dataclasses.replace(count, doubtful=1, doubt_at=((0.3, -0.33),), doubt_strength=(1.3,))
    explained = without_lamp(rim, (0.15, -0.14))
    assert explained is not None and explained.doubtful == 0
    strong = dataclasses.replace(rim, doubt_strength=(2.2,))  # as strong as paint: a pip?
    assert without_lamp(strong, (0.15, -0.14)) is None
    assert without_lamp(rim, (-0.15, 0.14)) is None  # the rim away from the lamp


@pytest.fixture(scope="module")
def glossy_blue():
    setup = make_setup(7, (640, 480), STYLES["setup"])  # glossy translucent blue, white pips
    assert setup is not None and setup.calibration.lamp is not None
    return setup


@pytest.mark.parametrize("number", [1, 7, 8, 10, 11, 16, 17, 20, 23])
def test_glossy_dice_with_the_lamp_s_spot_are_read_right_and_accepted(
    glossy_blue, number: int
) -> None:
    # each of these rolls was refused: the spot merged with a pip (read 3 as 2, 5 as 4), the
    # rim touching a pip took it out of the count, or the spot joined two pips of a 6 (read
    # as a 3 with a side face's pip: leaning)
    frame, truth = glossy_blue.roll(number, 0)
    reading = read_dice(frame, glossy_blue.calibration, expected=6)
    assert reading.ok, reading.reason
    assert reading.values == tuple(sorted(d["value"] for d in truth["dice"]))


def test_a_blob_far_fainter_than_the_pips_along_the_lamp_s_side_of_the_rim_is_no_doubt() -> None:
    count = assess(face(2), (100.0, 100.0), SIDE, 0)
    lamp = (0.15, -0.14)
    aside = dataclasses.replace(
        count, doubtful=1, doubt_at=((-0.06, -0.4),), doubt_strength=(1.05,)
    )
    explained = without_lamp(aside, lamp)  # on the lit edge, at 0.56 of the lamp's direction
    assert explained is not None and explained.doubtful == 0
    brighter = dataclasses.replace(aside, doubt_strength=(1.8,))  # faint, not that faint
    assert without_lamp(brighter, lamp) is None
    behind = dataclasses.replace(aside, doubt_at=((-0.3, 0.3),))  # the edge away from the lamp
    assert without_lamp(behind, lamp) is None


def test_two_pips_joined_by_a_fainter_spot_are_two_pips() -> None:
    die_area = 40.0**2
    blob = np.zeros((30, 40), np.uint8)
    contrast = np.zeros((30, 40), np.float64)
    cv2.circle(blob, (12, 15), 4, 1, -1)
    cv2.circle(blob, (24, 15), 4, 1, -1)
    cv2.circle(blob, (18, 15), 4, 1, -1)  # the lamp's spot between them, as wide as a pip
    contrast[blob > 0] = 75.0
    cv2.circle(contrast, (12, 15), 4, 110.0, -1)
    cv2.circle(contrast, (24, 15), 4, 110.0, -1)
    contrast[:, 17:20] = np.where(blob[:, 17:20] > 0, 75.0, 0.0)
    cores, _ = _cores(blob > 0, contrast, 50.0, die_area)
    assert len(cores) == 2
    left, right = sorted(x for x, *_ in cores)
    assert abs(left - 12) < 1.5 and abs(right - 24) < 1.5
    one = np.zeros((30, 40), np.uint8)
    cv2.ellipse(one, (18, 15), (12, 4), 0, 0, 360, 1, -1)  # one long blob of one contrast
    flat = np.where(one > 0, 110.0, 0.0)
    assert len(_cores(one > 0, flat, 50.0, die_area)[0]) <= 1
