"""Exact odds: source 004's figures, reproduced by enumeration."""

from __future__ import annotations

from fractions import Fraction

import pytest

from zilch import PRESETS, InvalidDice, find_preset, odds_table, roll_odds
from zilch.odds import exact_roll_odds, six_dice_shapes

# RULES.md "Figures": zilch chance (percent, as printed) and average best points
SOURCE_004 = [
    (1, "66.7", 25),
    (2, "44.4", 50),
    (3, "27.8", 87),
    (4, "15.7", 144),
    (5, "7.7", 226),
    (6, "2.31", 411),
]


@pytest.mark.parametrize(("n", "zilch_percent", "average"), SOURCE_004)
def test_source_004_odds_table(n: int, zilch_percent: str, average: int) -> None:
    zilch, best = roll_odds(n, find_preset("dicenow"))
    decimals = len(zilch_percent.split(".")[1])
    assert f"{zilch * 100:.{decimals}f}" == zilch_percent
    assert round(best) == average


def test_source_004_six_dice_shapes() -> None:
    shapes = six_dice_shapes()
    printed = {key: f"{value * 100:.1f}" for key, value in shapes.items()}
    assert printed == {
        "three_or_more_ones": "6.2",
        "four_or_more_of_a_kind": "5.2",
        "straight": "1.5",
        "three_pairs": "3.9",
    }


def test_exact_fractions() -> None:
    assert exact_roll_odds(1, find_preset("dicenow")) == (Fraction(2, 3), Fraction(25))
    # 1s and 5s, or a triple of 2/3/4/6: the zilch chance of 6 dice is 1,080 in 46,656
    assert exact_roll_odds(6, find_preset("dicenow"))[0] == Fraction(1080, 46656)


def test_zilch_chances_agree_across_presets_with_the_same_counters() -> None:
    # every straight or three-pair roll contains a 1 or a 5 (source 004) ...
    for rules in PRESETS.values():
        if rules.nothing_bonus or not rules.three_pairs:
            continue
        assert [roll_odds(n, rules)[0] for n in range(1, 7)] == [
            roll_odds(n, find_preset("dicenow"))[0] for n in range(1, 7)
        ]


def test_without_three_pairs_six_dice_zilch_more() -> None:
    # ... but 2-2-3-3-4-4 and the like (1,800 - 720 of 46,656 ordered rolls) zilch in twinson-5000
    zilch = exact_roll_odds(6, find_preset("twinson-5000"))[0]
    assert zilch == Fraction(1080 + 360, 46656)


def test_nothing_bonus_removes_six_dice_zilches() -> None:
    zilch, best = roll_odds(6, find_preset("playr"))
    assert zilch == 0
    assert best > roll_odds(6, find_preset("dicenow"))[1]


def test_pyramiding_raises_the_average_with_frozen_ones() -> None:
    rules = find_preset("twinson-5000").with_house_rules({"pyramiding": "true"})
    plain = roll_odds(5, rules)
    with_frozen = roll_odds(5, rules, frozen=[1, 1])
    assert with_frozen[0] == plain[0]
    assert with_frozen[1] > plain[1]


def test_odds_table_shape() -> None:
    rows = odds_table(find_preset("greedy"))
    assert [row["dice"] for row in rows] == [1, 2, 3, 4, 5, 6]
    assert all(set(row) == {"dice", "zilch_chance", "average_best"} for row in rows)


@pytest.mark.parametrize("n", [0, 7, -1, True, "3", 2.0])
def test_bad_dice_counts(n: object) -> None:
    with pytest.raises(InvalidDice, match="1 to 6 dice"):
        roll_odds(n, find_preset("dicenow"))  # type: ignore[arg-type]
