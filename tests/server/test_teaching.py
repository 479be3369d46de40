"""Teaching examples from people's corrections and the profile fitted from them."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.teaching import Teacher, pair_values
from vision.bench import scene_calibration
from vision.calibration import Calibration
from vision.profile import ProfileError, ProfileOutdated, load_examples, load_profile
from vision.reader import read_dice
from vision.render import random_tray, render_tray

SEED = 31


@pytest.fixture(scope="module")
def calibration() -> Calibration:
    cal = scene_calibration(SEED, "tower")
    assert cal is not None
    return cal


def _roll(n: int) -> tuple:
    frame, truth = render_tray(random_tray(9000 + n), seed=SEED, frame=10 + n)
    return frame, truth


# -- pairing what was said with the dice read ---------------------------------------


@pytest.mark.parametrize(
    ("read", "said", "paired"),
    [
        ([1, 2, 3], [1, 2, 3], [1, 2, 3]),  # confirmed
        ([1, 2, 3], [1, 5, 3], [1, 5, 3]),  # one die tapped to a new value
        ([3, 2, 1], [1, 2, 5], [5, 2, 1]),  # said sorted: the 3 was the 5
        ([2, 3, 4], [5, 6, 4], [5, 6, 4]),  # in order, as few changes as any
        ([2, 3, 4], [4, 6, 5], [None, None, 4]),  # sorted, two new values: which is which?
        ([2, 3, 4], [4, 6, 6], [6, 6, 4]),  # the leftovers are alike
    ],
)
def test_pairing(read: list[int], said: list[int], paired: list[int | None]) -> None:
    assert pair_values(read, said) == paired


@given(st.lists(st.integers(1, 6), min_size=1, max_size=6), st.data())
def test_pairing_never_invents(read: list[int], data: st.DataObject) -> None:
    said = data.draw(st.lists(st.integers(1, 6), min_size=len(read), max_size=len(read)))
    paired = pair_values(read, said)
    known = [v for v in paired if v is not None]
    # every value taught was said, no more often than said
    assert not Counter(known) - Counter(said)
    # a die whose read value was said is never taught as anything else when said in order
    if sorted(said) == sorted(read):
        assert sorted(known) == sorted(read) and None not in paired


def test_pairing_needs_as_many_values_as_dice() -> None:
    with pytest.raises(ValueError, match="2 values said for 3 dice read"):
        pair_values([1, 2, 3], [1, 2])


# -- the teacher --------------------------------------------------------------------------


def test_corrections_become_examples_and_a_profile(
    tmp_path: Path, calibration: Calibration
) -> None:
    teacher = Teacher(tmp_path, lambda: calibration, cap=30)
    assert teacher.examples() == [] and teacher.profile() is None
    assert teacher.refit() is None  # too few examples: no profile, no error
    for n in range(6):
        frame, truth = _roll(n)
        reading = read_dice(frame, calibration)
        assert len(reading.dice) == len(truth["dice"])
        said = [_truth_at(truth, die.center) for die in reading.dice]
        assert teacher.add_from_reading(frame, reading, said) == said
    # capped at 30, oldest first out; the file holds what is kept
    kept = teacher.examples()
    assert len(kept) == 30 and teacher.pending == 36
    assert [e.value for e in load_examples(tmp_path / "teaching-examples.json")] == [
        e.value for e in kept
    ]
    profile = teacher.refit()
    assert profile is not None and sum(profile.counts) == 30 and teacher.pending == 0
    loaded = teacher.profile()
    assert loaded is not None and loaded.counts == profile.counts
    assert teacher.summary()["examples"] == 30
    # another calibration: the profile is not used
    other = Calibration.from_json({**calibration.to_json(), "die_side": calibration.die_side + 3})
    assert Teacher(tmp_path, lambda: other).profile() is None
    # a fresh teacher (a restart) finds the examples and the profile
    again = Teacher(tmp_path, lambda: calibration, cap=30)
    assert len(again.examples()) == 30 and again.profile() is not None


def test_a_dice_set_taught_anew_replaces_the_examples(
    tmp_path: Path, calibration: Calibration
) -> None:
    teacher = Teacher(tmp_path, lambda: calibration)
    frame, _ = _roll(0)
    reading = read_dice(frame, calibration)
    teacher.add_from_reading(frame, reading, [d.value for d in reading.dice])
    before = teacher.examples()
    with pytest.raises(ProfileError, match="at least"):
        teacher.replace_all(before[:2])
    assert teacher.examples() == before  # a refused set changes nothing
    more = []
    for n in range(1, 4):
        frame, _ = _roll(n)
        reading = read_dice(frame, calibration)
        more += _examples(teacher, frame, reading)
    profile = teacher.replace_all(more)
    assert len(teacher.examples()) == len(more) and sum(profile.counts) == len(more)


def test_a_corrupt_examples_file_starts_afresh(tmp_path: Path, calibration: Calibration) -> None:
    (tmp_path / "teaching-examples.json").write_text("{not json")
    teacher = Teacher(tmp_path, lambda: calibration)
    assert teacher.examples() == []
    (tmp_path / "dice-profile.json").write_text(json.dumps({"kind": "something else"}))
    assert teacher.profile() is None


def test_the_cap_is_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="must be 1 to 5000"):
        Teacher(tmp_path, lambda: None, cap=0)


def _examples(teacher: Teacher, frame, reading) -> list:
    from vision.profile import examples_from_reading

    return examples_from_reading(
        frame, reading, [d.value for d in reading.dice], teacher.calibration()
    )


def _truth_at(truth: dict, centre: tuple[float, float]) -> int:
    nearest = min(
        truth["dice"],
        key=lambda d: (d["center"][0] - centre[0]) ** 2 + (d["center"][1] - centre[1]) ** 2,
    )
    return int(nearest["value"])


def test_lessons_teach_from_the_roll_read_and_refit_between_turns(
    tmp_path: Path, calibration: Calibration
) -> None:
    from server.teaching import Lessons

    teacher = Teacher(tmp_path, lambda: calibration)
    lessons = Lessons(teacher)
    frame, _ = _roll(0)
    reading = read_dice(frame, calibration)
    read = [d.value for d in reading.dice]
    assert lessons.said(read, read) == 0  # no roll read yet: nothing to teach from
    lessons.seen(frame, reading)
    assert lessons.said([1, 1, 1, 1, 1, 1], read) == 0  # another roll than the one read
    changed = [read[0] % 6 + 1, *read[1:]]
    assert lessons.said(read, changed) == len(read)
    assert [e.value for e in teacher.examples()] == changed
    assert not lessons.between_turns()  # the turn goes on: no refit
    lessons.turn_ended()
    assert lessons.between_turns()
    assert lessons.wait(120)
    assert teacher.saved_profile() is not None and teacher.pending == 0  # refitted
    assert not lessons.between_turns()  # nothing new to learn
    lessons.seen(frame, reading)  # the next roll was read: no refit until the turn ends
    lessons.said(read, read)
    assert not lessons.between_turns()


def _fitted(folder: Path, calibration: Calibration, rolls: int) -> Teacher:
    """A teacher in ``folder`` taught the true values of ``rolls`` rolls, its profile fitted."""
    teacher = Teacher(folder, lambda: calibration)
    for n in range(rolls):
        frame, truth = _roll(n)
        reading = read_dice(frame, calibration)
        teacher.add_from_reading(frame, reading, [_truth_at(truth, d.center) for d in reading.dice])
    assert teacher.refit() is not None
    return teacher


def test_a_profile_fitted_by_another_reader_is_fitted_again_from_its_examples(
    tmp_path: Path, calibration: Calibration
) -> None:
    from server.teaching import Lessons

    _fitted(tmp_path, calibration, rolls=3)
    # the file as another reader wrote it: its classifier's hidden layer had other units
    path = tmp_path / "dice-profile.json"
    data = json.loads(path.read_text())
    data["features"] -= 1
    data["feature_mean"].pop()
    data["feature_scale"].pop()
    data["weights"].pop()
    path.write_text(json.dumps(data))
    again = Teacher(tmp_path, lambda: calibration)  # the service restarted after an update
    with pytest.raises(ProfileOutdated, match="features and this reader makes"):
        load_profile(path, calibration)
    assert again.saved_profile() is None and again.pending == 0
    assert again.needs_fit()  # the kept examples can fit it with this reader's features
    lessons = Lessons(again)
    lessons.turn_ended()
    assert lessons.between_turns()
    assert lessons.wait(120)
    refitted = again.saved_profile()
    assert refitted is not None and sum(refitted.counts) == len(again.examples())
    assert not again.needs_fit() and not lessons.between_turns()


def test_a_profile_of_another_calibration_is_not_fitted_again(
    tmp_path: Path, calibration: Calibration
) -> None:
    _fitted(tmp_path, calibration, rolls=1)
    other = Calibration.from_json({**calibration.to_json(), "die_side": calibration.die_side + 3})
    elsewhere = Teacher(tmp_path, lambda: other)
    assert elsewhere.saved_profile() is None and not elsewhere.needs_fit()


def test_a_profile_is_read_with_only_once_it_was_taught_every_value(
    tmp_path: Path, calibration: Calibration
) -> None:
    # A profile gives a value it never saw probability 0: read with, it would refuse
    # every die of that value (one correction of a roll with no 3 stopped every 3).
    teacher = Teacher(tmp_path, lambda: calibration)
    n = 0
    while True:
        frame, truth = _roll(n)
        reading = read_dice(frame, calibration)
        teacher.add_from_reading(frame, reading, [_truth_at(truth, d.center) for d in reading.dice])
        profile = teacher.refit()
        if profile is not None and len(profile.taught) < 6:
            break
        n += 1
    assert teacher.profile() is None  # fitted and saved, not read with
    saved = teacher.saved_profile()
    assert saved is not None and saved.counts == profile.counts
    shown = teacher.summary()["profile"]  # the pages still show what was taught, and lack
    assert shown is not None and shown["counts"] == list(profile.counts)
    assert shown["untaught"] == [v for v in range(1, 7) if profile.counts[v - 1] == 0] != []
    while len(profile.taught) < 6:
        n += 1
        frame, truth = _roll(n)
        reading = read_dice(frame, calibration)
        teacher.add_from_reading(frame, reading, [_truth_at(truth, d.center) for d in reading.dice])
        profile = teacher.refit()
        assert profile is not None
    assert teacher.profile() is not None
    assert teacher.summary()["profile"]["untaught"] == []
