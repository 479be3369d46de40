"""Without a calibration the pips are counted where the face reader and the detector do not
agree on a die's face; a die both networks read alike is sure without them (the shipped
models on rendered frames, and hand-made detector and face-reader outputs)."""

from __future__ import annotations

import numpy as np
import pytest

import vision.learned
from vision.detect import DETECTED, SURE_TURN, Detection, load_detector, load_face_reader
from vision.learned import agreed, detected_count, detected_die, read_detected
from vision.pips import PipCount, confidence
from vision.render import random_scene, render_tray
from vision.verdict import MIN_CONFIDENCE


def _one_hot(value: int, p: float = 1.0) -> np.ndarray:
    """Probabilities of no face, 1, ..., 6 with ``p`` on ``value`` and the rest spread."""
    probs = np.full(7, (1.0 - p) / 6.0)
    probs[value] = p
    return probs


def _lone(value: int) -> tuple[np.ndarray, tuple[float, float], float]:
    """A rendered tower frame with one flat die showing ``value``, its centre and side."""
    tray = [{"value": value, "x": 110.0, "y": 80.0, "angle": 10.0, "cocked": False}]
    frame, truth = render_tray(tray, seed=3, style="tower")
    die = truth["dice"][0]
    return frame, (float(die["center"][0]), float(die["center"][1])), float(truth["die_px"])


class Counted:
    """Records the dice whose pips were counted (by centre)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.centres: list[tuple[float, float]] = []
        monkeypatch.setattr(vision.learned, "detected_count", self)

    def __call__(self, image: np.ndarray, d: Detection) -> PipCount:
        self.centres.append(d.centre)
        return detected_count(image, d)


def test_agreement_needs_a_sure_face_reader_and_the_detectors_face() -> None:
    detection = Detection((50.0, 50.0), 40.0, 0.99, _one_hot(3, 0.8))
    assert agreed(detection, _one_hot(3, SURE_TURN))
    assert not agreed(detection, _one_hot(3, SURE_TURN - 0.01))  # the face reader unsure
    assert not agreed(detection, _one_hot(4, 0.99))  # the detector reads another face
    assert not agreed(detection, _one_hot(0, 0.99))  # no face: a cocked die or no die
    assert not agreed(detection, None)  # no face reader: the pips are the second opinion


def test_a_die_both_networks_read_alike_is_sure_without_its_pips(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frame, centre, side = _lone(2)
    counted = Counted(monkeypatch)
    d = Detection(centre, side, 0.99, _one_hot(2, 0.95))
    die, cocked, absent = detected_die(frame, d, _one_hot(2, 0.97))
    assert counted.centres == [] and die.value == 2 and not cocked and not absent
    assert die.confidence == pytest.approx(0.97)  # the face reader's own probability


def test_a_doubted_die_still_gets_its_pip_count(monkeypatch: pytest.MonkeyPatch) -> None:
    frame, centre, side = _lone(2)
    counted = Counted(monkeypatch)
    sure_five = _one_hot(5, 0.97)
    # the detector reads a 2, the face reader is sure of a 5: the pips, a sure 2, are counted
    # and cut the face reader's reading below the threshold
    die, _, _ = detected_die(frame, Detection(centre, side, 0.99, _one_hot(2, 0.9)), sure_five)
    assert counted.centres == [centre]
    assert die.value == 5 and die.confidence < MIN_CONFIDENCE
    # a face reader unsure of the 2 has it made sure by the pips
    unsure_two = _one_hot(2, 0.6)
    die, _, _ = detected_die(frame, Detection(centre, side, 0.99, _one_hot(2, 0.9)), unsure_two)
    assert len(counted.centres) == 2 and die.value == 2 and die.confidence > 0.6


def test_the_single_stage_reader_always_counts_the_pips(monkeypatch: pytest.MonkeyPatch) -> None:
    frame, centre, side = _lone(2)
    counted = Counted(monkeypatch)
    detected_die(frame, Detection(centre, side, 0.99, _one_hot(2, 0.99)), None, single=True)
    assert counted.centres == [centre]


def test_rendered_frames_count_the_doubted_dice_only_and_read_as_when_every_die_is_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    detector, faces = load_detector(), load_face_reader()
    assert detector is not None and faces is not None, "the shipped models are missing"
    skipped = 0
    for seed, style in [(0, "tower"), (1, "tower"), (0, "hard"), (2, "hard")]:  # bench seeds
        frame, _ = random_scene(seed, 6, style=style)
        found = [d for d in detector.detect(frame) if d.score >= DETECTED]
        counted = Counted(monkeypatch)
        reading = read_detected(frame, found, 6, faces=faces)
        hints = [{int(np.argmax(d.probs[1:])) + 1} for d in found]
        probs, _ = faces.read(frame, [(d.centre, d.side) for d in found], hints)
        doubted = [d.centre for d, p in zip(found, probs, strict=True) if not agreed(d, p)]
        assert counted.centres == doubted
        skipped += len(found) - len(doubted)
        # every die counted first, and the counts given to the face reader as hints (the
        # rule before): the same values, the same verdict
        every = read_detected(frame, found, 6, faces=faces, pips="every")
        assert [d.value for d in reading.dice] == [d.value for d in every.dice]
        assert reading.ok == every.ok
    assert skipped > 0, "no die was read without its pips"


def test_an_unsure_count_that_agrees_raises_nothing() -> None:
    """A count under MIN_CONFIDENCE is no second opinion: it neither cuts a face nor makes one
    sure, however it agrees (a glint over a 3's middle pip reads 2 to all three opinions)."""
    frame, centre, side = _lone(2)
    d = Detection(centre, side, 0.99, _one_hot(2, 0.9))
    pips = ((0.0, 0.0), (1.0, 1.0))
    unsure = PipCount(
        2, pips, layout_error=0.08, size_spread=0.1, contrast=2.0, doubtful=1, centre_offset=0.0
    )
    sure = PipCount(
        2, pips, layout_error=0.0, size_spread=0.1, contrast=2.0, doubtful=0, centre_offset=0.0
    )
    assert confidence(unsure) < MIN_CONFIDENCE <= confidence(sure)
    face = _one_hot(2, 0.46)
    alone, _, _ = detected_die(frame, d, face, count=unsure)
    assert alone.confidence == pytest.approx(0.46)
    raised, _, _ = detected_die(frame, d, face, count=sure)
    assert raised.confidence > MIN_CONFIDENCE


def test_a_sure_count_of_another_value_chooses_between_an_unsure_face_readers_likeliest() -> None:
    """A face reader torn between a 1 and a 5, with a count of 5: the product of the face
    reader's probabilities and the count's vote says 5, and the die stays doubted. A face
    reader sure of its value keeps it against a sure count (the vote is never certain)."""
    frame, centre, side = _lone(2)
    d = Detection(centre, side, 0.99, _one_hot(1, 0.5))
    five = PipCount(5, ((0.0, 0.0),) * 5, 0.0, 0.1, 2.0, 0, 0.0)
    assert confidence(five) >= 0.9
    torn = np.array([0.02, 0.36, 0.1, 0.1, 0.06, 0.3, 0.06])
    die, _, _ = detected_die(frame, d, torn, count=five)
    assert die.value == 5 and die.confidence < MIN_CONFIDENCE
    die, _, _ = detected_die(frame, d, _one_hot(1, 0.97), count=five)
    assert die.value == 1 and die.confidence < MIN_CONFIDENCE
    # an unsure count is a weak vote: it tips a torn face reader, never a clear one
    weak = PipCount(5, ((0.0, 0.0),) * 5, 0.055, 0.1, 2.0, 0, 0.0)
    assert 1 / 6 < confidence(weak) < MIN_CONFIDENCE
    die, _, _ = detected_die(frame, d, torn, count=weak)
    assert die.value == 5 and die.confidence < MIN_CONFIDENCE
    die, _, _ = detected_die(frame, d, _one_hot(1, 0.6), count=weak)
    assert die.value == 1
