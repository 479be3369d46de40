"""The learned models' loader: a missing, corrupt or wrong model file is a one-line error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.reader
from server.cli import main
from vision.detect import DETECTOR_FILE, FACES_FILE, Detector, FaceReader
from vision.render import random_scene


def one_line(exc: pytest.ExceptionInfo[ValueError]) -> str:
    text = str(exc.value)
    assert "\n" not in text and len(text) < 300, text
    return text


@pytest.mark.parametrize("kind", [Detector, FaceReader])
def test_a_missing_model_file_is_named(tmp_path: Path, kind: type) -> None:
    with pytest.raises(ValueError) as exc:
        kind(tmp_path / "none.onnx")
    assert one_line(exc) == f"model file {tmp_path / 'none.onnx'} does not exist"


@pytest.mark.parametrize(("kind", "shipped"), [(Detector, DETECTOR_FILE), (FaceReader, FACES_FILE)])
def test_a_truncated_model_file_is_one_line(tmp_path: Path, kind: type, shipped: Path) -> None:
    cut = tmp_path / "cut.onnx"
    cut.write_bytes(shipped.read_bytes()[: shipped.stat().st_size // 2])
    with pytest.raises(ValueError) as exc:
        kind(cut)
    assert str(cut) in one_line(exc) and "not a readable ONNX model" in str(exc.value)


def test_a_face_reader_is_not_taken_for_a_detector(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as exc:
        Detector(FACES_FILE)
    assert "not a dice detector" in one_line(exc)


def test_a_detector_is_not_taken_for_a_face_reader(tmp_path: Path) -> None:
    copy = tmp_path / "faces.onnx"
    shutil.copy(DETECTOR_FILE, copy)
    (tmp_path / "faces.json").write_text(json.dumps({"crop_px": 48}))
    with pytest.raises(ValueError) as exc:
        FaceReader(copy)
    assert "not a face reader's (1, 7)" in one_line(exc)


def test_read_with_a_corrupt_model_says_so_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "dice_detector.onnx"
    bad.write_bytes(b"\x08\x07 not a network")
    monkeypatch.setattr(vision.reader, "load_detector", lambda: Detector(bad))
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), random_scene(0, 6)[0])
    assert main(["read", str(frame)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and str(bad) in captured.err


@pytest.mark.parametrize("kind", [Detector, FaceReader])
def test_both_runtimes_give_the_same_answers(kind: type) -> None:
    pytest.importorskip("onnxruntime")
    fast, slow = kind(runtime="onnxruntime"), kind(runtime="opencv")
    side = 64 if kind is Detector else fast.crop_px
    blob = np.random.default_rng(0).uniform(-0.5, 0.5, (1, 3, side, side)).astype(np.float32)
    assert np.allclose(fast.raw(blob), slow.raw(blob), atol=1e-4)


@pytest.mark.parametrize("runtime", ["onnxruntime", "opencv"])
def test_each_runtime_refuses_a_corrupt_model(tmp_path: Path, runtime: str) -> None:
    if runtime == "onnxruntime":
        pytest.importorskip("onnxruntime")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(DETECTOR_FILE.read_bytes()[:1000])
    with pytest.raises(ValueError) as exc:
        Detector(bad, runtime=runtime)  # type: ignore[arg-type]
    assert "not a readable ONNX model" in one_line(exc)
