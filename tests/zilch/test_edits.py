"""Edits of a game in progress: undoing the last set-aside, renaming, folding journal rows."""

from __future__ import annotations

import pytest

from zilch import Game, IllegalAction, InvalidPlayer, ReplayError, find_preset, replay
from zilch.edits import fold, is_edit, renamed, undo_refusal, undoable, undone


def game_after(*actions: dict[str, object], preset: str = "dicenow") -> Game:
    game = Game(find_preset(preset), ["Ann", "Ben"])
    for action in actions:
        game.apply(action)
    return game


def test_undo_takes_back_the_last_set_aside_and_leaves_the_game_unchanged() -> None:
    game = game_after({"roll": [1, 5, 2, 3, 3, 6]}, {"keep": [5]})
    assert undoable(game) == {"player": "Ann", "dice": [5]}
    before, text = undone(game)
    assert before.state.phase == "keep" and before.state.turn.roll == (1, 2, 3, 3, 5, 6)
    assert before.state.turn.total == 0 and before.actions == ({"roll": [1, 5, 2, 3, 3, 6]},)
    assert text == (
        "Ann's set-aside of 5 is taken back: the roll 1 2 3 3 5 6 waits for a set-aside again."
    )
    assert game.state.turn.total == 50, "the game undone from is unchanged"
    before.keep([1, 5])  # a different set-aside is now legal
    assert before.state.turn.total == 150


def test_undo_of_hot_dice_brings_back_the_roll_not_a_free_roll() -> None:
    game = game_after({"roll": [1, 1, 1, 5, 5, 1]}, {"keep": [1, 1, 1, 1, 5, 5]})
    assert game.state.turn.free_roll
    before, _ = undone(game)
    assert not before.state.turn.free_roll and before.state.phase == "keep"


@pytest.mark.parametrize(
    ("actions", "reason"),
    [
        ((), "nothing has been played"),
        (({"roll": [1, 5, 2, 3, 3, 6]},), "the last action is a roll"),
        (({"roll": [1, 1, 1, 2, 3, 6]}, {"keep": [1, 1, 1]}, {"bank": True}), "a bank cannot"),
        (({"skip": True},), "a skipped turn cannot"),
    ],
)
def test_only_a_set_aside_before_the_next_roll_is_undone(
    actions: tuple[dict[str, object], ...], reason: str
) -> None:
    game = game_after(*actions)
    assert reason in (undo_refusal(game) or "")
    assert undoable(game) is None
    with pytest.raises(IllegalAction, match=reason):
        undone(game)


def test_rename_renames_everywhere_and_plays_on() -> None:
    game = game_after(
        {"roll": [1, 1, 1, 2, 3, 6]},
        {"keep": [1, 1, 1]},
        {"bank": True},
        {"join": "Cy"},
        preset="club",
    )
    following, old, new = renamed(game, "ben", "Benjamin")
    assert (old, new) == ("Ben", "Benjamin")
    assert following.state.names == ("Ann", "Benjamin", "Cy")
    assert following.state.current == "Benjamin"
    assert following.state.player("Ann").score == game.state.player("Ann").score
    again, _, _ = renamed(following, "Cy", "Cyril")
    assert again.record()["actions"][-1] == {"join": "Cyril"}
    assert replay(again.record()).summary() == again.summary()


@pytest.mark.parametrize(
    ("old", "new", "error", "message"),
    [
        ("Zed", "Max", InvalidPlayer, "'Zed' is not playing"),
        ("Ann", "ben", InvalidPlayer, "ben is already playing"),
        ("Ann", "A,nn", InvalidPlayer, "commas"),
        ("Ann", "Ann", InvalidPlayer, "already called Ann"),
    ],
)
def test_a_bad_rename_is_refused_with_the_reason(
    old: str, new: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        renamed(game_after(), old, new)


def test_rename_that_would_reorder_an_alphabetical_table_is_refused() -> None:
    game = Game(find_preset("club"), ["Ann", "Ben", "Cat"])
    with pytest.raises(IllegalAction, match="order of play"):
        renamed(game, "Ann", "Zed")
    assert renamed(game, "Ann", "Abe")[0].state.names == ("Abe", "Ben", "Cat")


def test_fold_applies_undo_and_rename_rows_to_the_record() -> None:
    rows = [
        (1, {"roll": [1, 1, 1, 2, 3, 6]}),
        (2, {"keep": [1]}),
        (3, {"undo": True}),
        (4, {"keep": [1, 1, 1]}),
        (5, {"rename": {"from": "Ann", "to": "Anna"}}),
        (6, {"bank": True}),
    ]
    assert is_edit({"undo": True}) and not is_edit({"keep": [1]})
    players, kept = fold(["Ann", "Ben"], rows)
    assert players == ["Anna", "Ben"]
    assert [seq for seq, _ in kept] == [1, 4, 6]
    assert kept[1] == (4, {"keep": [1, 1, 1]})
    actions = [a for _, a in kept]
    game = replay({"preset": "dicenow", "rules": {}, "players": players, "actions": actions})
    assert game.state.player("Anna").score == 1000


@pytest.mark.parametrize(
    "rows",
    [
        [(1, {"undo": True})],
        [(1, {"roll": [1, 5, 2, 3, 3, 6]}), (2, {"undo": True})],
        [(1, {"rename": {"from": "Ann"}})],
        [(1, {"undo": "yes"})],
    ],
)
def test_fold_refuses_an_edit_that_does_not_fit(rows: list[tuple[int, dict[str, object]]]) -> None:
    with pytest.raises(ReplayError):
        fold(["Ann", "Ben"], rows)
