"""The bench's matching and scoring."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.bench import BenchError, LabelledDie, Sample, Score, load_folder, match, score_sample
from vision.reading import Die, Reading


def _die(value: int, x: float, y: float, conf: float = 0.9) -> Die:
    return Die(value, (x, y), (int(x) - 20, int(y) - 20, int(x) + 20, int(y) + 20), conf)


def test_match_by_centre_nearest_first() -> None:
    dice = [_die(1, 100, 100), _die(2, 160, 100), _die(3, 400, 400)]
    labels = [LabelledDie(2, (158, 104), 10), LabelledDie(1, (103, 98), 8)]
    assert sorted(match(dice, labels)) == [(0, 1), (1, 0)]


def test_pip_pattern_box_still_matches_the_die() -> None:
    # a label box around a single pip (8 px) matches a 40 px die around it
    assert match([_die(1, 100, 100)], [LabelledDie(1, (104, 96), 8)]) == [(0, 0)]


def test_score_counts_right_wrong_missed_and_false() -> None:
    labels = (LabelledDie(1, (100, 100), 40), LabelledDie(5, (200, 100), 40))
    labels += (LabelledDie(6, (300, 300), 40),)
    reading = Reading((_die(1, 100, 100, 0.3), _die(3, 200, 100, 0.8), _die(4, 500, 50)), ok=True)
    score = Score("t")
    sample = Sample("x", np.zeros((10, 10, 3), np.uint8), labels)
    score_sample(score, sample, lambda frame, cal, expected: reading)
    assert (score.labelled, score.detected, score.right) == (3, 2, 1)
    assert score.false_dice == 1 and score.confident_wrong == 1
    assert score.unsure == 1 and score.unsure_right == 1
    row = score.to_json()
    assert row["accuracy"] == pytest.approx(1 / 3, abs=1e-3)
    assert row["sure_accuracy"] == 0.0  # the only sure die was wrong
    assert row["unsure_accuracy"] == 1.0


def test_load_folder_rejects_bad_labels(tmp_path: Path) -> None:
    with pytest.raises(BenchError, match=r"labels\.jsonl"):
        load_folder(tmp_path)
    (tmp_path / "labels.jsonl").write_text('{"image": "a.jpg", "dice": [{"value": 1}]}\n')
    with pytest.raises(BenchError, match="line 1"):
        load_folder(tmp_path)


def test_bench_style_names_a_camera_height() -> None:
    from vision.bench import BenchError, bench_style

    assert bench_style("tower").camera_height_mm == 0.0
    assert bench_style("tower@250").camera_height_mm == 250.0
    for bad in ("foo", "tower@50", "tower@high"):
        with pytest.raises(BenchError, match="style"):
            bench_style(bad)
