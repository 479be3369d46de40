"""Pip finding and face fitting: small dice, side faces seen at an angle, blobs near a face."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.pip_faces import GRID
from vision import pips as pipmod
from vision.found import Found
from vision.lean import agreed_near_views, seen_from_near
from vision.pips import Pip, PipCount, assess, count_pips, top_face
from vision.segment import Region

SIDE = 40.0
A = 0.265 * SIDE  # corner pips' offset from the centre, pixels


def _face(value: int, centre: tuple[float, float] = (100.0, 100.0), turn: float = 0.0) -> list[Pip]:
    """The pips of a flat face of ``value`` at ``centre``, turned ``turn`` degrees."""
    grid = GRID[value]
    c, s = np.cos(np.deg2rad(turn)), np.sin(np.deg2rad(turn))
    return [
        Pip(centre[0] + A * (u * c - v * s), centre[1] + A * (u * s + v * c), 30.0, 2.0)
        for u, v in grid
    ]


@pytest.mark.parametrize("value", [2, 3, 4, 5, 6])
def test_a_clean_face_is_kept_whole(value: int) -> None:
    kept, aside = top_face(_face(value, turn=23.0), SIDE)
    assert (len(kept), aside) == (value, 0)


@pytest.mark.parametrize("value", [4, 5, 6])
def test_pips_of_a_side_face_are_set_aside(value: int) -> None:
    # seen at an angle: a row of flattened pips beyond the top face's lower edge
    side_face = [Pip(100.0 + dx, 100.0 + 0.5 * SIDE + 5.0, 12.0, 1.5) for dx in (-A, 0.0, A)]
    kept, aside = top_face(_face(value) + side_face, SIDE)
    assert (len(kept), aside) == (value, 3)
    count = assess(_face(value) + side_face, (100.0, 110.0), SIDE, 0)
    assert count.value == value and count.side_pips == 3


def test_a_blob_on_the_face_is_not_explained_away() -> None:
    stray = Pip(100.0 + 0.5 * A, 100.0, 30.0, 2.0)  # inside the grid: not a side face
    kept, aside = top_face([*_face(4), stray], SIDE)
    assert (len(kept), aside) == (5, 0)


def test_side_face_count_is_less_sure_than_a_clean_one() -> None:
    side_face = [Pip(100.0 + dx, 100.0 + 0.5 * SIDE + 5.0, 14.0, 2.0) for dx in (-A, A)]
    clean = pipmod.confidence(assess(_face(5), (100.0, 100.0), SIDE, 0))
    seen = pipmod.confidence(assess(_face(5) + side_face, (100.0, 100.0), SIDE, 0))
    assert 0 < seen < clean


def test_near_blobs_count_as_doubt_only_on_the_face() -> None:
    on_face = Pip(100.0 + 0.5 * A, 100.0, 8.0, 1.1)
    beyond = Pip(100.0, 100.0 + 0.5 * SIDE + 6.0, 8.0, 1.1)
    assert assess(_face(3), (100.0, 100.0), SIDE, 0, [beyond]).doubtful == 0
    assert assess(_face(3), (100.0, 100.0), SIDE, 0, [on_face, beyond]).doubtful == 1


def _small_die(value: int, side: int) -> tuple[np.ndarray, Region]:
    """A white die of ``side`` pixels with black pips on a grey floor, and its region."""
    image = np.full((120, 120, 3), 90, np.uint8)
    x0 = y0 = 60 - side // 2
    cv2.rectangle(image, (x0, y0), (x0 + side - 1, y0 + side - 1), (235, 235, 235), cv2.FILLED)
    for p in _face(value):
        x = 60 + (p.x - 100.0) * side / SIDE
        y = 60 + (p.y - 100.0) * side / SIDE
        cv2.circle(
            image, (round(x * 4), round(y * 4)), round(side * 0.09 * 4), (20, 20, 20), -1, 16, 2
        )
    image = cv2.GaussianBlur(image, (3, 3), 0.8)
    contour = np.array([[[x0, y0]], [[x0 + side, y0]], [[x0 + side, y0 + side]], [[x0, y0 + side]]])
    region = Region(
        contour.astype(np.int32), (60.0, 60.0), float(side), 0.0, (x0, y0, x0 + side, y0 + side)
    )
    return image, region


@pytest.mark.parametrize("value", [4, 5, 6])
def test_pips_of_a_small_die_are_counted(value: int) -> None:
    image, region = _small_die(value, 26)
    assert count_pips(image, region, 26.0).value == value


def _found_with_sides(toward: tuple[float, float], side_pips: int = 0) -> Found:
    """A flat 4 at (100, 100) whose region also covers a side face towards ``toward``."""
    face = [(p.x, p.y) for p in _face(4)]
    dx, dy = toward
    # the region: the face's square stretched 0.4 sides along (dx, dy)
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * SIDE / 2
    far = corners + 0.4 * SIDE * np.array([dx, dy])
    hull = cv2.convexHull(np.vstack([corners, far]).astype(np.float32) + 100.0)
    contour = hull.round().astype(np.int32)
    (cx, cy), _, _ = cv2.minAreaRect(contour)
    region = Region(contour, (cx, cy), SIDE * 1.2, 0.0, (0, 0, 1, 1))
    count = PipCount(4, tuple(face), 0.0, 0.0, 2.0, 0, 0.2, side_pips)
    return Found(region, count, (cx, cy))


def test_a_flat_die_seen_from_near_is_centred_on_its_top_face() -> None:
    # the frame's centre is to the right: the visible side face is on the right
    seen = seen_from_near(_found_with_sides((1.0, 0.0)), SIDE, (400.0, 100.0))
    assert seen.near_view
    assert seen.centre == pytest.approx((100.0, 100.0), abs=0.01)
    assert seen.count.centre_offset == 0.0


def test_a_region_stretched_away_from_the_centre_still_looks_tilted() -> None:
    assert not seen_from_near(_found_with_sides((-1.0, 0.0)), SIDE, (400.0, 100.0)).near_view
    # pips on a side face: a cocked die shows them too
    with_pips = _found_with_sides((1.0, 0.0), side_pips=2)
    assert not seen_from_near(with_pips, SIDE, (400.0, 100.0)).near_view


def test_a_lone_near_view_is_not_trusted() -> None:
    # one die alone showing sides is more likely cocked than seen by a near camera
    lone = _found_with_sides((1.0, 0.0))
    assert not agreed_near_views([lone], SIDE, (400.0, 100.0))[0].near_view
    many = agreed_near_views([lone] * 3, SIDE, (400.0, 100.0))
    assert all(f.near_view for f in many)
