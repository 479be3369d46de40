"""Chances to win a game of three or more, estimated in a worker process off the table's thread.

There is no exact table for three or more players, so each position is played
out many times (:func:`zilch.strategy.estimate.estimate`, every player with the
``win`` policy against the strongest opponent). That takes seconds to minutes,
so it runs in a separate process, niced, that the service starts at the first
such game: :meth:`Estimates.document` only hands the position over and answers
from what has come back, never waiting. The worker sends the estimate so far
after 25, 50, 100, ... games, then the last one; each arrival calls
``on_ready`` (the service publishes the table again). A position is a game
state and the players who have left; when the table moves on, the estimate of
the old position is dropped at once (never shown for the new one) and the
worker gives up on it at its next batch of games.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import multiprocessing.connection
import multiprocessing.process
import os
import threading
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from zilch import Game, RuleSet
from zilch.errors import ZilchError
from zilch.game import replay

log = logging.getLogger(__name__)

GAMES = 2000
"""Games played out per position: a 95% error of ±2.1 points at p = 1/3."""

BATCH = 25
"""Games played side by side before the worker looks for a newer position."""

RESTARTS = 3
"""Worker processes started at most; after that many deaths no estimates are shown."""

Job = tuple[str, dict[str, Any], dict[str, Any], dict[str, Any], list[str], int, int]
"""(position key, rules, game record, the game's state, players who left, games, seed)."""


def position_key(game: Game, left: Collection[str]) -> str:
    """What an estimate depends on: the rules, the game's state and who has left."""
    text = json.dumps(
        {"rules": game.rules.to_dict(), "state": game.state.to_dict(), "left": sorted(left)},
        sort_keys=True,
        default=list,
    )
    return text


def _shown_at(games: int) -> bool:
    """Whether the estimate after ``games`` games is sent: 25, 50, 100, 200, ..."""
    steps = games // BATCH
    return games % BATCH == 0 and steps & (steps - 1) == 0


def _worker(conn: multiprocessing.connection.Connection, directory: str, parent: int) -> None:
    """Child process: estimate each position sent, newest first, until the service goes."""
    from server.solver_cache import WinTableCache
    from zilch.strategy.bots import WinBot
    from zilch.strategy.estimate import estimate

    os.nice(10)  # the table's own process comes first

    def orphaned() -> None:  # the service is gone (even killed): stop
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=orphaned, daemon=True).start()
    cache = WinTableCache(Path(directory))
    bots: dict[str, WinBot] = {}
    job: Job | None = None
    while True:
        if job is None:
            try:
                job = conn.recv()
            except EOFError:
                return
        key, rules_data, record, state, left, games, seed = job
        job = None
        try:
            rules = RuleSet.from_dict(rules_data)
            game = replay(record)
            if json.loads(json.dumps(game.state.to_dict())) != state:
                raise ValueError("the game's record does not lead to its state")
            bot = bots.get(repr(rules))
            if bot is None:
                table = cache.cached(rules)
                if table is None:
                    raise ValueError(f"no win table for {rules.name}")
                bot = bots[repr(rules)] = WinBot(rules, table, keep=2048)
        except (ZilchError, ValueError, OSError) as exc:
            conn.send((key, None, str(exc)))
            continue
        newer: list[Job] = []

        def report(
            so_far: Any, key: str = key, total: int = games, newer: list[Job] = newer
        ) -> bool:
            if conn.poll():
                while conn.poll():
                    newer.append(conn.recv())
                return False
            if so_far.games < total and _shown_at(so_far.games):
                conn.send((key, so_far.to_json(), ""))
            return True

        try:
            result = estimate(game, bot, games, seed, batch=BATCH, absent=left, report=report)
        except ZilchError as exc:
            conn.send((key, None, str(exc)))
            continue
        if newer:
            job = newer[-1]
        else:
            conn.send((key, result.to_json(), ""))


class Estimates:
    """The latest position's estimate, from a worker process started on first use.

    The table's thread only swaps the wanted position in under a lock; a sender
    thread hands the newest one to the worker (a full pipe blocks that thread,
    never the table's) and a reader thread takes the worker's answers.
    """

    def __init__(
        self,
        directory: Path,
        on_ready: Callable[[], None] = lambda: None,
        games: int = GAMES,
        seed: int = 0,
    ) -> None:
        self.directory = directory
        self.on_ready = on_ready
        self.games = games
        self.seed = seed
        self._lock = threading.Condition()
        self._key: str | None = None
        self._result: dict[str, Any] | None = None
        self._pending: Job | None = None  # the newest position, not yet handed over
        self._conn: multiprocessing.connection.Connection | None = None
        self._process: multiprocessing.process.BaseProcess | None = None
        self._started = 0
        self._closed = False

    def latest(self, game: Game, left: Collection[str] = ()) -> dict[str, Any] | None:
        """The estimate for this position if one has come back (else None); never waits.

        A position not asked about before goes to the worker, and whatever was
        known of the previous one is dropped.
        """
        key = position_key(game, left)
        with self._lock:
            if key == self._key:
                return self._result
            self._key, self._result = key, None
            if self._closed or (self._conn is None and self._started >= RESTARTS):
                return None
            self._pending = (
                key,
                game.rules.to_dict(),
                game.record(),
                json.loads(json.dumps(game.state.to_dict())),
                sorted(left),
                self.games,
                self.seed,
            )
            if self._conn is None:
                self._start()
            self._lock.notify_all()
            return None

    def _start(self) -> None:
        """Start the worker with its sender and reader threads (under the lock)."""
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        process = context.Process(
            target=_worker,
            args=(theirs, str(self.directory), os.getpid()),
            name="win-estimates",
            daemon=True,  # ends with the service
        )
        process.start()
        theirs.close()
        self._started += 1
        self._conn, self._process = ours, process
        for target, name in ((self._feed, "sender"), (self._read, "reader")):
            thread = threading.Thread(
                target=target, args=(ours,), name=f"win-estimates-{name}", daemon=True
            )
            thread.start()

    def _feed(self, conn: multiprocessing.connection.Connection) -> None:
        """Hand the newest wanted position to the worker whenever there is one."""
        while True:
            with self._lock:
                while self._pending is None and self._conn is conn and not self._closed:
                    self._lock.wait()
                if self._conn is not conn or self._closed:
                    return
                job, self._pending = self._pending, None
            try:
                conn.send(job)
            except (OSError, ValueError):  # the worker has gone: the reader notices
                return

    def _read(self, conn: multiprocessing.connection.Connection) -> None:
        """Take the worker's estimates as they come; keep the current position's only."""
        while True:
            try:
                key, result, error = conn.recv()
            except (EOFError, OSError):
                break
            if self._arrived(key, result, error):
                self.on_ready()
        with self._lock:
            if self._conn is conn:
                self._conn = None
                self._key = None  # asked again at the next publication
                self._lock.notify_all()
            closed = self._closed
        if not closed:
            log.warning("the win estimate worker stopped")

    def _arrived(self, key: str, result: dict[str, Any] | None, error: str) -> bool:
        """Keep an answer of the worker if it is about the position wanted now."""
        if error or result is None:
            log.info("no win estimate for this position: %s", error)
            return False
        with self._lock:
            if key != self._key:
                return False  # an older position: never shown for this one
            self._result = result
            return True

    def close(self) -> None:
        """Stop the worker (the service is stopping)."""
        with self._lock:
            self._closed = True
            conn, process = self._conn, self._process
            self._conn = self._process = None
            self._lock.notify_all()
        if process is not None and process.is_alive():
            process.terminate()
            process.join(timeout=5)
        if conn is not None:
            conn.close()
