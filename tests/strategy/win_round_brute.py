"""A plain game-graph solve of a two-player final-round game, for checking the win solve.

Independent of :mod:`zilch.strategy.winround`'s organisation: every state is kept
by absolute scores (``kind``, seat, opener's score, closer's score, each capped at
``cap``), the end of each round is decided the way the engine decides it (an
announcement after round ``announce_from`` and every later round; the final round
after one at or above the target; highest total wins, equal totals share), and
each turn is solved exactly for its own zilch payoff. The two-turn cycle of
zilches is iterated at its scores until nothing moves by more than 1e-12.
"""

from __future__ import annotations

import numpy as np

from zilch.rules import RuleSet
from zilch.strategy.model import roll_table
from zilch.strategy.winround import solve_rows
from zilch.strategy.winsolve import Options

Key = tuple[str, int, int, int]
"""(kind "quiet" | "announced" | "final", seat 0 opener | 1 closer, opener's score, closer's)."""


class BruteRound:
    """Chance that the mover wins, for every state up to ``cap`` points a player."""

    def __init__(self, rules: RuleSet, cap: int) -> None:
        self.rules = rules
        self.unit = roll_table(rules).unit
        self.cap = cap
        self.options = Options.of(roll_table(rules))
        self.value: dict[Key, float] = {}
        self._solve()

    # -- the rules of the round, as the engine plays them ----------------------------

    def after_turn(self, key: Key, opener: int, closer: int) -> Key | float:
        """What follows the mover's turn ending at these scores: the next turn, or the
        result for the mover (1 win, 1/2 shared, 0 lost) when the game is over."""
        kind, seat, _, _ = key
        if seat == 0:
            return (kind, 1, opener, closer)
        if kind == "final":
            return 1.0 if closer > opener else 0.5 if closer == opener else 0.0
        if kind == "quiet":
            return ("announced", 0, opener, closer)
        if max(opener, closer) >= self.rules.target:
            return ("final", 0, opener, closer)
        return ("announced", 0, opener, closer)

    def worth(self, key: Key, opener: int, closer: int) -> float:
        """The mover's value of its turn ending at these scores."""
        following = self.after_turn(key, opener, closer)
        if isinstance(following, float):
            return following
        return 1.0 - self.value[following]

    def row(self, key: Key) -> tuple[np.ndarray, float, int]:
        _, seat, opener, closer = key
        mine = opener if seat == 0 else closer
        steps = (self.cap - mine) // self.unit + 1
        bank = np.empty(steps)
        for t in range(steps):
            reached = mine + t * self.unit
            bank[t] = self.worth(key, *((reached, closer) if seat == 0 else (opener, reached)))
        need = self.rules.entry_needed(mine > 0)
        return bank, self.worth(key, opener, closer), max(1, -(-need // self.unit))

    def solve_states(self, keys: list[Key]) -> dict[Key, float]:
        rows = [self.row(key) for key in keys]
        solved = solve_rows(self.options, rows, self.rules.free_roll == "compulsory")
        return {key: float(roll[0, 6]) for key, (roll, _) in zip(keys, solved, strict=True)}

    # -- the solve, in dependency order -----------------------------------------------

    def _solve(self) -> None:
        scores = range(0, self.cap + 1, self.unit)
        for seat in (1, 0):
            finals = [("final", seat, a, b) for a in scores for b in scores]
            self.value.update(self.solve_states(finals))
        for level in range(2 * self.cap, -1, -self.unit):
            pairs = [(a, level - a) for a in scores if 0 <= level - a <= self.cap]
            keys = [("announced", seat, a, b) for a, b in pairs for seat in (0, 1)]
            self.value.update(dict.fromkeys(keys, 0.5))
            for _ in range(200):
                new = self.solve_states(keys)
                change = max(abs(new[k] - self.value[k]) for k in keys)
                self.value.update(new)
                if change < 1e-12:
                    break
        if self.rules.announce_from >= 2:
            self.value.update(self.solve_states([("quiet", 1, a, 0) for a in scores]))
            self.value.update(self.solve_states([("quiet", 0, 0, 0)]))
