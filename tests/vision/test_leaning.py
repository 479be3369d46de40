"""benchmarks/leaning.py: leaning dice caught without a calibration, a small real run and its
refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.vision.conftest import load_bench, refuses_broken_model

leaning = load_bench("leaning")


def rows(capsys: pytest.CaptureFixture[str], argv: list[str]) -> list[dict[str, object]]:
    assert leaning.main(argv) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_the_shipped_models_catch_leaning_dice_and_still_read_flat_frames(
    capsys: pytest.CaptureFixture[str],
) -> None:
    tower, hard = rows(capsys, ["--frames", "8"])
    assert tower["set"] == "tower, one cocked die" and tower["frames"] == 8
    assert 6 <= int(str(tower["caught"])) <= 8  # every frame has a leaning die
    assert hard["set"] == "hard" and hard["frames"] == 8
    parts = [int(str(hard[k])) for k in ("leaning", "hidden_only", "flat")]
    assert sum(parts) == 8 and parts[0] >= 1 and parts[2] >= 1  # seeds 0-7 hold both kinds
    assert int(str(hard["leaning_passed"])) == 0  # the shipped pair lets none of them through
    assert 1 <= int(str(hard["flat_ok"])) <= parts[2]


def test_another_first_seed_reads_other_frames(capsys: pytest.CaptureFixture[str]) -> None:
    _, first = rows(capsys, ["--frames", "4"])
    _, later = rows(capsys, ["--frames", "4", "--first-seed", "100"])
    assert [first[k] for k in ("leaning", "flat")] != [later[k] for k in ("leaning", "flat")]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--frames", "0"], "--frames 0: give a number of frames, 1 or more"),
        (["--first-seed", "-3"], "--first-seed -3: give a seed, 0 or more"),
    ],
)
def test_bad_counts_are_refused_on_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        leaning.main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--faces", "--detector"])
def test_a_broken_model_file_is_refused_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    broken = tmp_path / "broken.onnx"
    refuses_broken_model(leaning.main, [flag, str(broken), "--frames", "1"], broken, capsys)
