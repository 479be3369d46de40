"""The face reader's quarter turns: a sure first turn is the reading, a doubtful one reads all
four (the shipped face reader on rendered dice)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detect import CLASSES, SURE_TURN, TURNS, FaceReader, load_face_reader
from vision.learned import read_detected
from vision.render import random_scene


@pytest.fixture(scope="module")
def faces() -> FaceReader:
    model = load_face_reader()
    assert model is not None, "the shipped face reader is missing: run tools/train_faces.py"
    return model


def _tower_dice(seed: int) -> tuple[np.ndarray, list[tuple[tuple[float, float], float]], list[int]]:
    frame, truth = random_scene(seed, 6, style="tower", cocked=0)
    dice = [
        ((float(d["center"][0]), float(d["center"][1])), float(truth["die_px"]))
        for d in truth["dice"]
    ]
    return frame, dice, [int(d["value"]) for d in truth["dice"]]


def test_a_sure_first_turn_that_the_hints_share_is_read_alone(faces: FaceReader) -> None:
    frame, dice, values = _tower_dice(3)
    one, _ = faces.read(frame, dice, [set()] * len(dice), "one")
    sure = [i for i, p in enumerate(one) if int(np.argmax(p)) == values[i] and p.max() >= SURE_TURN]
    assert sure, "no die of the frame is sure in one turn"
    probs, turns = faces.read(frame, dice, [{v} for v in values])
    assert probs.shape == (len(dice), CLASSES) and np.allclose(probs.sum(axis=1), 1.0)
    for i in sure:
        assert turns[i] == 1
        assert np.allclose(probs[i], one[i])


def test_a_hint_of_another_face_reads_all_four_turns(faces: FaceReader) -> None:
    frame, dice, values = _tower_dice(3)
    other = [{v % 6 + 1} for v in values]  # every die hinted to show another face
    probs, turns = faces.read(frame, dice, other)
    assert (turns == TURNS).all()
    assert np.allclose(probs, faces.probabilities(frame, dice), atol=1e-6)
    four, turns4 = faces.read(frame, dice, [{v} for v in values], "four")
    assert (turns4 == TURNS).all() and np.allclose(four, probs, atol=1e-6)


def test_an_unsure_first_turn_reads_all_four(faces: FaceReader) -> None:
    empty, _ = random_scene(0, 0, style="tower")
    floor = [((320.0, 240.0), 42.0), ((200.0, 300.0), 42.0)]  # no die: the top class is no face
    probs, turns = faces.read(empty, floor, [set(), set()])
    assert (turns == TURNS).all()
    assert (np.argmax(probs, axis=1) == 0).all()
    assert np.allclose(probs, faces.probabilities(empty, floor), atol=1e-6)


def test_the_turns_need_one_hint_set_per_die(faces: FaceReader) -> None:
    frame, dice, _ = _tower_dice(3)
    with pytest.raises(ValueError, match="hints for 6 dice"):
        faces.read(frame, dice, [set()])
    probs, turns = faces.read(frame, [], [])
    assert probs.shape == (0, CLASSES) and turns.shape == (0,)


def test_adaptive_turns_read_rendered_frames_as_four_turns_do(faces: FaceReader) -> None:
    from vision.detect import load_detector

    detector = load_detector()
    assert detector is not None
    for seed in range(4):  # bench seeds, which no model was trained on
        frame, _ = random_scene(seed, 6, style="hard")
        found = detector.detect(frame)
        adaptive = read_detected(frame, found, 6, faces=faces)
        four = read_detected(frame, found, 6, faces=faces, turns="four")
        assert [d.value for d in adaptive.dice] == [d.value for d in four.dice]
        assert adaptive.ok == four.ok


def test_no_face_reads_four_turns_only_where_the_first_doubts_the_face(
    faces: FaceReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, dice, _ = _tower_dice(3)
    # and the bare floor furthest from the dice: a crop that shows no face
    spots = [(float(x), float(y)) for x in range(160, 500, 20) for y in range(120, 380, 20)]
    spot = max(spots, key=lambda p: min(float(np.hypot(p[0] - c[0], p[1] - c[1])) for c, _ in dice))
    dice.append((spot, dice[0][1]))
    empty, _ = random_scene(0, 0, style="tower")
    floor = [((320.0, 240.0), 42.0)]  # no die there
    one, _ = faces.read(frame, dice, [set()] * len(dice), "one")
    four = faces.probabilities(frame, dice)[:, 0]
    doubted = one[:, 0] >= 0.25
    assert 0 < doubted.sum() < len(dice), "the frame should hold plain and doubted dice"
    read: list[int] = []
    crops = faces._log_probs
    monkeypatch.setattr(faces, "_log_probs", lambda c: read.append(len(c)) or crops(c))
    plain = faces.no_face(frame, dice, 0.25)
    assert read == [len(dice), int(doubted.sum()) * (TURNS - 1)]
    assert np.allclose(plain[~doubted], one[~doubted, 0])
    assert np.allclose(plain[doubted], four[doubted], atol=1e-6)
    read.clear()
    bare = faces.no_face(empty, floor, 0.25)
    assert read == [1, TURNS - 1]
    on_floor = faces.probabilities(empty, floor)
    assert np.allclose(bare, on_floor[:, 0], atol=1e-6)
    assert int(np.argmax(on_floor[0])) == 0  # the likeliest: no face
    read.clear()
    every = faces.no_face(frame, dice, 0.0)  # every die doubted: its four turns
    assert read == [len(dice), len(dice) * (TURNS - 1)]
    assert np.allclose(every, four, atol=1e-6)
    read.clear()
    assert faces.no_face(frame, [], 0.25).shape == (0,) and read == []
