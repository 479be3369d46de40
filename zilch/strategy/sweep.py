"""One backward sweep over turn totals: the optimal value of every turn state.

A turn state is (turn total, dice to roll). Every set-aside adds points, so a
state only leads to states with a larger total: sweeping totals from the cap
down to zero solves the turn exactly. The sweep is vectorised over the rolls
and options of each total with numpy, and over several zilch payoffs at once
(one per zilch-streak state), so the long-run solver pays one sweep for all
streaks.

Row ``k`` of the arrays (1..5) is "k dice left after a set-aside"; row 6 is
"all dice used" (the free roll). The bank payoff is the turn total; the zilch
payoff ``c`` is supplied by the caller (0 for plain expected points, or a
relative value that accounts for the zilch streak).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from zilch.strategy.tables import RollTable

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class TurnModel:
    """The turn as the solver sees it: roll tables, bank minimum, free-roll rule, cap.

    ``cap`` bounds the turn totals the sweep tracks; above it the player is
    assumed to bank (a total that high is practically never reached).
    """

    table: RollTable
    bank_min: int
    compulsory_free_roll: bool
    cap: int

    @property
    def unit(self) -> int:
        """Grid step in points: every score of the rule set is a multiple of it."""
        return self.table.unit

    @property
    def steps(self) -> int:
        """Number of grid totals swept (0 .. cap)."""
        return self.cap // self.unit + 1


@dataclass(frozen=True)
class SweepResult:
    """Values of rolling from each state, for each zilch payoff (last axis).

    ``roll[t, n, s]``: objective value of rolling ``n`` dice at total ``t*unit``;
    ``zilch[t, n, s]``: chance that the turn ends in a zilch from there, when
    played optimally. ``n`` runs 1..6 (index 0 unused).
    """

    roll: FloatArray
    zilch: FloatArray
    payoffs: FloatArray


@dataclass(frozen=True)
class _Flat:
    """The roll tables flattened for gathers: one entry per (profile, option)."""

    next_row: npt.NDArray[np.intp]
    step: npt.NDArray[np.intp]
    segment_starts: npt.NDArray[np.intp]
    profile_chance: FloatArray
    dice_starts: npt.NDArray[np.intp]
    zilch_chance: FloatArray


def _flatten(table: RollTable) -> _Flat:
    next_row: list[int] = []
    step: list[int] = []
    starts: list[int] = []
    chance: list[float] = []
    dice_starts: list[int] = []
    zilch = np.zeros(7)
    for n in range(1, 7):
        dice_starts.append(len(chance))
        zilch[n] = table.dice[n].zilch_chance
        for profile in table.dice[n].profiles:
            starts.append(len(next_row))
            chance.append(profile.chance)
            for used, points in profile.options:
                left = n - used
                next_row.append(left if left > 0 else 6)
                step.append(points // table.unit)
    return _Flat(
        np.array(next_row, dtype=np.intp),
        np.array(step, dtype=np.intp),
        np.array(starts, dtype=np.intp),
        np.array(chance),
        np.array(dice_starts, dtype=np.intp),
        zilch,
    )


def grid_size(model: TurnModel) -> int:
    """Totals a sweep holds: the grid up to the cap plus the largest single set-aside."""
    return model.steps + model.table.max_points // model.unit + 1


def sweep(
    model: TurnModel, payoffs: FloatArray, bank_values: FloatArray | None = None
) -> SweepResult:
    """Solve the turn for each zilch payoff in ``payoffs`` (shape ``(S,)``).

    Banking pays the turn total, or ``bank_values[t]`` for the total
    ``t * unit`` when given (length :func:`grid_size`; e.g. 1 for a total that
    wins the game and 0 otherwise, to solve for the chance of winning).
    """
    payoffs = np.asarray(payoffs, dtype=np.float64)
    flat = _flatten(model.table)
    top = model.steps - 1
    size = grid_size(model)
    states = payoffs.shape[0]
    totals = np.arange(size, dtype=np.float64) * model.unit
    bankable = (totals >= model.bank_min) & (totals > 0)
    if bank_values is not None:
        if bank_values.shape != (size,):
            raise ValueError(f"bank_values has shape {bank_values.shape}, expected ({size},)")
        totals = np.asarray(bank_values, dtype=np.float64)

    # after[t * 7 + k]: value (first S columns) and zilch chance (last S) of the
    # state after a set-aside with k dice left (6: free roll); beyond the cap: bank.
    after = np.zeros((size * 7, 2 * states))
    after[:, :states] = np.repeat(totals, 7)[:, None]
    roll = np.zeros((model.steps, 7, states))
    zilch = np.zeros((model.steps, 7, states))
    segment = np.repeat(
        np.arange(len(flat.segment_starts)),
        np.diff(np.append(flat.segment_starts, len(flat.next_row))),
    )
    # chances[n - 1, profile]: chance of each merged profile in a roll of n dice.
    chances = np.zeros((6, len(flat.profile_chance)))
    bounds = np.append(flat.dice_starts, len(flat.profile_chance))
    for n in range(6):
        chances[n, bounds[n] : bounds[n + 1]] = flat.profile_chance[bounds[n] : bounds[n + 1]]
    constant = flat.zilch_chance[1:, None] * np.concatenate((payoffs, np.ones(states)))[None, :]
    base = flat.step * 7 + flat.next_row

    for t in range(top, -1, -1):
        gathered = after.take(base + t * 7, axis=0)
        values = gathered[:, :states]
        best = np.maximum.reduceat(values, flat.segment_starts, axis=0)
        ties = values >= best.take(segment, axis=0)
        chosen_end = np.maximum.reduceat(
            np.where(ties, gathered[:, states:], -1.0), flat.segment_starts, axis=0
        )
        out = chances @ np.concatenate((best, chosen_end), axis=1) + constant
        roll_t, end_t = out[:, :states], out[:, states:]
        roll[t, 1:] = roll_t
        zilch[t, 1:] = end_t
        rows = after[t * 7 + 1 : t * 7 + 7]
        if bankable[t]:
            bank = totals[t]
            keep_rolling = roll_t > bank
            rows[:, :states] = np.where(keep_rolling, roll_t, bank)
            rows[:, states:] = np.where(keep_rolling, end_t, 0.0)
            if model.compulsory_free_roll:
                rows[5] = out[5]
        else:
            rows[:] = out
    return SweepResult(roll, zilch, payoffs)
