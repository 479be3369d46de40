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
from zilch.strategy.bots import TurnKey, WinBot

Z95 = 1.959963984540054
MAX_ACTIONS = 20000  # a game that runs longer than this is stuck


class EstimateError(ZilchError, ValueError):
    """An estimate that cannot be made (a finished game, no games, a stuck game)."""


def game_seed(seed: int, index: int) -> int:
    """The dice seed of simulated game ``index`` (each game has its own dice)."""
    return seed * 1_000_003 + index


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


Request = tuple[WinBot, TurnKey]


def play_out(
    game: Game, bot: WinBot, rng: random.Random, absent: Collection[str] = ()
) -> Generator[Request, None, Game]:
    """Play ``game`` (a copy) to its end, every player deciding with ``bot``.

    A generator that stops where ``bot`` is about to decide on a turn it has
    not solved, yielding ``(bot, key)``; whoever drives it solves the turn
    (with others, in one batch) and resumes it. Players in ``absent`` have left
    the table: their turns are skipped, as the table skips them. A bank the
    game refuses (surpassing, which the bot does not model) becomes a roll.
    """
    game = game.copy()
    then: str | None = None

    def ask(me: str) -> Generator[Request, None, None]:
        key = bot.pending(game.state, me)
        if key is not None:
            yield (bot, key)

    for _ in range(MAX_ACTIONS):
        state = game.state
        if state.finished:
            return game
        me = state.current
        if me is None:
            raise EstimateError("the game has no current player but is not finished")
        if me in absent:
            if state.phase != "roll" or state.turn.rolls:
                raise EstimateError(f"{me} has left, but their turn has begun")
            game.skip()
            continue
        if state.phase == "keep":
            yield from ask(me)
            decision = bot.decide(game.state, me)
            game.keep(list(decision.keep))
            then = decision.then
            continue
        if then is None and state.turn.rolls:
            yield from ask(me)
            then = bot.decide(game.state, me).then
        if then == "bank" and game.bank_refusal() is None:
            game.bank()
        else:
            game.roll([rng.randint(1, 6) for _ in range(state.turn.dice_left)])
        then = None
    raise EstimateError(f"a simulated game took more than {MAX_ACTIONS} actions")


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
    running: dict[int, Generator[Request, None, Game]] = {
        i: play_out(game, bot, random.Random(game_seed(seed, i)), absent) for i in indices
    }
    finished: dict[int, Game] = {}
    while running:
        keys: list[TurnKey] = []
        for index, steps in list(running.items()):
            try:
                _, key = next(steps)
            except StopIteration as stop:
                finished[index] = stop.value
                del running[index]
            else:
                keys.append(key)
        if keys:
            bot.prepare(keys)
    return [finished[i] for i in indices]
