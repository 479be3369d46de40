"""A die found without a calibration is traced against its floor before its pips are counted
(``vision.segment.outlined_region``): a die turned in its upright box is counted on its own
square, not on a box half of which is floor."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.pip_faces import GRID
from vision.detect import Detection
from vision.learned import SURE_CENTRE, detected_count, detected_die, round_thing
from vision.pips import confidence
from vision.segment import ROUND, outlined_region, trace

FLOOR = (205, 208, 210)  # a light grey board, BGR
RED = (40, 40, 190)
WHITE = (245, 245, 245)


def _turned(point: tuple[float, float], turn: float) -> tuple[float, float]:
    c, s = np.cos(np.deg2rad(turn)), np.sin(np.deg2rad(turn))
    return point[0] * c - point[1] * s, point[0] * s + point[1] * c


def draw_die(
    image: np.ndarray,
    centre: tuple[float, float],
    side: float,
    turn: float,
    value: int,
    body: tuple[int, int, int] = RED,
    pip: tuple[int, int, int] = WHITE,
) -> float:
    """A die of ``side`` pixels turned by ``turn`` degrees, drawn with its pips; returns the
    side of its upright box (what the detector reports)."""
    half = side / 2.0
    corners = [_turned((u * half, v * half), turn) for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    poly = np.array([[(centre[0] + x) * 4, (centre[1] + y) * 4] for x, y in corners])
    cv2.fillPoly(image, [np.round(poly).astype(np.int32)], body, cv2.LINE_AA, 2)
    for u, v in GRID[value]:
        x, y = _turned((u * 0.27 * side, v * 0.27 * side), turn)
        at = (round((centre[0] + x) * 4), round((centre[1] + y) * 4))
        cv2.circle(image, at, round(side * 0.085 * 4), pip, -1, cv2.LINE_AA, 2)
    return float(side * (abs(np.cos(np.deg2rad(turn))) + abs(np.sin(np.deg2rad(turn)))))


def floor(shape: tuple[int, int] = (160, 200)) -> np.ndarray:
    rng = np.random.default_rng(7)
    image = np.full((*shape, 3), FLOOR, np.uint8)
    noise = rng.normal(0.0, 3.0, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


def _finish(image: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(image, (3, 3), 0.8)


@pytest.mark.parametrize("turn", [0.0, 20.0, 45.0, 70.0])
def test_a_turned_die_is_traced_to_its_own_square(turn: float) -> None:
    image = floor()
    box = draw_die(image, (100.0, 80.0), 36.0, turn, 5)
    region = outlined_region(_finish(image), (100.0, 80.0), box)
    assert region is not None
    assert region.side == pytest.approx(36.0, rel=0.08)
    assert np.hypot(region.center[0] - 100.0, region.center[1] - 80.0) < 2.0
    off = (region.angle - turn) % 90.0
    assert min(off, 90.0 - off) < 5.0


@pytest.mark.parametrize("value", [2, 3, 4, 5, 6])
def test_a_die_turned_half_a_right_angle_is_counted_on_its_outline(value: int) -> None:
    """Turned 45 degrees, a red die with white pips fills half its upright box, less of the
    detector's box (about 1.15 times as wide on phone photos): on the box the floor outweighs
    the body and the pips are lost; on its outline they are counted."""
    image = floor()
    box = 1.2 * draw_die(image, (100.0, 80.0), 34.0, 45.0, value)  # the detector's loose box
    count = detected_count(_finish(image), Detection((100.0, 80.0), box, 0.99, np.full(7, 1 / 7)))
    assert count.value == value


def test_a_die_of_the_floors_colour_is_left_upright() -> None:
    image = floor()
    box = draw_die(image, (100.0, 80.0), 36.0, 30.0, 4, body=(212, 214, 216), pip=(20, 20, 20))
    assert outlined_region(_finish(image), (100.0, 80.0), box) is None


def test_touching_dice_of_one_colour_are_left_upright() -> None:
    image = floor()
    box = draw_die(image, (84.0, 80.0), 32.0, 0.0, 2)
    draw_die(image, (116.0, 80.0), 32.0, 0.0, 3)
    assert outlined_region(_finish(image), (84.0, 80.0), box) is None


def test_a_die_cut_by_the_frames_edge_is_left_upright() -> None:
    image = floor()
    box = draw_die(image, (12.0, 80.0), 36.0, 30.0, 4)
    assert outlined_region(_finish(image), (12.0, 80.0), box) is None


def test_a_found_die_with_nothing_under_it_is_no_outline() -> None:
    image = _finish(floor())
    assert outlined_region(image, (100.0, 80.0), 36.0) is None


def test_a_shine_along_the_dies_edge_is_left_outside_the_pip_search() -> None:
    """A die's rounded edge catches the light along its rim, where no pip lies: the pips are
    sought inside the traced square's inset, so the shine costs the count nothing."""
    image = floor()
    box = 1.2 * draw_die(image, (100.0, 80.0), 50.0, 30.0, 4)
    for u in (-0.35, -0.1, 0.15):  # short glints on the rim, 0.425 side out
        a = _turned((u * 50.0, 0.425 * 50.0), 30.0)
        b = _turned(((u + 0.12) * 50.0, 0.425 * 50.0), 30.0)
        cv2.line(
            image,
            (round(100 + a[0]), round(80 + a[1])),
            (round(100 + b[0]), round(80 + b[1])),
            WHITE,
            2,
        )
    count = detected_count(_finish(image), Detection((100.0, 80.0), box, 0.99, np.full(7, 1 / 7)))
    assert count.value == 4 and count.doubtful == 0 and confidence(count) >= 0.9


def test_a_disc_is_no_die_where_the_detector_is_unsure() -> None:
    """A grey disc (a coin, a sticker) that the detector found with a weak centre traces
    round and is no die; a die traces a rounded square; a strong centre is kept either way."""
    image = floor()
    cv2.circle(image, (100 * 4, 80 * 4), 18 * 4, (120, 118, 116), -1, cv2.LINE_AA, 2)
    box = 1.15 * 36.0
    disc = _finish(image)
    traced = trace(disc, (100.0, 80.0), box)
    assert traced is not None and traced.roundness >= ROUND
    weak = Detection((100.0, 80.0), box, SURE_CENTRE - 0.1, _one(1))
    assert round_thing(disc, weak)
    _, _, absent = detected_die(disc, weak, _one(1, 0.7))
    assert absent
    strong = Detection((100.0, 80.0), box, SURE_CENTRE + 0.1, _one(1))
    _, _, absent = detected_die(disc, strong, _one(1, 0.7))
    assert not absent

    image = floor()
    box = 1.15 * draw_die(image, (100.0, 80.0), 36.0, 30.0, 3)
    die = _finish(image)
    traced = trace(die, (100.0, 80.0), box)
    assert traced is not None and traced.roundness < ROUND
    weak = Detection((100.0, 80.0), box, SURE_CENTRE - 0.1, _one(3))
    _, _, absent = detected_die(die, weak, _one(3, 0.7))
    assert not absent


def _one(value: int, p: float = 0.9) -> np.ndarray:
    probs = np.full(7, (1.0 - p) / 6.0)
    probs[value] = p
    return probs
