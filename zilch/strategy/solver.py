"""The strategy that maximises long-run points per turn, for any rule set.

One turn is one step of a Markov decision process over zilch-streak states.
With average gain ``g`` and relative values ``h[s]`` (``h[0] = 0``), the
optimality equations are ``g + h[s] = W(c[s])``, where ``W(c)`` is the best
turn value when banking pays the turn total and a zilch pays ``c``, and
``c[s]`` is ``h[s + 1]`` (the streak grows) or, at the last state, minus the
penalty plus the value of the state after it. ``W`` is convex and piecewise
affine in ``c`` with slope equal to the zilch chance of the optimal turn, so
Newton's method on ``(g, h)`` (policy iteration) converges exactly in a few
sweeps. A player not yet on board is solved afterwards as one more state
whose bank leads to streak 0 on board: ``g + h_entry = W_entry(h_entry)``.
"""

from __future__ import annotations

import numpy as np

from zilch.errors import ZilchError
from zilch.rules import RuleSet
from zilch.strategy.model import (
    StreakModel,
    approximations,
    has_entry_status,
    roll_table,
    streak_model,
)
from zilch.strategy.solution import Solution
from zilch.strategy.sweep import FloatArray, SweepResult, TurnModel, sweep
from zilch.strategy.tables import RollTable

SOLVER_VERSION = 3
"""Changes whenever a solve of the same rules could give different numbers."""

_MAX_ITERATIONS = 60


class SolverError(ZilchError, ValueError):
    """A solve asked for with settings it cannot use."""


_TOLERANCE = 1e-10


def turn_cap(table: RollTable, unit: int) -> int:
    """Turn totals the solve tracks: 1.25 x the largest single-roll break-even, 20k..60k.

    Above the cap every state banks. The six-dice threshold sits close to
    its single-roll break-even (average best / zilch chance), so the margin
    leaves every decision below the cap unchanged; a test doubles the cap to
    show it.
    """
    even = max(
        (table.dice[n].average_best / table.dice[n].zilch_chance)
        for n in range(1, 7)
        if table.dice[n].zilch_chance > 0
    )
    cap = int(min(max(1.25 * even, 20000), 60000))
    return cap - cap % unit


def _payoffs(model: StreakModel, h: FloatArray) -> FloatArray:
    """Zilch payoff of each streak state given the relative values ``h``."""
    c = np.empty(model.states)
    c[:-1] = h[1:]
    c[-1] = -model.penalty + (0.0 if model.resets else h[-1])
    return c


def _payoff_jacobian(model: StreakModel) -> FloatArray:
    """d c[s] / d h[j] (constant: each payoff is one relative value, or none)."""
    k = model.states
    jac = np.zeros((k, k))
    for s in range(k - 1):
        jac[s, s + 1] = 1.0
    if not model.resets:
        jac[k - 1, k - 1] = 1.0
    jac[:, 0] = 0.0  # h[0] is fixed at 0
    return jac


def _solve_on_board(turn: TurnModel, model: StreakModel) -> tuple[float, FloatArray, SweepResult]:
    """Newton / policy iteration for the average gain and streak values on board."""
    k = model.states
    jac = _payoff_jacobian(model)
    fixed = _payoffs(model, np.zeros(k))  # the part of each payoff that is not a value
    h = np.zeros(k)
    c = _payoffs(model, h)
    result = sweep(turn, c)
    g = float(result.roll[0, 6, 0])
    for _ in range(_MAX_ITERATIONS):
        value, slope = result.roll[0, 6], result.zilch[0, 6]
        # Linearise W around c: g + h[s] = value[s] + slope[s] * (c[s](h') - c[s]),
        # with c(h') = fixed + jac @ h'.
        matrix = np.zeros((k, k))
        matrix[:, 0] = 1.0  # unknown 0 is g; unknowns 1.. are h[1..]
        for s in range(k):
            matrix[s, 1:] -= slope[s] * jac[s, 1:]
            if s > 0:
                matrix[s, s] += 1.0
        x = np.linalg.solve(matrix, value + slope * (fixed - c))
        h = np.concatenate(([0.0], x[1:]))
        new_c = _payoffs(model, h)
        if abs(x[0] - g) < _TOLERANCE and np.allclose(new_c, c, atol=_TOLERANCE, rtol=0):
            return float(x[0]), h, result
        g, c = float(x[0]), new_c
        result = sweep(turn, c)
    return g, h, result


def _solve_entry(turn: TurnModel, gain: float) -> tuple[float, SweepResult]:
    """Relative value of not yet being on board, by Newton on ``h = W(h) - g``."""
    h = 0.0
    result = sweep(turn, np.array([h]))
    for _ in range(_MAX_ITERATIONS):
        value, slope = float(result.roll[0, 6, 0]), float(result.zilch[0, 6, 0])
        new_h = (value - gain - slope * h) / (1.0 - slope)
        if abs(new_h - h) < _TOLERANCE:
            return h, result
        h = new_h
        result = sweep(turn, np.array([h]))
    return h, result


def solve(rules: RuleSet, cap: int | None = None) -> Solution:
    """Solve ``rules``: long-run points per turn and the decision for every turn state.

    ``cap`` overrides the largest turn total tracked (see :func:`turn_cap`).
    """
    table = roll_table(rules)
    if cap is None:
        cap = turn_cap(table, table.unit)
    elif cap < 1000 or cap % table.unit:
        raise SolverError(f"cap must be at least 1000 and a multiple of {table.unit}, not {cap}")
    compulsory = rules.free_roll == "compulsory"
    model = streak_model(rules)
    on_turn = TurnModel(table, rules.entry_needed(True), compulsory, cap)
    gain, h, on_board = _solve_on_board(on_turn, model)
    entry: SweepResult | None = None
    entry_value = 0.0
    if has_entry_status(rules):
        entry_turn = TurnModel(table, rules.entry_needed(False), compulsory, cap)
        entry_value, entry = _solve_entry(entry_turn, gain)
    return Solution(
        rules=rules,
        unit=table.unit,
        cap=cap,
        points_per_turn=gain,
        streak=model,
        streak_values=tuple(float(v) for v in h),
        entry_value=entry_value,
        on_board=on_board,
        entry=entry,
        notes=tuple(approximations(rules)),
    )


_SOLVED: dict[RuleSet, Solution] = {}


def solve_cached(rules: RuleSet) -> Solution:
    """:func:`solve`, remembered in memory for the life of the process."""
    solution = _SOLVED.get(rules)
    if solution is None:
        solution = _SOLVED[rules] = solve(rules)
    return solution
