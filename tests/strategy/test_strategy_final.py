"""The last turn solved for the chance of getting ahead, and the optimal player using it."""

from __future__ import annotations

from functools import cache

import pytest

from zilch import find_preset
from zilch.strategy import Decision, TurnView, make_bot
from zilch.strategy.final import solve_final_turn
from zilch.strategy.model import roll_table

DICENOW = find_preset("dicenow")


def _reference_chance(goal: int) -> float:
    """Plain recursion: best chance of banking ``goal`` or more (and 300) in one turn."""
    table = roll_table(DICENOW)
    need = max(goal, 300)

    @cache
    def rolling(total: int, dice: int) -> float:
        chance = 0.0
        for profile in table.dice[dice].profiles:
            chance += profile.chance * max(
                1.0 if total + points >= need else rolling(total + points, (dice - used) or 6)
                for used, points in profile.options
            )
        return chance

    return rolling(0, 6)


@pytest.mark.parametrize("goal", [300, 1000, 2500])
def test_final_turn_chance_matches_a_plain_recursion(goal: int) -> None:
    final = solve_final_turn(DICENOW, goal)
    assert final.roll_chance(0, 6) == pytest.approx(_reference_chance(goal), abs=1e-12)


def test_final_turn_chance_falls_as_the_goal_rises() -> None:
    chances = [solve_final_turn(DICENOW, goal).roll_chance(0, 6) for goal in (300, 1000, 3000)]
    assert chances[0] > chances[1] > chances[2] > 0


def test_final_turn_decisions() -> None:
    final = solve_final_turn(DICENOW, 1201)
    assert final.goal == 1201
    assert final.should_roll(1100, 3) and not final.should_roll(1250, 3)
    assert final.chance_after(1250, 2) == 1.0
    assert 0 < final.chance_after(1100, 3) < 1
    twinson = solve_final_turn(find_preset("twinson-5000"), 600)
    assert twinson.should_roll(700, 0)  # a compulsory free roll cannot be banked


def test_optimal_bot_plays_its_final_turn_to_get_ahead() -> None:
    bot = make_bot("optimal", DICENOW)
    final = {"score": 9000, "opponent": 10200, "final": True}
    # 1,100 with three dice would be banked in the long run, but is not ahead.
    assert bot.decide_view(TurnView((1, 2, 3, 4), total=1000, **final)) == Decision((1,), "roll")
    assert bot.decide_view(TurnView((1, 2, 3, 4), total=1000)).then == "bank"
    # Ahead with a bankable total: take the most points and bank.
    assert bot.decide_view(TurnView((1, 5, 2, 3), total=1150, **final)) == Decision((1, 5), "bank")


def test_coach_on_a_final_turn_ranks_by_the_chance_of_getting_ahead() -> None:
    from zilch.strategy import coach_view, solve_cached

    view = TurnView((1, 5, 2, 3), total=1000, score=9000, opponent=10200, final=True)
    choices = coach_view(view, DICENOW, solve_cached(DICENOW))
    assert all(0.0 <= c.value <= 1.0 for c in choices)
    banks = [c for c in choices if c.then == "bank"]
    assert banks and all(c.value == 0.0 for c in banks)  # 1,150 is not ahead of 10,200
    assert choices[0].then == "roll" and choices[0].text.endswith("to get ahead")
    assert make_bot("optimal", DICENOW).decide_view(view) == Decision(
        choices[0].keep, choices[0].then
    )
