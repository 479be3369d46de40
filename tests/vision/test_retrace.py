"""Dice cut short at the working scale are traced again at full resolution
(``vision.segment.retraced`` for a lone die, ``traced_outline`` for touching ones): a glossy
dark die whose face the lamp lights near the floor's grey keeps its thin dark rim only at full
resolution."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.conftest import true_values
from vision.reader import locate, read_dice
from vision.render import resolve_style
from vision.segment import pixel_area, retraced, square_region, traced_outline
from vision.setups import make_setup

SIDE = 38.0
FLOOR = 128
BODY = 30
LIT = 120  # the lamp's light on the face, near the floor's grey


def floor(shape: tuple[int, int] = (120, 160)) -> np.ndarray:
    rng = np.random.default_rng(3)
    image = np.full((*shape, 3), FLOOR, np.float64) + rng.normal(0.0, 2.0, (*shape, 3))
    return np.clip(image, 0, 255).astype(np.uint8)


def lit_die(image: np.ndarray, centre: tuple[int, int], side: int = round(SIDE)) -> None:
    """A dark square die whose face the lamp lights up and left, within an unbroken rim."""
    x, y = centre[0] - side // 2, centre[1] - side // 2
    cv2.rectangle(image, (x, y), (x + side - 1, y + side - 1), (BODY,) * 3, -1)
    rim = 3
    lit = np.array(
        [[x + rim, y + rim], [x + side - 2 * rim, y + rim], [x + rim, y + side - 2 * rim]]
    )
    cv2.fillPoly(image, [lit.astype(np.int32)], (LIT,) * 3)


def test_a_lone_die_cut_short_is_traced_to_its_square() -> None:
    image = floor()
    lit_die(image, (70, 60))
    cut = square_region((72.0, 62.0), 0.75 * SIDE)  # the dark part the working scale kept
    region = retraced(image, cut, SIDE)
    assert region is not cut
    assert np.hypot(region.center[0] - 70, region.center[1] - 60) < 2.0
    assert 0.95 * SIDE <= region.side <= 1.1 * SIDE


def test_a_region_nearly_whole_or_beyond_the_trace_is_kept() -> None:
    image = floor()
    lit_die(image, (70, 60))
    whole = square_region((70.0, 60.0), 0.97 * SIDE)  # cut by a pixel or less: left alone
    assert retraced(image, whole, SIDE) is whole
    moved = square_region((76.0, 66.0), 0.8 * SIDE)  # reaching past the die: never moved
    assert retraced(image, moved, SIDE) is moved


def test_a_long_blob_and_a_die_of_the_floor_s_colour_keep_their_region() -> None:
    image = floor()
    cv2.rectangle(image, (40, 41), (40 + 57, 41 + 37), (BODY,) * 3, -1)  # top and side face
    long = square_region((68.0, 60.0), SIDE)
    assert retraced(image, long, SIDE) is long
    pale = floor()
    cv2.rectangle(pale, (51, 41), (88, 78), (FLOOR + 4,) * 3, -1)
    there = square_region((70.0, 60.0), SIDE)
    assert retraced(pale, there, SIDE) is there


def test_a_pair_cut_to_little_more_than_one_die_is_traced_whole() -> None:
    image = floor()
    lit_die(image, (55, 60))
    lit_die(image, (55 + round(SIDE), 60))
    cut = np.array([[44, 47], [110, 47], [110, 76], [44, 76]], np.int32).reshape(-1, 1, 2)
    traced = traced_outline(image, cut, SIDE)
    assert traced is not None
    outline, dice = traced
    assert dice == pytest.approx(2.0, abs=0.12)
    # the outline is inset as a lone die's traced square is: bevels shine where no pip lies
    assert pixel_area(outline) < dice * SIDE**2
    x, y, w, h = cv2.boundingRect(outline)
    assert x > 55 - SIDE / 2 and x + w < 55 + 1.5 * SIDE and y > 60 - SIDE / 2 and h < SIDE
    # a blob that runs out of its crop (a shadow, a neighbour) is not traced
    dark = floor()
    cv2.rectangle(dark, (0, 40), (159, 80), (BODY,) * 3, -1)
    assert traced_outline(dark, cut, SIDE) is None


@pytest.fixture(scope="module")
def glossy_black():
    """Setup 9606 at 640x480: small glossy black dice, the lamp up and left of each face."""
    setup = make_setup(9606, (640, 480), resolve_style("setup"))
    assert setup is not None
    return setup


@pytest.mark.parametrize("number", [16, 22])
def test_a_lone_glossy_die_cut_short_reads_flat_and_right(glossy_black, number: int) -> None:
    frame, truth = glossy_black.roll(number, 0)
    side = glossy_black.calibration.die_side
    found, _ = locate(frame, glossy_black.calibration)
    for f in found:
        if f.region.merged == 1:
            (_, _), (w, h), _ = f.region.rect
            assert max(w, h) <= 1.12 * side and max(w, h) <= 1.12 * min(w, h)
    reading = read_dice(frame, glossy_black.calibration, expected=6)
    assert reading.ok, reading.reason
    assert tuple(sorted(d.value for d in reading.dice)) == true_values(truth)


def test_a_glossy_pair_cut_to_one_die_s_area_is_split(glossy_black) -> None:
    frame, truth = glossy_black.roll(7, 0)
    found, _ = locate(frame, glossy_black.calibration)
    pair = [f for f in found if f.region.merged == 2]
    assert len(pair) == 2  # one die's area at the working scale, two dice traced
    reading = read_dice(frame, glossy_black.calibration, expected=6)
    assert reading.ok, reading.reason
    assert tuple(sorted(d.value for d in reading.dice)) == true_values(truth)
