"""The players, the coach and the preview on real game states, and whole duels."""

from __future__ import annotations

import random

import pytest

from zilch import IllegalAction, find_preset
from zilch.game import Game
from zilch.state import GameState, PlayerState, TurnState
from zilch.strategy import Decision, coach, make_bot, preview, solve_cached
from zilch.strategy.duel import DuelError, play_duel, play_game, wilson_interval

DICENOW = find_preset("dicenow")


def _final_turn_state(total: int, roll: tuple[int, ...]) -> GameState:
    return GameState(
        preset="dicenow",
        players=(
            PlayerState("Ann", score=10200, on_board=True, reached=7),
            PlayerState("Bot", score=9000, on_board=True),
        ),
        current="Bot",
        phase="keep",
        turn=TurnState(player="Bot", total=total, roll=roll, dice_left=len(roll), rolls=3),
        round=8,
        final_round=True,
        closer="Ann",
        pending=("Bot",),
    )


def test_bots_decide_on_a_real_game_state() -> None:
    game = Game(DICENOW, ["Ann", "Bot"])
    game.roll([1, 5, 2, 2, 3, 6])
    for name in ("dicenow", "optimal"):
        assert make_bot(name, DICENOW).decide(game.state, "Ann") == Decision((1,), "roll")
    with pytest.raises(IllegalAction, match="not Bot's turn"):
        make_bot("dicenow", DICENOW).decide(game.state, "Bot")


def test_dicenow_sees_its_final_turn_in_the_game_state() -> None:
    bot = make_bot("dicenow", DICENOW)
    assert bot.decide(_final_turn_state(1000, (1, 2, 3, 4)), "Bot") == Decision((1,), "roll")
    assert bot.decide(_final_turn_state(1100, (1, 5, 2, 3)), "Bot") == Decision((1, 5), "bank")


def test_between_rolls_after_a_nothing_bonus_the_bot_chooses_bank_or_roll() -> None:
    playr = find_preset("playr")
    game = Game(playr, ["Ann", "Bot"])
    game.roll([2, 2, 3, 4, 6, 6])  # nothing: 500 and six dice back
    state = game.state
    assert state.phase == "roll" and state.turn.total == 500
    assert make_bot("dicenow", playr).decide(state, "Ann") == Decision((), "roll")
    assert make_bot("optimal", playr).decide(state, "Ann") == Decision((), "roll")
    near_target = GameState(
        **{**state.__dict__, "players": (PlayerState("Ann", score=9600), state.players[1])}
    )
    assert make_bot("dicenow", playr).decide(near_target, "Ann") == Decision((), "bank")


def test_coach_and_preview_on_a_real_game_state() -> None:
    game = Game(DICENOW, ["Ann", "Bot"])
    assert coach(game.state, DICENOW) == []  # nothing rolled yet
    assert preview(game.state, DICENOW)["dice"] == 6
    game.roll([1, 5, 2, 2, 3, 6])
    choices = coach(game.state, DICENOW, solve_cached(DICENOW))
    assert choices[0].text.startswith("keep the 1 and roll five: ")
    assert preview(game.state, DICENOW)["best"] == {"dice": [1, 5], "points": 150}
    game.keep([1])
    assert preview(game.state, DICENOW)["dice"] == 5


@pytest.mark.parametrize("preset", ["dicenow", "playr", "club", "greedy", "twinson-5000"])
def test_a_whole_game_between_bots_finishes_with_a_winner(preset: str) -> None:
    rules = find_preset(preset)
    seats = [("Opt", make_bot("optimal", rules)), ("Dice", make_bot("dicenow", rules))]
    state = play_game(rules, seats, random.Random(11)).state
    assert state.finished and state.winners
    assert max(p.score for p in state.players) >= rules.target


def test_duel_counts_every_game_and_alternates_the_start() -> None:
    bots = [make_bot("dicenow", DICENOW), make_bot("dicenow", DICENOW)]
    seen: list[int] = []
    result = play_duel(DICENOW, bots, 6, seed=5, progress=seen.append)
    assert seen == [1, 2, 3, 4, 5, 6]
    assert sum(result.wins) == 6 and result.names == ("dicenow A", "dicenow B")
    assert play_duel(DICENOW, bots, 6, seed=5) == result


def test_duel_refuses_bad_requests() -> None:
    bot = make_bot("dicenow", DICENOW)
    with pytest.raises(DuelError, match="two bots"):
        play_duel(DICENOW, [bot], 4, seed=0)
    with pytest.raises(DuelError, match="at least one game"):
        play_duel(DICENOW, [bot, bot], 0, seed=0)


def test_wilson_interval() -> None:
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(5, 0) == (0.0, 1.0)
