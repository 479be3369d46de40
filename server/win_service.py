"""The table's chance to win: win tables solved off the table's thread, read for the display.

A two-player win table takes minutes to solve, so the service never solves one on
a thread that serves the table: :meth:`WinTables.start` hands the solve to a
separate process (it writes the solver cache, then this process reads it), and
everything else asks :meth:`WinTables.available`, which answers only from memory
or disk. Until the table is there the display simply shows no chance.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.process
import os
import threading
import time
from collections.abc import Callable, Collection
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from server.solver_cache import WinTableCache
from server.win_estimates import Estimates
from zilch import Game, RuleSet
from zilch.errors import ZilchError
from zilch.strategy.view import InvalidSituation, TurnView, dice_left_after, options_of, view_of
from zilch.strategy.winchance import Side, TurnChances, WinTable
from zilch.strategy.winround import Place, place_of
from zilch.strategy.winsolve import check_solvable

log = logging.getLogger(__name__)

HISTORY = 12
"""Turn starts kept for the display's small line of the last turns."""


def _solve_into(directory: str, rules_data: dict[str, Any], parent: int) -> None:
    """Child process: solve (or find) the win table of the rules and store it on disk.

    ``parent`` is the service's pid, passed in rather than read here: a service
    killed while this process was still starting would otherwise leave it solving
    for minutes with nobody to read the table.
    """
    os.nice(10)  # the table's own process comes first

    def orphaned() -> None:  # the service is gone (even killed): stop solving
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=orphaned, daemon=True).start()
    rules = RuleSet.from_dict(rules_data)
    WinTableCache(Path(directory)).get(rules)


class WinTables:
    """Win tables by rule set for the display and the ``win`` player (never solved here)."""

    def __init__(self, directory: Path, on_estimate: Callable[[], None] = lambda: None) -> None:
        self.cache = WinTableCache(directory)
        self.estimates = Estimates(directory, on_estimate)
        # Turns are solved on a thread of their own as each one starts (a few tens of
        # ms): the turn start itself shows the table's value, so a bank is never held up.
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="win-turn")
        self._lock = threading.Lock()
        self._solving: set[str] = set()
        self._processes: list[multiprocessing.process.BaseProcess] = []
        self._turns: dict[tuple[object, ...], Future[TurnChances]] = {}
        self._history: dict[tuple[str, ...], list[float]] = {}

    def available(self, rules: RuleSet) -> WinTable | None:
        """The win table of ``rules`` if solved already (memory or disk), else None."""
        try:
            check_solvable(rules)
            return self.cache.cached(rules)
        except (ZilchError, ValueError, OSError) as exc:
            log.debug("no win table for %s: %s", rules.name, exc)
            return None

    def start(self, rules: RuleSet) -> None:
        """Solve ``rules`` in a separate process unless it is solved or being solved."""
        try:
            check_solvable(rules)
        except ValueError as exc:
            log.info("%s", exc)
            return
        if self.available(rules) is not None:
            return
        key = repr(rules)
        with self._lock:
            if key in self._solving:
                return
            self._solving.add(key)
        context = multiprocessing.get_context("spawn")
        process = context.Process(
            target=_solve_into,
            args=(str(self.cache.directory), rules.to_dict(), os.getpid()),
            name=f"win-solve-{rules.name}",
            daemon=True,  # ends with the service
        )
        process.start()
        self._processes.append(process)

        def watch() -> None:
            process.join()
            with self._lock:
                self._solving.discard(key)
            if process.exitcode == 0:
                log.info("win table for %s solved", rules.name)
            else:
                log.warning("win table for %s not solved (exit %s)", rules.name, process.exitcode)

        threading.Thread(target=watch, name="win-solve-watch", daemon=True).start()

    def close(self) -> None:
        """Stop any solve or estimate still running (the next start solves again)."""
        self.estimates.close()
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in self._processes:
            if process.is_alive():
                process.terminate()
                process.join(timeout=5)
        self._processes.clear()

    # -- the state document ---------------------------------------------------------

    def document(self, game: Game, left: Collection[str] = ()) -> dict[str, Any] | None:
        """Each player's chance to win now; None if not known (or the game is over).

        Two players: exact, from the solve of the turn in progress (after the roll
        on the table: its best set-aside's), with the last turn starts. Three or
        more: the latest simulated estimate of this very position (``left``: who
        has left the table), ``players`` empty until the first games are in.
        """
        state = game.state
        if len(state.players) < 2 or state.current is None or state.finished:
            return None
        table = self.available(game.rules)
        if table is None:
            return None
        if len(state.players) == 2:
            try:
                return self._exact(game, table)
            except ZilchError as exc:  # a table the two-player solve does not describe
                log.debug("no win chance for this table: %s", exc)
                return None
        found = self.estimates.latest(game, left)
        return {
            "players": dict(found["players"]) if found else {},
            "current": state.current,
            "advice": "",
            "history": {"player": state.players[0].name, "chances": []},
            "method": "simulated",
            "games": int(found["games"]) if found else 0,
            "margins": dict(found["margins"]) if found else {},
        }

    def _exact(self, game: Game, table: WinTable) -> dict[str, Any]:
        state = game.state
        me = state.current or ""
        view = view_of(state, me)
        place = None
        if game.rules.ending == "final_round":  # club: the seat and the round place the turn
            place = place_of(game.rules, view.round, view.closes, view.final)
        turn = self._turn(table, view, place)
        advice = ""
        if view.roll:
            try:
                options = options_of(view, game.rules)
            except ZilchError:
                options = []
            chances = [
                turn.result().chance_after(view.total + o.points, dice_left_after(view, o))
                for o in options
            ]
            now = max(chances, default=0.0)
            start = self._start(table, view, turn, place)
        elif view.total > 0 or state.turn.rolls:
            solved = turn.result()
            left = 0 if state.turn.free_roll else state.turn.dice_left
            roll = solved.roll_chance(view.total, left or 6)
            if solved.can_bank(view.total, left):
                bank = solved.bank_chance(view.total)
                advice = f"bank: {bank:.0%} to win; roll: {roll:.0%}"
                now = max(roll, bank)
            else:
                now = roll
            start = self._start(table, view, turn, place)
        else:
            now = start = self._start(table, view, turn, place)
        other = next(p.name for p in state.players if p.name != me)
        first = state.players[0].name
        history = self._remember(game, state.turn_number, start if me == first else 1 - start)
        return {
            "players": {me: round(now, 4), other: round(1 - now, 4)},
            "current": me,
            "advice": advice,
            "history": {"player": first, "chances": [round(c, 4) for c in history]},
            "method": "exact",
        }

    @staticmethod
    def _sides(view: TurnView) -> tuple[Side, Side]:
        me = Side(view.score, view.streak, view.on_board)
        return me, Side(view.opponent, view.opponent_streak, view.opponent_on_board)

    def _start(
        self, table: WinTable, view: TurnView, turn: Future[TurnChances], place: Place | None
    ) -> float:
        """The mover's chance at the start of this turn: the table's, else the solved turn's."""
        if not view.final or place is not None:
            try:
                return table.start_chance(*self._sides(view), place)
            except InvalidSituation:
                pass
        return turn.result().roll_chance(0, 6)

    def _turn(self, table: WinTable, view: TurnView, place: Place | None) -> Future[TurnChances]:
        """This turn's solve: started on the turn thread the first time it is asked for."""
        key = (
            id(table),
            view.score,
            view.opponent,
            view.streak,
            view.opponent_streak,
            view.on_board,
            view.opponent_on_board,
            view.final,
            place,
        )
        found = self._turns.get(key)
        if found is None:
            if len(self._turns) > 64:
                self._turns = {k: f for k, f in self._turns.items() if not f.done()}
            me, other = self._sides(view)
            try:
                found = self._pool.submit(table.turn, me, other, view.final, place)
            except RuntimeError:  # closing: solve it here
                found = Future()
                found.set_result(table.turn(me, other, view.final, place))
            self._turns[key] = found
        return found

    def _remember(self, game: Game, number: int, chance: float) -> list[float]:
        """The first player's chance at each turn start of this game (the last ``HISTORY``)."""
        key = (*(p.name for p in game.state.players), game.rules.name)
        line = self._history.setdefault(key, [])
        if number == len(line) + 1:
            line.append(chance)
        elif 1 <= number <= len(line):
            del line[number:]
            line[number - 1] = chance
        else:  # the service started in the middle of this game
            line[:] = [chance]
        return line[-HISTORY:]
