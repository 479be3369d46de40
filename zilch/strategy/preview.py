"""Source 004's preview line: the zilch chance and average best points of the next roll.

Exact enumeration of every roll of the dice to be thrown, under any rule set;
with pyramiding, the dice frozen earlier in the turn take part in the scoring.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, runtime_checkable

from zilch.errors import InvalidDice
from zilch.rules import RuleSet
from zilch.scoring import legal_set_asides
from zilch.strategy.model import roll_table, set_aside_options
from zilch.strategy.tables import all_rolls, multiset_chance
from zilch.strategy.view import StateLike, TurnLike


@dataclass(frozen=True)
class Preview:
    """The next roll: how many dice, the chance it zilches, its average best points."""

    dice: int
    zilch_chance: float
    average_best: float

    def to_json(self) -> dict[str, float | int]:
        """``{"dice": n, "zilch_chance": p, "average_best": x}``."""
        return {
            "dice": self.dice,
            "zilch_chance": self.zilch_chance,
            "average_best": self.average_best,
        }


def preview_dice(dice: int, rules: RuleSet, frozen: tuple[int, ...] = ()) -> Preview:
    """Exact odds of a roll of ``dice`` fresh dice (``frozen``: earlier set-asides)."""
    if not 1 <= dice <= 6:
        raise InvalidDice(f"a roll has 1 to 6 dice, not {dice}")
    if not (rules.pyramiding and frozen):
        odds = roll_table(rules).dice[dice]
        return Preview(dice, odds.zilch_chance, odds.average_best)
    zilch = Fraction(0)
    average = Fraction(0)
    for roll in all_rolls(dice):
        chance = multiset_chance(roll)
        options = legal_set_asides(roll, rules, frozen)
        if options:
            average += chance * max(o.points for o in options)
        elif set_aside_options(roll, rules):
            average += chance * rules.nothing_bonus
        else:
            zilch += chance
    return Preview(dice, float(zilch), float(average))


def next_roll_dice(turn: TurnLike) -> int:
    """Dice the next roll of this turn throws: the dice left, or six for a free roll."""
    return turn.dice_left if 1 <= turn.dice_left <= 6 else 6


@runtime_checkable
class _HasTurn(Protocol):
    @property
    def turn(self) -> TurnLike: ...


def preview(state: StateLike | TurnLike, rules: RuleSet) -> dict[str, float | int]:
    """``{"dice", "zilch_chance", "average_best"}`` for the next roll of the current turn.

    Accepts a game state or its turn. The next roll is the dice left to
    throw (six at the start of a turn and after a free roll).
    """
    turn = state.turn if isinstance(state, _HasTurn) else state
    return preview_dice(next_roll_dice(turn), rules, turn.pyramid).to_json()
