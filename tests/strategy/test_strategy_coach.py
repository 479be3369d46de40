"""The optimal player, the coach and the preview line."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from zilch import InvalidDice, find_preset
from zilch.strategy import (
    Decision,
    OptimalBot,
    TurnView,
    UnknownBot,
    coach_view,
    make_bot,
    preview,
    preview_dice,
    solve_cached,
)
from zilch.strategy.coach import advice, describe

DICENOW = find_preset("dicenow")


def test_optimal_bot_keeps_the_1_and_rolls_five() -> None:
    bot = make_bot("optimal", DICENOW)
    assert isinstance(bot, OptimalBot)
    assert bot.decide_view(TurnView((1, 5, 2, 2, 3, 6))) == Decision((1,), "roll")


def test_optimal_bot_follows_the_solved_thresholds() -> None:
    bot = make_bot("optimal", DICENOW, solve_cached(DICENOW))
    sol = solve_cached(DICENOW)
    bar = sol.threshold(4)
    assert bar is not None
    roll = (1, 2, 3, 4, 6)  # keep the 1, four dice left
    assert bot.decide_view(TurnView(roll, total=bar - 100)).then == "bank"
    assert bot.decide_view(TurnView(roll, total=bar - 150)).then == "roll"


def test_optimal_bot_is_more_careful_on_a_streak() -> None:
    bot = make_bot("optimal", DICENOW)
    roll = (1, 2, 3, 4, 6)  # keep the 1, four dice left
    assert bot.decide_view(TurnView(roll, total=600, streak=0)).then == "roll"
    assert bot.decide_view(TurnView(roll, total=600, streak=2)).then == "bank"


def test_make_bot_refuses_unknown_names() -> None:
    with pytest.raises(UnknownBot, match="dicenow, optimal"):
        make_bot("greedy-bot", DICENOW)
    with pytest.raises(ValueError):
        make_bot("", DICENOW)


def test_coach_lists_every_choice_best_first_with_text() -> None:
    sol = solve_cached(DICENOW)
    choices = coach_view(TurnView((1, 5, 2, 2, 3, 6)), DICENOW, sol)
    assert [c.value for c in choices] == sorted((c.value for c in choices), reverse=True)
    assert choices[0].keep == (1,) and choices[0].then == "roll"
    assert choices[0].text == f"keep the 1 and roll five: {round(choices[0].value)}"
    kept = {(c.keep, c.then) for c in choices}
    # Under 300 nothing can be banked: one choice per set-aside (1, 5, 1 and 5).
    assert kept == {((1,), "roll"), ((5,), "roll"), ((1, 5), "roll")}
    assert any(c.text.startswith("keep 1 and 5 and roll four: ") for c in choices)
    assert choices[0].value == pytest.approx(sol.roll_value(100, 5))


def test_coach_offers_bank_when_allowed_and_values_it_at_the_total() -> None:
    choices = coach_view(TurnView((1, 1, 1, 2, 3, 4), total=0), DICENOW, solve_cached(DICENOW))
    bank = [c for c in choices if c.then == "bank"]
    assert {c.keep for c in bank} == {(1, 1, 1)}
    assert bank[0].value == 1000 and bank[0].text == "keep 1, 1 and 1 and bank 1,000: 1,000"


def test_coach_has_no_bank_choice_on_a_compulsory_free_roll() -> None:
    twinson = find_preset("twinson-5000")
    choices = coach_view(TurnView((1, 2, 3, 4, 5, 6), total=600), twinson, solve_cached(twinson))
    straight = [c for c in choices if c.keep == (1, 2, 3, 4, 5, 6)]
    assert [c.then for c in straight] == ["roll"]
    assert straight[0].text.startswith("keep 1, 2, 3, 4, 5 and 6 and take the free roll: ")


def test_describe_wording() -> None:
    assert describe((1,), "roll", 100, 5, 512.4) == "keep the 1 and roll five: 512"
    assert describe((1, 5), "roll", 150, 4, 470) == "keep 1 and 5 and roll four: 470"
    assert describe((), "roll", 500, 0, 900) == "take the nothing bonus and take the free roll: 900"


@pytest.mark.parametrize(
    ("dice", "zilch", "average"),
    [(1, 0.667, 25), (2, 0.444, 50), (3, 0.278, 87), (4, 0.157, 144), (5, 0.077, 226)],
)
def test_preview_matches_source_004_table(dice: int, zilch: float, average: int) -> None:
    odds = preview_dice(dice, DICENOW)
    assert round(odds.zilch_chance, 3) == zilch
    assert round(odds.average_best) == average


def test_preview_six_dice_and_the_nothing_bonus() -> None:
    six = preview_dice(6, DICENOW)
    assert round(six.zilch_chance * 100, 2) == 2.31 and round(six.average_best) == 411
    playr = preview_dice(6, find_preset("playr"))
    assert playr.zilch_chance == 0.0
    assert playr.average_best > six.average_best


def test_preview_with_pyramiding_counts_the_frozen_dice() -> None:
    rules = find_preset("twinson-5000").with_house_rules({"pyramiding": "true"})
    fresh = preview_dice(2, rules)
    with_frozen_1 = preview_dice(2, rules, frozen=(1,))
    assert with_frozen_1.zilch_chance == fresh.zilch_chance
    assert with_frozen_1.average_best > fresh.average_best  # two 1s now make 1,000


def test_preview_refuses_impossible_dice() -> None:
    with pytest.raises(InvalidDice, match="1 to 6 dice"):
        preview_dice(7, DICENOW)


@dataclass(frozen=True)
class _Turn:
    total: int
    roll: tuple[int, ...] | None
    dice_left: int
    set_aside: tuple[tuple[int, ...], ...]
    pyramid: tuple[int, ...] = ()
    free_roll: bool = False


@dataclass(frozen=True)
class _State:
    turn: _Turn


def test_preview_of_a_turn_or_a_state() -> None:
    turn = _Turn(total=300, roll=None, dice_left=3, set_aside=((1, 1, 1),))
    assert preview(turn, DICENOW) == {**preview_dice(3, DICENOW).to_json(), "best": None}
    assert preview(_State(turn), DICENOW)["dice"] == 3
    fresh = _Turn(total=0, roll=None, dice_left=6, set_aside=(), free_roll=True)
    assert preview(fresh, DICENOW)["dice"] == 6


def test_preview_with_a_roll_waiting_looks_past_its_best_set_aside() -> None:
    # The architecture's example: 1 5 2 2 3 6, best 1 and 5, four dice next: 15.7%.
    turn = _Turn(total=0, roll=(1, 5, 2, 2, 3, 6), dice_left=6, set_aside=())
    line = preview(turn, DICENOW)
    assert line["best"] == {"dice": [1, 5], "points": 150}
    assert line["dice"] == 4 and round(line["zilch_chance"], 3) == 0.157
    hot = _Turn(total=0, roll=(2, 2, 3, 3, 4, 4), dice_left=6, set_aside=())
    assert preview(hot, DICENOW)["dice"] == 6


def test_advice_says_what_the_number_is_and_why_it_differs_from_the_star() -> None:
    sol = solve_cached(DICENOW)
    choices = coach_view(TurnView((1, 5, 2, 2, 3, 6)), DICENOW, sol)
    line = advice(choices, ((1, 5), 150), 0)
    expected = round(choices[0].value)
    assert line == (
        f"Coach: keep the 1 and roll five dice: expected {expected:,} for this turn "
        "(★ 1 5 scores 150 now)"
    )
    # with 300 on the turn the star's choice could be banked: the line says so
    choices = coach_view(TurnView((1, 5, 5, 2, 3, 4), total=300), DICENOW, sol)
    assert advice(choices, ((1, 5, 5), 200), 300).endswith("(★ 1 5 5 banks 500 now)")
    # the coach agreeing with the star adds nothing
    choices = coach_view(TurnView((1, 1, 1, 2, 3, 4)), DICENOW, sol)
    assert (
        advice(choices, ((1, 1, 1), 1000), 0) == "Coach: keep 1 1 1 and bank 1,000: 1,000 for sure"
    )
    assert advice([], None, 0) == ""


def test_advice_on_a_final_turn_speaks_of_the_chance_to_get_ahead() -> None:
    sol = solve_cached(DICENOW)
    view = TurnView((1, 5, 2, 2, 3, 6), score=0, opponent=2000, final=True)
    line = advice(coach_view(view, DICENOW, sol), ((1, 5), 150), 0, final=True)
    assert line.startswith("Coach: keep") and "chance to get ahead" in line
