"""Source 004's preview line: the zilch chance and average best points of the next roll.

Exact enumeration of every roll of the dice to be thrown, under any rule set;
with pyramiding, the dice frozen earlier in the turn take part in the scoring.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol, runtime_checkable

from zilch.errors import InvalidDice
from zilch.rules import RuleSet
from zilch.scoring import best_set_aside, legal_set_asides
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


def next_roll_dice(turn: TurnLike, rules: RuleSet) -> int:
    """Dice the next roll of this turn throws.

    Between rolls: the dice left (six at the start and after a free roll).
    With a roll waiting for its set-aside: the dice left after the best one
    (the highest-scoring, fewest dice on a tie), six if it uses them all.
    """
    if turn.roll:
        best = best_set_aside(turn.roll, rules, turn.pyramid)
        if best is None:
            return len(turn.roll)
        return len(turn.roll) - len(best.dice) or 6
    return turn.dice_left if 1 <= turn.dice_left <= 6 else 6


@runtime_checkable
class _HasTurn(Protocol):
    @property
    def turn(self) -> TurnLike: ...


def preview(state: StateLike | TurnLike, rules: RuleSet) -> dict[str, Any]:
    """Source 004's preview line for the current turn of a game state (or a turn).

    ``{"dice", "zilch_chance", "average_best", "best"}``: the exact odds of
    the next roll (see :func:`next_roll_dice`) and, with a roll waiting, its
    best set-aside as ``{"dice": [..], "points": P}`` (else None).
    """
    turn = state.turn if isinstance(state, _HasTurn) else state
    line: dict[str, Any] = dict(
        preview_dice(next_roll_dice(turn, rules), rules, turn.pyramid).to_json()
    )
    best = best_set_aside(turn.roll, rules, turn.pyramid) if turn.roll else None
    line["best"] = best.to_json() if best is not None else None
    return line
