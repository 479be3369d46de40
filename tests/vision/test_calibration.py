"""Calibration: made from an empty tray and six dice, saved, loaded, and rejected when broken."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import Calibration, CalibrationError, calibrate, load_calibration, read_dice
from vision.calibration import find_tray, grown_outline
from vision.render import random_scene, random_tray, render_tray


def _frames(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    empty, _ = render_tray([], seed=seed, style="tower", frame=1)
    dice, _ = render_tray(random_tray(seed + 50), seed=seed, style="tower", frame=2)
    return empty, dice


def test_calibrate_measures_tray_and_dice() -> None:
    empty, dice = _frames()
    _, truth = render_tray(random_tray(50), seed=0, style="tower")
    cal, report = calibrate(empty, dice)
    assert report["ok"], report["text"]
    assert report["tray_found"]
    assert report["dice_found"] == 6
    assert abs(cal.die_side - truth["die_px"]) < 0.15 * truth["die_px"]
    assert report["text"].startswith("tray found")
    assert f"dice {cal.die_side:.0f} px" in report["text"]
    assert "pip contrast good" in report["text"]


def test_calibration_round_trips_through_a_file(tmp_path: Path) -> None:
    cal, _ = calibrate(*_frames())
    path = tmp_path / "calibration.json"
    cal.save(path)
    again = load_calibration(path)
    assert again.frame_size == cal.frame_size
    assert again.tray == cal.tray
    assert again.die_side == pytest.approx(cal.die_side, abs=0.01)
    assert np.array_equal(again.background, cal.background)
    frame, truth = random_scene(0, 6, style="tower", cocked=0)
    assert read_dice(frame, again, expected=6).values == tuple(
        sorted(d["value"] for d in truth["dice"])
    )


def test_calibrate_reports_a_missing_die() -> None:
    empty, _ = _frames()
    five, _ = render_tray(random_tray(3, 5), seed=0, style="tower", frame=2)
    _, report = calibrate(empty, five, expected=6)
    assert not report["ok"]
    assert "5 of 6 dice seen" in report["text"]


def test_calibrate_without_dice_is_an_error() -> None:
    empty, _ = _frames()
    with pytest.raises(CalibrationError, match="no dice found"):
        calibrate(empty, empty)


def test_calibrate_frames_of_different_sizes() -> None:
    empty, dice = _frames()
    with pytest.raises(CalibrationError, match="same camera"):
        calibrate(empty[:240], dice)


def test_missing_calibration_file_names_it(tmp_path: Path) -> None:
    path = tmp_path / "nope.json"
    with pytest.raises(CalibrationError, match=r"nope\.json does not exist"):
        load_calibration(path)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"version": 99}', "version"),
        ('{"version": 1}', "missing"),
    ],
)
def test_corrupt_calibration_file_names_the_problem(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(CalibrationError, match=words) as info:
        load_calibration(path)
    assert "bad.json" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_tampered_fields_are_caught(tmp_path: Path) -> None:
    cal, _ = calibrate(*_frames())
    good = cal.to_json()
    cases = {
        "die_side": {**good, "die_side": -3},
        "background": {**good, "background_png": "aGVsbG8="},
        "type": {**good, "frame_size": "wide"},
    }
    for name, data in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data))
        with pytest.raises(CalibrationError):
            load_calibration(path)


def test_calibration_json_is_versioned() -> None:
    cal, _ = calibrate(*_frames())
    data = cal.to_json()
    assert data["version"] == 1
    assert Calibration.from_json(json.loads(json.dumps(data))).frame_size == (640, 480)


def test_find_tray_outlines_a_plain_floor_inside_walls() -> None:
    small = np.full((120, 160, 3), 60, np.uint8)
    small[20:100, 25:135] = (90, 140, 90)  # the floor, lighter and greener than the walls
    outline = find_tray(small)
    assert outline is not None
    x, y, w, h = cv2.boundingRect(outline.astype(np.int32))
    assert abs(x - 25) <= 4 and abs(y - 20) <= 4 and abs(w - 110) <= 8 and abs(h - 80) <= 8


def test_find_tray_starts_on_the_floor_even_when_the_rim_shares_its_colour() -> None:
    """The fill starts in the frame's middle: a rim outside the walls whose colour is the
    floor's own must not be where it starts (the fill would stay on the rim)."""
    small = np.full((120, 160, 3), 90, np.uint8)  # rim, the floor's colour
    small[10:110, 12:148] = 40  # walls
    small[20:100, 25:135] = 90  # the floor
    outline = find_tray(small)
    assert outline is not None
    x, y, w, h = cv2.boundingRect(outline.astype(np.int32))
    assert abs(x - 25) <= 4 and abs(y - 20) <= 4 and abs(w - 110) <= 8 and abs(h - 80) <= 8


@pytest.mark.parametrize("style", ["tower", "setup"])
def test_find_tray_finds_the_rendered_trays_floor(style: str) -> None:
    """Every rendered tray has walls round a textured floor; its outline is the floor."""
    from vision.bench import bench_style

    for seed in range(6):
        empty, _ = render_tray([], seed=seed, style=bench_style(style), frame=1)
        small = cv2.resize(empty, (160, 120), interpolation=cv2.INTER_AREA)
        outline = find_tray(small)
        assert outline is not None, (style, seed)
        area = cv2.contourArea(outline.astype(np.float32)) / (160 * 120)
        assert 0.7 <= area <= 0.9, (style, seed, area)


def test_the_watched_region_reaches_a_die_beyond_the_floor() -> None:
    """A camera close above sees a die by a wall past the floor's outline: the calibration
    watches one die side beyond the floor, and never beyond the frame."""
    floor = np.array([[40, 30], [120, 30], [120, 90], [40, 90]])
    wider = grown_outline(floor, 10.0, (120, 160))
    x, y, w, h = cv2.boundingRect(wider.astype(np.int32))
    assert (x, y, x + w - 1, y + h - 1) == (30, 20, 130, 100)
    edge = grown_outline(floor, 50.0, (120, 160))
    assert edge[:, 0].min() == 0 and edge[:, 1].max() == 119
    empty, dice = _frames()
    cal, report = calibrate(empty, dice)
    watched = cv2.contourArea(np.array(cal.tray, np.float32)) / (640 * 480)
    assert report["tray_found"] and watched > report["tray_fraction"] + 0.05


def test_find_tray_gives_up_on_a_frame_without_walls() -> None:
    assert find_tray(np.full((120, 160, 3), 128, np.uint8)) is None


def test_the_lamp_seen_at_calibration_is_kept_and_checked(tmp_path: Path) -> None:
    """A glossy set shows the lamp at the same place on every die: the calibration keeps
    where (a file without it still loads), and a lamp that is not [dx, dy] is refused."""
    from vision.setups import make_setup

    glossy = next(
        setup.calibration
        for seed in (4002, 4005, 4006, 4011, 3001)
        if (setup := make_setup(seed, (640, 480), "setup")) is not None
        and setup.calibration.lamp is not None
    )
    assert glossy.lamp is not None and 0.1 < float(np.hypot(*glossy.lamp)) < 0.5
    again = Calibration.from_json(json.loads(json.dumps(glossy.to_json())))
    assert again.lamp == pytest.approx(glossy.lamp, abs=1e-3)
    plain, _ = calibrate(*_frames())
    assert plain.lamp is None and "lamp" not in plain.to_json()
    for bad in ([0.1], [0.1, "x"], [3.0, 0.0], "left"):
        path = tmp_path / "calibration.json"
        path.write_text(json.dumps({**glossy.to_json(), "lamp": bad}))
        with pytest.raises(CalibrationError, match="lamp"):
            load_calibration(path)


def test_a_raised_shadow_floor_is_kept_and_checked(tmp_path: Path) -> None:
    from vision.setups import make_setup

    setup = make_setup(3000, (640, 480), "setup")  # black dice on a grey floor
    assert setup is not None and setup.calibration.shadow_floor is not None
    data = setup.calibration.to_json()
    again = Calibration.from_json(json.loads(json.dumps(data)))
    assert again.shadow_floor == pytest.approx(setup.calibration.shadow_floor, abs=1e-3)
    for bad in (0.2, 0.99, "dark", True, None):
        path = tmp_path / "calibration.json"
        changed = {**data, "shadow_floor": bad}
        if bad is None:
            del changed["shadow_floor"]  # absent: the default floor
            assert load_calibration_text(path, changed).shadow_floor is None
            continue
        with pytest.raises(CalibrationError, match="shadow_floor"):
            load_calibration_text(path, changed)


def load_calibration_text(path: Path, data: dict) -> Calibration:
    path.write_text(json.dumps(data))
    return load_calibration(path)


def test_a_calibration_made_with_another_tray_works_out_its_own_mask_and_box(
    tower_calibration: Calibration,
) -> None:
    import dataclasses

    first_mask, first_box = tower_calibration.tray_mask, tower_calibration.tray_box
    assert first_box is not None
    x0, y0, x1, y1 = (int(v) for v in first_box)
    inner = ((x0 + 40, y0 + 40), (x1 - 40, y0 + 40), (x1 - 40, y1 - 40), (x0 + 40, y1 - 40))
    other = dataclasses.replace(tower_calibration, tray=inner)
    assert other.tray_box is not None and list(other.tray_box) == [
        x0 + 40,
        y0 + 40,
        x1 - 40,
        y1 - 40,
    ]
    assert np.count_nonzero(other.tray_mask) < np.count_nonzero(first_mask)
    assert dataclasses.replace(tower_calibration, tray=((0, 0), (9, 9))).tray_box is None
    assert tower_calibration.tray_box is first_box  # the first keeps its own, worked out once


def test_a_die_counted_as_one_pip_at_a_corner_witnesses_nothing() -> None:
    # setup 2109 at 640x480: a flat 2 beside the lamp's spot is counted as one pip, 0.33
    # side from its die's centre; a square placed on that pip took the die's own body for
    # a side face (0.17 square sides), which made the tower a near camera's and let a die
    # leaning on the right wall be scored (roll 6)
    from vision.calibrate import flat_excess
    from vision.lean import FAR_CALIBRATION
    from vision.render import resolve_style
    from vision.setups import make_setup

    style = resolve_style("setup")
    setup = make_setup(2109, (640, 480), style)
    assert setup is not None
    flat, _ = render_tray(
        random_tray(2109 + 7919), size=(640, 480), seed=2109, style=style, frame=100002
    )
    # (the count now finds that 2's other pip beside the spot: pips.near_for_spot; the
    # calibration's own rule is checked on made-up counts below)
    excess = flat_excess(flat, setup.calibration)
    assert excess is not None and excess <= FAR_CALIBRATION
    frame, _ = setup.roll(6, 1)
    reading = read_dice(frame, setup.calibration, expected=6)
    assert not reading.ok and "leaning" in reading.reason


def test_a_count_of_one_at_a_2s_corner_witnesses_nothing() -> None:
    # a 1's pip lies at its face's centre; one pip a 2's corner distance out is a 2 whose
    # other pip was lost, and whatever a square placed on it measures is no side face
    from tests.vision.pip_faces import CENTRE, SIDE, found, pips
    from vision.calibrate import _corner_pip
    from vision.pips import CORNER_REACH, assess

    corner = found(assess(pips([(1, 1)]), CENTRE, SIDE, 0))
    assert corner.count.value == 1 and _corner_pip(corner, SIDE)
    assert not _corner_pip(found(assess(pips([(0, 0)]), CENTRE, SIDE, 0)), SIDE)
    near = CORNER_REACH[0] * 0.9 / 0.27 / np.sqrt(2.0)  # a little nearer than a corner
    assert not _corner_pip(found(assess(pips([(near, near)]), CENTRE, SIDE, 0)), SIDE)
    assert not _corner_pip(found(assess(pips([(-1, -1), (1, 1)]), CENTRE, SIDE, 0)), SIDE)
