"""Source 004's computer player, one test per clause of its description."""

from __future__ import annotations

import pytest

from zilch import IllegalAction, find_preset
from zilch.strategy import Decision, DicenowBot, TurnView, make_bot

RULES = find_preset("dicenow")


@pytest.fixture
def bot() -> DicenowBot:
    made = make_bot("dicenow", RULES)
    assert isinstance(made, DicenowBot)
    return made


def decide(bot: DicenowBot, roll: tuple[int, ...], **situation: int | bool) -> Decision:
    return bot.decide_view(TurnView(roll, **situation))  # type: ignore[arg-type]


def test_keeps_a_single_1_and_rolls_five_rather_than_taking_the_5(bot: DicenowBot) -> None:
    assert decide(bot, (1, 5, 2, 2, 3, 6)) == Decision((1,), "roll")


def test_set_aside_value_is_points_plus_average_minus_zilch_chance_times_loss(
    bot: DicenowBot,
) -> None:
    view = TurnView((1, 5, 2, 2, 3, 6), total=0)
    from zilch import SetAside

    # Keep the 1: 100 + 225.79 (five dice) - 0.0772 x 100.
    assert bot.option_value(view, SetAside((1,), 100), 300) == pytest.approx(
        100 + 225.7909 - 0.0771605 * 100, abs=1e-3
    )
    # Keep 1 and 5: 150 + 143.52 (four dice) - 0.1574 x 150.
    assert bot.option_value(view, SetAside((1, 5), 150), 300) == pytest.approx(
        150 + 143.5185 - 0.1574074 * 150, abs=1e-3
    )


def test_a_set_aside_it_would_bank_after_is_worth_its_points(bot: DicenowBot) -> None:
    # Three 1s bank 1,050 with one die left; the formula for rolling one die would
    # undervalue them, so the ruling counts only the points gained.
    assert decide(bot, (1, 1, 1, 2), total=50, streak=2) == Decision((1, 1, 1), "bank")


def test_never_banks_under_300(bot: DicenowBot) -> None:
    assert decide(bot, (1, 1, 2, 3)) == Decision((1, 1), "roll")  # 200 with two dice
    assert decide(bot, (5, 2), total=200) == Decision((5,), "roll")  # 250 with one die


def test_always_takes_a_free_roll(bot: DicenowBot) -> None:
    assert decide(bot, (2, 2, 3, 3, 4, 4), total=4000) == Decision((2, 2, 3, 3, 4, 4), "roll")
    assert decide(bot, (5,), total=6000) == Decision((5,), "roll")


@pytest.mark.parametrize(
    ("roll", "below", "at"),
    [
        ((1, 2, 4, 6), 150, 200),  # keep the 1, three dice left: bar 300
        ((1, 2, 3), 150, 200),  # two dice left: bar 300
        ((1, 2, 3, 4, 6), 750, 800),  # four dice left: bar 900
        ((1, 2, 3, 4, 6, 6), 2350, 2400),  # five dice left: bar 2,500
    ],
)
def test_bars_by_dice_left(bot: DicenowBot, roll: tuple[int, ...], below: int, at: int) -> None:
    assert decide(bot, roll, total=below) == Decision((1,), "roll")
    assert decide(bot, roll, total=at) == Decision((1,), "bank")


def test_raises_its_bar_to_600_when_the_opponent_is_past_7000_and_2000_ahead(
    bot: DicenowBot,
) -> None:
    roll = (1, 2, 4, 6)  # keep the 1, three dice left
    far_behind = {"score": 5000, "opponent": 7050}
    assert decide(bot, roll, total=400, **far_behind) == Decision((1,), "roll")  # 500 < 600
    assert decide(bot, roll, total=500, **far_behind) == Decision((1,), "bank")  # 600
    # Not past 7,000, or less than 2,000 ahead: the usual 300.
    assert decide(bot, roll, total=200, score=5000, opponent=7000) == Decision((1,), "bank")
    assert decide(bot, roll, total=200, score=5100, opponent=7050) == Decision((1,), "bank")
    # The higher bars with four and five dice are not lowered.
    assert decide(bot, (1, 2, 3, 4, 6), total=700, **far_behind) == Decision((1,), "roll")


def test_a_pending_third_zilch_counts_500_extra_at_risk(bot: DicenowBot) -> None:
    roll = (1, 2, 3, 4, 6, 6)  # keep the 1, five dice left: bar 2,500
    assert decide(bot, roll, total=1900, streak=1) == Decision((1,), "roll")
    assert decide(bot, roll, total=1900, streak=2) == Decision((1,), "bank")  # 2,000 + 500
    assert decide(bot, (1, 2, 3, 4, 6), total=300, streak=2) == Decision((1,), "bank")  # 400+500


def test_pending_zilch_also_weighs_in_the_set_aside_formula(bot: DicenowBot) -> None:
    view = TurnView((1, 5, 2, 2, 3, 6), total=0, streak=2)
    from zilch import SetAside

    assert bot.option_value(view, SetAside((1,), 100), 300) == pytest.approx(
        100 + 225.7909 - 0.0771605 * 600, abs=1e-3
    )


def test_banks_as_soon_as_a_total_would_reach_the_target(bot: DicenowBot) -> None:
    # Without the target it keeps one 5 and rolls four (see the formula)...
    assert decide(bot, (5, 5, 2, 3, 4), total=250, score=0) == Decision((5,), "roll")
    # ...but two 5s take 9,700 + 350 past 10,000: keep both and bank.
    assert decide(bot, (5, 5, 2, 3, 4), total=250, score=9700) == Decision((5, 5), "bank")
    # Even a free roll is banked when it wins.
    assert decide(bot, (2, 2, 3, 3, 4, 4), total=500, score=8000) == Decision(
        (2, 2, 3, 3, 4, 4), "bank"
    )
    # Never under 300, even at the target.
    assert decide(bot, (5, 2, 3), total=0, score=9990) == Decision((5,), "roll")


def test_a_compulsory_free_roll_is_taken_even_at_the_target() -> None:
    twinson = make_bot("dicenow", find_preset("twinson-10000"))
    assert twinson.decide_view(TurnView((1,), total=400, score=9500)) == Decision((1,), "roll")


def test_final_turn_rolls_until_ahead_or_zilched(bot: DicenowBot) -> None:
    final = {"score": 9000, "opponent": 10200, "final": True}
    # 1,100 would bank anywhere else (three dice left) but is not ahead: roll.
    assert decide(bot, (1, 2, 3, 4), total=1000, **final) == Decision((1,), "roll")
    # A tie is not enough: the opponent reached 10,000 first.
    assert decide(bot, (1, 5, 2, 3), total=1050, **final) == Decision((1,), "roll")
    assert decide(bot, (1, 5, 2, 3), total=1100, **final) == Decision((1, 5), "bank")
    # Even a huge lead over the bars does not stop it before it is ahead.
    far = {"score": 2000, "opponent": 10200, "final": True}
    assert decide(bot, (1, 2, 3, 4, 6, 6), total=5000, **far) == Decision((1,), "roll")


def test_a_zilch_roll_has_nothing_to_decide(bot: DicenowBot) -> None:
    with pytest.raises(IllegalAction, match="zilch"):
        decide(bot, (2, 3, 4, 6))


def test_nothing_bonus_roll_takes_the_bonus_and_the_free_roll() -> None:
    playr_bot = make_bot("dicenow", find_preset("playr"))
    assert playr_bot.decide_view(TurnView((2, 2, 3, 4, 6, 6))) == Decision((), "roll")


def test_checked_views_refuse_impossible_situations() -> None:
    from zilch import InvalidDice
    from zilch.strategy import InvalidSituation

    assert TurnView.checked([1, 5], total=300, streak=2) == TurnView((1, 5), 300, streak=2)
    with pytest.raises(InvalidSituation, match="negative"):
        TurnView.checked([1], total=-50)
    with pytest.raises(InvalidSituation, match="multiple of 50"):
        TurnView.checked([1], total=75)
    with pytest.raises(InvalidSituation, match="streak"):
        TurnView.checked([1], streak=-1)
    with pytest.raises(InvalidDice):
        TurnView.checked([0, 7])
