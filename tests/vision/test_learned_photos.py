"""benchmarks/learned_photos.py with models named on its command line, as
leave-one-source-out's face readers are read: a small real run and its refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.vision.conftest import (
    labelled_folder,
    load_bench,
    refuses_broken_model,
    shipped_copies,
)
from vision.detect import FACES_FILE

learned_photos = load_bench("learned_photos")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return labelled_folder(tmp_path_factory.mktemp("photos") / "rendered", (905, 906))


def report(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, object]:
    assert learned_photos.main(argv) == 0
    row: dict[str, object] = json.loads(capsys.readouterr().out)
    return row


def test_named_models_read_as_the_shipped_ones_do(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = report(capsys, [str(folder), "--all-images"])
    # copies elsewhere, as leave_one_out.py writes its models (no JSON: no photos seen)
    faces, detector = shipped_copies(tmp_path)
    named = report(capsys, [str(folder), "--faces", str(faces), "--detector", str(detector)])
    assert named["model"] == f"faces {faces}, detector {detector}"
    assert named["dice"] == shipped["dice"] == 8 and named["frames"] == 2
    for key in ("right", "found", "false_dice", "ok_frames", "by_kind"):
        assert named[key] == shipped[key], key
    assert float(str(named["accuracy"])) >= 0.875  # rendered tower dice: read, not guessed


@pytest.mark.parametrize("flag", ["--faces", "--detector"])
def test_a_broken_model_file_is_refused_on_one_line(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    broken = tmp_path / "broken.onnx"
    refuses_broken_model(learned_photos.main, [str(folder), flag, str(broken)], broken, capsys)


def test_a_missing_face_reader_is_refused(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "faces-without-nowhere.onnx"
    with pytest.raises(SystemExit):
        learned_photos.main([str(folder), "--faces", str(missing)])
    assert f"model file {missing} does not exist" in capsys.readouterr().err


def test_wrong_dice_are_counted_by_true_value_and_value_read(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = report(capsys, [str(folder), "--all-images"])
    # the same frames with every label one face off: each die read right before is now wrong
    relabelled = tmp_path / "relabelled"
    relabelled.mkdir()
    lines = []
    for line in (folder / "labels.jsonl").read_text().splitlines():
        entry = json.loads(line)
        for die in entry["dice"]:
            die["value"] = die["value"] % 6 + 1
        (relabelled / entry["image"]).write_bytes((folder / entry["image"]).read_bytes())
        lines.append(json.dumps(entry))
    (relabelled / "labels.jsonl").write_text("\n".join(lines) + "\n")
    wrong = report(capsys, [str(relabelled), "--all-images"])
    confusions = wrong["confusions"]
    assert isinstance(confusions, dict)
    assert sum(confusions.values()) == 8 - int(str(wrong["right"]))
    assert sum(confusions.values()) >= int(str(shipped["right"]))
    for key in confusions:
        true, _, read = key.partition(" as ")
        assert true in "123456" and (read == "missed" or read in "123456"), key
        assert read == "missed" or int(read) == (int(true) - 2) % 6 + 1, key


def test_the_pips_of_every_die_can_be_counted_as_before(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import vision.learned

    counted: list[object] = []
    count = vision.learned.detected_count
    monkeypatch.setattr(vision.learned, "detected_count", lambda *a: counted.append(a) or count(*a))
    argv = [str(folder), "--faces", str(FACES_FILE), "--all-images"]
    doubted = report(capsys, argv)
    fewer = len(counted)
    every = report(capsys, [*argv, "--pips", "every"])
    assert len(counted) - fewer >= int(str(every["found"]))  # every die found is counted
    assert fewer < len(counted) - fewer  # rendered tower dice: most agreed, not counted
    for key in ("right", "found", "false_dice", "ok_frames"):
        assert doubted[key] == every[key], key
    with pytest.raises(SystemExit):
        learned_photos.main([*argv, "--pips", "some"])
