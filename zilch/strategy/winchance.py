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
from zilch.strategy.winround import TURNS, Place, _row, _start, solve_rows
from zilch.strategy.winsolve import (
    WIN_SOLVER_VERSION,
    Float32Array,
    FloatArray,
    Layout,
    Options,
    RoundEnd,
    WinSolve,
    layout_of,
    tie_value,
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

    Under a final round (``layout.seats`` 2) the first two axes are the mover's
    and the opponent's seat (0 opens the round, 1 closes it), ``round_end`` holds
    the exactly solved rest (:class:`~zilch.strategy.winsolve.RoundEnd`), and each
    turn is placed in its round by a :class:`~zilch.strategy.winround.Place`.
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
    round_end: RoundEnd | None = None

    @classmethod
    def of(cls, solved: WinSolve) -> WinTable:
        """The compact table of a finished solve."""
        end = solved.round_end
        if end is not None:
            end = RoundEnd(end.sure.astype(np.float32), end.first.astype(np.float32), end.opening)
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
            end,
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

    def opening_place(self) -> Place:
        """The place of the game's first turn (final-round rules)."""
        return Place(False, "quiet" if self.rules.announce_from >= 2 else "announced")

    def start_chance(self, me: Side, other: Side, place: Place | None = None) -> float:
        """Chance that ``me``, about to start a turn, beats ``other`` (both playing to win).

        Under a final round ``place`` says where the turn falls (default: the
        opener of a round whose end is announced).
        """
        lay = self.layout
        if self.round_end is not None:
            where, mover, opposing = self._round_situation(me, other, False, place)
            return _start(lay, self.table, self.round_end, mover, opposing, where)
        self._check_instant(me, other, False)
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

    def turn(
        self, me: Side, other: Side, final: bool = False, place: Place | None = None
    ) -> TurnChances:
        """Every state of ``me``'s turn against ``other``, solved exactly from the table.

        On a final turn (``final``, or ``other`` at the target) only getting ahead of
        ``other`` counts; otherwise banking leads to ``other``'s turn at the new scores
        and a zilch to ``other``'s turn at the old ones (after any penalty). Under a
        final round ``final`` means the final round and ``place`` gives the seat.
        """
        return self.turns([(me, other, final)], [place])[0]

    def turns(
        self,
        situations: Sequence[tuple[Side, Side, bool]],
        places: Sequence[Place | None] | None = None,
    ) -> list[TurnChances]:
        """:meth:`turn` for many turn starts at once (one vectorised sweep per batch).

        Each turn comes out as :meth:`turn` gives it alone: columns of different
        lengths end where their own turn does (``turn_values``'s ``ends``).
        """
        where = list(places) if places is not None else [None] * len(situations)
        if len(where) != len(situations):
            raise ValueError(f"{len(where)} places for {len(situations)} situations")
        rows = [
            self._turn_row(me, other, final, place)
            for (me, other, final), place in zip(situations, where, strict=True)
        ]
        compulsory = self.rules.free_roll == "compulsory"
        solved = solve_rows(_options(self.rules), rows, compulsory)
        return [
            TurnChances(self.layout.unit, roll, after, row[0], row[2], compulsory)
            for (roll, after), row in zip(solved, rows, strict=True)
        ]

    def _check_instant(self, me: Side, other: Side, final: bool) -> None:
        """Under ``ending=instant`` a score at the target has won: no turn follows it."""
        if self.rules.ending != "instant":
            return
        target = self.layout.target
        if final:
            raise InvalidSituation(
                f"under {self.rules.name} with ending=instant there is no final turn: the first "
                f"bank that reaches {target:,} wins"
            )
        for side, what in ((me, "the score"), (other, "the opponent's score")):
            if side.score >= target:
                raise InvalidSituation(
                    f"{what} {side.score:,} has reached the target {target:,}: under "
                    "ending=instant that bank won the game, no turn follows"
                )

    def _round_situation(
        self, me: Side, other: Side, final: bool, place: Place | None
    ) -> tuple[Place, tuple[int, int], tuple[int, int]]:
        """A final-round turn checked: its place, and (score, status index) of both sides."""
        rules, lay = self.rules, self.layout
        where = place or Place()
        if final:
            where = Place(where.closes, "final")
        for side, what in ((me, "the score"), (other, "the opponent's score")):
            if side.score < 0 or side.score % lay.unit:
                raise InvalidSituation(
                    f"{what} is a multiple of {lay.unit} and not negative under {rules.name} "
                    f"(got {side.score})"
                )
            if lay.statuses == 2 and side.on_board != (side.score > 0):
                state = "on board" if side.on_board else "not on board"
                raise InvalidSituation(
                    f"under {rules.name} a player is on board exactly when the score is above "
                    f"0 ({what} {side.score:,} and {state})"
                )
        if where.kind == "quiet":
            if rules.announce_from < 2:
                raise InvalidSituation(
                    f"under this {rules.name} game scores are announced from round 1: every "
                    "round but the final one is announced"
                )
            if not where.closes and (me.score or other.score):
                raise InvalidSituation(
                    "round 1's opener plays the game's first turn, at 0 against 0 "
                    f"(got {me.score:,} against {other.score:,})"
                )
            if where.closes and me.score:
                raise InvalidSituation(
                    f"round 1's closer has not played yet: its score is 0 (got {me.score:,})"
                )
        mover = (me.score, self._status(me.on_board))
        return where, mover, (other.score, self._status(other.on_board))

    def _turn_row(
        self, me: Side, other: Side, final: bool, place: Place | None = None
    ) -> tuple[FloatArray, float, int]:
        """One turn's bank values by total, its zilch value and its first bankable total."""
        lay = self.layout
        rules = self.rules
        unit = lay.unit
        if self.round_end is not None:
            where, mover, opposing = self._round_situation(me, other, final, place)
            end = self.round_end
            bank, zilch, bank_from = _row(
                rules, lay, self.table, end.sure, end.first, mover, opposing, where
            )
            return np.asarray(bank, dtype=np.float64), zilch, bank_from
        bank_from = max(1, -(-rules.entry_needed(me.on_board) // unit))
        self._check_instant(me, other, final)
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
            # Totals from the row's end on are banked at its last value: the row covers
            # the tracked reach and every total below the bank minimum.
            steps = max(lay.reach - x, bank_from)
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
            self.opening_place() if self.round_end is not None else None,
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
        end = {}
        if self.round_end is not None:
            end = {
                "sure": self.round_end.sure,
                "first": self.round_end.first,
                "opening": np.array([self.round_end.opening]),
            }
        return {
            **end,
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
        expected = layout_of(rules, floor, margin)
        lay = Layout(unit, floor, target, margin, streaks, statuses, pad, expected.seats)
        states = lay.states
        shape = (states, states, statuses, statuses, lay.scores, lay.scores)
        if lay != expected or table.shape != shape:
            raise WinTableDataError(f"the win table does not fit the rules of {rules.name}")
        if final.ndim != 2 or final.shape[0] != statuses or not np.isfinite(table).all():
            raise WinTableDataError("the win table's last-turn chances do not fit")
        if table.min() < -1e-6 or table.max() > 1 + 1e-6:
            raise WinTableDataError("the win table holds chances outside 0..1")
        end = _round_end(lay, arrays) if lay.seats == 2 else None
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
            end,
        )


def _round_end(lay: Layout, arrays: Mapping[str, Any]) -> RoundEnd:
    """The final-round arrays of :meth:`WinTable.to_arrays`, checked against the layout."""
    try:
        sure = np.asarray(arrays["sure"], dtype=np.float32)
        first = np.asarray(arrays["first"], dtype=np.float32)
        opening = [float(v) for v in np.asarray(arrays["opening"]).tolist()]
    except (KeyError, TypeError, ValueError) as exc:
        raise WinTableDataError(
            f"the win table's final-round arrays are incomplete: {exc}"
        ) from None
    width = 2 * (lay.reach + lay.pad) + 1
    if sure.shape != (TURNS, lay.statuses, lay.statuses, width) or len(opening) != 1:
        raise WinTableDataError("the win table's final-round chances do not fit its rules")
    if first.shape not in ((lay.statuses, lay.scores), (lay.statuses, 0)):
        raise WinTableDataError("the win table's first-round chances do not fit its rules")
    for values in (sure, first, np.array(opening)):
        if not np.isfinite(values).all() or values.min(initial=0.5) < -1e-6:
            raise WinTableDataError("the win table's final-round chances are not chances")
        if values.max(initial=0.5) > 1 + 1e-6:
            raise WinTableDataError("the win table's final-round chances are not chances")
    return RoundEnd(sure, first, opening[0])


_OPTIONS: dict[RuleSet, Options] = {}


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
    if rules.ending != "instant":
        notes.append(
            f"a turn that reaches {layout.target + layout.margin:,} or more banks "
            "(totals that high are almost never reached)"
        )
    if layout.seats == 2:
        lead = (layout.reach + layout.pad) * layout.unit
        notes.append(
            f"two players, both present every round (no late joiner, no skipped turn); "
            f"a lead over {lead:,} counts as {lead:,}"
        )
    return notes
