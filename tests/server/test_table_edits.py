"""server.table_edits on a real tower's hands: people put the dice back; nothing is assumed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.hands import PeopleHands
from server.table_edits import leave_step, left_turn, rename_step, table_undo_refusal, undo_step
from server.table_state import TablePhase, TableState
from zilch import Game, IllegalAction, find_preset


def _table(*actions: dict[str, object], phase: TablePhase = TablePhase.READY) -> TableState:
    game = Game(find_preset("dicenow"), ["Ann", "Ben"])
    for action in actions:
        game.apply(action)
    return TableState(phase=phase, game=game, game_id=1, preset="dicenow", in_tray=5)


def test_undo_on_a_real_tower_asks_for_the_dice_back_and_ignores_them_until_then() -> None:
    table = _table({"roll": [1, 5, 2, 3, 3, 6]}, {"keep": [5]})
    following, ops, text = undo_step(table, PeopleHands())
    assert ops == [], "people move the dice on a real tower"
    assert following.phase is TablePhase.CHOOSE and following.in_tray == 6
    assert following.message == "Put 5 back in the tray: the set-aside was taken back."
    assert following.refused == (5,), "the 5 outside the tray is not a set-aside again"
    assert following.game is not None and following.game.state.turn.roll == (1, 2, 3, 3, 5, 6)
    assert table.game is not None and table.game.state.turn.total == 50, "unchanged"
    assert "taken back" in text


@pytest.mark.parametrize(
    ("phase", "bots", "reason"),
    [
        (TablePhase.SHAKING, {}, "the table is shaking"),
        (TablePhase.SETTLING, {}, "the table is settling"),
        (TablePhase.READY, {"Ann": "dicenow"}, "Ann is a computer player"),
    ],
)
def test_undo_is_refused_once_the_next_roll_began_or_for_a_computer_player(
    phase: TablePhase, bots: dict[str, str], reason: str
) -> None:
    table = _table({"roll": [1, 5, 2, 3, 3, 6]}, {"keep": [5]}, phase=phase)
    table = replace(table, bots=bots)
    assert reason in (table_undo_refusal(table) or "")
    with pytest.raises(IllegalAction, match=reason):
        undo_step(table, PeopleHands())


def test_rename_moves_bots_and_left_players_with_the_name() -> None:
    table = replace(_table(), bots={"Ben": "dicenow"}, left=("Ben",))
    following, old, new, text = rename_step(table, "ben", "Robo")
    assert (old, new, text) == ("Ben", "Robo", "Ben is now called Robo.")
    assert following.bots == {"Robo": "dicenow"} and following.left == ("Robo",)


def test_a_player_who_left_is_skipped_when_their_turn_comes() -> None:
    table = _table()
    following, text = leave_step(table, "Ann")
    assert following.left == ("Ann",) and text.startswith("Ann has left the game with 0")
    assert left_turn(following) == "Ann"
    assert left_turn(replace(following, paused=True)) is None
