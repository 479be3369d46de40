"""Exact odds by enumerating every roll: zilch chance and average best points.

Each sorted roll of ``n`` dice stands for ``n! / (c1! ... c6!)`` ordered
outcomes of ``6 ** n``; sums are kept as fractions and converted at the end.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from fractions import Fraction
from functools import cache
from typing import Any

from zilch.errors import InvalidDice
from zilch.rules import RuleSet
from zilch.scoring import FACES, check_dice, counts_of, scoring_table


@cache
def _weighted_rolls(n: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every sorted roll of ``n`` dice with the number of ordered outcomes it stands for."""
    rolls = []
    for roll in itertools.combinations_with_replacement(FACES, n):
        weight = math.factorial(n)
        for count in counts_of(roll):
            weight //= math.factorial(count)
        rolls.append((roll, weight))
    return tuple(rolls)


def nothing_bonus_applies(roll: tuple[int, ...], rules: RuleSet, zilch: bool) -> bool:
    """True when a roll with no set-aside pays the "nothing" bonus instead of zilching."""
    return zilch and len(roll) == 6 and rules.nothing_bonus > 0


def roll_odds(n: int, rules: RuleSet, frozen: Iterable[int] = ()) -> tuple[float, float]:
    """Exact zilch chance and average points of the best set-aside on ``n`` dice.

    A zilch counts as 0 points; a six-dice "nothing" (when the rule set pays
    it) is not a zilch and counts as the bonus. ``frozen`` are dice that may
    still complete a triple under pyramiding.
    """
    zilch, average = exact_roll_odds(n, rules, frozen)
    return float(zilch), float(average)


def exact_roll_odds(
    n: int, rules: RuleSet, frozen: Iterable[int] = ()
) -> tuple[Fraction, Fraction]:
    """:func:`roll_odds` as exact fractions."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 6:
        raise InvalidDice(f"odds are for 1 to 6 dice, got {n!r}")
    frozen_counts = counts_of(check_dice(frozen, "frozen dice", most=5, least=0))
    table = scoring_table(rules)
    zilch_ways = 0
    points_sum = 0
    for roll, weight in _weighted_rolls(n):
        options = table.legal(roll, frozen_counts)
        if options:
            points_sum += weight * options[0].points
        elif nothing_bonus_applies(roll, rules, True):
            points_sum += weight * rules.nothing_bonus
        else:
            zilch_ways += weight
    total = 6**n
    return Fraction(zilch_ways, total), Fraction(points_sum, total)


def odds_table(rules: RuleSet) -> list[dict[str, Any]]:
    """The ``odds`` verb's document: one entry per number of dice, 1..6."""
    rows = []
    for n in range(1, 7):
        zilch, average = roll_odds(n, rules)
        rows.append({"dice": n, "zilch_chance": zilch, "average_best": average})
    return rows


def _chance(test: Callable[[tuple[int, ...]], bool]) -> float:
    ways = sum(weight for roll, weight in _weighted_rolls(6) if test(roll))
    return ways / 6**6


def six_dice_shapes() -> dict[str, float]:
    """Chances of the shapes source 004 quotes for a six-dice roll (rule-free)."""

    def shape(roll: tuple[int, ...]) -> list[int]:
        return sorted((c for c in counts_of(roll) if c), reverse=True)

    return {
        "three_or_more_ones": _chance(lambda roll: roll.count(1) >= 3),
        "four_or_more_of_a_kind": _chance(lambda roll: shape(roll)[0] >= 4),
        "straight": _chance(lambda roll: shape(roll) == [1] * 6),
        "three_pairs": _chance(lambda roll: shape(roll) == [2, 2, 2]),
    }
