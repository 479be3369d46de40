"""The state database: journal, records, rolls and replay records."""

import sqlite3

import pytest

from server.store import Step, Store


def _store(tmp_path) -> Store:
    return Store(tmp_path / "zilch.db")


def test_wal_mode_and_schema(tmp_path) -> None:
    store = _store(tmp_path)
    conn = sqlite3.connect(tmp_path / "zilch.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"meta", "games", "journal", "players", "records", "rolls"} <= tables
    store.close()
    store.close()


def test_journal_round_trip_and_record(tmp_path) -> None:
    store = _store(tmp_path)
    game = store.start_game("dicenow", {"three_pairs": 750}, ["Ann", "Ben"], {"Ben": "dicenow"})
    seq1 = store.append(Step(game, {"phase": "ready"}, log=[{"kind": "new_game", "text": "x"}]))
    seq2 = store.append(
        Step(
            game,
            {"phase": "choose"},
            action={"roll": [1, 5, 2, 2, 3, 6]},
            tower=[["shake"]],
            roll=("Ann", [1, 5, 2, 2, 3, 6]),
        )
    )
    assert seq2 == seq1 + 1
    assert store.last_step() == (seq2, game, {"phase": "choose"})
    assert store.record(game) == {
        "preset": "dicenow",
        "rules": {"three_pairs": 750},
        "players": ["Ann", "Ben"],
        "actions": [{"roll": [1, 5, 2, 2, 3, 6]}],
    }
    assert store.tower_ops() == [["shake"]]
    assert store.log(game, 10) == [{"seq": seq1, "kind": "new_game", "text": "x"}]
    assert store.face_counts() == ([1, 2, 1, 0, 1, 1], 1)
    assert store.games()[0].bots == {"Ben": "dicenow"}
    assert store.record(999) is None


def test_records_best_turn_best_game_wins_losses(tmp_path) -> None:
    store = _store(tmp_path)
    game = store.start_game("greedy", {}, ["Ann", "Ben"], {})
    store.append(Step(game, {}, turns=[("Ann", 650)]), preset="greedy")
    store.append(Step(game, {}, turns=[("Ann", 400), ("Ben", 900)]), preset="greedy")
    summary = {
        "players": [{"name": "Ann", "score": 10050}, {"name": "Ben", "score": 9000}],
        "winners": ["Ann"],
    }
    store.append(Step(game, {}, finished=summary), preset="greedy")
    records = {r["player"]: r for r in store.records("greedy")}
    assert records["Ann"]["best_turn"] == 650 and records["Ben"]["best_turn"] == 900
    assert records["Ann"]["best_game"] == 10050 and records["Ann"]["wins"] == 1
    assert records["Ben"]["losses"] == 1 and records["Ben"]["wins"] == 0
    assert store.game(game).status == "finished"
    assert store.game(game).winners == ["Ann"]


def test_new_game_abandons_the_running_one(tmp_path) -> None:
    store = _store(tmp_path)
    first = store.start_game("dicenow", {}, ["Ann"], {})
    second = store.start_game("dicenow", {}, ["Ann"], {}, abandon=first)
    assert store.game(first).status == "abandoned"
    assert store.game(second).status == "playing"


def test_failed_step_leaves_nothing_behind(tmp_path) -> None:
    store = _store(tmp_path)
    game = store.start_game("dicenow", {}, ["Ann"], {})
    store.append(Step(game, {"n": 1}))
    # The summary lacks the players' scores: the step fails after its journal row was written.
    bad = Step(game, {"n": 2}, finished={"players": [{"name": "Ann"}], "winners": []})
    with pytest.raises(KeyError):
        store.append(bad, preset="dicenow")
    assert store.last_step()[2] == {"n": 1}


def test_meta(tmp_path) -> None:
    store = _store(tmp_path)
    assert store.get_meta("seed") is None
    store.set_meta("seed", "5")
    store.set_meta("seed", "6")
    assert store.get_meta("seed") == "6"


def test_a_corrected_roll_replaces_the_misread_one_and_counts(tmp_path) -> None:
    store = _store(tmp_path)
    first = store.start_game("dicenow", {}, ["Ann", "Ben"], {})
    store.append(
        Step(first, {}, action={"roll": [2, 2, 3, 4, 6, 6]}, roll=("Ann", [2, 2, 3, 4, 6, 6]))
    )
    corrected = {"kind": "correct", "player": "Ann", "text": "Ann's roll corrected by Cat"}
    store.append(
        Step(
            first,
            {},
            action={"correct": [1, 2, 3, 4, 6, 6], "by": "Cat"},
            log=[corrected, {"kind": "zilch", "text": "Zilch!"}],
            roll=("Ann", [1, 2, 3, 4, 6, 6]),
        )
    )
    assert store.face_counts() == ([1, 1, 1, 1, 0, 2], 1)
    second = store.start_game("dicenow", {}, ["Ann", "Ben"], {}, abandon=first)
    entered = {"kind": "dice_entered", "text": "Cat says the dice show 1 1 1 2 3 4."}
    store.append(
        Step(second, {}, action={"roll": [1, 1, 1, 2, 3, 4]}, log=[entered], roll=("Ann", [1] * 6))
    )
    assert store.face_counts()[1] == 2
    assert store.corrections([first, second, 99]) == {first: 1, second: 1}
    assert store.corrections([]) == {}
