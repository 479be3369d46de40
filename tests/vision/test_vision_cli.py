"""The read, calibrate and vision-bench verbs of the command line."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from server.cli import main
from vision.render import random_scene, random_tray, render_tray


@pytest.fixture
def images(tmp_path: Path) -> dict[str, Path]:
    """A rendered frame, an empty tray, a six-dice frame and a corrupt file on disk."""
    frame, truth = random_scene(0, 6, style="tower", cocked=0)
    empty, _ = render_tray([], seed=0, style="tower", frame=1)
    flat, _ = render_tray(random_tray(50), seed=0, style="tower", frame=2)
    paths = {"frame": tmp_path / "frame.png", "empty": tmp_path / "empty.png"}
    paths["flat"] = tmp_path / "flat.png"
    cv2.imwrite(str(paths["frame"]), frame)
    cv2.imwrite(str(paths["empty"]), empty)
    cv2.imwrite(str(paths["flat"]), flat)
    paths["corrupt"] = tmp_path / "corrupt.jpg"
    paths["corrupt"].write_bytes(b"\xff\xd8 this is not a jpeg")
    (tmp_path / "truth.json").write_text(json.dumps(sorted(d["value"] for d in truth["dice"])))
    return paths


def test_read_json_one_object_per_image(images, capsys) -> None:
    assert main(["read", "--json", str(images["frame"]), str(images["empty"])]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert set(first) == {"image", "dice", "ok", "reason"}
    assert first["image"] == str(images["frame"])
    truth = json.loads((images["frame"].parent / "truth.json").read_text())
    assert sorted(d["value"] for d in first["dice"]) == truth
    assert json.loads(lines[1])["dice"] == []


def test_calibrate_then_read_with_the_file(images, tmp_path: Path, capsys) -> None:
    out = tmp_path / "cal.json"
    source = f"{images['empty']},{images['flat']}"
    assert main(["calibrate", "--source", source, "--out", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["dice_found"] == 6 and out.is_file()
    assert main(["read", "--json", "--calibration", str(out), str(images["frame"])]) == 0
    reading = json.loads(capsys.readouterr().out)
    assert reading["ok"], reading["reason"]


def test_calibrate_from_the_renderer(tmp_path: Path, capsys) -> None:
    out = tmp_path / "sim.json"
    assert main(["calibrate", "--source", "sim", "--out", str(out)]) == 0
    assert "tray found" in capsys.readouterr().out


def test_read_writes_annotated_copies(images, tmp_path: Path) -> None:
    out = tmp_path / "annotated"
    assert main(["read", str(images["frame"]), "--annotate", str(out)]) == 0
    assert cv2.imread(str(out / "frame.png")) is not None


@pytest.mark.parametrize("which", ["corrupt", "missing"])
def test_read_bad_image_is_one_line_error(images, tmp_path: Path, capsys, which: str) -> None:
    path = images["corrupt"] if which == "corrupt" else tmp_path / "missing.png"
    assert main(["read", "--json", str(images["frame"]), str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""  # every file is checked before anything is printed
    assert captured.err.count("\n") == 1 and str(path) in captured.err


def test_read_with_missing_calibration(images, tmp_path: Path, capsys) -> None:
    missing = tmp_path / "none.json"
    assert main(["read", "--calibration", str(missing), str(images["frame"])]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_calibrate_bad_source(tmp_path: Path, capsys) -> None:
    assert main(["calibrate", "--source", "one.png", "--out", str(tmp_path / "c.json")]) == 1
    assert "EMPTY,DICE" in capsys.readouterr().err


def test_vision_bench_synthetic_json(capsys) -> None:
    assert main(["vision-bench", "--synthetic", "3", "--json"]) == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    assert rows[0]["set"] == "rendered/tower" and rows[0]["frames"] == 3
    assert rows[0]["dice"] == 18
    assert "3/3" in captured.err  # the progress bar


def test_vision_bench_without_calibration(capsys) -> None:
    assert main(["vision-bench", "--synthetic", "2", "--uncalibrated", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["set"] == "rendered/tower (auto)" and row["dice"] == 12


def test_vision_bench_needs_something_to_measure(capsys) -> None:
    assert main(["vision-bench"]) == 1
    assert "--synthetic" in capsys.readouterr().err


def test_vision_bench_folder_without_labels(tmp_path: Path, capsys) -> None:
    assert main(["vision-bench", str(tmp_path)]) == 1
    assert "labels.jsonl" in capsys.readouterr().err


def test_calibrate_with_a_missing_camera(tmp_path: Path, capsys) -> None:
    out = tmp_path / "cam.json"
    assert (
        main(["calibrate", "--source", "usb", "--device", "/dev/no-such-camera", "--out", str(out)])
        == 1
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not available" in err
    assert not out.exists()
