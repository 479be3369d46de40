"""A solved rule set: long-run points per turn and the value of every turn state.

Values are in points of the solver's objective: the turn total if banked, and
for a zilch the long-run cost of the streak it extends (relative values), so
comparing two choices by value is comparing them by long-run points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from zilch.rules import RuleSet
from zilch.strategy.model import StreakModel
from zilch.strategy.sweep import FloatArray, SweepResult

ON_BOARD = "on_board"
ENTRY = "entry"


class SolutionDataError(ValueError):
    """Stored solver arrays that do not fit the rule set they claim to solve."""


@dataclass(frozen=True, eq=False)
class Solution:
    """The optimal long-run strategy of one rule set (see :func:`zilch.strategy.solve`).

    ``on_board`` holds the sweep for a player on board (one column per streak
    state); ``entry`` the sweep for a player who still needs the entry
    minimum, when the rule set has one. ``streak_values[s]`` is the long-run
    value of streak ``s`` relative to streak 0; ``entry_value`` that of not
    being on board yet.
    """

    rules: RuleSet
    unit: int
    cap: int
    points_per_turn: float
    streak: StreakModel
    streak_values: tuple[float, ...]
    entry_value: float
    on_board: SweepResult
    entry: SweepResult | None
    notes: tuple[str, ...] = ()

    # -- single states ---------------------------------------------------------------

    def _column(self, streak: int, on_board: bool) -> tuple[SweepResult, int]:
        if not on_board and self.entry is not None:
            return self.entry, 0
        return self.on_board, self.streak.index(streak)

    def bank_minimum(self, on_board: bool = True) -> int:
        """The smallest turn total that may be banked in this status."""
        return self.rules.entry_needed(on_board)

    def can_bank(self, total: int, on_board: bool = True) -> bool:
        """Whether a turn total may be banked (points set aside, and the minimum met)."""
        return total > 0 and total >= self.bank_minimum(on_board)

    def zilch_payoff(self, streak: int = 0, on_board: bool = True) -> float:
        """What a zilch is worth in the objective for this streak and status."""
        tables, column = self._column(streak, on_board)
        return float(tables.payoffs[column])

    def _lookup(self, array: FloatArray, total: int, dice: int, column: int) -> float:
        if not 1 <= dice <= 6:
            raise ValueError(f"dice to roll must be 1..6, not {dice}")
        if total < 0:
            raise ValueError(f"a turn total cannot be negative ({total})")
        step = min(total, self.cap) // self.unit
        return float(array[step, dice, column])

    def roll_value(self, total: int, dice: int, streak: int = 0, on_board: bool = True) -> float:
        """Value of rolling ``dice`` dice at turn total ``total`` and playing on optimally.

        Above the solved cap the value is extended along the cap's policy
        (each extra point is kept unless the turn zilches).
        """
        tables, column = self._column(streak, on_board)
        value = self._lookup(tables.roll, total, dice, column)
        if total > self.cap:
            keep = 1.0 - self._lookup(tables.zilch, self.cap, dice, column)
            value += (total - self.cap) * keep
        return value

    def roll_zilch_chance(
        self, total: int, dice: int, streak: int = 0, on_board: bool = True
    ) -> float:
        """Chance the turn ends in a zilch when rolling now and playing on optimally."""
        tables, column = self._column(streak, on_board)
        return self._lookup(tables.zilch, total, dice, column)

    def must_roll(self, total: int, dice_left: int, on_board: bool = True) -> bool:
        """True when banking is not allowed: under the minimum, or a compulsory free roll."""
        if dice_left == 0 and self.rules.free_roll == "compulsory":
            return True
        return not self.can_bank(total, on_board)

    def should_roll(
        self, total: int, dice_left: int, streak: int = 0, on_board: bool = True
    ) -> bool:
        """The optimal decision after a set-aside: roll (True) or bank (False).

        ``dice_left`` 0 means every die has scored (the free roll is six dice).
        """
        if self.must_roll(total, dice_left, on_board):
            return True
        return self.roll_value(total, dice_left or 6, streak, on_board) > total

    def state_value(
        self, total: int, dice_left: int, streak: int = 0, on_board: bool = True
    ) -> float:
        """Value of the state right after a set-aside, with the best of bank and roll."""
        if self.should_roll(total, dice_left, streak, on_board):
            return self.roll_value(total, dice_left or 6, streak, on_board)
        return float(total)

    def turn_value(self, streak: int = 0, on_board: bool = True) -> float:
        """Objective value of a whole turn from its first roll of six."""
        return self.roll_value(0, 6, streak, on_board)

    # -- tables ----------------------------------------------------------------------

    def statuses(self) -> list[tuple[str, bool, int]]:
        """Every (status name, on board, streak) the solution distinguishes."""
        found = [(ON_BOARD, True, s) for s in range(self.streak.states)]
        if self.entry is not None:
            found.append((ENTRY, False, 0))
        return found

    def _bank_flags(self, dice_left: int, streak: int, on_board: bool) -> list[tuple[int, bool]]:
        """(total, bank is optimal) for every bankable total on the grid up to the cap."""
        flags = []
        for step in range(self.cap // self.unit + 1):
            total = step * self.unit
            if self.must_roll(total, dice_left, on_board):
                continue
            flags.append((total, not self.should_roll(total, dice_left, streak, on_board)))
        return flags

    def threshold(self, dice_left: int, streak: int = 0, on_board: bool = True) -> int | None:
        """Smallest total from which banking is optimal at every larger total (None: never)."""
        flags = self._bank_flags(dice_left, streak, on_board)
        found: int | None = None
        for total, bank in reversed(flags):
            if not bank:
                break
            found = total
        return found

    def roll_ranges(
        self, dice_left: int, streak: int = 0, on_board: bool = True
    ) -> list[list[int]]:
        """Bankable totals at which rolling is optimal, as ``[first, last]`` ranges."""
        ranges: list[list[int]] = []
        for total, bank in self._bank_flags(dice_left, streak, on_board):
            if bank:
                continue
            if ranges and ranges[-1][1] == total - self.unit:
                ranges[-1][1] = total
            else:
                ranges.append([total, total])
        return ranges

    def thresholds(self) -> list[dict[str, Any]]:
        """Bank thresholds by status, streak and dice left (``"6"`` is the free roll)."""
        rows = []
        for status, on_board, streak in self.statuses():
            bank_at = {
                str(dice): self.threshold(dice % 6, streak, on_board) for dice in range(1, 7)
            }
            rows.append({"status": status, "streak": streak, "bank_at": bank_at})
        return rows

    def decisions(self) -> list[dict[str, Any]]:
        """Where rolling beats banking, for every status, streak and number of dice."""
        rows = []
        for status, on_board, streak in self.statuses():
            for dice in range(1, 7):
                rows.append(
                    {
                        "status": status,
                        "streak": streak,
                        "dice": dice,
                        "roll_ranges": self.roll_ranges(dice % 6, streak, on_board),
                    }
                )
        return rows

    def summary(self) -> dict[str, Any]:
        """JSON-ready result: points per turn, streak values, thresholds, decisions."""
        return {
            "preset": self.rules.name,
            "house_rules": self.rules.house_rules,
            "points_per_turn": round(self.points_per_turn, 6),
            "turn_value_by_streak": [
                round(self.turn_value(s), 6) for s in range(self.streak.states)
            ],
            "streak_values": [round(v, 6) for v in self.streak_values],
            "entry_value": round(self.entry_value, 6) if self.entry is not None else None,
            "bank_minimum": self.bank_minimum(True),
            "entry_minimum": self.bank_minimum(False) if self.entry is not None else None,
            "grid": {"unit": self.unit, "cap": self.cap},
            "thresholds": self.thresholds(),
            "decisions": self.decisions(),
            "notes": list(self.notes),
        }

    # -- storage ---------------------------------------------------------------------

    def to_arrays(self) -> dict[str, FloatArray]:
        """Every number of the solution as named arrays (for an on-disk cache)."""
        arrays: dict[str, FloatArray] = {
            "scalars": np.array(
                [self.unit, self.cap, self.points_per_turn, self.entry_value], dtype=np.float64
            ),
            "streak_values": np.array(self.streak_values, dtype=np.float64),
            "on_board_roll": self.on_board.roll,
            "on_board_zilch": self.on_board.zilch,
            "on_board_payoffs": self.on_board.payoffs,
        }
        if self.entry is not None:
            arrays["entry_roll"] = self.entry.roll
            arrays["entry_zilch"] = self.entry.zilch
            arrays["entry_payoffs"] = self.entry.payoffs
        return arrays

    @classmethod
    def from_arrays(
        cls,
        rules: RuleSet,
        streak: StreakModel,
        arrays: dict[str, FloatArray],
        notes: tuple[str, ...],
    ) -> Solution:
        """Rebuild from :meth:`to_arrays`; :class:`SolutionDataError` if shapes do not fit."""
        try:
            unit, cap, gain, entry_value = (float(v) for v in arrays["scalars"])
            steps = int(cap) // int(unit) + 1
            on_board = _result(arrays, "on_board", steps, streak.states)
            entry = _result(arrays, "entry", steps, 1) if "entry_roll" in arrays else None
            values = tuple(float(v) for v in arrays["streak_values"])
        except (KeyError, ValueError, TypeError, ZeroDivisionError) as exc:
            raise SolutionDataError(f"stored solution is unusable: {exc}") from None
        if len(values) != streak.states:
            raise SolutionDataError("stored solution has the wrong number of streak states")
        return cls(
            rules, int(unit), int(cap), gain, streak, values, entry_value, on_board, entry, notes
        )


def _result(arrays: dict[str, FloatArray], prefix: str, steps: int, states: int) -> SweepResult:
    roll = np.asarray(arrays[f"{prefix}_roll"], dtype=np.float64)
    zilch = np.asarray(arrays[f"{prefix}_zilch"], dtype=np.float64)
    payoffs = np.asarray(arrays[f"{prefix}_payoffs"], dtype=np.float64)
    shape = (steps, 7, states)
    if roll.shape != shape or zilch.shape != shape or payoffs.shape != (states,):
        raise ValueError(f"{prefix} arrays are {roll.shape}, expected {shape}")
    return SweepResult(roll, zilch, payoffs)
