"""Bot against bot: whole games under the real game engine, with win rates and 95% intervals.

Dice come from an injected seeded generator, so a duel is reproducible. The
two bots alternate who starts; a shared win (where the rules allow one)
counts as half a win for each side. Where the rules seat players in
alphabetical order (club), each game's names begin with the seat ("1 win A",
"2 optimal"), so the bot meant to start does start.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Collection, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zilch.errors import ZilchError
from zilch.game import Game
from zilch.rules import RuleSet
from zilch.strategy.bots import Bot, TurnKey, WinBot

MAX_ACTIONS_PER_GAME = 20000
Z95 = 1.959963984540054


class DuelError(ZilchError, ValueError):
    """A duel that cannot be played (wrong number of bots or games, a stuck game)."""


def wilson_interval(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a win rate (better than the normal one near 0 or 1)."""
    if games <= 0:
        return (0.0, 1.0)
    rate = wins / games
    centre = (rate + z * z / (2 * games)) / (1 + z * z / games)
    spread = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    spread /= 1 + z * z / games
    return (max(0.0, centre - spread), min(1.0, centre + spread))


@dataclass(frozen=True)
class DuelResult:
    """Outcome of a duel: wins per bot (shared wins count half), scores, games, seed."""

    preset: str
    seed: int
    games: int
    names: tuple[str, str]
    wins: tuple[float, float]
    ties: int
    total_scores: tuple[int, int]
    first_player_wins: float

    def win_rate(self, side: int) -> float:
        """Share of games won by bot ``side`` (0 or 1)."""
        return self.wins[side] / self.games

    def to_json(self) -> dict[str, Any]:
        """JSON-ready result with a 95% interval for each bot's win rate."""
        return {
            "preset": self.preset,
            "seed": self.seed,
            "games": self.games,
            "ties": self.ties,
            "first_player_win_rate": round(self.first_player_wins / self.games, 6),
            "bots": [
                {
                    "name": self.names[side],
                    "wins": self.wins[side],
                    "win_rate": round(self.win_rate(side), 6),
                    "ci95": [round(v, 6) for v in wilson_interval(self.wins[side], self.games)],
                    "average_score": round(self.total_scores[side] / self.games, 1),
                }
                for side in (0, 1)
            ],
        }


def _player_names(bots: Sequence[Bot]) -> tuple[str, str]:
    first, second = bots[0].name, bots[1].name
    if first == second:
        return (f"{first} A", f"{second} B")
    return (first, second)


def seat_name(rules: RuleSet, seat: int, name: str) -> str:
    """The name a bot plays under in seat ``seat`` (0 starts): numbered under alphabetical
    order, so that the playing order is the seating."""
    return f"{seat + 1} {name}" if rules.order == "alphabetical" else name


def play_game(rules: RuleSet, seats: Sequence[tuple[str, Bot]], rng: random.Random) -> Game:
    """Play one whole game between bots seated in this order; the finished game.

    It runs :func:`game_steps` to the end without solving anything ahead: a
    ``win`` player solves each new turn itself when it decides.
    """
    steps = game_steps(rules, seats, rng)
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            finished: Game = stop.value
            return finished


Request = tuple[WinBot, TurnKey]
"""A game waiting for a ``win`` player's turn to be solved."""


def game_steps(
    rules: RuleSet, seats: Sequence[tuple[str, Bot]], rng: random.Random
) -> Generator[Request, None, Game]:
    """The game loop of a new bot game, stopping before each unsolved ``win`` turn.

    :func:`steps_from` with a new game of these seats.
    """
    return steps_from(Game(rules, [name for name, _ in seats]), dict(seats), rng)


def steps_from(
    game: Game,
    bots: Mapping[str, Bot],
    rng: random.Random,
    absent: Collection[str] = (),
) -> Generator[Request, None, Game]:
    """Play ``game`` on to its end, each player deciding with ``bots[name]``.

    After a set-aside the bot's own ``then`` is carried out; between rolls
    without one (a "nothing" bonus, a forgiven zilch) the bot is asked again.
    A bank the game refuses (surpassing, which the bots do not model) becomes
    a roll. Players in ``absent`` have left the table: their turns are
    skipped, as the table skips them. Where a ``win`` player is about to
    decide on a turn it has not solved, the generator yields ``(bot, key)``;
    whoever drives it may solve the turn first (with others, in one batch,
    :meth:`WinBot.prepare`) or not (:func:`play_game`), then resumes it. The
    decisions are the bots' own ``decide`` either way, so the game is the
    same. ``game`` itself is played on (pass a copy to keep it).
    """
    then: str | None = None

    def ask(me: str) -> Generator[Request, None, None]:
        bot = bots[me]
        if isinstance(bot, WinBot):
            key = bot.pending(game.state, me)
            if key is not None:
                yield (bot, key)

    for _ in range(MAX_ACTIONS_PER_GAME):
        state = game.state
        if state.finished:
            return game
        me = state.current
        if me is None:
            raise DuelError("the game has no current player but is not finished")
        if me in absent:
            if state.phase != "roll" or state.turn.rolls:
                raise DuelError(f"{me} has left, but their turn has begun")
            game.skip()
            continue
        if state.phase == "keep":
            yield from ask(me)
            decision = bots[me].decide(game.state, me)
            game.keep(list(decision.keep))
            then = decision.then
            continue
        if then is None and state.turn.rolls:
            yield from ask(me)
            then = bots[me].decide(game.state, me).then
        if then == "bank" and game.bank_refusal() is None:
            game.bank()
        else:
            game.roll([rng.randint(1, 6) for _ in range(state.turn.dice_left)])
        then = None
    raise DuelError(f"a game took more than {MAX_ACTIONS_PER_GAME} actions")


def game_seed(seed: int, index: int) -> int:
    """The dice seed of game ``index`` of a batched duel (each game has its own dice)."""
    return seed * 1_000_003 + index


def play_games_batched(
    rules: RuleSet,
    seatings: Sequence[Sequence[tuple[str, Bot]]],
    seed: int,
    batch: int,
    progress: Callable[[int], None] | None = None,
) -> list[Game]:
    """Play these games side by side, ``batch`` at a time, solving ``win`` turns together.

    Game ``i`` rolls from ``random.Random(game_seed(seed, i))``, so it is the game
    :func:`play_game` plays with that generator, whatever the batch size.
    """

    def start(index: int) -> Callable[[], Generator[Request, None, Game]]:
        return lambda: game_steps(rules, seatings[index], random.Random(game_seed(seed, index)))

    return play_side_by_side([start(i) for i in range(len(seatings))], batch, progress)


def play_side_by_side(
    starts: Sequence[Callable[[], Generator[Request, None, Game]]],
    batch: int,
    progress: Callable[[int], None] | None = None,
) -> list[Game]:
    """Run these game loops, ``batch`` at a time, solving the turns they wait on together.

    Each loop is started (``starts[i]()``) when a place in the batch is free
    and stepped until it waits on a ``win`` player's turn; the waiting turns
    of each bot are then solved in one vectorised sweep
    (:meth:`WinBot.prepare`) and every loop resumes. The games come back in
    the order of ``starts``.
    """
    finished: list[Game | None] = [None] * len(starts)
    running: dict[int, Generator[Request, None, Game]] = {}
    waiting: dict[int, Request] = {}
    started = done = 0
    while done < len(starts):
        while started < len(starts) and len(running) < batch:
            running[started] = starts[started]()
            started += 1
        for index, steps in list(running.items()):
            if index in waiting:
                continue
            try:
                waiting[index] = next(steps)
            except StopIteration as stop:
                finished[index] = stop.value
                del running[index]
                done += 1
                if progress is not None:
                    progress(done)
        by_bot: dict[int, tuple[WinBot, list[TurnKey]]] = {}
        for bot, key in waiting.values():
            by_bot.setdefault(id(bot), (bot, []))[1].append(key)
        for bot, keys in by_bot.values():
            bot.prepare(keys)
        waiting.clear()
    return [game for game in finished if game is not None]


def play_duel(
    rules: RuleSet,
    bots: Sequence[Bot],
    games: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
    batch: int = 0,
) -> DuelResult:
    """Play ``games`` games between two bots, alternating who starts.

    With ``batch`` above 0 the games are played ``batch`` at a time side by side
    (:func:`play_games_batched`, each game with its own seeded dice), which lets
    ``win`` players solve their turns together: many times faster, the same bots.
    """
    if len(bots) != 2:
        raise DuelError(f"a duel needs exactly two bots, not {len(bots)}")
    if games < 1:
        raise DuelError(f"a duel needs at least one game, not {games}")
    if batch < 0:
        raise DuelError(f"a batch is 0 (one game at a time) or more games, not {batch}")
    rng = random.Random(seed)
    names = _player_names(bots)
    wins = [0.0, 0.0]
    scores = [0, 0]
    ties = 0
    first_wins = 0.0
    orders = [(0, 1) if index % 2 == 0 else (1, 0) for index in range(games)]
    seatings = [
        [(seat_name(rules, seat, names[side]), bots[side]) for seat, side in enumerate(order)]
        for order in orders
    ]
    played: list[Game] = []
    if batch:
        played = play_games_batched(rules, seatings, seed, batch, progress)
    for index in range(games):
        order = orders[index]
        game = played[index] if batch else play_game(rules, seatings[index], rng)
        final = game.state
        winners = set(final.winners)
        share = 1.0 / len(winners) if winners else 0.0
        if len(winners) > 1:
            ties += 1
        for (name, _), side in zip(seatings[index], order, strict=True):
            if name in winners:
                wins[side] += share
            scores[side] += final.player(name).score
        if seatings[index][0][0] in winners:
            first_wins += share
        if progress is not None and not batch:
            progress(index + 1)
    return DuelResult(
        rules.name,
        seed,
        games,
        names,
        (wins[0], wins[1]),
        ties,
        (scores[0], scores[1]),
        first_wins,
    )
