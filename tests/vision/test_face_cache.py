"""The face reader's training examples kept between runs (tools/train_faces.py --cache)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.vision.conftest import load_tool
from vision.detect import DETECTOR_FILE, Detector

train_faces = load_tool("train_faces")
train_detector = load_tool("train_detector")


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
