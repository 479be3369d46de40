"""A leaning die's side face measured at full resolution (vision.lean), the calibration's
witness of a far camera, and the reader refusing a lone die that leans only a little."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from vision.calibration import Calibration, CalibrationError, load_calibration
from vision.lean import FAR_CALIBRATION, LEAN_EXCESS, far_calibration, side_excess
from vision.reader import locate, read_dice
from vision.setups import make_setup


@pytest.fixture(scope="module")
def tower():
    from vision.render import resolve_style

    setup = make_setup(3008, (640, 480), resolve_style("setup"))  # blue on green, far camera
    assert setup is not None
    return setup


def _excesses(tower, number: int) -> list[tuple[bool, int, float]]:
    """(cocked, merged, side excess) of each die found in roll ``number``."""
    frame, truth = tower.roll(number, 1 if number % 3 == 0 else 0)
    found, _ = locate(frame, tower.calibration)
    out = []
    for f in found:
        nearest = min(
            truth["dice"],
            key=lambda d: math.hypot(d["center"][0] - f.centre[0], d["center"][1] - f.centre[1]),
        )
        others = [(g.region, g.count) for g in found if g is not f]
        excess = side_excess(frame, tower.calibration, f.region, f.count, others)
        out.append((bool(nearest["cocked"]), f.region.merged, excess))
    return out


def test_a_lone_die_leaning_a_little_shows_its_side_face(tower) -> None:
    # roll 6 holds a die leaning on the left wall whose region at the working scale is
    # 1.10 sides long: as long as the old rule allowed a flat die
    seen = _excesses(tower, 6)
    leaning = [e for cocked, merged, e in seen if cocked]
    flat = [e for cocked, merged, e in seen if not cocked and merged == 1]
    assert leaning and leaning[0] > LEAN_EXCESS
    assert flat and max(flat) < LEAN_EXCESS / 2
    frame, _ = tower.roll(6, 1)
    reading = read_dice(frame, tower.calibration, expected=6)
    assert not reading.ok
    assert reading.reason == "the die at the left wall is leaning: shake again"


def test_flat_lone_dice_show_no_side_face(tower) -> None:
    for number in (1, 2, 4, 5):
        for cocked, merged, excess in _excesses(tower, number):
            assert not cocked
            if merged == 1:
                assert excess < LEAN_EXCESS


def test_the_calibration_witnesses_a_far_camera(tower, tmp_path: Path) -> None:
    cal = tower.calibration
    assert cal.flat_excess is not None and cal.flat_excess <= FAR_CALIBRATION
    assert far_calibration(cal)
    data = cal.to_json()
    again = Calibration.from_json(json.loads(json.dumps(data)))
    assert again.flat_excess == pytest.approx(cal.flat_excess, abs=1e-4)
    assert not far_calibration(dataclasses.replace(cal, flat_excess=None))
    assert not far_calibration(dataclasses.replace(cal, flat_excess=0.2))
    for bad in (-0.1, 2.0, "far", True):
        path = tmp_path / "calibration.json"
        path.write_text(json.dumps({**data, "flat_excess": bad}))
        with pytest.raises(CalibrationError, match="flat_excess"):
            load_calibration(path)
    old = {k: v for k, v in data.items() if k != "flat_excess"}  # a file from before
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    assert load_calibration(path).flat_excess is None


def test_a_near_camera_calibration_does_not_witness_a_far_one() -> None:
    from vision.bench import bench_style, scene_calibration

    near = scene_calibration(5, bench_style("tower@250"))
    assert near is not None
    assert near.flat_excess is None or near.flat_excess > FAR_CALIBRATION


def test_a_side_face_s_pips_under_a_far_calibration_lean_even_when_touching(tower) -> None:
    from vision.lean import frame_leaning

    frame, _ = tower.roll(1, 0)
    found, _ = locate(frame, tower.calibration)
    assert found
    for f in found:
        assert not frame_leaning(frame, f, found, tower.calibration, True)
        sided = dataclasses.replace(f, count=dataclasses.replace(f.count, side_pips=2))
        others = [sided if g is f else g for g in found]
        assert frame_leaning(frame, sided, others, tower.calibration, True)
