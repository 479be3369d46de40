"""Fragments of one die are joined by their pips; separate dice are left apart."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.pipfirst import Fragment, join_fragments
from vision.pips import count_pips
from vision.segment import Region

SIDE = 40
GRID = {
    2: [(-1, -1), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def _draw(image: np.ndarray, value: int, centre: tuple[int, int]) -> None:
    """A white die of ``value`` with black pips, seen from above."""
    x, y = centre
    half = SIDE // 2
    cv2.rectangle(image, (x - half, y - half), (x + half - 1, y + half - 1), (235, 235, 235), -1)
    a = 0.265 * SIDE
    for u, v in GRID[value]:
        cv2.circle(image, (round(x + u * a), round(y + v * a)), 4, (20, 20, 20), -1)


def _frame(*dice: tuple[int, tuple[int, int]]) -> np.ndarray:
    image = np.full((200, 300, 3), 120, np.uint8)
    for value, centre in dice:
        _draw(image, value, centre)
    return image


def _box(x0: int, y0: int, x1: int, y1: int) -> Region:
    contour = np.array([[[x0, y0]], [[x1, y0]], [[x1, y1]], [[x0, y1]]], np.int32)
    side = float(np.sqrt((x1 - x0 + 1) * (y1 - y0 + 1)))
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    return Region(contour, (cx, cy), side, 0.0, (x0, y0, x1 + 1, y1 + 1))


def _fragment(image: np.ndarray, region: Region) -> Fragment:
    return region, count_pips(image, region, SIDE), region.center


@pytest.mark.parametrize("value", [4, 5, 6])
def test_a_die_cut_in_two_is_joined_and_read_whole(value: int) -> None:
    image = _frame((value, (100, 100)))
    left = _fragment(image, _box(80, 80, 99, 119))
    right = _fragment(image, _box(100, 80, 119, 119))
    assert left[1].value < value and right[1].value < value
    joined = join_fragments(image, [left, right], SIDE)
    assert len(joined) == 1
    _, count, (x, y) = joined[0]
    assert count.value == value
    assert abs(x - 99.5) < 3 and abs(y - 99.5) < 3


def test_touching_dice_are_not_joined() -> None:
    image = _frame((4, (100, 100)), (2, (140, 100)))
    dice = [_fragment(image, _box(80, 80, 119, 119)), _fragment(image, _box(120, 80, 159, 119))]
    joined = join_fragments(image, dice, SIDE)
    assert sorted(count.value for _, count, _ in joined) == [2, 4]


def test_a_whole_die_keeps_its_reading_beside_a_fragment() -> None:
    # a whole 6 next to a mark a few pixels away: joining would not give a clearer face
    image = _frame((6, (100, 100)))
    cv2.circle(image, (128, 100), 4, (20, 20, 20), -1)
    whole = _fragment(image, _box(80, 80, 119, 119))
    mark = _fragment(image, _box(120, 90, 136, 110))
    joined = join_fragments(image, [whole, mark], SIDE)
    assert any(count.value == 6 and region is whole[0] for region, count, _ in joined)
