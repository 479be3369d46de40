"""The rules verbs of the command line: score and odds (contracts of DESIGN.md)."""

from __future__ import annotations

import importlib
import io
import json

import pytest

from server.cli import main
from zilch import replay


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


def test_score_with_frozen_dice_for_pyramiding(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "score",
        "--preset",
        "twinson-5000",
        "--rule",
        "pyramiding=true",
        "--frozen",
        "1",
        "--json",
        "1",
        "1",
        "2",
        "3",
        "4",
    ]
    code, out, _ = run(argv, capsys)
    assert code == 0
    assert json.loads(out)["best"] == {"dice": [1, 1], "points": 1000}


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
        (["score", "--frozen", "1,1,1,1,1,1", "1"], "frozen dice has 6 dice; it must have 0 to 5"),
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


# --- replay -------------------------------------------------------------------------


def _record(actions: list[dict[str, object]], **extra: object) -> dict[str, object]:
    return {
        "preset": "dicenow",
        "rules": {},
        "players": ["Ann", "Ben"],
        "actions": actions,
        **extra,
    }


def test_replay_json_contract(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    actions = [
        {"roll": [1, 1, 1, 3, 2, 6]},
        {"keep": [1, 1, 1]},
        {"bank": True},
        {"roll": [2, 2, 3, 4, 6, 6]},
    ]
    path.write_text(json.dumps(_record(actions)))
    code, out, _ = run(["replay", str(path), "--json"], capsys)
    assert code == 0
    assert json.loads(out) == {
        "players": [
            {"name": "Ann", "score": 1000, "streak": 0, "on_board": True},
            {"name": "Ben", "score": 0, "streak": 1, "on_board": False},
        ],
        "current": "Ann",
        "finished": False,
        "winners": [],
    }


def test_replay_takes_corrections(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    actions = [
        {"roll": [2, 2, 3, 4, 6, 6]},
        {"correct": [1, 1, 1, 4, 6, 6], "by": "Cat"},
        {"keep": [1, 1, 1]},
        {"bank": True},
        {"roll": [1, 5, 3, 3, 6, 2]},
        {"correct": [2, 2, 3, 3, 4, 6]},
    ]
    path.write_text(json.dumps(_record(actions)))
    code, out, _ = run(["replay", str(path), "--json"], capsys)
    assert code == 0
    assert json.loads(out)["players"] == [
        {"name": "Ann", "score": 1000, "streak": 0, "on_board": True},
        {"name": "Ben", "score": 0, "streak": 1, "on_board": False},
    ]
    path.write_text(json.dumps(_record([*actions, {"correct": [1, 2, 3, 4, 6]}])))
    code, out, err = run(["replay", str(path), "--json"], capsys)
    assert code == 1
    assert json.loads(out) == {
        "error": "the correction of Ben's roll has 5 dice; it must have exactly 6",
        "action": 6,
    }
    assert err.count("\n") == 1


def test_replay_from_stdin_text(monkeypatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(_record([{"skip": True}]))))
    code, out, _ = run(["replay", "-"], capsys)
    assert code == 0
    assert "Ben to play" in out


def test_replay_illegal_action(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    actions = [{"roll": [1, 5, 2, 3, 4, 6]}, {"keep": [1, 5]}, {"bank": True}]
    path.write_text(json.dumps(_record(actions)))
    code, out, err = run(["replay", str(path), "--json"], capsys)
    assert code == 1
    document = json.loads(out)
    assert document["action"] == 2
    assert "needs 300 to bank and has 150" in document["error"]
    assert err.count("\n") == 1 and "action 2:" in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not JSON"),
        ("[]", "a game record is an object"),
        (json.dumps({"preset": "dicenow"}), "missing actions, players"),
        (json.dumps(_record([], extra=1)), "unknown extra"),
        (json.dumps(_record([], preset="farkle")), "unknown preset 'farkle'"),
        (json.dumps(_record([], rules={"three_pairs": 1})), "three_pairs=1 is not allowed"),
        (json.dumps(_record([], players=["Ann"])), "takes 2 to 8 players"),
        (json.dumps(_record([], players=["Ann", "ann"])), "names must differ"),
        (json.dumps(_record({})), '"actions" is a list'),
        (json.dumps(_record([{"roll": [7, 1, 1, 1, 1, 1]}])), "die values are whole numbers"),
        (json.dumps(_record([{"dance": True}])), "bad action"),
        (json.dumps(_record([{"bank": False}])), "bad action"),
    ],
)
def test_replay_bad_records(
    text: str, message: str, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"
    path.write_text(text)
    code, out, err = run(["replay", str(path), "--json"], capsys)
    assert code == 1
    assert message in json.loads(out)["error"]
    assert err.count("\n") == 1 and message in err


def test_replay_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["replay", "/nonexistent/game.json"], capsys)
    assert code == 1
    assert err.count("\n") == 1 and "/nonexistent/game.json" in err


# --- play ---------------------------------------------------------------------------


def play(argv: list[str], lines: list[str], monkeypatch, capsys) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))
    return run(["play", *argv], capsys)


def test_play_a_scripted_turn(monkeypatch, capsys: pytest.CaptureFixture[str]) -> None:
    # seed 2: Ann's first roll is 1 1 1 3 2 6
    code, out, err = play(
        ["--players", "Ann,Ben", "--seed", "2"], ["", "", "b"], monkeypatch, capsys
    )
    assert code == 0 and err == ""
    assert "Ann rolls [1] [1] [1] [2] [3] [6]" in out
    assert "1) 1 1 1         1,000  ->  1,000  (3 left)  <- best" in out
    assert "Roll 3 dice (27.8% zilch) or bank 1,000? [r/b]" in out
    assert "Ann banks 1,000 and has 1,000." in out
    assert "--- Ben's turn (round 1)." in out
    assert out.rstrip().endswith("Round 1; Ben to play.")
    assert "Game stopped." in out


def test_play_refusals_and_help(monkeypatch, capsys: pytest.CaptureFixture[str]) -> None:
    lines = ["b", "?", "", "6 6", "2", "b", "q"]
    code, out, _ = play(["--players", "Ann,Ben", "--seed", "2"], lines, monkeypatch, capsys)
    assert code == 0
    assert "! Ann has nothing to bank yet: roll the dice" in out
    assert "At the roll prompt:" in out
    assert "! cannot keep 6-6" in out
    assert "Ann needs 300 to bank and has 200: roll 4 dice (15.7% zilch)" in out  # 2: two 1s
    assert "Game stopped." in out


def test_play_is_repeatable_and_records(tmp_path, monkeypatch, capsys) -> None:
    record = tmp_path / "game.json"
    argv = ["--players", "Ann,Ben", "--seed", "11", "--rule", "target=1000"]
    lines = ["", "", "", "", "b", "", "", "", "b"] * 6
    first = play([*argv, "--record", str(record)], lines, monkeypatch, capsys)[1]
    second = play(argv, lines, monkeypatch, capsys)[1]
    assert first.replace(f"Record written to {record}.\n", "") == second
    game = replay(json.loads(record.read_text()))
    assert game.rules.target == 1000
    for player in game.state.players:
        assert f"{player.name:<12} {player.score:>7,}" in first


def test_play_two_computer_players_finish(tmp_path, monkeypatch, capsys) -> None:
    pytest.importorskip("zilch.strategy")
    record = tmp_path / "bots.json"
    argv = [
        "--players",
        "R1",
        "--bot",
        "R1=dicenow",
        "--bot",
        "R2=dicenow",
        "--seed",
        "5",
        "--rule",
        "target=1500",
        "--record",
        str(record),
    ]
    code, out, _ = play(argv, [], monkeypatch, capsys)
    assert code == 0
    assert "Final scores:" in out and "Game over." in out
    game = replay(json.loads(record.read_text()))
    assert game.state.finished
    assert f"Winner{'s' if len(game.state.winners) > 1 else ''}: " in out


def test_play_bot_without_strategy(monkeypatch, capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.import_module

    def missing(name: str, *args: object):  # type: ignore[no-untyped-def]
        if name == "zilch.strategy":
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", missing)
    code, out, err = play(["--players", "Ann", "--bot", "Robo=dicenow"], [], monkeypatch, capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "--bot needs the strategy package" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "Ann"], "takes 2 to 8 players, got 1"),
        (["--players", "Ann,Ann"], "player names must differ"),
        (["--players", "Ann,Ben", "--bot", "Robo"], "is not NAME=KIND"),
        (["--players", "Ann,Ben", "--preset", "nope"], "unknown preset 'nope'"),
    ],
)
def test_play_bad_setup(argv, message, monkeypatch, capsys) -> None:
    code, _out, err = play(argv, [], monkeypatch, capsys)
    assert code == 1
    assert err.count("\n") == 1 and message in err


class _Interrupted(io.StringIO):
    """Standard input whose reader presses Ctrl-C."""

    def readline(self, *args: object) -> str:  # type: ignore[override]
        raise KeyboardInterrupt


def test_play_ctrl_c_ends_cleanly(monkeypatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", _Interrupted())
    code, out, err = run(["play", "--players", "Ann,Ben", "--seed", "1"], capsys)
    assert code == 0 and err == ""
    assert "Game stopped." in out and "Round 1; Ann to play." in out


def test_score_nothing_bonus_is_not_a_zilch(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        ["score", "--preset", "playr", "--json", "2", "3", "4", "6", "6", "2"], capsys
    )
    assert code == 0
    assert json.loads(out) == {
        "dice": [2, 2, 3, 4, 6, 6],
        "zilch": False,
        "nothing": True,
        "best": {"dice": [2, 2, 3, 4, 6, 6], "points": 500},
        "set_asides": [{"dice": [2, 2, 3, 4, 6, 6], "points": 500}],
    }
    code, out, _ = run(["score", "--preset", "playr", "2", "3", "4", "6", "6", "2"], capsys)
    assert code == 0 and "nothing bonus: 500 points and all six dice back" in out


def test_score_nothing_bonus_as_house_rule_and_on_fewer_dice(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["score", "--rule", "nothing_bonus=500", "--json", "2", "3", "4", "6", "6", "2"]
    code, out, _ = run(argv, capsys)
    assert code == 0 and json.loads(out)["nothing"] is True
    code, out, _ = run(["score", "--preset", "playr", "--json", "2", "3", "4", "6", "6"], capsys)
    document = json.loads(out)
    assert document["zilch"] is True and document["nothing"] is False
    assert document["best"] is None and document["set_asides"] == []
    code, out, _ = run(
        ["score", "--preset", "playr", "--json", "1", "3", "4", "6", "6", "2"], capsys
    )
    document = json.loads(out)
    assert document["nothing"] is False and document["best"] == {"dice": [1], "points": 100}


def test_play_says_when_it_solves_the_win_table_first(
    tmp_path, monkeypatch, capsys: pytest.CaptureFixture[str], small_rules, small_win_solve
) -> None:
    monkeypatch.setenv("ZILCH_TOWER_STATE_DIR", str(tmp_path))
    solved: list[str] = []

    def solve_win(rules):  # the session's one solve of these rules, counted
        assert rules == small_rules
        solved.append(rules.name)
        return small_win_solve

    monkeypatch.setattr("server.solver_cache.solve_win", solve_win)
    argv = ["--players", "Ann", "--bot", "Robo=win", "--rule", "target=1000", "--seed", "2"]
    code, out, err = play(argv, ["", "", "b"], monkeypatch, capsys)
    assert code == 0
    assert err.count("\n") == 1
    assert err.startswith("Robo plays to win: solving the win table of dicenow first (once")
    assert str(tmp_path) in err and "Ann banks 1,000" in out and solved == ["dicenow"]
    # solved once: the next game starts at once and says nothing
    code, out, err = play(argv, ["", "", "b"], monkeypatch, capsys)
    assert code == 0 and err == "" and solved == ["dicenow"]
