"""The single-stage reader: its loader's checks, its reading checked by the pips, its tools."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import vision.reader
from server.cli import main
from tests.vision.conftest import DATA, labelled_folder, load_tool, trains
from vision.detect import (
    DETECTOR_FILE,
    DETECTOR_INFO,
    FACES_FILE,
    SINGLE_FILE,
    Detection,
    SingleStage,
    load_single,
)
from vision.learned import UNCHECKED_CAP, detected_die, read_single
from vision.reader import read_dice
from vision.render import random_scene, render_tray

train_detector = load_tool("train_detector")
train_single = load_tool("train_single")
leave_one_out = load_tool("leave_one_out")

#: an untrained single-stage reader of the shipped shape at its smallest (width 16, stem 8, one
#: block: ``tools/train_single.py --export-only``): the loader's checks need no trained weights
MODEL = DATA / "single_untrained.onnx"


def one_line(exc: pytest.ExceptionInfo[ValueError]) -> str:
    text = str(exc.value)
    assert "\n" not in text and len(text) < 300, text
    return text


#: the candidate trained by ``tools/train_single.py --minutes 35`` (1,194 steps) and measured
#: against the two-stage reader (docs/vision.md, "The single-stage reader"): it finds dice
#: and reads few of their faces; the shipped single-stage reader where one ships
TRAINED = SINGLE_FILE if SINGLE_FILE.is_file() else DATA / "single_candidate.onnx"


def copy_model(tmp_path: Path, info: object = None) -> Path:
    """The model copied under ``tmp_path``, with ``info`` as its JSON (its own when None)."""
    path = tmp_path / "single.onnx"
    shutil.copy(MODEL, path)
    text = MODEL.with_suffix(".json").read_text() if info is None else json.dumps(info)
    path.with_suffix(".json").write_text(text)
    return path


def test_the_model_loads_and_says_what_it_is() -> None:
    model = SingleStage(MODEL)
    info = json.loads(MODEL.with_suffix(".json").read_text())
    assert info["trained_by"] == "tools/train_single.py" and info["steps"] == 0
    assert model.path == MODEL
    grid = model.raw(np.zeros((1, 3, 48, 64), np.float32))
    assert grid.shape == (1, 11, 6, 8)


def test_a_missing_model_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as exc:
        SingleStage(tmp_path / "none.onnx")
    assert one_line(exc) == f"model file {tmp_path / 'none.onnx'} does not exist"
    assert load_single(tmp_path / "none.onnx") is None  # not shipped: the two-stage reader


def test_a_model_without_its_description_is_refused(tmp_path: Path) -> None:
    path = copy_model(tmp_path)
    path.with_suffix(".json").unlink()
    with pytest.raises(ValueError) as exc:
        SingleStage(path)
    assert "single.json is not a single-stage reader's JSON description" in one_line(exc)


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", ""])
def test_a_broken_description_is_one_line(tmp_path: Path, text: str) -> None:
    path = copy_model(tmp_path)
    path.with_suffix(".json").write_text(text)
    with pytest.raises(ValueError) as exc:
        SingleStage(path)
    assert "retrain it with tools/train_single.py" in one_line(exc)


def test_the_two_stage_detector_is_not_taken_for_a_single_stage_reader(tmp_path: Path) -> None:
    path = tmp_path / "single.onnx"
    shutil.copy(DETECTOR_FILE, path)
    shutil.copy(DETECTOR_INFO, path.with_suffix(".json"))
    with pytest.raises(ValueError) as exc:
        SingleStage(path)
    assert "not a single-stage dice reader" in one_line(exc)


def test_a_face_reader_with_a_single_stage_description_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "single.onnx"
    shutil.copy(FACES_FILE, path)
    shutil.copy(MODEL.with_suffix(".json"), path.with_suffix(".json"))
    with pytest.raises(ValueError) as exc:
        SingleStage(path)
    assert "not a dice detector" in one_line(exc)


def test_a_truncated_model_is_one_line(tmp_path: Path) -> None:
    path = copy_model(tmp_path)
    path.write_bytes(MODEL.read_bytes()[: MODEL.stat().st_size // 2])
    with pytest.raises(ValueError) as exc:
        SingleStage(path)
    assert "not a readable ONNX model" in one_line(exc)


def test_a_trained_model_finds_rendered_dice_and_is_never_sure_of_a_wrong_one() -> None:
    model = SingleStage(TRAINED)
    labelled = found = 0
    for seed in range(6):
        frame, truth = random_scene(seed, 6, style="tower", cocked=0)
        reading = read_single(frame, model, 6)
        for d in truth["dice"]:
            labelled += 1
            near = [
                die
                for die in reading.dice
                if np.hypot(die.center[0] - d["center"][0], die.center[1] - d["center"][1]) < 10
            ]
            found += bool(near)
            if near and near[0].confidence >= 0.9:
                assert near[0].value == d["value"], (seed, d, near[0])
    assert found >= 0.9 * labelled, (found, labelled)


def _pips_show_two() -> tuple[np.ndarray, tuple[float, float], float]:
    """A rendered frame with a lone 2 and its centre and side."""
    tray = [{"value": 2, "x": 110.0, "y": 80.0, "angle": 10.0, "cocked": False}]
    frame, truth = render_tray(tray, seed=3, style="tower")
    die = truth["dice"][0]
    return frame, (float(die["center"][0]), float(die["center"][1])), float(truth["die_px"])


def test_a_single_stage_face_is_sure_only_where_the_pips_count_it() -> None:
    frame, centre, side = _pips_show_two()
    sure_six = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    detection = Detection(centre, side, 0.99, sure_six)
    die, cocked, absent = detected_die(frame, detection, None, single=True)
    assert die.value == 6 and die.confidence <= UNCHECKED_CAP and not cocked and not absent
    sure_two = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    die, _, _ = detected_die(frame, Detection(centre, side, 0.99, sure_two), None, single=True)
    assert die.value == 2 and die.confidence >= 0.9


def test_read_dice_takes_the_single_stage_reader_where_it_ships(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = SingleStage(MODEL)
    monkeypatch.setattr(vision.reader, "load_single", lambda: model)
    frame, _ = random_scene(4, 6, style="tower")
    assert read_dice(frame, expected=6) == read_single(frame, model, 6)


def test_the_bench_reads_with_a_named_single_stage_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["vision-bench", "--synthetic", "2", "--uncalibrated", "--single", str(MODEL)]
    assert main([*argv, "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["frames"] == 2 and row["dice"] == 12


def test_the_bench_refuses_a_broken_single_stage_model_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = copy_model(tmp_path)
    bad.write_bytes(b"\x08\x07 not a network")
    assert main(["vision-bench", "--synthetic", "1", "--single", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--single:" in err and str(bad) in err


def test_wide_styles_are_valid_and_vary() -> None:
    assert train_detector.FLOORS[0] in train_single.FLOORS
    styles = [train_single.wide_style(np.random.default_rng(s)) for s in range(40)]
    assert len({s.floor_kinds for s in styles}) > 5
    assert any(s.camera_tilt_deg > 20 for s in styles) and any(s.clutter > 0 for s in styles)
    assert any(s.pixel_aspect != 1.0 for s in styles)
    items = train_single.wide_items(2, first_seed=train_single.FIRST_SEED)
    assert all(i.dice.shape[1] == 4 and i.image.shape == (480, 640, 3) for i in items)


def test_the_second_wide_form_adds_gritty_floors_and_the_first_draws_as_before() -> None:
    seeds = range(train_single.FIRST_SEED, train_single.FIRST_SEED + 120)
    first = [train_single.wide_style(np.random.default_rng(s)) for s in seeds]
    second = [train_single.wide_style(np.random.default_rng(s), 2) for s in seeds]
    assert not any("grit" in s.floor_kinds for s in first)
    assert 0.25 < sum("grit" in s.floor_kinds for s in second) / len(seeds) < 0.55
    same = [a.floor_kinds == b.floor_kinds for a, b in zip(first, second, strict=True)]
    assert sum(same) > len(seeds) / 2  # the same draw, grit laid over a third of it
    with pytest.raises(ValueError, match="wide form 3; use one of"):
        train_single.wide_style(np.random.default_rng(0), 3)


def test_each_wide_form_keeps_its_own_cache(tmp_path: Path) -> None:
    second = train_single.cached_wide_items(1, tmp_path, form=2)
    assert [p.name for p in tmp_path.glob("*.npz")] == ["wide2-600000-1.npz"]
    again = train_single.cached_wide_items(1, tmp_path, form=2)
    assert np.array_equal(second[0].image, again[0].image)
    assert np.array_equal(second[0].image, train_single.wide_items(1, form=2)[0].image)


@trains
def test_a_short_training_run_exports_a_model_the_loader_takes(tmp_path: Path) -> None:
    photos = labelled_folder(tmp_path / "photos" / "rendered", range(950, 953))
    out = tmp_path / "single.onnx"
    argv = ["--photos", str(photos.parent), "--rendered", "2", "--minutes", "0.02"]
    assert train_single.main([*argv, "--width", "16", "--stem", "8", "--out", str(out)]) == 0
    assert out.with_suffix(".pt").is_file()  # the checkpoint a later run can start from
    info = json.loads(out.with_suffix(".json").read_text())
    assert info["steps"] >= 1 and all(p.startswith("rendered/") for p in info["trained_on_photos"])
    frame, _ = random_scene(0, 6)
    reading = read_single(frame, SingleStage(out), 6)  # a model this young is never sure
    assert not reading.ok and all(d.confidence < 0.9 for d in reading.dice)


def test_the_cache_gives_back_the_frames_it_kept(tmp_path: Path) -> None:
    first = train_single.cached_wide_items(2, tmp_path)
    again = train_single.cached_wide_items(2, tmp_path)
    assert list(tmp_path.glob("*.npz")) and len(again) == 2
    for a, b in zip(first, again, strict=True):
        assert np.array_equal(a.image, b.image) and np.array_equal(a.dice, b.dice)
        assert a.side == b.side


@trains
def test_leave_one_out_trains_the_single_stage_reader_without_the_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "photos"
    for k, source in enumerate(("left", "kept")):
        labelled_folder(root / source, range(960 + 10 * k, 963 + 10 * k))
    work = tmp_path / "work"
    argv = ["--photos", str(root), "--source", "left", "--work", str(work), "--single"]
    extra = ["--", "--width", "16", "--stem", "8", "--blocks", "1"]
    short = ["--minutes", "0.02", "--rendered", "2", "--json"]
    assert leave_one_out.main([*argv, *short, *extra]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["set"] == "left (left out, single-stage)" and row["dice"] == 12
    seen = leave_one_out.trained_on(leave_one_out.single_path(work, "left"))
    assert seen and all(p.startswith("kept/") for p in seen)
    assert leave_one_out.main([*argv, "--read-only", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["frames"] == 3
    (work / "single-without-left.json").write_text(json.dumps({"model": "another"}))
    with pytest.raises(SystemExit, match="not a single-stage dice reader"):
        leave_one_out.main([*argv, "--read-only"])


@trains
def test_a_run_starts_from_a_checkpoint_or_an_export_of_the_same_net(tmp_path: Path) -> None:
    photos = labelled_folder(tmp_path / "photos" / "rendered", range(970, 972))
    argv = ["--photos", str(photos.parent), "--rendered", "2", "--minutes", "0.02"]
    argv += ["--width", "16", "--stem", "8", "--blocks", "1"]
    first = tmp_path / "first.onnx"
    assert train_single.main([*argv, "--out", str(first)]) == 0
    steps = json.loads(first.with_suffix(".json").read_text())["steps"]
    for start in (first, first.with_suffix(".pt")):  # the export: its folded normalisation
        out = tmp_path / f"from-{start.suffix[1:]}.onnx"
        assert train_single.main([*argv, "--init", str(start), "--out", str(out)]) == 0
        info = json.loads(out.with_suffix(".json").read_text())
        assert info["init"] == {"model": str(start), "steps": steps}
        assert info["steps"] > steps  # counted on from the start's steps
    checkpoint = first.with_suffix(".pt")
    width, stem, blocks = (["--width", "24"], ["--stem", "4"], ["--blocks", "2"])
    for other in (width, stem, blocks):  # not the same net: refused, on one line
        for start in (first, checkpoint):
            with pytest.raises(SystemExit) as exc:
                train_single.main([*argv, *other, "--init", str(start), "--out", str(first)])
            text = str(exc.value)
            assert text.startswith(f"--init {start}:") and "\n" not in text, text


@trains
def test_a_start_that_is_no_model_is_refused_on_one_line(tmp_path: Path) -> None:
    photos = labelled_folder(tmp_path / "photos" / "rendered", range(980, 981))
    argv = ["--photos", str(photos.parent), "--rendered", "1", "--minutes", "0.01"]
    argv += ["--width", "16", "--stem", "8", "--blocks", "1", "--out", str(tmp_path / "o.onnx")]
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    torn = tmp_path / "torn.pt"
    torn.write_bytes(b"not a checkpoint")
    cases = {
        tmp_path / "none.pt": "no such file",
        broken: "not an ONNX model",
        torn: "not a checkpoint of this net",
        photos / "labels.jsonl": "expected a .pt checkpoint or an .onnx model",
    }
    for start, words in cases.items():
        with pytest.raises(SystemExit) as exc:
            train_single.main([*argv, "--init", str(start)])
        text = str(exc.value)
        assert text.startswith(f"--init {start}:") and words in text and "\n" not in text, text
    for bad in (["--face-weight", "0"], ["--checkpoint-minutes", "-1"]):
        with pytest.raises(SystemExit):
            train_single.main([*argv, *bad])
