"""A last turn solved for the chance of winning instead of for points.

On a player's final turn nothing but getting ahead counts, and the long-run
points objective no longer applies: the best play maximises the chance of
banking at least ``goal`` points this turn. The same backward sweep solves
it exactly, with banking worth 1 from the goal up and 0 below it, and a
zilch worth 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zilch.rules import RuleSet
from zilch.strategy.model import roll_table
from zilch.strategy.sweep import FloatArray, TurnModel, grid_size, sweep


@dataclass(frozen=True, eq=False)
class FinalTurn:
    """Chance of banking ``goal`` or more from every state of one last turn."""

    rules: RuleSet
    goal: int
    on_board: bool
    unit: int
    roll: FloatArray  # roll[t, n]: chance of success when rolling n dice at total t * unit

    def can_bank(self, total: int, dice_left: int) -> bool:
        """Whether this total may be banked now (minimum met, no compulsory free roll)."""
        if dice_left == 0 and self.rules.free_roll == "compulsory":
            return False
        return total > 0 and total >= self.rules.entry_needed(self.on_board)

    def roll_chance(self, total: int, dice: int) -> float:
        """Chance of reaching the goal when rolling ``dice`` dice at ``total``."""
        step = min(total // self.unit, self.roll.shape[0] - 1)
        return float(self.roll[step, dice])

    def should_roll(self, total: int, dice_left: int) -> bool:
        """Roll unless this total can be banked and reaches the goal."""
        return not (total >= self.goal and self.can_bank(total, dice_left))

    def chance_after(self, total: int, dice_left: int) -> float:
        """Chance of success right after a set-aside, playing on as well as possible."""
        if not self.should_roll(total, dice_left):
            return 1.0
        return self.roll_chance(total, dice_left or 6)


def solve_final_turn(rules: RuleSet, goal: int, on_board: bool = True) -> FinalTurn:
    """Solve a last turn that needs ``goal`` points (at least one point and the minimum)."""
    table = roll_table(rules)
    unit = table.unit
    goal = max(goal, rules.entry_needed(on_board), 1)
    cap = -(-goal // unit) * unit  # the goal rounded up to the grid
    model = TurnModel(table, rules.entry_needed(on_board), rules.free_roll == "compulsory", cap)
    totals = np.arange(grid_size(model)) * unit
    wins = (totals >= goal).astype(np.float64)
    result = sweep(model, np.zeros(1), bank_values=wins)
    return FinalTurn(rules, goal, on_board, unit, result.roll[:, :, 0])
