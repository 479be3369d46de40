"""Dice cut short at the working scale are traced again at full resolution
(``vision.segment.retraced`` for a lone die, ``traced_outline`` for touching ones): a glossy
dark die whose face the lamp lights near the floor's grey keeps its thin dark rim only at full
resolution. The calibrated reader takes that traced look at a frame it would refuse."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.reader
from tests.vision.conftest import true_values
from vision.reader import locate_all, read_dice
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


def _lone_shapes(found: list, side: float) -> list[tuple[float, float]]:
    """Each lone die's longest side (die sides) and how much longer than wide it is."""
    shapes = []
    for f in found:
        if f.region.merged == 1:
            (_, _), (w, h), _ = f.region.rect
            shapes.append((max(w, h) / side, max(w, h) / min(w, h)))
    return shapes


@pytest.mark.parametrize("number", [16, 22])
def test_a_lone_glossy_die_cut_short_reads_flat_and_right(glossy_black, number: int) -> None:
    frame, truth = glossy_black.roll(number, 0)
    calibration = glossy_black.calibration
    side = calibration.die_side
    cut, _, _ = locate_all(frame, calibration)
    assert any(stretch > 1.12 for _, stretch in _lone_shapes(cut, side))
    traced, _, _ = locate_all(frame, calibration, traced_look=True)
    assert all(long <= 1.12 and stretch <= 1.12 for long, stretch in _lone_shapes(traced, side))
    reading = read_dice(frame, calibration, expected=6)
    assert reading.ok, reading.reason
    assert tuple(sorted(d.value for d in reading.dice)) == true_values(truth)


def test_a_glossy_pair_cut_to_one_die_s_area_is_split(glossy_black) -> None:
    frame, truth = glossy_black.roll(7, 0)
    calibration = glossy_black.calibration
    cut, _, _ = locate_all(frame, calibration)
    assert not any(f.region.merged == 2 for f in cut)  # one die's area at the working scale
    traced, _, _ = locate_all(frame, calibration, traced_look=True)
    assert len([f for f in traced if f.region.merged == 2]) == 2
    reading = read_dice(frame, calibration, expected=6)
    assert reading.ok, reading.reason
    assert tuple(sorted(d.value for d in reading.dice)) == true_values(truth)


def test_the_traced_look_is_taken_only_at_a_frame_it_would_refuse(glossy_black, monkeypatch):
    looks: list[bool] = []
    plain = vision.reader.locate_all

    def spied(image, calibration, traced_look=False, memo=None):
        looks.append(traced_look)
        return plain(image, calibration, traced_look, memo)

    monkeypatch.setattr(vision.reader, "locate_all", spied)
    frame, _ = glossy_black.roll(16, 0)  # refused at the working scale: leaning
    assert read_dice(frame, glossy_black.calibration, expected=6).ok
    assert looks == [False, True]
    looks.clear()
    frame, _ = glossy_black.roll(3, 1)  # a cocked die: refused at both looks
    reading = read_dice(frame, glossy_black.calibration, expected=6)
    assert not reading.ok and "leaning" in reading.reason
    assert looks == [False, True]
    setup = make_setup(3004, (640, 480), resolve_style("setup"))
    assert setup is not None
    frame, _ = setup.roll(1, 0)
    looks.clear()
    assert read_dice(frame, setup.calibration, expected=6).ok
    assert looks == [False]  # read at the working scale alone


def test_the_traced_look_finds_no_blob_again_and_counts_again_only_the_dice_it_traced_otherwise(
    glossy_black, monkeypatch
):
    counts: list[int] = []
    plain = vision.reader._read_group

    def spied(image, group, side):
        counts.append(len(group.parts))
        return plain(image, group, side)

    monkeypatch.setattr(vision.reader, "_read_group", spied)
    found: list[int] = []
    find = vision.reader.find_blobs

    def finding(*args, **kwargs):
        found.append(1)
        return find(*args, **kwargs)

    monkeypatch.setattr(vision.reader, "find_blobs", finding)
    frame, _ = glossy_black.roll(29, 0)  # two of its five blobs read whole
    calibration = glossy_black.calibration
    memo = vision.reader.FrameMemo()
    first = locate_all(frame, calibration, memo=memo)
    groups = len(counts)
    closer = locate_all(frame, calibration, traced_look=True, memo=memo)
    again = len(counts) - groups
    assert again == groups - 2  # the glossy dice cut short, not those read whole
    plain_again = locate_all(frame, calibration, memo=memo)
    assert len(counts) == groups + again  # all counted already
    assert [f.count for f in plain_again[0]] == [f.count for f in first[0]]
    assert len(closer[0]) == len(first[0])
    assert len(found) == 1  # the frame's blobs are found once for every look
