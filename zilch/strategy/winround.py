"""The two-player win solve of a game that ends with a final round (the club preset).

Under ``ending=final_round`` (source 002 as RULES.md settles it) the scores are
announced after round ``announce_from`` (1 or 2) and after every later round; if
a player is then at or above the target, the next round is the final round:
everyone plays it, the opener first, and the highest total after it wins, equal
totals sharing the win (1/2 each). With two players in a fixed order (the
opener and the closer of every round) a turn start is one of:

- **announced** round, both scores below the target: the turn-start table
  ``table[seat, other seat, i, j, x, y]`` (seat 0: the mover opens the round,
  1: closes it), solved by the level-ordered sweeps of :mod:`.winsolve`. An
  opener's bank below the target leads to the closer's turn; a closer's bank
  below the target closes the round with nobody at the target, so the opener
  starts the next one. A zilch passes the turn at the same scores (no penalty),
  the two-state cycle the solve iterates at its level.
- **certain end**: once a score is at or above the target, the game ends after
  a known number of turns ``k`` (this one included): 5 for round 1's closer
  when announcements start after round 2, 4 for round 2's opener, 3 for the
  closer of an announced round, 2 for the final round's opener and 1 for its
  closer. Nothing then depends on the scores but their difference and both
  statuses, so ``sure[k - 1, i, j, D + d]`` holds every such state for a lead of
  ``d`` steps; each is one turn solved exactly (a bank is worth the opponent's
  ``k - 1`` state at the new lead, a zilch at the old one). This is where
  scores past the target stay exact until the round closes: a bank past the
  target is never folded into a win or a loss, it is played out to the end.
- **quiet** round 1 (when announcements start after round 2): the game's first
  turn at 0-0 and the closer's first turn at 0 against the opener's first bank,
  solved exactly from the table and ``sure`` (``first[j, y]``, ``opening``).

The final round's closer is a last turn: getting strictly ahead wins, drawing
level (a zilch from level, or a bank that draws level) shares the win.

Left out, as in the final-turn solve: forgiveness (club's once-per-game re-roll
of a first-roll zilch), late joiners and skipped turns (a two-player game with
both players present). Leads beyond ``D`` steps count as ``D`` steps.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from zilch.rules import RuleSet
from zilch.strategy.model import roll_table
from zilch.strategy.winsolve import (
    Chances,
    FloatArray,
    IntArray,
    Layout,
    Options,
    RoundEnd,
    WinSolve,
    _Solver,
    register_solver,
    turn_values,
)

RoundKind = Literal["quiet", "announced", "final"]
"""A round whose end is not announced (before ``announce_from``), one whose end is, the final."""

TURNS = 5
"""The most turns left once the end is certain: round 1's closer with the opener at the target."""

_BATCH = 256
"""Turns solved in one sweep (bounded memory)."""


@dataclass(frozen=True)
class Place:
    """Where a turn of a final-round game falls: the mover's seat and the kind of round.

    ``closes``: the mover plays last in the round (with two players, the second in
    the playing order); ``kind``: ``quiet`` before the scores are first announced,
    ``announced`` for a round whose end is announced, ``final`` for the final round.
    """

    closes: bool = False
    kind: RoundKind = "announced"


def place_of(rules: RuleSet, round_number: int, closes: bool, final: bool) -> Place:
    """The place of a turn in round ``round_number`` (0: not given, an announced round)."""
    if final:
        return Place(closes, "final")
    quiet = 1 <= round_number < rules.announce_from
    return Place(closes, "quiet" if quiet else "announced")


def turns_left(place: Place, target: int, score: int, other: int) -> int | None:
    """Turns until the game ends, this one included, once that is certain; else None.

    The end is certain in the final round, and once a score is at or above the
    target (scores never fall without a zilch penalty, so the next announcement
    starts the final round).
    """
    if place.kind == "final":
        return 1 if place.closes else 2
    if max(score, other) < target:
        return None
    if place.kind == "announced":
        return 3 if place.closes else 4
    return 5 if place.closes else 6


def _minimum(rules: RuleSet, layout: Layout, status: int) -> int:
    """Grid steps a mover in status index ``status`` needs to bank (at least one)."""
    on_board = status == 1 or layout.statuses == 1
    return max(1, -(-rules.entry_needed(on_board) // layout.unit))


def solve_rows(
    options: Options,
    rows: Sequence[tuple[FloatArray, float, int]],
    compulsory: bool,
) -> list[tuple[FloatArray, FloatArray]]:
    """Solve turns given as (bank values by total, zilch value, first bankable total).

    Returns each turn's ``(roll, after)`` arrays (:func:`turn_values`), the turns of a
    batch of different lengths each ending where its own does.
    """
    order = sorted(range(len(rows)), key=lambda r: len(rows[r][0]))
    found: list[tuple[FloatArray, FloatArray] | None] = [None] * len(rows)
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
            found[r] = (np.ascontiguousarray(roll[c, :n]), np.ascontiguousarray(after[c, :n]))
    return [f for f in found if f is not None]


def _level_value(lead: IntArray) -> FloatArray:
    """The game over: a win ahead, a shared win level, a loss behind."""
    return np.where(lead > 0, 1.0, np.where(lead == 0, 0.5, 0.0))


def sure_chances(options: Options, rules: RuleSet, layout: Layout) -> FloatArray:
    """``sure[k - 1, i, j, D + d]`` for ``k`` = 1..:data:`TURNS` turns left (module docstring).

    ``D`` is ``layout.reach + layout.pad`` steps: every lead a bank past the target
    can make.
    """
    half = layout.reach + layout.pad
    lead = np.arange(-half, half + 1)
    statuses = layout.statuses
    on = statuses - 1
    steps = np.arange(2 * half + 2)
    compulsory = rules.free_roll == "compulsory"
    sure = np.empty((TURNS, statuses, statuses, 2 * half + 1))
    # ended[j, i, D + e]: the opponent's value when the turn passes to them at lead e.
    ended = np.broadcast_to(_level_value(lead), (statuses, statuses, len(lead)))
    for k in range(1, TURNS + 1):
        rows: list[tuple[FloatArray, float, int]] = []
        for i in range(statuses):
            for j in range(statuses):
                reached = np.clip(-(lead[:, None] + steps[None, :]), -half, half) + half
                bank = 1.0 - ended[j, on][reached]
                zilch = 1.0 - ended[j, i][np.clip(-lead, -half, half) + half]
                ends = np.clip(half - lead, 0, None) + 2
                minimum = _minimum(rules, layout, i)
                rows.extend(
                    (bank[d, : ends[d]], float(zilch[d]), minimum) for d in range(len(lead))
                )
        solved = solve_rows(options, rows, compulsory)
        starts = np.array([roll[0, 6] for roll, _ in solved])
        sure[k - 1] = starts.reshape(statuses, statuses, len(lead))
        ended = sure[k - 1]
    return sure


def _row(
    rules: RuleSet,
    layout: Layout,
    table: Chances,
    sure: Chances,
    first: Chances | None,
    mover: tuple[int, int],
    other: tuple[int, int],
    place: Place,
) -> tuple[FloatArray, float, int]:
    """One turn's bank values by total (grid steps), zilch value and first bankable total.

    ``mover`` and ``other`` are (score, status index); scores are multiples of the
    unit, not negative. ``first`` is needed only for the game's first turn.
    """
    unit = layout.unit
    (score, i), (opposing, j) = mover, other
    on = layout.statuses - 1
    half = (sure.shape[-1] - 1) // 2
    minimum = _minimum(rules, layout, i)
    k = turns_left(place, layout.target, score, opposing)
    if k is not None:
        d = (score - opposing) // unit
        reached = d + np.arange(max(half - d, 0) + 2)
        before = np.clip(-reached, -half, half)
        now = int(np.clip(-d, -half, half))
        if k == 1:
            return 1.0 - _level_value(before), float(1.0 - _level_value(np.array(now))), minimum
        after = sure[k - 2]
        return 1.0 - after[j, on, before + half], float(1.0 - after[j, i, now + half]), minimum
    x, y = score // unit, opposing // unit
    reached = x + np.arange(layout.reach - x)
    inside = reached < layout.scores
    r = np.minimum(reached, layout.scores - 1)
    lead = np.clip(y - reached, -half, half) + half
    if place.kind == "quiet" and not place.closes:  # the game's first turn
        if first is None:
            raise ValueError("the first round's chances are needed for the game's first turn")
        below = 1.0 - first[on, r]
        above = 1.0 - sure[4, j, on, lead]
        zilch = 1.0 - float(first[i, x])
    else:
        seats = (0, 1) if place.closes else (1, 0)  # whose turn follows: its seat axes
        below = 1.0 - table[seats[0], seats[1], j, on, y, r]
        # At or past the target: the closer then has 3 turns left (the mover opened),
        # or round 2 and the final round follow (round 1's closer), or the final round.
        left = 3 if not place.closes else (4 if place.kind == "quiet" else 2)
        above = 1.0 - sure[left - 1, j, on, lead]
        zilch = 1.0 - float(table[seats[0], seats[1], j, i, y, x])
    return np.where(inside, below, above), zilch, minimum


def _start(
    layout: Layout,
    table: Chances,
    end: RoundEnd,
    mover: tuple[int, int],
    other: tuple[int, int],
    place: Place,
) -> float:
    """Chance that the mover wins from the start of its turn (scores checked by the caller)."""
    (score, i), (opposing, j) = mover, other
    k = turns_left(place, layout.target, score, opposing)
    if k is not None:
        half = (end.sure.shape[-1] - 1) // 2
        d = int(np.clip((score - opposing) // layout.unit, -half, half))
        return float(end.sure[k - 1, i, j, d + half])
    if place.kind == "quiet":
        return end.opening if not place.closes else float(end.first[j, opposing // layout.unit])
    seat = 1 if place.closes else 0
    return float(table[seat, 1 - seat, i, j, score // layout.unit, opposing // layout.unit])


class RoundSolver(_Solver):
    """:class:`~zilch.strategy.winsolve._Solver` with seats in place of streak states.

    The table's first two axes are the mover's and the opponent's seat (a pair of
    equal seats is not a state of the game and stays at its starting 1/2). Banks
    at or past the target read the certain-end states; the first round is solved
    last, exactly.
    """

    def __init__(
        self,
        rules: RuleSet,
        layout: Layout,
        nodes: int,
        tolerance: float,
        max_passes: int,
        coarse: int,
        switch: float,
    ) -> None:
        self.sure = sure_chances(Options.of(roll_table(rules)), rules, layout)
        super().__init__(rules, layout, nodes, tolerance, max_passes, coarse, switch)

    def beyond(self, y: IntArray, b: IntArray, j: IntArray, reached: IntArray) -> FloatArray:
        """A bank at or past the target: the closer then has 3 turns left (the mover
        opened), or the final round starts with the opener (the mover closed)."""
        lay = self.layout
        half = (self.sure.shape[-1] - 1) // 2
        k = np.where(b == 1, 3, 2)
        lead = np.clip(y[:, None] - reached[None, :], -half, half) + half
        on = lay.statuses - 1
        return np.asarray(1.0 - self.sure[k[:, None] - 1, j[:, None], on, lead])

    def state_pairs(self) -> list[list[tuple[int, int]]]:
        """The opener's and the closer's turns of a level, solved together (the zilch cycle)."""
        return [[(0, 1), (1, 0)]]

    def banked(self, b: IntArray) -> IntArray:
        """Seats do not change: the mover keeps the seat the opponent does not have."""
        return np.asarray(1 - b)

    def zilch_target(
        self, a: IntArray, b: IntArray, i: int, j: IntArray, x: IntArray, y: IntArray
    ) -> FloatArray:
        """After a zilch the opponent moves at the same scores (no penalty under a final round)."""
        return np.asarray(self.table[b, a, j, i, y, x])

    def run(self) -> WinSolve:
        solved = super().run()
        return dataclasses.replace(solved, round_end=self.first_round(solved.table))

    def first_round(self, table: FloatArray) -> RoundEnd:
        """Round 1's turns when its scores are not announced (``announce_from`` 2)."""
        lay, rules = self.layout, self.rules
        compulsory = rules.free_roll == "compulsory"
        off = 0  # status index of a player who has not banked (on board without an entry rule)
        if rules.announce_from < 2:
            empty = np.zeros((lay.statuses, 0))
            opening = float(table[0, 1, off, off, 0, 0])
            return RoundEnd(self.sure, empty, opening)
        closer = Place(True, "quiet")
        rows = [
            _row(rules, lay, table, self.sure, None, (0, off), (y * lay.unit, j), closer)
            for j in range(lay.statuses)
            for y in range(lay.scores)
        ]
        solved = solve_rows(self.options, rows, compulsory)
        first = np.array([roll[0, 6] for roll, _ in solved]).reshape(lay.statuses, lay.scores)
        row = _row(rules, lay, table, self.sure, first, (0, off), (0, off), Place(False, "quiet"))
        ((roll, _),) = solve_rows(self.options, [row], compulsory)
        return RoundEnd(self.sure, first, float(roll[0, 6]))


register_solver("final_round", RoundSolver)
