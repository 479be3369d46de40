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


def test_fold_moments_give_the_direct_discriminant() -> None:
    """The discriminant made from moments summed over folds is the one made from all rows,
    and it is the shrunk linear discriminant computed the long way."""
    from vision.profile import SHRINK, _discriminant, _Moments

    rng = np.random.default_rng(3)
    values = rng.integers(1, 5, 90)  # values 5 and 6 never taught
    x = rng.normal(size=(90, 7)) + values[:, None] * 0.4
    folds = np.arange(90) % 5
    parts = [_Moments.of(x[folds == k], values[folds == k]) for k in range(5)]
    summed = parts[0]
    for part in parts[1:]:
        summed = summed + part
    mean, scale = np.zeros(7), np.ones(7)
    fast = _discriminant(summed, mean, scale)
    whole = _discriminant(_Moments.of(x, values), mean, scale)
    assert np.allclose(fast.weights, whole.weights) and np.allclose(fast.bias[:4], whole.bias[:4])
    means = np.array([x[values == v].mean(axis=0) for v in range(1, 5)])
    centred = x - means[values - 1]
    cov = centred.T @ centred / (90 - 4)
    cov = (1 - SHRINK) * cov + SHRINK * (np.trace(cov) / 7 + 1e-3) * np.eye(7)
    assert np.allclose(fast.weights[:, :4], np.linalg.solve(cov, means.T))
    assert np.isneginf(fast.bias[4:]).all()
    # leaving a fold out is the same as fitting on the other rows alone
    rest = _discriminant(summed - parts[0], mean, scale)
    alone = _discriminant(_Moments.of(x[folds != 0], values[folds != 0]), mean, scale)
    assert np.allclose(rest.weights, alone.weights)


def test_many_examples_get_fewer_turned_copies() -> None:
    from vision.profile import AUGMENT, MIN_AUGMENT, copies_per_example

    assert copies_per_example(120) == AUGMENT
    assert copies_per_example(1200) == MIN_AUGMENT
    assert [copies_per_example(n) for n in (6, 300, 600, 5000)] == sorted(
        (copies_per_example(n) for n in (6, 300, 600, 5000)), reverse=True
    )


def test_the_classifier_is_asked_only_where_the_profile_is_unsure(setup) -> None:
    from vision.reader import locate, second_opinions

    cal, _ = setup
    frame, _ = render_tray(random_tray(9600), seed=SEED, frame=60)
    found, side = locate(frame, cal)
    assert side is not None and len(found) >= 2
    sure = np.array([0.0, 0.0, 0.97, 0.03, 0.0, 0.0])
    unsure = np.full(6, 1 / 6)
    taught: list[np.ndarray | None] = [sure, unsure] + [None] * (len(found) - 2)
    opinions = second_opinions(frame, found, side, taught)
    assert opinions[0] is None  # a sure profile overrules the classifier: not asked
    assert all(o is not None and o.shape == (6,) for o in opinions[1:])
    plain = second_opinions(frame, found, side)
    assert all(o is not None for o in plain)
    assert np.allclose(plain[1], opinions[1])


def test_the_reader_does_not_ask_the_classifier_about_a_sure_count(setup) -> None:
    from vision.pips import confidence
    from vision.reader import UNCHALLENGED, locate, second_opinions

    cal, _ = setup
    frame, _ = render_tray(random_tray(9600), seed=SEED, frame=60)
    found, side = locate(frame, cal)
    assert side is not None
    asked = second_opinions(frame, found, side, unchallenged=True)
    sure = [confidence(f.count) >= UNCHALLENGED for f in found]
    assert any(sure)
    for opinion, is_sure in zip(asked, sure, strict=True):
        assert (opinion is None) == is_sure
