"""Two-player Zilch solved for the chance of winning: both players maximise their own.

The method follows Neller and Presser's value iteration for Pig (2004) and
M. Busche's extension of it to Farkle ("Maximizing Win Probability in the Game
of Farkle", 2016; Busche and Neller, "Optimal Play of the Farkle Dice Game",
ACG 2017): the value of a game state is the chance that the player to move
wins, a turn is solved by a backward sweep over its turn totals with a bank
worth one minus the opponent's value at the new scores and a zilch worth one
minus the opponent's value at the old ones, and the game graph is iterated
until the values stop moving.

A turn-start state is (mover's score, opponent's score, both zilch-streak
states, both on-board statuses where the rule set has an entry minimum).
Banked scores lie on the 50-point grid from a floor up to the target; a bank
that reaches the target ends the mover's part of the game and is valued by
the opponent's exactly solved last turn (:func:`final_chances`), or under
``ending=instant`` wins at once (:class:`InstantSolver`).

How the solve is organised (the "level" order and the shared turn sweeps):

- Every bank raises the sum of the two scores, and a zilch without a penalty
  keeps it and raises the zilcher's streak; so processing score sums from the
  top down, and within one sum the streak sums from the top down, meets each
  state after everything it leads to, except a zilch penalty (a lower sum),
  which reads the previous pass's value. Passes repeat until no value moves
  by more than ``tolerance``. Without a penalty (one streak state) a zilch
  leads back to the same two scores with the players swapped; that two-state
  cycle is solved by iterating it at its level.
- The turns of all movers facing the same opponent (score, streak, status)
  share their bank values, which depend only on the mover's new score. They
  share one sweep over the absolute score reached, vectorised with numpy over
  every opponent at once and over ``nodes`` values of the zilch payoff (the
  one thing that differs between the movers), spread evenly over the payoffs
  the movers of that sweep had in the previous pass. A mover's value after
  its first bankable set-aside is read between the two nearest nodes by linear
  interpolation. The value is convex and piecewise linear in the payoff, so
  the chord overstates it, by up to the slope's jump at a kink (where the
  best play changes) times the node spacing: with 6 nodes the full dicenow
  table said 53.67% at 0-0 where the same turn solved exactly from it said
  53.03%. The solve uses 24 nodes by default, after cheap 6-node passes that
  bring the values within ``switch`` of the fixed point; the error left falls
  as 1/nodes (docs/strategy.md measures it: about 0.1 to 0.2 points at 0-0
  at full size with 24 nodes).
- The first turn totals below the bank minimum cannot be banked and depend on
  where the turn started; they are solved per mover with its exact payoff.

The within-turn values of one state are solved on demand from the table
(:func:`zilch.strategy.winchance.WinTable.turn`), exactly for its payoff.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from zilch.errors import ZilchError
from zilch.rules import Ending, RuleSet
from zilch.strategy.model import has_entry_status, roll_table, streak_model
from zilch.strategy.sweep import _flatten
from zilch.strategy.tables import RollTable

FloatArray = npt.NDArray[np.float64]
Float32Array = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.intp]
Chances = FloatArray | Float32Array
"""Chances in either precision (the solve works in float64, a stored table is float32)."""

WIN_SOLVER_VERSION = 2
"""Changes whenever a win solve of the same rules could give different numbers."""


class WinSolveError(ZilchError, ValueError):
    """A rule set or setting the two-player win solve cannot handle."""


Groups = tuple[tuple[IntArray, IntArray], ...]
"""Profiles grouped by their number of options: (profile indices, option indices [p, c])."""


def group_segments(segments: IntArray, total: int) -> Groups:
    """Group profiles (given by the start of their options) by how many options they have.

    A profile's best option is then a ``max`` over a short fixed axis, which numpy does
    much faster than ``maximum.reduceat`` over ragged segments.
    """
    sizes = np.diff(np.append(segments, total))
    groups = []
    for size in sorted(set(sizes.tolist())):
        profiles = np.flatnonzero(sizes == size)
        options = segments[profiles][:, None] + np.arange(size)[None, :]
        groups.append((profiles.astype(np.intp), options.astype(np.intp)))
    return tuple(groups)


def best_options(flat: FloatArray, rows: IntArray, groups: Groups, profiles: int) -> FloatArray:
    """Each profile's best value: ``max`` of ``flat[rows[option]]`` over its options."""
    best = np.empty((profiles, *rows.shape[1:], *flat.shape[1:]))
    for profile, option in groups:
        best[profile] = flat[rows[option]].max(axis=1)
    return best


@dataclass(frozen=True)
class Options:
    """The roll tables flattened for numpy gathers (one entry per profile option)."""

    next_dice: IntArray  # dice to roll after the option (6 after hot dice)
    step: IntArray  # points of the option in grid steps
    segments: IntArray  # start of each profile's options
    chances: FloatArray  # chances[n - 1, profile]: chance of the profile on n dice
    zilch: FloatArray  # zilch[n]: zilch chance of n dice (index 0 unused)
    unit: int
    max_step: int
    groups: Groups

    @property
    def profiles(self) -> int:
        return len(self.segments)

    @classmethod
    def of(cls, table: RollTable) -> Options:
        flat = _flatten(table)
        profiles = len(flat.profile_chance)
        chances = np.zeros((6, profiles))
        bounds = np.append(flat.dice_starts, profiles)
        for n in range(6):
            chances[n, bounds[n] : bounds[n + 1]] = flat.profile_chance[bounds[n] : bounds[n + 1]]
        return cls(
            flat.next_row,
            flat.step,
            flat.segment_starts,
            chances,
            flat.zilch_chance,
            table.unit,
            table.max_points // table.unit,
            group_segments(flat.segment_starts, len(flat.step)),
        )


@dataclass(frozen=True)
class Layout:
    """The grid of a win solve: scores, streak and status states, margins."""

    unit: int
    floor: int  # lowest banked score kept (lower scores are counted as this one)
    target: int
    margin: int  # scores reached past the target that are tracked (then: bank)
    streaks: int
    statuses: int  # 2 with an entry minimum (index 1 = on board), else 1
    pad: int  # grid steps of the largest set-aside
    seats: int = 1  # 2 when the game ends with a final round: the mover opens or closes it

    @property
    def states(self) -> int:
        """States of one player on the table's first two axes: seat x streak state."""
        return self.seats * self.streaks

    @property
    def scores(self) -> int:
        """Banked scores below the target: floor, floor + unit, ..., target - unit."""
        return (self.target - self.floor) // self.unit

    @property
    def reach(self) -> int:
        """Grid points of a turn's reached score: floor .. target + margin."""
        return self.scores + self.margin // self.unit + 1

    def index(self, score: int) -> int:
        """Grid index of a banked score (clamped to the floor)."""
        return max(0, (score - self.floor) // self.unit)


def turn_values(
    options: Options,
    bank: FloatArray,
    zilch: FloatArray,
    bank_from: IntArray,
    compulsory: bool,
    ends: IntArray | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Solve turns exactly, one column each: values of rolling and of after-set-aside states.

    ``bank[c, t]`` is column ``c``'s value of banking turn total ``t`` grid steps
    (its last entry is also used for larger totals, which are always banked);
    ``zilch[c]`` its value of a zilch; banking is allowed from ``bank_from[c]``
    steps on (at least one). Returns ``roll[c, t, n]`` (rolling ``n`` dice at
    total ``t``) and ``after[c, t, n]`` (the best of banking and rolling after a
    set-aside that leaves ``n`` dice, 6 after hot dice).

    With ``ends``, column ``c`` is a turn of ``ends[c]`` steps: from total
    ``ends[c]`` on it banks ``bank[c, ends[c] - 1]`` (which the caller repeats to
    the end of the row), exactly as a column of that length alone; its values
    from ``ends[c]`` on are not meaningful.
    """
    columns, steps = bank.shape
    pad = options.max_step + 1
    after = np.zeros((steps + pad, 7, columns))
    after[steps:] = bank[None, None, :, -1]
    cut = None if ends is None else np.asarray(ends)[None, :]
    roll = np.zeros((steps, 7, columns))
    flat_after = after.reshape(-1, columns)
    base = options.step * 7 + options.next_dice
    zilch_part = options.zilch[1:, None] * zilch[None, :]
    for t in range(steps - 1, -1, -1):
        best = best_options(flat_after, base + t * 7, options.groups, options.profiles)
        out = options.chances @ best + zilch_part
        roll[t, 1:] = out
        bankable = t >= bank_from
        banked = np.maximum(out, bank[None, :, t])
        row = np.where(bankable[None, :], banked, out)
        if compulsory:
            row[5] = out[5]
        if cut is not None:
            row = np.where(t >= cut, bank[None, :, t], row)
        after[t, 1:] = row
    roll = roll.transpose(2, 0, 1)
    after = after.transpose(2, 0, 1)
    return roll, after


def final_chances(
    options: Options, rules: RuleSet, deficits: int, tie: float, on_board: bool
) -> FloatArray:
    """Chance that a player on a last turn gets ahead, for each deficit 0..deficits-1 steps.

    Getting strictly ahead wins (1), drawing level is worth ``tie``, anything
    less and a zilch are worth 0. ``result[d]`` is for a deficit of ``d`` steps.
    """
    steps = deficits + 1
    totals = np.arange(steps)[None, :]
    needed = np.arange(deficits)[:, None]
    bank = np.where(totals > needed, 1.0, np.where(totals == needed, tie, 0.0))
    minimum = max(1, -(-rules.entry_needed(on_board) // options.unit))
    roll, _ = turn_values(
        options,
        bank,
        np.zeros(deficits),
        np.full(deficits, minimum),
        rules.free_roll == "compulsory",
    )
    return np.asarray(roll[:, 0, 6])


def tiebreak_chance(options: Options, rules: RuleSet, steps: int) -> float:
    """Chance that the first of two tied players wins the tie-break turns (twinson).

    Each round the first plays one turn, then the second plays knowing it;
    the higher turn wins and equal turns (two zilches, or equal banks) start
    another round. The value is the fixed point of that round.
    """
    minimum = np.array([max(1, -(-rules.entry_needed(True) // options.unit))])
    compulsory = rules.free_roll == "compulsory"
    first = 0.5
    for _ in range(60):
        second = final_chances(options, rules, steps, 1.0 - first, True)
        # After the first player's zilch the second wins with any bank; a zilch ties again.
        level, _ = turn_values(
            options, np.ones((1, 2)), np.array([1.0 - first]), minimum, compulsory
        )
        second[0] = level[0, 0, 6]
        roll, _ = turn_values(
            options, (1.0 - second)[None, :], np.array([1.0 - second[0]]), minimum, compulsory
        )
        new = float(roll[0, 0, 6])
        if abs(new - first) < 1e-12:
            return new
        first = new
    return first


@dataclass(frozen=True)
class _Prefix:
    """The turn states below the bank minimum, reachable from the turn's first roll.

    ``ext_steps``/``ext_dice`` name the bankable states their set-asides reach
    (read from the shared sweeps); each prefix state ``m`` gathers its options'
    values from ``[ext values | prefix values]`` at ``refs[m]``.
    """

    ext_steps: IntArray
    ext_dice: IntArray
    states: tuple[tuple[int, int], ...]  # (total steps, dice), highest total first
    refs: tuple[IntArray, ...]
    groups: tuple[Groups, ...]
    chances: tuple[FloatArray, ...]
    zilch: tuple[float, ...]


def _prefix_plan(table: RollTable, minimum: int) -> _Prefix:
    """Plan the non-bankable start of a turn that needs ``minimum`` steps to bank."""
    minimum = max(1, minimum)
    reach: set[tuple[int, int]] = {(0, 6)}
    frontier = [(0, 6)]
    while frontier:
        d, n = frontier.pop()
        for profile in table.dice[n].profiles:
            for used, points in profile.options:
                state = (d + points // table.unit, n - used or 6)
                if state[0] < minimum and state not in reach:
                    reach.add(state)
                    frontier.append(state)
    states = tuple(sorted(reach, reverse=True))
    ext: dict[tuple[int, int], int] = {}
    rows: list[list[tuple[str, tuple[int, int]]]] = []
    for d, n in states:
        row = []
        for profile in table.dice[n].profiles:
            for used, points in profile.options:
                after = (d + points // table.unit, n - used or 6)
                if after[0] >= minimum:
                    ext.setdefault(after, len(ext))
                    row.append(("ext", after))
                else:
                    row.append(("pre", after))
        rows.append(row)
    position = {state: i for i, state in enumerate(states)}
    refs, segments, chances, zilch = [], [], [], []
    for (_, n), row in zip(states, rows, strict=True):
        refs.append(
            np.array(
                [ext[s] if kind == "ext" else len(ext) + position[s] for kind, s in row],
                dtype=np.intp,
            )
        )
        starts, at = [], 0
        for profile in table.dice[n].profiles:
            starts.append(at)
            at += len(profile.options)
        segments.append(group_segments(np.array(starts, dtype=np.intp), at))
        chances.append(np.array([p.chance for p in table.dice[n].profiles]))
        zilch.append(table.dice[n].zilch_chance)
    order = sorted(ext, key=ext.__getitem__)
    return _Prefix(
        np.array([s[0] for s in order], dtype=np.intp),
        np.array([s[1] for s in order], dtype=np.intp),
        states,
        tuple(refs),
        tuple(segments),
        tuple(chances),
        tuple(zilch),
    )


@dataclass(frozen=True, eq=False)
class RoundEnd:
    """The exactly solved parts of a game that ends with a final round (:mod:`.winround`).

    ``sure[k - 1, i, j, D + d]``: chance that the mover (status ``i``, ``d`` steps
    ahead, ``D`` the half-width) beats the opponent (status ``j``) with ``k`` turns
    left in a game whose final round is already certain. ``first[j, y]``: the
    closer's turn in the quiet first round, at 0 against the opener at score index
    ``y`` in status ``j``; ``opening``: the opener's first turn at 0-0.
    """

    sure: Chances
    first: Chances
    opening: float


@dataclass(frozen=True, eq=False)
class WinSolve:
    """What :func:`solve_win` returns: the turn-start table and what it was solved with.

    ``table[a, b, i, j, x, y]``: chance that the mover (score index ``x``,
    streak state ``a``, status ``i``) beats the opponent (``y``, ``b``, ``j``)
    from the start of the mover's turn. ``final[j, d]``: chance that an
    opponent in status ``j`` on a last turn gets ahead of a lead of ``d``
    steps. ``tiebreak``: the reacher's chance in a tie-break (twinson), else 0.
    """

    rules: RuleSet
    layout: Layout
    table: FloatArray
    final: FloatArray
    tiebreak: float
    passes: int
    change: float
    nodes: int
    changes: tuple[float, ...] = ()
    round_end: RoundEnd | None = None


def layout_of(rules: RuleSet, floor: int = -2000, margin: int = 5000) -> Layout:
    """The grid for ``rules``: scores can fall below zero only through a penalty."""
    table = roll_table(rules)
    unit = table.unit
    if rules.score_floor == "zero" or rules.zilch_penalty == 0:
        floor = 0
    if rules.ending == "instant":
        margin = unit  # reaching the target wins: how far past it does not matter
    if floor > 0 or floor % unit or margin % unit or margin < unit:
        raise WinSolveError(f"floor {floor} and margin {margin} must be multiples of {unit}")
    return Layout(
        unit,
        floor,
        rules.target,
        margin,
        streak_model(rules).states,
        2 if has_entry_status(rules) else 1,
        table.max_points // unit + 1,
        2 if rules.ending == "final_round" else 1,
    )


def tie_value(rules: RuleSet, tiebreak: float) -> float:
    """What drawing level on a last turn is worth to the player who drew level."""
    if rules.tie == "share":
        return 0.5
    if rules.tie == "tiebreak_turns":
        return 1.0 - tiebreak
    return 0.0


def check_solvable(rules: RuleSet) -> None:
    """Refuse rule sets whose end of game the two-player solve does not model."""
    if rules.ending != "final_round":
        return
    why = None
    if rules.zilch_penalty:
        why = "a zilch penalty (zilch_penalty=0 is solved)"
    elif rules.announce_from > 2:
        why = f"announcements from round {rules.announce_from} (1 or 2 is solved)"
    elif rules.tie != "share":
        why = f"tie={rules.tie} (tie=share is solved)"
    if why is not None:
        raise WinSolveError(
            f"{rules.name}: the win solve of a game ending with a final round does not handle {why}"
        )


class _Pass:
    """One pass of the level-ordered solve (see the module docstring)."""

    def __init__(self, solver: _Solver, lows: FloatArray, highs: FloatArray, k: int) -> None:
        self.solver = solver
        lay = solver.layout
        self.k = k
        self.low = lows
        self.width = np.maximum(highs - lows, 1e-6) / max(k - 1, 1)
        self.nodes = lows[:, None] + self.width[:, None] * np.arange(k)[None, :]
        sweeps = lay.scores * lay.states * lay.statuses
        depth = lay.reach + lay.pad
        self.depth = depth
        self.sweeps = sweeps
        self.value = np.empty((depth, 7, sweeps, k), dtype=np.float32)
        self.seen_low = np.full(sweeps, np.inf)
        self.seen_high = np.full(sweeps, -np.inf)

    def run(self) -> None:
        s = self.solver
        lay = s.layout
        # Beyond the tracked reach every state banks.
        self.value[lay.reach :] = s.bank.T[lay.reach :, None, :, None]
        everyone = np.arange(self.sweeps)
        for reach in range(lay.reach - 1, lay.scores - 1, -1):
            self._advance(everyone, np.full(len(everyone), reach), s.bank[:, reach])
        for level in range(2 * lay.scores - 2, -1, -1):
            self._level(level)

    def _sweep_index(self, y: IntArray, b: IntArray, j: IntArray) -> IntArray:
        lay = self.solver.layout
        return (y * lay.states + b) * lay.statuses + j

    def _step(self, sweeps: IntArray, at: IntArray) -> Float32Array:
        """Values of rolling 1..6 dice at reach ``at`` of each sweep, at every node."""
        opts = self.solver.options
        k = self.k
        rows = ((at[None, :] + opts.step[:, None]) * 7 + opts.next_dice[:, None]) * self.sweeps
        rows += sweeps[None, :]
        flat = self.value.reshape(-1, k)
        best = np.empty((opts.profiles, len(sweeps), k), dtype=np.float32)
        for profile, option in opts.groups:
            best[profile] = np.take(flat, rows[option], axis=0).max(axis=1)
        chances = self.solver.chances32
        roll = (chances @ best.reshape(opts.profiles, -1)).reshape(6, len(sweeps), k)
        roll += (opts.zilch[1:, None, None] * self.nodes[sweeps][None, :, :]).astype(np.float32)
        return roll.astype(np.float32, copy=False)

    def _advance(self, sweeps: IntArray, at: IntArray, bank: FloatArray) -> None:
        self._store(sweeps, at, bank, self._step(sweeps, at))

    def _store(self, sweeps: IntArray, at: IntArray, bank: FloatArray, roll: Float32Array) -> None:
        banked = np.maximum(roll, bank[None, :, None])
        if self.solver.compulsory:  # all six dice back: they must be rolled
            banked[5] = roll[5]
        self.value[at[None, :], np.arange(1, 7)[:, None], sweeps[None, :]] = banked

    def _level(self, level: int) -> None:
        s = self.solver
        lay = s.layout
        low, high = max(0, level - lay.scores + 1), min(lay.scores - 1, level)
        ys = np.arange(low, high + 1)
        xs = level - ys
        # Every sweep of an opponent at ys advances to reach xs.
        per = lay.states * lay.statuses
        y_of = np.repeat(ys, per)
        x_of = np.repeat(xs, per)
        b_of = np.tile(np.repeat(np.arange(lay.states), lay.statuses), len(ys))
        j_of = np.tile(np.arange(lay.statuses), len(ys) * lay.states)
        sweeps = self._sweep_index(y_of, b_of, j_of)
        roll = self._step(sweeps, x_of)
        for pairs in s.state_pairs():
            for _ in range(60 if s.cyclic else 1):
                if self._columns(xs, ys, pairs) < s.tolerance * 1e-3:
                    break
        on = lay.statuses - 1
        bank = 1.0 - s.table[b_of, s.banked(b_of), j_of, on, y_of, x_of]
        s.bank[sweeps, x_of] = bank
        self._store(sweeps, x_of, bank, roll)

    def _columns(self, xs: IntArray, ys: IntArray, pairs: list[tuple[int, int]]) -> float:
        """Turn-start values of every mover at this level in these (mover, opponent) states.

        Returns the largest change (for the two-state cycle without a penalty).
        """
        s = self.solver
        lay = s.layout
        change = 0.0
        for i in range(lay.statuses):
            cols = [
                (a, b, j, x, y)
                for a, b in pairs
                for j in range(lay.statuses)
                for x, y in zip(xs, ys, strict=True)
            ]
            a, b, j, x, y = np.array(cols, dtype=np.intp).T
            z = 1.0 - s.zilch_target(a, b, i, j, x, y)
            values = self._start_values(a, b, i, j, x, y, z)
            old = s.table[a, b, i, j, x, y]
            change = max(change, float(np.max(np.abs(values - old))))
            s.table[a, b, i, j, x, y] = values
            sweeps = self._sweep_index(y, b, j)
            np.minimum.at(self.seen_low, sweeps, z)
            np.maximum.at(self.seen_high, sweeps, z)
        return change

    def _start_values(
        self,
        a: IntArray,
        b: IntArray,
        i: int,
        j: IntArray,
        x: IntArray,
        y: IntArray,
        z: FloatArray,
    ) -> FloatArray:
        """Value of each mover's turn from its first roll, for its exact zilch payoff."""
        s = self.solver
        plan = s.prefix[i]
        sweeps = self._sweep_index(y, b, j)
        # Linear interpolation between the two nodes around the exact payoff.
        k = self.k
        place = (z - self.low[sweeps]) / self.width[sweeps]
        node = np.clip(np.floor(place), 0, k - 2).astype(np.intp)
        share = place - node
        at = x[None, :] + plan.ext_steps[:, None]
        flat = ((at * 7 + plan.ext_dice[:, None]) * self.sweeps + sweeps[None, :]) * k
        flat += node[None, :]
        values = self.value.reshape(-1)
        lower = np.take(values, flat).astype(np.float64)
        upper = np.take(values, flat + 1)
        ext = lower + (upper - lower) * share[None, :]
        extra = ext.shape[0]
        combined = np.empty((extra + len(plan.states), len(a)))
        combined[:extra] = ext
        for m in range(len(plan.states)):
            best = best_options(combined, plan.refs[m], plan.groups[m], len(plan.chances[m]))
            combined[extra + m] = plan.chances[m] @ best + plan.zilch[m] * z
        return np.asarray(combined[-1], dtype=np.float64)


class _Solver:
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
        check_solvable(rules)
        self.rules = rules
        self.layout = layout
        self.nodes = nodes
        self.coarse = min(coarse, nodes)
        self.switch = switch
        self.tolerance = tolerance
        self.max_passes = max_passes
        table = roll_table(rules)
        self.options = Options.of(table)
        self.compulsory = rules.free_roll == "compulsory"
        self.chances32 = self.options.chances.astype(np.float32)
        lay = layout
        self.cyclic = lay.streaks == 1
        on_board = [False, True] if lay.statuses == 2 else [True]
        self.prefix = [
            _prefix_plan(table, -(-rules.entry_needed(status) // lay.unit)) for status in on_board
        ]
        self.tiebreak = self.tiebreak_chance()
        self.final = np.array([self.last_turn(status) for status in on_board])
        shape = (lay.states, lay.states, lay.statuses, lay.statuses, lay.scores, lay.scores)
        self.table = np.full(shape, 0.5)
        sweeps = lay.scores * lay.states * lay.statuses
        self.bank = np.zeros((sweeps, lay.reach + lay.pad))
        y = np.repeat(np.arange(lay.scores), lay.states * lay.statuses)
        b = np.tile(np.repeat(np.arange(lay.states), lay.statuses), lay.scores)
        j = np.tile(np.arange(lay.statuses), lay.scores * lay.states)
        reached = np.arange(lay.scores, lay.reach + lay.pad)
        self.bank[:, lay.scores :] = self.beyond(y, b, j, reached)

    def tiebreak_chance(self) -> float:
        """The reacher's chance in a tie-break (``tie=tiebreak_turns``), else 0."""
        if self.rules.tie != "tiebreak_turns":
            return 0.0
        return tiebreak_chance(self.options, self.rules, self.layout.reach + self.layout.pad)

    def last_turn(self, on_board: bool) -> FloatArray:
        """Chance that a player (``on_board`` or not) on a last turn gets ahead of a lead of
        ``d`` steps, for every lead a bank can make (:func:`final_chances`)."""
        tie = tie_value(self.rules, self.tiebreak)
        deficits = self.layout.reach + self.layout.pad
        return final_chances(self.options, self.rules, deficits, tie, on_board)

    def beyond(self, y: IntArray, b: IntArray, j: IntArray, reached: IntArray) -> FloatArray:
        """Bank values ``[sweep, r]`` of reaching ``reached[r]`` (at or past the target)
        against the opponent (score index ``y``, state ``b``, status ``j``) of each sweep:
        the opponent's last turn decides."""
        deficit = reached[None, :] - y[:, None]
        return np.asarray(1.0 - self.final[j[:, None], deficit])

    def state_pairs(self) -> list[list[tuple[int, int]]]:
        """(mover, opponent) streak states of one level, in solving order: by streak sum,
        highest first (a zilch without a penalty raises it)."""
        n = self.layout.streaks
        return [[(a, t - a) for a in range(n) if 0 <= t - a < n] for t in range(2 * n - 2, -1, -1)]

    def banked(self, b: IntArray) -> IntArray:
        """The state of a mover who has just banked, against an opponent in state ``b``."""
        return np.zeros_like(b)

    def zilch_target(
        self, a: IntArray, b: IntArray, i: int, j: IntArray, x: IntArray, y: IntArray
    ) -> FloatArray:
        """The opponent's value after the mover zilches (penalty, floor and status applied)."""
        a2, i2, x2 = zilch_state(self.rules, self.layout, a, i, x)
        return np.asarray(self.table[b, a2, j, i2, y, x2])

    def run(self) -> WinSolve:
        lay = self.layout
        sweeps = lay.scores * lay.states * lay.statuses
        lows, highs = np.zeros(sweeps), np.ones(sweeps)
        change = np.inf
        passes = 0
        changes: list[float] = []
        fine = False  # once the fine nodes are in use they stay
        while passes < self.max_passes:
            before = self.table.copy()
            fine = fine or change < self.switch
            one = _Pass(self, lows, highs, self.nodes if fine else self.coarse)
            one.run()
            passes += 1
            step = self.table - before
            change = float(np.max(np.abs(step)))
            changes.append(change)
            pad = 0.02
            lows = np.clip(np.where(np.isfinite(one.seen_low), one.seen_low, 0.0) - pad, 0, 1)
            highs = np.clip(np.where(np.isfinite(one.seen_high), one.seen_high, 1.0) + pad, 0, 1)
            if change < self.tolerance and fine and passes >= 2:
                break
        return WinSolve(
            self.rules,
            lay,
            self.table,
            self.final,
            self.tiebreak,
            passes,
            change,
            self.nodes,
            tuple(changes),
        )


class InstantSolver(_Solver):
    """``ending=instant``: the first bank that reaches the target wins the game at once.

    Reaching the target is worth 1 to the banker, whatever the opponent has: the
    opponent never plays a last turn (its chances of getting ahead on one are 0) and
    no tie can arise. Everything else is the final-turn solve.
    """

    def tiebreak_chance(self) -> float:
        return 0.0

    def last_turn(self, on_board: bool) -> FloatArray:
        return np.zeros(self.layout.reach + self.layout.pad)

    def beyond(self, y: IntArray, b: IntArray, j: IntArray, reached: IntArray) -> FloatArray:
        return np.ones((len(y), len(reached)))


def zilch_state(
    rules: RuleSet, layout: Layout, a: IntArray, i: int, x: IntArray
) -> tuple[IntArray, IntArray, IntArray]:
    """Streak state, status and score index of a mover after a zilch (any penalty paid)."""
    model = streak_model(rules)
    penalty = model.penalty // layout.unit
    last = a == layout.streaks - 1
    penalised = last & (penalty > 0)
    if layout.streaks == 1:
        a2 = np.zeros_like(a)
    else:
        a2 = np.where(last, 0 if model.resets else layout.streaks - 1, a + 1)
    x2 = np.where(penalised, np.maximum(0, x - penalty), x)
    i2 = np.full_like(a, i)
    if rules.entry_rule == "while_zero" and layout.statuses == 2:
        i2 = np.where(penalised & (x2 <= layout.index(0)), 0, i2)
    return a2, i2, x2


def solve_win(
    rules: RuleSet,
    *,
    nodes: int = 24,
    tolerance: float = 1e-6,
    max_passes: int = 40,
    floor: int = -2000,
    margin: int = 5000,
    coarse: int = 6,
    switch: float = 1e-3,
) -> WinSolve:
    """Solve two-player ``rules`` for the chance of winning from every turn start.

    Passes use ``coarse`` payoff nodes until no value moves by more than
    ``switch``, then ``nodes`` until none moves by more than ``tolerance``.
    """
    if nodes < 2 or coarse < 2:
        raise WinSolveError(f"nodes must be at least 2, not {min(nodes, coarse)}")
    layout = layout_of(rules, floor, margin)
    check_solvable(rules)
    solver = _SOLVERS.get(rules.ending)
    if solver is None:
        raise WinSolveError(f"{rules.name}: no win solve is registered for ending={rules.ending}")
    return solver(rules, layout, nodes, tolerance, max_passes, coarse, switch).run()


_SOLVERS: dict[Ending, type[_Solver]] = {"final_turn": _Solver, "instant": InstantSolver}
"""The solver of each way a game ends; :mod:`.winround` adds ``final_round`` (it builds on
this module, so it registers itself rather than being imported here)."""


def register_solver(ending: Ending, solver: type[_Solver]) -> None:
    """Solve games that end by ``ending`` with ``solver``."""
    _SOLVERS[ending] = solver
