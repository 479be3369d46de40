"""The solved two-player win chances of a rule set, and one turn solved from them on demand.

:class:`WinTable` holds the turn-start table of :func:`~zilch.strategy.winsolve.solve_win`
as float32 (a few MB) with the opponent's last-turn chances; the service keeps it on
disk. :meth:`WinTable.turn` solves the turn in progress exactly from it (one column
of the same backward sweep, for the exact zilch payoff), in a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from zilch.rules import RuleSet
from zilch.strategy.model import approximations, has_entry_status, roll_table
from zilch.strategy.view import InvalidSituation
from zilch.strategy.winsolve import (
    WIN_SOLVER_VERSION,
    Float32Array,
    FloatArray,
    Layout,
    Options,
    WinSolve,
    layout_of,
    tie_value,
    turn_values,
    zilch_state,
)


class WinTableDataError(ValueError):
    """Stored win-table arrays that do not fit the rule set they claim to solve."""


@dataclass(frozen=True)
class Side:
    """One player as the win table sees them: banked score, zilch streak, on board."""

    score: int
    streak: int = 0
    on_board: bool = True


@dataclass(frozen=True, eq=False)
class TurnChances:
    """Chances of winning from every state of one turn (see :meth:`WinTable.turn`).

    ``roll[t, n]``: rolling ``n`` dice at turn total ``t`` steps; ``after[t, n]``:
    right after a set-aside that leaves ``n`` dice (6 after hot dice), banking or
    rolling on, whichever is better; ``bank[t]``: banking now.
    """

    unit: int
    roll: FloatArray
    after: FloatArray
    bank: FloatArray
    bank_from: int
    compulsory: bool

    def _step(self, total: int) -> int:
        if total < 0 or total % self.unit:
            raise InvalidSituation(
                f"a turn total is a multiple of {self.unit} and not negative (got {total})"
            )
        return min(total // self.unit, int(self.roll.shape[0]) - 1)

    def can_bank(self, total: int, dice_left: int) -> bool:
        """Whether ``total`` may be banked with ``dice_left`` left (0: all six are back)."""
        if dice_left == 0 and self.compulsory:
            return False
        return total // self.unit >= self.bank_from

    def roll_chance(self, total: int, dice: int) -> float:
        """Chance of winning when rolling ``dice`` dice at ``total``."""
        return float(self.roll[self._step(total), dice])

    def bank_chance(self, total: int) -> float:
        """Chance of winning when banking ``total`` now (allowed or not)."""
        return float(self.bank[self._step(total)])

    def should_roll(self, total: int, dice_left: int) -> bool:
        """Roll on unless banking is allowed and at least as good."""
        if not self.can_bank(total, dice_left):
            return True
        return self.roll_chance(total, dice_left or 6) > self.bank_chance(total)

    def chance_after(self, total: int, dice_left: int) -> float:
        """Chance right after a set-aside that leaves ``dice_left`` dice (0: free roll)."""
        if self.should_roll(total, dice_left):
            return self.roll_chance(total, dice_left or 6)
        return self.bank_chance(total)


@dataclass(frozen=True, eq=False)
class WinTable:
    """Two-player win chances for one rule set, from the start of every turn.

    ``table[a, b, i, j, x, y]`` (float32): chance that the player to move, with
    score index ``x``, streak state ``a`` and status ``i`` (1 = on board, when
    the rules have an entry minimum), beats the opponent (``y``, ``b``, ``j``).
    ``final[j, d]``: chance that a player in status ``j`` on a last turn gets
    ahead of a lead of ``d`` grid steps. ``nodes``, ``passes`` and ``change``
    describe the solve; ``notes`` the rules it leaves out.
    """

    rules: RuleSet
    layout: Layout
    table: Float32Array
    final: Float32Array
    tiebreak: float
    nodes: int
    passes: int
    change: float
    notes: tuple[str, ...] = ()

    @classmethod
    def of(cls, solved: WinSolve) -> WinTable:
        """The compact table of a finished solve."""
        return cls(
            solved.rules,
            solved.layout,
            solved.table.astype(np.float32),
            solved.final.astype(np.float32),
            solved.tiebreak,
            solved.nodes,
            solved.passes,
            solved.change,
            tuple(win_notes(solved.rules, solved.layout)),
        )

    # -- single states ----------------------------------------------------------------

    def _status(self, on_board: bool) -> int:
        return 1 if (on_board and self.layout.statuses == 2) else 0

    def _streak(self, streak: int) -> int:
        if streak < 0:
            raise InvalidSituation(f"a zilch streak cannot be negative (got {streak})")
        return min(streak, self.layout.streaks - 1)

    def _score(self, score: int, what: str) -> int:
        if score % self.layout.unit:
            raise InvalidSituation(f"{what} is a multiple of {self.layout.unit} (got {score})")
        return self.layout.index(score)

    def final_chance(self, deficit: int, on_board: bool = True) -> float:
        """Chance that a player on a last turn gets ahead of a lead of ``deficit`` points."""
        steps = max(0, deficit // self.layout.unit)
        if steps >= self.final.shape[1]:
            return 0.0
        return float(self.final[self._status(on_board), steps])

    def start_chance(self, me: Side, other: Side) -> float:
        """Chance that ``me``, about to start a turn, beats ``other`` (both playing to win)."""
        lay = self.layout
        if other.score >= lay.target:
            return self.final_chance(other.score - me.score, me.on_board)
        if me.score >= lay.target:
            raise InvalidSituation(
                f"a player at {me.score:,} has reached the target {lay.target:,}: the other "
                "player takes the final turn"
            )
        x, y = self._score(me.score, "a score"), self._score(other.score, "a score")
        return float(
            self.table[
                self._streak(me.streak),
                self._streak(other.streak),
                self._status(me.on_board),
                self._status(other.on_board),
                x,
                y,
            ]
        )

    def turn(self, me: Side, other: Side, final: bool = False) -> TurnChances:
        """Every state of ``me``'s turn against ``other``, solved exactly from the table.

        On a final turn (``final``, or ``other`` at the target) only getting ahead of
        ``other`` counts; otherwise banking leads to ``other``'s turn at the new scores
        and a zilch to ``other``'s turn at the old ones (after any penalty).
        """
        return self.turns([(me, other, final)])[0]

    def turns(self, situations: Sequence[tuple[Side, Side, bool]]) -> list[TurnChances]:
        """:meth:`turn` for many turn starts at once (one vectorised sweep per batch).

        Each turn comes out as :meth:`turn` gives it alone: columns of different
        lengths end where their own turn does (``turn_values``'s ``ends``).
        """
        rows = [self._turn_row(me, other, final) for me, other, final in situations]
        order = sorted(range(len(rows)), key=lambda r: len(rows[r][0]))
        found: list[TurnChances | None] = [None] * len(rows)
        options = _options(self.rules)
        compulsory = self.rules.free_roll == "compulsory"
        for at in range(0, len(order), _BATCH):
            chunk = order[at : at + _BATCH]
            ends = np.array([len(rows[r][0]) for r in chunk], dtype=np.intp)
            bank = np.empty((len(chunk), int(ends.max())))
            for c, r in enumerate(chunk):
                values = rows[r][0]
                bank[c, : len(values)] = values
                bank[c, len(values) :] = values[-1]
            zilch = np.array([rows[r][1] for r in chunk])
            bank_from = np.array([rows[r][2] for r in chunk], dtype=np.intp)
            roll, after = turn_values(options, bank, zilch, bank_from, compulsory, ends)
            for c, r in enumerate(chunk):
                n = int(ends[c])
                found[r] = TurnChances(
                    self.layout.unit,
                    np.ascontiguousarray(roll[c, :n]),
                    np.ascontiguousarray(after[c, :n]),
                    rows[r][0],
                    int(bank_from[c]),
                    compulsory,
                )
        return [f for f in found if f is not None]

    def _turn_row(self, me: Side, other: Side, final: bool) -> tuple[FloatArray, float, int]:
        """One turn's bank values by total, its zilch value and its first bankable total."""
        lay = self.layout
        rules = self.rules
        unit = lay.unit
        bank_from = max(1, -(-rules.entry_needed(me.on_board) // unit))
        if final or other.score >= lay.target:
            need = (other.score - me.score) // unit
            steps = max(need, 0) + 2
            totals = np.arange(steps)
            tie = tie_value(rules, self.tiebreak)
            bank = np.where(totals > need, 1.0, np.where(totals == need, tie, 0.0))
            zilch = 1.0 if need < 0 else 0.0
        else:
            x = self._score(me.score, "a score")
            y = self._score(other.score, "a score")
            a, b = self._streak(me.streak), self._streak(other.streak)
            i, j = self._status(me.on_board), self._status(other.on_board)
            steps = lay.reach - x
            reached = x + np.arange(steps)
            inside = reached < lay.scores
            on = lay.statuses - 1
            below = 1.0 - self.table[b, 0, j, on, y, np.minimum(reached, lay.scores - 1)]
            deficit = np.minimum(reached - y, self.final.shape[1] - 1)
            above = 1.0 - self.final[j, np.maximum(deficit, 0)]
            bank = np.where(inside, below, above).astype(np.float64)
            a2, i2, x2 = zilch_state(rules, lay, np.array([a]), i, np.array([x]))
            zilch = 1.0 - float(self.table[b, a2[0], j, i2[0], y, x2[0]])
        return np.asarray(bank, dtype=np.float64), zilch, bank_from

    # -- storage ----------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """Headline figures: the first player's chance at 0-0 and what the solve used."""
        start = self.start_chance(
            Side(0, on_board=not has_entry_status(self.rules)),
            Side(0, on_board=not has_entry_status(self.rules)),
        )
        return {
            "preset": self.rules.name,
            "house_rules": self.rules.house_rules,
            "first_player": round(start, 6),
            "floor": self.layout.floor,
            "margin": self.layout.margin,
            "nodes": self.nodes,
            "passes": self.passes,
            "change": self.change,
            "notes": list(self.notes),
        }

    def to_arrays(self) -> dict[str, Any]:
        """numpy arrays for ``np.savez`` (no pickles)."""
        lay = self.layout
        return {
            "table": self.table,
            "final": self.final,
            "meta": np.array(
                [
                    WIN_SOLVER_VERSION,
                    lay.unit,
                    lay.floor,
                    lay.target,
                    lay.margin,
                    lay.streaks,
                    lay.statuses,
                    lay.pad,
                    self.nodes,
                    self.passes,
                ],
                dtype=np.int64,
            ),
            "numbers": np.array([self.tiebreak, self.change]),
        }

    @classmethod
    def from_arrays(cls, rules: RuleSet, arrays: Mapping[str, Any]) -> WinTable:
        """Rebuild from :meth:`to_arrays`; :class:`WinTableDataError` if they do not fit."""
        try:
            meta = [int(v) for v in np.asarray(arrays["meta"]).tolist()]
            numbers = [float(v) for v in np.asarray(arrays["numbers"]).tolist()]
            table = np.asarray(arrays["table"], dtype=np.float32)
            final = np.asarray(arrays["final"], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise WinTableDataError(f"win table arrays are incomplete: {exc}") from None
        if len(meta) != 10 or len(numbers) != 2 or meta[0] != WIN_SOLVER_VERSION:
            raise WinTableDataError("win table arrays are from another solver version")
        _, unit, floor, target, margin, streaks, statuses, pad, nodes, passes = meta
        lay = Layout(unit, floor, target, margin, streaks, statuses, pad)
        expected = layout_of(rules, floor, margin)
        shape = (streaks, streaks, statuses, statuses, lay.scores, lay.scores)
        if lay != expected or table.shape != shape:
            raise WinTableDataError(f"the win table does not fit the rules of {rules.name}")
        if final.ndim != 2 or final.shape[0] != statuses or not np.isfinite(table).all():
            raise WinTableDataError("the win table's last-turn chances do not fit")
        if table.min() < -1e-6 or table.max() > 1 + 1e-6:
            raise WinTableDataError("the win table holds chances outside 0..1")
        return cls(
            rules,
            lay,
            table,
            final,
            numbers[0],
            nodes,
            passes,
            numbers[1],
            tuple(win_notes(rules, lay)),
        )


_OPTIONS: dict[RuleSet, Options] = {}
_BATCH = 256
"""Turns solved in one sweep by :meth:`WinTable.turns` (bounded memory: ~250 MB)."""


def _options(rules: RuleSet) -> Options:
    found = _OPTIONS.get(rules)
    if found is None:
        found = _OPTIONS[rules] = Options.of(roll_table(rules))
    return found


def win_notes(rules: RuleSet, layout: Layout) -> list[str]:
    """What the two-player win solve approximates for these rules, one sentence each."""
    notes = list(approximations(rules))
    notes = [n for n in notes if not n.startswith("penalties are counted in full")]
    notes = [n for n in notes if not n.startswith("once on board")]
    if layout.floor < 0:
        notes.append(
            f"scores below {layout.floor:,} are counted as {layout.floor:,} "
            "(only a long run of penalties gets there)"
        )
    notes.append(
        f"a turn that reaches {layout.target + layout.margin:,} or more banks "
        "(totals that high are almost never reached)"
    )
    return notes
