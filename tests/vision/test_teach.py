"""``zilch-tower teach`` and ``read --profile``: labels checked line by line, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from server.cli import main
from vision.render import random_tray, render_tray
from vision.teach import LabelsError, read_labels

SEED = 44


@pytest.fixture(scope="module")
def taught_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A calibration and 8 labelled rolls of one rendered tower scene, on disk."""
    root = tmp_path_factory.mktemp("teach")
    empty, _ = render_tray([], seed=SEED, frame=1)
    flat, _ = render_tray(random_tray(SEED + 7919), seed=SEED, frame=2)
    cv2.imwrite(str(root / "empty.png"), empty)
    cv2.imwrite(str(root / "flat.png"), flat)
    (root / "frames").mkdir()
    lines = []
    for roll in range(8):
        frame, truth = render_tray(random_tray(4400 + roll), seed=SEED, frame=10 + roll)
        cv2.imwrite(str(root / "frames" / f"r{roll}.png"), frame)
        dice = [{"value": d["value"], "box": d["box"]} for d in truth["dice"]]
        lines.append(json.dumps({"image": f"frames/r{roll}.png", "dice": dice}))
    (root / "labels.jsonl").write_text("\n".join(lines) + "\n")
    source = f"{root / 'empty.png'},{root / 'flat.png'}"
    assert main(["calibrate", "--source", source, "--out", str(root / "cal.json")]) == 0
    return root


def test_teach_then_read_with_the_profile(taught_dir: Path, capsys) -> None:
    out = taught_dir / "profile.json"
    cal = str(taught_dir / "cal.json")
    args = ["teach", str(taught_dir / "labels.jsonl"), "--out", str(out), "--calibration", cal]
    assert main([*args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["images"] == 8 and report["dice"] == 48 and out.is_file()
    assert report["frame_size"] == [640, 480] and report["calibration"]
    frame = str(taught_dir / "frames" / "r0.png")
    assert main(["read", "--json", "--calibration", cal, "--profile", str(out), frame]) == 0
    reading = json.loads(capsys.readouterr().out)
    truth = json.loads((taught_dir / "labels.jsonl").read_text().splitlines()[0])
    assert sorted(d["value"] for d in reading["dice"]) == sorted(d["value"] for d in truth["dice"])


def test_a_calibrated_profile_needs_its_calibration(taught_dir: Path, capsys) -> None:
    out = taught_dir / "p2.json"
    cal = str(taught_dir / "cal.json")
    labels = str(taught_dir / "labels.jsonl")
    assert main(["teach", labels, "--out", str(out), "--calibration", cal]) == 0
    capsys.readouterr()
    frame = str(taught_dir / "frames" / "r1.png")
    assert main(["read", "--profile", str(out), frame]) == 1
    err = capsys.readouterr().err
    assert "read with that calibration" in err and err.count("\n") == 1


def _write(root: Path, text: str) -> Path:
    path = root / "bad.jsonl"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "does not exist"),
        ("{not json\n", "line 1 is not JSON"),
        ('{"image": 3, "dice": []}\n', 'expected {"image": PATH'),
        ('{"image": "frames/r0.png", "dice": [{"value": 7, "box": [1, 1, 9, 9]}]}\n', "1-6"),
        ('{"image": "frames/r0.png", "dice": [{"value": 2, "box": [1, 1, 9]}]}\n', "four"),
        ('{"image": "frames/r0.png", "dice": [{"value": 2, "box": [9, 1, 1, 9]}]}\n', "x1 > x0"),
        ('{"image": "frames/r0.png", "dice": [{"value": 2, "box": [600, 1, 700, 50]}]}\n', "off"),
        ('{"image": "frames/none.png", "dice": []}\n', "does not exist"),
        ('{"image": "labels.jsonl", "dice": []}\n', "not a readable image"),
        ("\n", "no labelled images"),
    ],
)
def test_bad_labels_are_one_line_errors(taught_dir: Path, text, message, capsys) -> None:
    labels = taught_dir / "missing.jsonl" if text is None else _write(taught_dir, text)
    out = taught_dir / "never.json"
    assert main(["teach", str(labels), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


def test_labels_of_another_frame_size_than_the_calibration(taught_dir: Path, capsys) -> None:
    small = cv2.resize(cv2.imread(str(taught_dir / "frames" / "r0.png")), (320, 240))
    cv2.imwrite(str(taught_dir / "small.png"), small)
    labels = _write(taught_dir, '{"image": "small.png", "dice": []}\n')
    cal = str(taught_dir / "cal.json")
    assert main(["teach", str(labels), "--out", "x.json", "--calibration", cal]) == 1
    assert "calibration is for 640x480" in capsys.readouterr().err


def test_read_labels_keeps_paths_relative_to_the_file(taught_dir: Path) -> None:
    frames = read_labels(taught_dir / "labels.jsonl")
    assert frames[0].image == taught_dir / "frames" / "r0.png"
    assert len(frames[0].dice) == 6
    with pytest.raises(LabelsError, match="die 1"):
        read_labels(_write(taught_dir, '{"image": "a.png", "dice": [{"value": 1}]}'))


def test_the_bench_reads_a_folder_with_a_profile(taught_dir: Path, capsys) -> None:
    out = taught_dir / "auto.json"
    assert main(["teach", str(taught_dir / "labels.jsonl"), "--out", str(out)]) == 0
    capsys.readouterr()
    args = ["vision-bench", str(taught_dir), "--profile", str(out), "--all-images", "--json"]
    assert main(args) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["set"].endswith("+ profile") and row["dice"] == 48 and row["accuracy"] >= 0.95
    calibrated = taught_dir / "with-cal.json"
    cal = str(taught_dir / "cal.json")
    labels = str(taught_dir / "labels.jsonl")
    assert main(["teach", labels, "--out", str(calibrated), "--calibration", cal]) == 0
    capsys.readouterr()  # taught with the calibration: not for frames read without one
    assert main(["vision-bench", str(taught_dir), "--profile", str(calibrated)]) == 1
    assert "read with that calibration" in capsys.readouterr().err
