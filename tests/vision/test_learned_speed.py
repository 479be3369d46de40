"""benchmarks/learned_speed.py timing a candidate face reader and detector named on its
command line: a small real run and its refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.vision.conftest import DATA, load_bench, refuses_broken_model, shipped_copies
from vision.detect import DETECTOR_FILE, FACES_FILE

learned_speed = load_bench("learned_speed")


def test_named_models_are_timed_on_both_runtimes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    faces, detector = shipped_copies(tmp_path)
    argv = ["--frames", "2", "--faces", str(faces), "--detector", str(detector)]
    assert learned_speed.main(argv) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["faces"] == str(faces) and row["detector"] == str(detector)
    for runtime in ("onnxruntime", "opencv"):
        parts = row[runtime]
        assert parts["cpu_ms"] > 0 and parts["faces_ms"] > 0 and parts["detector_ms"] > 0


def test_the_shipped_models_are_named_when_none_is_given(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert learned_speed.main(["--frames", "1"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["faces"] == str(FACES_FILE) and row["detector"] == str(DETECTOR_FILE)


@pytest.mark.parametrize("flag", ["--faces", "--detector"])
def test_a_broken_model_file_is_refused_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    broken = tmp_path / "broken.onnx"
    refuses_broken_model(learned_speed.main, ["--frames", "1", flag, str(broken)], broken, capsys)


def test_single_beside_a_named_face_reader_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        learned_speed.main(["--single", str(tmp_path / "s.onnx"), "--faces", str(FACES_FILE)])
    assert "--single times the single-stage reader" in capsys.readouterr().err


def test_a_single_stage_model_is_timed_and_one_without_its_description_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    candidate = DATA / "single_candidate.onnx"
    assert learned_speed.main(["--frames", "1", "--single", str(candidate)]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["model"] == str(candidate) and row["onnxruntime"]["network_ms"] > 0
    lone = tmp_path / "single.onnx"  # a network without the description it must stand beside
    lone.write_bytes(candidate.read_bytes())
    with pytest.raises(SystemExit) as exit_:
        learned_speed.main(["--single", str(lone)])
    assert exit_.value.code == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"{lone.with_suffix('.json')} is not a single-stage" in line
