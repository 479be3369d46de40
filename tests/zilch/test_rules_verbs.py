"""The rules verbs of the command line: score and odds (contracts of DESIGN.md)."""

from __future__ import annotations

import json

import pytest

from server.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_score_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        ["score", "--preset", "club", "--json", "1", "2", "2", "5", "5", "6"], capsys
    )
    assert code == 0
    assert json.loads(out) == {
        "dice": [1, 2, 2, 5, 5, 6],
        "zilch": False,
        "best": {"dice": [1, 5, 5], "points": 200},
        "set_asides": [
            {"dice": [1, 5, 5], "points": 200},
            {"dice": [1, 5], "points": 150},
            {"dice": [1], "points": 100},
            {"dice": [5, 5], "points": 100},
            {"dice": [5], "points": 50},
        ],
    }


def test_score_zilch_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["score", "--json", "6", "2", "3", "4", "6", "2"], capsys)
    assert code == 0
    assert json.loads(out) == {
        "dice": [2, 2, 3, 4, 6, 6],
        "zilch": True,
        "best": None,
        "set_asides": [],
    }


def test_score_with_house_rule(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["score", "--rule", "three_pairs=750", "--json", "2", "2", "3", "3", "4", "4"]
    code, out, _ = run(argv, capsys)
    assert code == 0
    assert json.loads(out)["best"] == {"dice": [2, 2, 3, 3, 4, 4], "points": 750}


def test_score_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["score", "5", "5", "5", "5", "3", "2"], capsys)
    assert code == 0
    assert "keep 5 5 5 5" in out and "1,000  <- best" in out


def test_odds_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["odds", "--json"], capsys)
    assert code == 0
    rows = json.loads(out)
    assert [row["dice"] for row in rows] == [1, 2, 3, 4, 5, 6]
    assert [round(row["average_best"]) for row in rows] == [25, 50, 87, 144, 226, 411]
    assert f"{rows[5]['zilch_chance']:.4f}" == "0.0231"


def test_odds_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["odds", "--preset", "greedy"], capsys)
    assert code == 0
    assert "greedy" in out and "66.67%" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["score", "1", "7"], "roll has 7: die values are whole numbers 1 to 6"),
        (["score", "1", "x"], "die value 'x' is not a number"),
        (["score", "1", "1", "1", "1", "1", "1", "1"], "roll has 7 dice"),
        (["score", "--preset", "farkle", "1"], "unknown preset 'farkle'; choose one of"),
        (["score", "--rule", "bogus=1", "1"], "unknown house rule 'bogus'"),
        (["score", "--rule", "three_pairs", "1"], "is not K=V"),
        (["odds", "--rule", "straight=999"], "straight='999' is not allowed"),
    ],
)
def test_bad_input_is_one_line_exit_1(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1
    assert message in err
