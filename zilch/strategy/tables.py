"""Exact roll tables: every multiset of n dice, its chance and its set-aside options.

The solver, the odds preview and the bots all work from these tables, built
once per rule set from the rules engine's checked :func:`zilch.legal_set_asides`
(the fast path reads the tables, it never scores dice itself).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations_with_replacement
from math import factorial

Option = tuple[int, int]
"""A set-aside seen by the solver: (dice used, points)."""

OptionsFor = Callable[[tuple[int, ...]], Sequence[Option]]
"""Legal set-asides of a sorted roll as (dice used, points) pairs; empty for a zilch."""

FACES = (1, 2, 3, 4, 5, 6)


def multiset_chance(dice: Sequence[int]) -> Fraction:
    """Exact chance that ``len(dice)`` fair dice show this multiset of values."""
    chance = Fraction(factorial(len(dice)), 6 ** len(dice))
    for count in Counter(dice).values():
        chance /= factorial(count)
    return chance


def all_rolls(n: int) -> list[tuple[int, ...]]:
    """Every sorted roll of ``n`` dice (6 for one die, 462 for six)."""
    return list(combinations_with_replacement(FACES, n))


@dataclass(frozen=True)
class Profile:
    """Rolls sharing the same useful options, merged: their total chance and the options.

    ``options`` keeps, for each number of dice used, only the highest points:
    a larger turn total is never worse, so lower-scoring set-asides of the same
    size are never the better choice.
    """

    chance: float
    options: tuple[Option, ...]


@dataclass(frozen=True)
class DiceTable:
    """What a roll of ``n`` dice can bring: zilch chance, best average, merged profiles."""

    n: int
    zilch_chance: float
    average_best: float
    profiles: tuple[Profile, ...]


@dataclass(frozen=True)
class RollTable:
    """Tables for 1..6 dice (``table.dice[n]``), plus the points grid of the rule set."""

    dice: dict[int, DiceTable]
    unit: int
    max_points: int


def _best_per_size(options: Sequence[Option]) -> tuple[Option, ...]:
    best: dict[int, int] = {}
    for used, points in options:
        if points > best.get(used, -1):
            best[used] = points
    return tuple(sorted(best.items()))


def build_roll_table(options_for: OptionsFor) -> RollTable:
    """Enumerate every roll of 1..6 dice through ``options_for`` and merge equal profiles."""
    dice: dict[int, DiceTable] = {}
    unit = 0
    max_points = 0
    for n in range(1, 7):
        merged: dict[tuple[Option, ...], Fraction] = {}
        zilch = Fraction(0)
        average = Fraction(0)
        for roll in all_rolls(n):
            chance = multiset_chance(roll)
            options = _best_per_size(options_for(roll))
            if not options:
                zilch += chance
                continue
            average += chance * max(points for _, points in options)
            merged[options] = merged.get(options, Fraction(0)) + chance
            for _, points in options:
                unit = _gcd(unit, points)
                max_points = max(max_points, points)
        profiles = tuple(Profile(float(c), opts) for opts, c in sorted(merged.items()))
        dice[n] = DiceTable(n, float(zilch), float(average), profiles)
    return RollTable(dice, unit or 50, max_points)


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return abs(a)
