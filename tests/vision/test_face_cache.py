"""The face reader's training examples kept between runs (tools/train_faces.py --cache)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.vision.conftest import load_tool
from vision.detect import CLASSES, DETECTOR_FILE, Detection, Detector

train_faces = load_tool("train_faces")
train_detector = load_tool("train_detector")
training = load_tool("training")


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector(DETECTOR_FILE)


def same(a: tuple[list[np.ndarray], ...], b: tuple[list[np.ndarray], ...]) -> bool:
    frames_a, *rest_a = a
    frames_b, *rest_b = b
    return (
        len(frames_a) == len(frames_b)
        and all(np.array_equal(x, y) for x, y in zip(frames_a, frames_b, strict=True))
        and all(np.array_equal(x, y) for x, y in zip(rest_a, rest_b, strict=True))
    )


def test_a_second_run_reads_the_kept_examples_without_rendering(
    detector: Detector, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = train_faces.rendered_examples(2, False, detector, None)
    kept = train_faces.rendered_examples(2, False, detector, tmp_path)
    path = train_faces.cache_path(tmp_path, 2, False, DETECTOR_FILE)
    assert path.is_file() and same(fresh, kept)
    assert len(kept[3]) > 0 and kept[1].max() == 1  # crops of both frames

    def no_rendering(*_args: object) -> None:
        raise AssertionError("rendered again")

    monkeypatch.setattr(train_detector, "rendered_items", no_rendering)
    assert same(train_faces.rendered_examples(2, False, detector, tmp_path), fresh)


def test_other_frames_or_another_detector_are_kept_apart(tmp_path: Path) -> None:
    copy = tmp_path / "copy.onnx"
    shutil.copyfile(DETECTOR_FILE, copy)
    other = tmp_path / "other.onnx"
    other.write_bytes(DETECTOR_FILE.read_bytes() + b"\0")
    names = {
        train_faces.cache_path(tmp_path, 2, False, DETECTOR_FILE),
        train_faces.cache_path(tmp_path, 3, False, DETECTOR_FILE),
        train_faces.cache_path(tmp_path, 2, True, DETECTOR_FILE),
        train_faces.cache_path(tmp_path, 2, False, copy),  # the same bytes: the same file
    }
    assert len(names) == 3
    assert train_faces.cache_path(tmp_path, 2, False, other) not in names


def test_a_corrupt_cache_is_refused_on_one_line(detector: Detector, tmp_path: Path) -> None:
    path = train_faces.cache_path(tmp_path, 2, False, DETECTOR_FILE)
    path.write_bytes(b"not an archive")
    with pytest.raises(SystemExit, match="is not a face-example cache") as exit_:
        train_faces.rendered_examples(2, False, detector, tmp_path)
    assert str(path) in str(exit_.value) and "\n" not in str(exit_.value)


def test_a_cache_of_other_frames_is_refused(detector: Detector, tmp_path: Path) -> None:
    train_faces.rendered_examples(1, False, detector, tmp_path)
    shutil.copyfile(
        train_faces.cache_path(tmp_path, 1, False, DETECTOR_FILE),
        train_faces.cache_path(tmp_path, 2, False, DETECTOR_FILE),
    )
    with pytest.raises(SystemExit, match="holds examples of other frames than 2 rendered ones"):
        train_faces.rendered_examples(2, False, detector, tmp_path)


class _Finds:
    """A detector that finds the given dice in any frame."""

    path = DETECTOR_FILE

    def __init__(self, *found: Detection) -> None:
        self.found = list(found)

    def detect(self, _image: np.ndarray, _threshold: float) -> list[Detection]:
        return self.found


def test_a_finding_of_no_labelled_die_is_kept_apart_from_a_cocked_die() -> None:
    # a cocked die is class 0 (a die with no face up); a speck the detector found is NO_DIE,
    # which --split-no-face learns apart and a reader of seven classes joins with class 0
    probs = np.full(7, 1 / 7)
    on_cocked = Detection((20.0, 20.0), 16.0, 0.9, probs)
    on_four = Detection((60.0, 20.0), 16.0, 0.9, probs)
    on_floor = Detection((60.0, 60.0), 16.0, 0.6, probs)
    labels = np.array([[20, 20, 16, 0], [60, 20, 16, 4], [20, 60, 16, 2]], np.float32)
    item = training.Item(np.zeros((80, 80, 3), np.uint8), labels, 16.0)
    _, index, geometry, classes = train_faces.examples([item], _Finds(on_cocked, on_four, on_floor))
    assert classes.tolist() == [0, 4, train_faces.NO_DIE, 2]  # the missed 2 at its label
    assert index.tolist() == [0, 0, 0, 0] and geometry[2].tolist() == [60.0, 60.0, 16.0]
    assert train_faces.NO_DIE == CLASSES
