"""The dice profile: fitting from taught dice, its file, and reading with it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.bench import scene_calibration
from vision.calibration import Calibration
from vision.profile import (
    CROP_PX,
    DiceProfile,
    ProfileError,
    TeachingExample,
    example_from_frame,
    examples_from_reading,
    fit_profile,
    keep_newest,
    load_examples,
    load_profile,
    save_examples,
)
from vision.reader import MIN_CONFIDENCE, fuse_taught, read_dice
from vision.render import random_tray, render_tray

SEED = 31


@pytest.fixture(scope="module")
def setup() -> tuple[Calibration, list[TeachingExample]]:
    """A calibrated tower scene and the dice of 12 of its rolls, as taught."""
    cal = scene_calibration(SEED, "tower")
    assert cal is not None
    examples = []
    for roll in range(12):
        frame, truth = render_tray(random_tray(9000 + roll), seed=SEED, frame=10 + roll)
        examples += [
            example_from_frame(frame, tuple(d["center"]), cal.die_side, d["value"])
            for d in truth["dice"]
        ]
    return cal, examples


@pytest.fixture(scope="module")
def profile(setup: tuple[Calibration, list[TeachingExample]]) -> DiceProfile:
    cal, examples = setup
    return fit_profile(examples, cal)


def test_a_profile_reads_new_rolls_of_its_dice(setup, profile: DiceProfile) -> None:
    cal, examples = setup
    assert sum(profile.counts) == len(examples) == 72
    assert profile.frame_size == cal.frame_size and profile.calibration is not None
    assert profile.cv_accuracy >= 0.95
    right = total = 0
    for roll in range(6):
        frame, truth = render_tray(random_tray(9500 + roll), seed=SEED, frame=50 + roll)
        probs = profile.read(frame, [(tuple(d["center"]), cal.die_side) for d in truth["dice"]])
        assert probs.shape == (6, 6) and np.allclose(probs.sum(axis=1), 1.0)
        pairs = zip(probs, truth["dice"], strict=True)
        right += sum(int(np.argmax(p)) + 1 == d["value"] for p, d in pairs)
        total += 6
    assert right == total


def test_reading_with_a_profile_stays_right(setup, profile: DiceProfile) -> None:
    cal, _ = setup
    for roll in range(4):
        frame, truth = render_tray(random_tray(9700 + roll), seed=SEED, frame=70 + roll)
        plain = read_dice(frame, cal, expected=6)
        taught = read_dice(frame, cal, expected=6, profile=profile)
        assert taught.values == tuple(sorted(d["value"] for d in truth["dice"]))
        assert taught.ok or not plain.ok
        # the profile agrees here: confidence only rises
        for a, b in zip(plain.dice, taught.dice, strict=True):
            assert b.confidence >= a.confidence - 1e-9


def test_fuse_taught_raises_only_where_the_profile_agrees() -> None:
    sure_three = np.array([0.0, 0.0, 0.97, 0.03, 0.0, 0.0])
    unsure = np.array([0.3, 0.2, 0.2, 0.1, 0.1, 0.1])
    veto = np.array([0.0, 0.99, 0.01, 0.0, 0.0, 0.0])  # a generic classifier against the count
    value, conf = fuse_taught(3, 0.6, veto, sure_three)
    assert value == 3 and conf > 0.9  # the taught set overrules the generic veto
    value, conf = fuse_taught(2, 0.9, None, sure_three)
    assert value == 2 and conf < MIN_CONFIDENCE  # sure of another value: shake again
    value, conf = fuse_taught(2, 0.2, None, sure_three)
    assert value == 3 and conf < MIN_CONFIDENCE
    assert fuse_taught(3, 0.6, veto, unsure) == fuse_taught(3, 0.6, veto, None)


def test_profile_file_round_trip(tmp_path: Path, setup, profile: DiceProfile) -> None:
    cal, _ = setup
    path = tmp_path / "profile.json"
    profile.save(path)
    assert [p.name for p in tmp_path.iterdir()] == ["profile.json"]  # no temporary left
    again = load_profile(path, cal)
    assert again.counts == profile.counts and again.frame_size == profile.frame_size
    crops = [np.full((CROP_PX, CROP_PX, 3), 90, np.uint8)]
    assert np.allclose(again.probabilities(crops), profile.probabilities(crops))


def _broken(data: dict, key: str, value: object) -> dict:
    return {**data, key: value}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: "not json", "not valid JSON"),
        (lambda d: _broken(d, "kind", "calibration"), "not a dice profile"),
        (lambda d: _broken(d, "version", 9), "version is 9"),
        (lambda d: {k: v for k, v in d.items() if k != "weights"}, "'weights' is missing"),
        (lambda d: _broken(d, "weights", [[1.0]]), "wrong shape"),
        (lambda d: _broken(d, "features", 3), "teach again"),
        (lambda d: _broken(d, "temperature", -1), "temperature"),
        (lambda d: _broken(d, "counts", [0, 0, 0, 0, 0, 5]), "at least 2 values"),
        (lambda d: _broken(d, "frame_size", [640]), "frame_size"),
        (lambda d: _broken(d, "calibration", 7), "fingerprint"),
    ],
)
def test_a_corrupt_profile_is_one_line(tmp_path: Path, profile, change, message) -> None:
    path = tmp_path / "p.json"
    changed = change(profile.to_json())
    path.write_text(changed if isinstance(changed, str) else json.dumps(changed))
    with pytest.raises(ProfileError, match=message) as exc:
        load_profile(path)
    assert "\n" not in str(exc.value) and str(path) in str(exc.value)


def test_a_profile_for_another_calibration_or_size_is_refused(
    tmp_path: Path, setup, profile: DiceProfile
) -> None:
    cal, _ = setup
    path = tmp_path / "p.json"
    profile.save(path)
    other = scene_calibration(SEED + 1, "tower")
    assert other is not None
    with pytest.raises(ProfileError, match="another calibration"):
        load_profile(path, other)
    with pytest.raises(ProfileError, match="read with that calibration"):
        load_profile(path, None)
    with pytest.raises(ProfileError, match="640x480 px frames, not 1296x972"):
        load_profile(path, cal, frame_size=(1296, 972))
    with pytest.raises(ProfileError, match="does not exist"):
        load_profile(tmp_path / "none.json")
    frame, _ = render_tray(random_tray(1), seed=SEED + 1, frame=3)
    with pytest.raises(ProfileError, match="another calibration"):
        read_dice(frame, other, profile=profile)


def test_fitting_needs_enough_dice_of_two_values(setup) -> None:
    _, examples = setup
    with pytest.raises(ProfileError, match="at least 6 dice"):
        fit_profile(examples[:3])
    ones = [e for e in examples if e.value == 1][:6]
    with pytest.raises(ProfileError, match="only one value"):
        fit_profile(ones)


def test_teaching_examples_are_checked_and_kept(tmp_path: Path, setup) -> None:
    _, examples = setup
    crop = examples[0].crop
    with pytest.raises(ProfileError, match="1-6"):
        TeachingExample(7, crop)
    with pytest.raises(ProfileError, match="32x32x3"):
        TeachingExample(2, crop[:10])
    with pytest.raises(ProfileError, match="not base64"):
        TeachingExample.from_json({"value": 2, "crop_png": "%%%"})
    path = tmp_path / "examples.json"
    save_examples(path, examples[:5])
    again = load_examples(path)
    assert [e.value for e in again] == [e.value for e in examples[:5]]
    assert all(np.array_equal(a.crop, b.crop) for a, b in zip(again, examples[:5], strict=True))
    path.write_text('{"kind": "other"}')
    with pytest.raises(ProfileError, match="expected"):
        load_examples(path)
    kept = keep_newest(examples[:4], examples[4:7], cap=5)
    assert kept == [*examples[2:4], *examples[4:7]]


def test_examples_from_a_reading_pair_each_die_with_its_value(setup) -> None:
    cal, _ = setup
    frame, _ = render_tray(random_tray(9900), seed=SEED, frame=90)
    reading = read_dice(frame, cal, expected=6)
    values = [d.value for d in reading.dice]
    examples = examples_from_reading(frame, reading, values, cal)
    assert [e.value for e in examples] == values
    with pytest.raises(ProfileError, match="one value per die"):
        examples_from_reading(frame, reading, values[:2], cal)
