"""The bench's tower setups: calibrated once, rolls read with and without a taught profile."""

from __future__ import annotations

import json

import pytest

from server.cli import main
from vision.reading import Reading
from vision.render import STYLES
from vision.setups import COCKED_EVERY, SetupScore, make_setup, run_setups, score_roll


def test_setups_score_cocked_and_flat_rolls_with_and_without_a_profile() -> None:
    plain, taught = run_setups(1, 6, teach=8, first_seed=3)
    assert plain.setups == taught.setups == 1 and len(taught.teach_s) == 1
    for s in (plain, taught):
        assert s.cocked_rolls == 6 // COCKED_EVERY and s.flat_rolls == 6 - s.cocked_rolls
        assert s.flat_dice == 6 * s.flat_rolls and len(s.cpu_ms) == 6
    row = taught.to_json()
    assert set(row) >= {"cocked_refused", "flat_accepted", "flat_right", "wrong_accepted"}


def test_a_reader_that_accepts_everything_is_caught() -> None:
    setup = make_setup(3, (640, 480), STYLES["setup"])
    assert setup is not None
    score = SetupScore("always ok")

    def careless(frame, cal, profile) -> Reading:
        return Reading((), True, "")

    for number in range(1, 7):
        score_roll(score, setup, number, None, careless)
    assert score.cocked_refused == 0 and score.cocked_scored >= 2
    assert score.wrong_accepted == score.flat_rolls  # no dice read: every values set is wrong
    assert score.flat_right == 0


def test_bench_setups_on_the_command_line(capsys) -> None:
    assert main(["vision-bench", "--setups", "1", "--rolls", "3", "--teach", "0", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 1 and rows[0]["setups"] == 1 and rows[0]["cocked_rolls"] == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--size", "640"], "WIDTHxHEIGHT"),
        (["--size", "20x20"], "WIDTHxHEIGHT"),
        (["--rolls", "0"], "must be positive"),
    ],
)
def test_bad_setup_options_are_one_line(args, message, capsys) -> None:
    assert main(["vision-bench", "--setups", "1", *args]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
