"""Each player's chance to win a game of three or more, estimated by playing it out.

The two-player solve (:mod:`zilch.strategy.winsolve`) gives exact chances;
with three or more players there is no table, so the chance is estimated:
from the game exactly as it stands (mid-turn included), ``N`` games are
played to the end through the real engine, every player deciding with the
``win`` policy (:class:`~zilch.strategy.bots.WinBot`: each choice the one
that maximises the two-player chance of beating the strongest opponent, the
best score among the others, as if the rest were not there) and the dice
drawn from a seeded generator. A player's estimate is the share of those
games they won (a shared win counts ``1/k`` to each of ``k`` winners); its
95% error is ``±1.96·sqrt(p(1-p)/N)`` (the normal approximation of the
binomial; :meth:`Estimate.margin`).

Game ``i`` rolls from ``random.Random(game_seed(seed, i))``, so the estimate
depends only on the game, the seed and ``N``, never on how the games are
batched. Games are played side by side in rounds and the ``win`` turns they
wait on are solved together (:meth:`WinBot.prepare`), as the duels do.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Collection, Generator
from dataclasses import dataclass
from typing import Any

from zilch.errors import ZilchError
from zilch.game import Game
from zilch.strategy.bots import WinBot
from zilch.strategy.duel import Z95, Request, game_seed, play_side_by_side, steps_from


class EstimateError(ZilchError, ValueError):
    """An estimate that cannot be made (a finished game, no games)."""


@dataclass(frozen=True)
class Estimate:
    """Wins of each player over ``games`` games played out from one position."""

    games: int
    wins: tuple[tuple[str, float], ...]

    def chance(self, name: str) -> float:
        """The estimated chance that ``name`` wins: the share of the games they won."""
        return dict(self.wins)[name] / self.games if self.games else 0.0

    def margin(self, name: str) -> float:
        """Half-width of the 95% interval of :meth:`chance`: 1.96·sqrt(p(1-p)/N)."""
        if not self.games:
            return 1.0
        p = self.chance(name)
        return Z95 * math.sqrt(p * (1 - p) / self.games)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.wins)

    def to_json(self) -> dict[str, Any]:
        """``{"games": N, "players": {name: p}, "margins": {name: m}}`` (rounded)."""
        return {
            "games": self.games,
            "players": {n: round(self.chance(n), 4) for n in self.names},
            "margins": {n: round(self.margin(n), 4) for n in self.names},
        }


def play_out(
    game: Game, bot: WinBot, rng: random.Random, absent: Collection[str] = ()
) -> Generator[Request, None, Game]:
    """Play ``game`` (a copy) to its end, every player deciding with ``bot``.

    The duels' game loop (:func:`~zilch.strategy.duel.steps_from`): a
    generator that stops where ``bot`` is about to decide on a turn it has not
    solved, yielding ``(bot, key)``. Players in ``absent`` have left the
    table: their turns are skipped, as the table skips them.
    """
    return steps_from(game.copy(), dict.fromkeys(game.state.names, bot), rng, absent)


def estimate(
    game: Game,
    bot: WinBot,
    games: int,
    seed: int = 0,
    *,
    batch: int = 50,
    absent: Collection[str] = (),
    report: Callable[[Estimate], bool] | None = None,
) -> Estimate:
    """Each player's chance to win ``game`` from where it stands, over ``games`` games.

    The games are played ``batch`` at a time side by side. After each batch
    ``report`` (if given) receives the estimate so far; when it answers False
    the estimate stops there and that partial estimate is returned.
    """
    if game.state.finished:
        raise EstimateError("the game is over: there is no chance left to estimate")
    if games < 1 or batch < 1:
        raise EstimateError(f"an estimate needs at least one game and batch (got {games}, {batch})")
    names = game.state.names
    wins = dict.fromkeys(names, 0.0)
    played = 0
    while played < games:
        count = min(batch, games - played)
        for final in _play_batch(game, bot, seed, range(played, played + count), absent):
            winners = final.state.winners
            for name in winners:
                wins[name] += 1.0 / len(winners)
        played += count
        result = Estimate(played, tuple((name, wins[name]) for name in names))
        if report is not None and not report(result) and played < games:
            return result
    return Estimate(played, tuple((name, wins[name]) for name in names))


def _play_batch(
    game: Game, bot: WinBot, seed: int, indices: range, absent: Collection[str]
) -> list[Game]:
    """Games ``indices`` played out side by side, their waiting turns solved together."""

    def start(index: int) -> Callable[[], Generator[Request, None, Game]]:
        return lambda: play_out(game, bot, random.Random(game_seed(seed, index)), absent)

    return play_side_by_side([start(i) for i in indices], len(indices))
