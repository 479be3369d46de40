"""The leave-one-source-out tool: a small real run, and its refusals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.vision.conftest import labelled_folder, load_tool, trains

training = load_tool("training")
leave_one_out = load_tool("leave_one_out")


@pytest.fixture
def photos(tmp_path: Path) -> Path:
    """Two labelled 'sources' of rendered frames, as the development photos are laid out."""
    root = tmp_path / "photos"
    for k, source in enumerate(("left", "kept")):
        labelled_folder(root / source, range(900 + 10 * k, 904 + 10 * k))
    return root


@trains
def test_a_small_run_trains_without_the_source_and_reads_all_of_it(
    photos: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    argv = ["--photos", str(photos), "--source", "left", "--work", str(work), "--minutes", "0.02"]
    assert leave_one_out.main([*argv, "--rendered", "3", "--json", "--", "--batch", "16"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["set"] == "left (left out)" and row["frames"] == 4 and row["dice"] == 16
    faces, _ = leave_one_out.model_paths(work, "left")
    seen = leave_one_out.trained_on(faces)
    assert seen and all(p.startswith("kept/") for p in seen)
    # read again with the models just trained, without training
    assert leave_one_out.main([*argv, "--read-only", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["dice"] == 16


def test_an_unknown_source_is_refused(photos: Path, tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        leave_one_out.main(["--photos", str(photos), "--source", "nope", "--work", str(tmp_path)])


def test_read_only_needs_the_models(photos: Path, tmp_path: Path) -> None:
    argv = ["--photos", str(photos), "--source", "left", "--work", str(tmp_path), "--read-only"]
    with pytest.raises(SystemExit):
        leave_one_out.main(argv)


def test_a_model_that_saw_the_source_is_refused(photos: Path, tmp_path: Path) -> None:
    faces, _ = leave_one_out.model_paths(tmp_path, "left")
    faces.write_bytes(b"")
    faces.with_suffix(".json").write_text(json.dumps({"trained_on_photos": ["left/p1.png"]}))
    argv = ["--photos", str(photos), "--source", "left", "--work", str(tmp_path), "--read-only"]
    with pytest.raises(SystemExit, match="was trained on 1 photos of left"):
        leave_one_out.main(argv)


def test_the_training_tools_leave_a_source_out(photos: Path) -> None:
    _, used = training.photo_items(photos, ("left",))
    assert used and all(name.startswith("kept/") for name in used)
    with pytest.raises(SystemExit, match="no such labelled folder"):
        training.photo_items(photos, ("elsewhere",))


def test_an_unsized_folder_teaches_centres_and_a_top_face_scale(photos: Path) -> None:
    sized, _ = training.photo_items(photos)
    unsized, _ = training.photo_items(photos, unsized=("left",))
    assert len(sized) == len(unsized)
    kinds = 0
    for a, b in zip(sized, unsized, strict=True):
        assert np.array_equal(a.dice[:, [0, 1, 3]], b.dice[:, [0, 1, 3]])  # centres, values
        if np.isnan(b.dice[:, 2]).all() and len(b.dice):  # a frame of the unsized folder
            assert not np.isnan(a.dice[:, 2]).any()
            assert b.side == pytest.approx(training.BOX_TO_SIDE * a.side)
            kinds += 1
        else:
            assert np.array_equal(a.dice, b.dice, equal_nan=True) and a.side == b.side
    assert 0 < kinds < len(sized)
    with pytest.raises(SystemExit, match="--unsized \\['elsewhere'\\]: no such labelled folder"):
        training.photo_items(photos, unsized=("elsewhere",))
