"""The solve and decide verbs and the on-disk solver cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.cli import main
from server.solver_cache import SolverCache, cache_key
from zilch import find_preset


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_json_reports_points_per_turn_and_uses_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["solve", "--preset", "playr", "--json", "--cache-dir", str(tmp_path)]
    code, out, _ = run(argv, capsys)
    first = json.loads(out)
    assert code == 0 and round(first["points_per_turn"], 3) == 620.855
    assert first["cached"] is False
    assert first["thresholds"][0]["bank_at"]["5"] is not None
    assert len(list(tmp_path.glob("playr-*.npz"))) == 1
    code, out, _ = run(argv, capsys)
    second = json.loads(out)
    assert second["cached"] is True
    assert second["points_per_turn"] == first["points_per_turn"]
    assert second["thresholds"] == first["thresholds"]


def test_solve_text_and_house_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["solve", "--rule", "zilch_penalty=0", "--cache-dir", str(tmp_path)]
    code, out, _ = run(argv, capsys)
    assert code == 0
    assert out.startswith("dicenow: ") and "points per turn" in out
    assert "on_board" in out


def test_cache_keys_differ_by_rules_and_a_corrupt_file_is_solved_again(tmp_path: Path) -> None:
    rules = find_preset("club")
    assert cache_key(rules) != cache_key(rules.with_house_rules({"three_pairs": "750"}))
    cache = SolverCache(tmp_path)
    solution, cached = cache.get(rules)
    assert not cached
    cache.path_for(rules).write_bytes(b"not a zip file")
    again, cached = SolverCache(tmp_path).get(rules)
    assert not cached and again.points_per_turn == solution.points_per_turn
    third, cached = SolverCache(tmp_path).get(rules)
    assert cached and third.points_per_turn == solution.points_per_turn


def test_unwritable_cache_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, out, err = run(["solve", "--cache-dir", str(blocker / "sub")], capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "--cache-dir" in err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["--bot", "dicenow", "--roll", "1", "5", "2", "2", "3", "6"],
            {"keep": [1], "then": "roll"},
        ),
        (
            [
                "--bot",
                "dicenow",
                "--roll",
                "5",
                "5",
                "2",
                "3",
                "4",
                "--turn-total",
                "250",
                "--score",
                "9700",
            ],
            {"keep": [5, 5], "then": "bank"},
        ),
        (
            [
                "--bot",
                "dicenow",
                "--roll",
                "1",
                "2",
                "3",
                "4",
                "--turn-total",
                "1000",
                "--score",
                "9000",
                "--opponent",
                "10200",
                "--final",
            ],
            {"keep": [1], "then": "roll"},
        ),
        (
            [
                "--bot",
                "dicenow",
                "--roll",
                "1",
                "2",
                "3",
                "4",
                "6",
                "6",
                "--turn-total",
                "1900",
                "--streak",
                "2",
            ],
            {"keep": [1], "then": "bank"},
        ),
        (
            ["--bot", "optimal", "--roll", "1", "5", "2", "2", "3", "6"],
            {"keep": [1], "then": "roll"},
        ),
    ],
)
def test_decide_json(
    argv: list[str],
    expected: dict[str, object],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(["decide", *argv, "--json", "--cache-dir", str(tmp_path)], capsys)
    assert code == 0
    assert json.loads(out) == expected


def test_decide_off_board_uses_the_entry_minimum(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = [
        "decide",
        "--preset",
        "club",
        "--bot",
        "dicenow",
        "--json",
        "--cache-dir",
        str(tmp_path),
    ]
    roll = ["--roll", "1", "2", "4", "6", "--turn-total", "300"]
    assert json.loads(run([*base, *roll], capsys)[1])["then"] == "bank"
    assert json.loads(run([*base, *roll, "--off-board"], capsys)[1])["then"] == "roll"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bot", "nobody", "--roll", "1"], "unknown bot 'nobody'"),
        (["--bot", "dicenow", "--roll", "7", "1"], "1"),
        (["--bot", "dicenow", "--roll", "x"], "not a number"),
        (["--bot", "dicenow", "--roll", "2", "3", "4", "6"], "zilch"),
        (["--bot", "dicenow", "--roll", "1", "--turn-total", "-50"], "--turn-total"),
        (["--bot", "dicenow", "--roll", "1", "--turn-total", "120"], "multiple of 50"),
        (["--bot", "dicenow", "--roll", "1", "--streak", "-1"], "--streak"),
        (["--bot", "dicenow", "--roll", "1", "1", "1", "1", "1", "1", "1"], "dice"),
        (["--bot", "dicenow", "--roll", "1", "--preset", "nope"], "unknown preset"),
    ],
)
def test_decide_bad_input_is_one_line_exit_1(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["decide", *argv, "--cache-dir", str(tmp_path)], capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and message in err
    assert "Traceback" not in err


def test_duel_json_alternates_starts_and_reports_intervals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "duel",
        "--bots",
        "optimal,dicenow",
        "--games",
        "20",
        "--seed",
        "3",
        "--json",
        "--cache-dir",
        str(tmp_path),
    ]
    code, out, _ = run(argv, capsys)
    result = json.loads(out)
    assert code == 0 and result["games"] == 20
    optimal, dicenow = result["bots"]
    assert optimal["name"] == "optimal" and dicenow["name"] == "dicenow"
    assert optimal["wins"] + dicenow["wins"] == 20
    for side in result["bots"]:
        low, high = side["ci95"]
        assert 0 <= low <= side["win_rate"] <= high <= 1
    again = json.loads(run(argv, capsys)[1])
    assert again == result  # the seed makes the duel reproducible


@pytest.mark.slow
def test_duel_text_and_progress_bar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["duel", "--bots", "dicenow,dicenow", "--games", "200"], capsys)
    assert code == 0
    assert "dicenow A" in out and "95% CI" in out
    assert "200/200 games" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bots", "optimal"], "two bots"),
        (["--bots", "optimal,nobody"], "unknown bot 'nobody'"),
        (["--bots", "dicenow,dicenow", "--games", "0"], "--games must be at least 1"),
    ],
)
def test_duel_bad_input_is_one_line_exit_1(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["duel", *argv], capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and message in err


def test_solve_caches_in_the_state_directory_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ZILCH_TOWER_STATE_DIR", str(tmp_path))
    monkeypatch.delenv("ZILCH_TOWER_CONFIG", raising=False)
    code, out, _ = run(["solve", "--preset", "club", "--json"], capsys)
    assert code == 0 and json.loads(out)["preset"] == "club"
    assert len(list((tmp_path / "solver").glob("club-*.npz"))) == 1


def test_decide_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        ["decide", "--bot", "dicenow", "--roll", "1", "5", "2", "2", "3", "6"], capsys
    )
    assert code == 0 and out == "dicenow keeps 1 and then rolls\n"
