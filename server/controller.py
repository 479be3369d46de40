"""The table controller: the one thread that drives the tower and the game.

Every reading of the dice becomes a game action here and nowhere else. Work
arrives as commands (from the API, the tower's buttons, computer players and
the host) on a queue; the thread runs them one at a time and, between them,
advances the physical phases: shake, settle, read, wait for dice to leave or
come back. Each change is committed to the journal (:mod:`server.store`)
before the new state is published, and a restart resumes from the journal.
The hardware side (shake, settle, read, dice out and back) is in
:mod:`server.tray`.

Phases: ``idle`` (no game), ``ready`` (waiting for ROLL or BANK), ``shaking``,
``settling``, ``reading``, ``choose`` (dice read, waiting for a set-aside),
``remove_dice`` (waiting for set-aside dice to leave the tray),
``return_dice`` (waiting for dice to come back), ``fix_tray`` (a person must
straighten the tray), ``over``.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any

from server.host import Host
from server.store import Step, Store
from server.tray import Hardware, TableError, Timing, TrayPhases, dice_text, multiset_minus
from zilch import Event, Game, IllegalAction, find_preset, replay
from zilch.strategy import BOTS, UnknownBot, make_bot

log = logging.getLogger(__name__)

BUSY_PHASES = ("shaking", "settling", "reading")
LOG_LENGTH = 50
DEFAULT_TIMING = Timing()
ANNOUNCED = ("announcement", "final_round", "forgiven", "game_over", "call", "call_again", "skip")
# An announcement saying several things takes the kind of the weightiest.
ANNOUNCED_FIRST = (
    "game_over",
    "final_round",
    "skip",
    "call_again",
    "call",
    "forgiven",
    "announcement",
)


class Controller(TrayPhases):
    """The table state machine; all game and hardware work happens on its thread."""

    def __init__(
        self,
        store: Store,
        hardware: Hardware,
        *,
        timing: Timing = DEFAULT_TIMING,
        publish: Callable[[int], None] = lambda seq: None,
        clock: Callable[[], float] = time.monotonic,
        host: Host | None = None,
        heartbeat: Callable[[], None] = lambda: None,
        long_press_action: str = "new_game",
        solution: Callable[[Any], Any] | None = None,
    ) -> None:
        self.store = store
        self.hw = hardware
        self.timing = timing
        self.clock = clock
        self.host = host
        self._publish = publish
        self._heartbeat = heartbeat
        self.long_press_action = long_press_action
        self._solution = solution
        self._queue: queue.Queue[tuple[Callable[..., Any], tuple[Any, ...], Future[Any]]] = (
            queue.Queue()
        )
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.RLock()  # guards the attributes the state document reads
        # table state (the snapshot)
        self.game: Game | None = None
        self.game_id: int | None = None
        self.preset = ""
        self.house_rules: dict[str, Any] = {}
        self.bots: dict[str, str] = {}
        self.phase = "idle"
        self.message = ""
        self.reading: dict[str, Any] | None = None
        self.in_tray = 6
        self.expect_tray: tuple[int, ...] | None = None
        self.then: str | None = None
        self.tries = 0
        self.announcement: dict[str, Any] | None = None
        self.refused: tuple[int, ...] | None = None
        self.seq = 0
        self.last_shake: dict[str, float] | None = None
        self.log: deque[dict[str, Any]] = deque(maxlen=LOG_LENGTH)
        # transient
        self._bot_objects: dict[str, Any] = {}
        self._bot_due = 0.0
        self._next_poll = 0.0
        self._candidate: tuple[int, ...] | None = None
        self._detector: Any = None
        self._settle_deadline = 0.0
        self._next_frame = 0.0
        self._idle = threading.Event()
        self._shown_phase = "idle"

    # -- life cycle ---------------------------------------------------------

    def start(self) -> None:
        """Resume the table from the journal and start the controller thread."""
        self.resume()
        self.hw.tower.on_roll = lambda: self.submit_nowait(self.roll)
        self.hw.tower.on_bank = lambda: self.submit_nowait(self.bank)
        self.hw.tower.on_long_press = lambda: self.submit_nowait(self.long_press)
        self._thread = threading.Thread(target=self._run, name="table-controller", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the thread after the command in hand; the caller closes the hardware."""
        self._stop.set()
        self._queue.put((lambda: None, (), Future()))  # wake the thread
        if self._thread is not None:
            self._thread.join(timeout)

    def call(self, fn: Callable[..., Any], *args: Any, timeout: float = 30.0) -> Any:
        """Run ``fn(*args)`` on the controller thread and return its result or raise."""
        future: Future[Any] = Future()
        if self._stop.is_set():
            raise TableError("the table service is shutting down")
        self._queue.put((fn, args, future))
        return future.result(timeout)

    def submit_nowait(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue ``fn(*args)`` without waiting (button presses)."""
        self._queue.put((fn, args, Future()))

    def wait_quiet(self, timeout: float = 30.0) -> bool:
        """Block until no command, roll or computer player's move is pending (for tests)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._idle.wait(0.01) and self._queue.empty() and self._quiet():
                return True
            # Never spin: a waiter busy on the GIL starves the controller thread
            # (a solve of many small NumPy steps took 7 s instead of 0.3 s).
            time.sleep(0.01)
        return False

    def _quiet(self) -> bool:
        with self._lock:
            phase = self._shown_phase
            if phase in BUSY_PHASES or phase != self.phase:
                return False
            if phase in ("remove_dice", "return_dice") and self.hw.sim_hands:
                return False
            return self._bot_turn() is None

    def _run(self) -> None:
        while not self._stop.is_set():
            self._heartbeat()
            try:
                fn, args, future = self._queue.get(timeout=self._wait_time())
            except queue.Empty:
                pass
            else:
                self._idle.clear()
                self._execute(fn, args, future)
            try:
                self._advance()
            except Exception as exc:
                log.exception("the table controller failed to advance")
                self._fail(exc)
                self._stop.wait(1.0)  # a failing camera or tower is not retried in a tight loop
            if self._queue.empty():
                self._idle.set()

    def _wait_time(self) -> float:
        if self.phase in BUSY_PHASES:
            return max(0.0, self._next_frame - time.monotonic())
        if self.phase in ("choose", "remove_dice", "return_dice", "fix_tray"):
            return max(0.0, min(self.timing.poll_s, self._next_poll - self.clock()))
        if self._bot_turn() is not None:
            return max(0.0, min(0.5, self._bot_due - self.clock()))
        return 0.25

    def _execute(self, fn: Callable[..., Any], args: tuple[Any, ...], future: Future[Any]) -> None:
        try:
            result = fn(*args)
        except Exception as exc:
            if not isinstance(exc, ValueError):
                log.exception("command %s failed", getattr(fn, "__name__", fn))
            future.set_exception(exc)
        else:
            future.set_result(result)

    # -- persistence --------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The controller's own state, stored with every journal row."""
        return {
            "phase": self.phase,
            "message": self.message,
            "reading": self.reading,
            "in_tray": self.in_tray,
            "expect_tray": None if self.expect_tray is None else list(self.expect_tray),
            "then": self.then,
            "tries": self.tries,
            "announcement": self.announcement,
            "refused": None if self.refused is None else list(self.refused),
            "preset": self.preset,
            "house_rules": self.house_rules,
            "bots": self.bots,
            "last_shake": self.last_shake,
        }

    def _commit(
        self,
        *,
        action: dict[str, Any] | None = None,
        events: Sequence[Event] = (),
        tower: Sequence[list[Any]] = (),
        notes: Sequence[tuple[str, str]] = (),
        roll: tuple[str, Sequence[int]] | None = None,
    ) -> int:
        """Journal the change (committed), then publish the new state."""
        entries = [
            {"kind": e.kind, "player": e.player, "text": e.text, "data": dict(e.data)}
            for e in events
        ]
        entries += [
            {"kind": kind, "player": None, "text": text, "data": {}} for kind, text in notes
        ]
        turns = [
            (e.player, int(e.data.get("points", e.data.get("total", 0))))
            for e in events
            if e.kind == "bank" and e.player
        ]
        finished = None
        game_over = any(e.kind == "game_over" for e in events)
        if self.game is not None and self.game.state.finished and game_over:
            finished = self.game.summary()
        step = Step(
            game_id=self.game_id,
            snapshot=self.snapshot(),
            action=action,
            tower=list(tower),
            log=entries,
            roll=roll,
            turns=turns,
            finished=finished,
        )
        seq = self.store.append(step, preset=self.preset or None)
        with self._lock:
            self.seq = seq
            for entry in entries:
                self.log.append({"seq": seq, **entry})
        self._publish(seq)
        self._shown_phase = self.phase
        return seq

    def resume(self) -> None:
        """Rebuild the table from the journal: game from its record, tray from tower ops."""
        last = self.store.last_step()
        if last is None:
            return
        seq, game_id, snap = last
        if self.hw.sim_hands:
            self._replay_tower(self.store.tower_ops())
        self.seq = seq
        self.preset = snap.get("preset", "")
        self.house_rules = dict(snap.get("house_rules", {}))
        self.bots = dict(snap.get("bots", {}))
        self.phase = snap.get("phase", "idle")
        self.message = snap.get("message", "")
        self.reading = snap.get("reading")
        self.in_tray = int(snap.get("in_tray", 6))
        expect = snap.get("expect_tray")
        self.expect_tray = None if expect is None else tuple(expect)
        self.then = snap.get("then")
        self.tries = int(snap.get("tries", 0))
        self.announcement = snap.get("announcement")
        self.last_shake = snap.get("last_shake")
        refused = snap.get("refused")
        self.refused = None if refused is None else tuple(refused)
        if game_id is not None:
            record = self.store.record(game_id)
            assert record is not None
            self.game = replay(record)
            self.game_id = game_id
            self.log.extend(self.store.log(game_id, LOG_LENGTH))
        if self.phase in BUSY_PHASES:
            # The dice were shaken (the shake is journaled before it happens):
            # wait for them to lie still and read them.
            self.phase = "settling"
        if self.host is not None and self.game is not None:
            self.host.turn_started(self.game.state.current, self.clock())
        self._shown_phase = self.phase
        self._bot_due = self.clock() + self.timing.bot_delay_s
        log.info("resumed table at seq %d, phase %s", seq, self.phase)

    # -- commands (run on the controller thread) --------------------------------

    def new_game(
        self, preset: str, rules: dict[str, Any], players: list[str], bots: dict[str, str]
    ) -> None:
        """Start a new game (abandoning one in progress) with these players."""
        if self.phase in BUSY_PHASES:
            raise TableError("wait for the dice to be read before starting a new game")
        ruleset = find_preset(preset).with_house_rules(rules)
        for name, bot in bots.items():
            self._make_bot(bot, ruleset)  # checks the bot's name before anything changes
            if name not in players:
                raise TableError(f"computer player {name!r} is not among the players")
        game = Game(ruleset, players)
        old = self.game_id if self.game is not None and not self.game.state.finished else None
        self.game_id = self.store.start_game(preset, rules, players, bots, abandon=old)
        self.game = game
        self.preset, self.house_rules, self.bots = preset, dict(rules), dict(bots)
        self._bot_objects = {}
        if self.hw.sim_hands:
            self.in_tray = self.hw.tower.in_tray
        self.then = None
        self.refused = None
        self.announcement = None
        with self._lock:
            self.log.clear()
        text = f"New game of {preset}" + (": " + ", ".join(players) if players else "")
        self._after_game_change([], notes=[("new_game", text + ".")])

    def join(self, name: str, bot: str | None = None) -> None:
        """Add a player to the running game (the engine's joining rules apply)."""
        game = self._need_game()
        if bot is not None:
            self._make_bot(bot, game.rules)
        events = game.apply({"join": name})
        self.store.add_bot(self._game_id(), name, bot)
        if bot is not None:
            self.bots[name] = bot
        self._after_game_change(events, action={"join": name})

    def roll(self, player: str | None = None) -> None:
        """ROLL: shake the tower once the dice in the tray are right."""
        game = self._need_game(player)
        if self.phase in BUSY_PHASES:
            raise TableError("the dice are already rolling")
        if self.phase == "choose":
            self._check_take_out(stable=False)
            if self.phase == "choose":
                raise TableError(
                    "set dice aside first: take them out of the tray or tap them on your phone"
                )
        if self.phase in ("remove_dice", "return_dice"):
            self._tray_step()
            if self.phase != "ready":
                raise TableError(self.message or "the dice in the tray are not right yet")
        if self.phase not in ("ready", "fix_tray"):
            raise IllegalAction(f"cannot roll now: the table is {self.phase}")
        if game.state.phase != "roll":
            raise IllegalAction("cannot roll now: set dice aside first")
        self._acted()
        self.then = None
        self.tries = 0
        self._begin_shake()

    def keep(self, values: list[int], player: str | None = None) -> None:
        """Set these dice aside (tapped on a phone, or a computer player's choice)."""
        game = self._need_game(player)
        if self.phase != "choose":
            raise IllegalAction(f"cannot set dice aside now: the table is {self.phase}")
        roll = tuple(game.state.turn.roll or ())
        events = game.apply({"keep": list(values)})
        self._acted()
        rest = multiset_minus(roll, values) or ()
        self.refused = None
        if game.state.phase == "roll" and game.state.turn.dice_left == len(rest) and rest:
            # The kept dice are still in the tray: ask for exactly those to leave.
            self.expect_tray = rest
            self.phase = "remove_dice"
            self.message = f"Take out {dice_text(values)} from the tray."
            self._commit(action={"keep": list(values)}, events=events)
            self._next_poll = self.clock()  # the loop moves or checks the dice next
        else:
            self._after_game_change(events, action={"keep": list(values)})

    def bank(self, player: str | None = None) -> None:
        """BANK: end the turn and add its total."""
        game = self._need_game(player)
        if self.phase in BUSY_PHASES:
            raise TableError("wait for the dice to be read")
        events = game.apply({"bank": True})
        self._acted()
        self.then = None
        self._after_game_change(events, action={"bank": True})

    def skip(self, player: str | None = None) -> None:
        """Skip the current player's turn (the host, or a person on the phone)."""
        game = self._need_game(player)
        if self.phase in BUSY_PHASES:
            raise TableError("wait for the dice to be read")
        events = game.apply({"skip": True})
        self.then = None
        self._after_game_change(events, action={"skip": True})

    def challenge(self, victim: str, player: str | None = None) -> None:
        """Announce a challenge turn against ``victim`` (when the rules allow it)."""
        game = self._need_game(player)
        if self.phase != "ready":
            raise IllegalAction(f"cannot challenge now: the table is {self.phase}")
        events = game.apply({"challenge": victim})
        self._after_game_change(events, action={"challenge": victim})

    def touch(self) -> None:
        """Publish the state again (a table setting changed)."""
        self._commit()

    def long_press(self) -> None:
        """The BANK button held down: a new game with the same players, or a skip."""
        if self.long_press_action == "new_game" and self.game is not None:
            names = [p.name for p in self.game.state.players]
            self.new_game(self.preset, self.house_rules, names, dict(self.bots))
        elif self.long_press_action == "skip_turn" and self.game is not None:
            self.skip()

    def _need_game(self, player: str | None = None) -> Game:
        if self.game is None:
            raise TableError("no game is running: start one with POST /api/new-game")
        if self.game.state.finished:
            raise IllegalAction("the game is over: start a new one")
        current = self.game.state.current
        if player is not None and player != current:
            raise IllegalAction(f"it is {current}'s turn, not {player}'s")
        return self.game

    def _game_id(self) -> int:
        assert self.game_id is not None
        return self.game_id

    def _acted(self) -> None:
        if self.host is not None:
            self.host.player_acted()

    # -- the roll ------------------------------------------------------------

    def _after_game_change(
        self,
        events: Sequence[Event],
        *,
        action: dict[str, Any] | None = None,
        roll: tuple[str, Sequence[int]] | None = None,
        notes: Sequence[tuple[str, str]] = (),
    ) -> None:
        """Choose the next phase from the game and the tray, then commit."""
        game = self.game
        notes = list(notes)
        self.expect_tray = None
        if game is None:
            self.phase = "idle"
        elif game.state.finished:
            self.phase, self.message = "over", ""
            self.hw.tower.light.show("ready")
        elif game.state.phase == "keep":
            self.phase = "choose"
            self.message = "Take out the dice you keep, or tap them on your phone."
            self._candidate = None
        elif self.in_tray != game.state.turn.dice_left:
            self.phase = "return_dice"
            want = game.state.turn.dice_left
            self.message = f"Put the dice back: {want} dice in the tray."
        else:
            self.phase, self.message = "ready", ""
        if self.host is not None and game is not None:
            notes += self.host.after_events(game, events, self.clock())
        self._announce(events, notes)
        self._bot_due = self.clock() + self.timing.bot_delay_s
        self._commit(action=action, events=events, roll=roll, notes=notes)
        self._next_poll = self.clock()  # the loop moves or checks the dice next

    def _announce(self, events: Sequence[Event], notes: Sequence[tuple[str, str]]) -> None:
        """Gather this step's announcements (engine's first, then the host's) into one.

        Its ``kind`` is the weightiest of them (the winner over a call over the scores).
        """
        said = [(e.kind, e.text) for e in events if e.kind in ANNOUNCED]
        said += [(kind, text) for kind, text in notes if kind in ANNOUNCED]
        if said:
            text = " ".join(text for _, text in said)
            kind = min((k for k, _ in said), key=ANNOUNCED_FIRST.index)
            self.announcement = {"seq": self.seq + 1, "text": text, "kind": kind}

    # -- between commands --------------------------------------------------------

    def _advance(self) -> None:
        """Poll the tray, run host timers and computer players."""
        if self.game is None or self.game.state.finished:
            return
        now = self.clock()
        if self.phase == "shaking":
            self._shake()
            return
        if self.phase in ("settling", "reading"):
            self._settle_step()
            return
        if now >= self._next_poll:
            if self.phase in ("remove_dice", "return_dice"):
                self._tray_step()
            elif self.phase == "choose" and self._bots_current() is None and self._tray_touched():
                self._check_take_out()
            elif self.phase == "fix_tray" and not self.hw.sim_hands:
                self._check_fixed()
        if self.host is not None and self.phase == "ready" and self._bots_current() is None:
            due = self.host.due(self.game, now)
            if due is not None:
                self._host_action(*due)
        bot = self._bot_turn()
        if bot is not None and now >= self._bot_due:
            self._bot_move(bot)

    def _tray_touched(self) -> bool:
        """Whether the tray may have changed: always on a real tower; in the simulator
        only when someone took dice out or put them back (no camera work otherwise)."""
        if not self.hw.sim_hands:
            return True
        roll = self.game.state.turn.roll if self.game is not None else None
        return self.hw.tower.in_tray != len(roll or ()) or self.refused is not None

    def _host_action(self, kind: str, text: str) -> None:
        if kind == "skip":
            game = self._need_game()
            events = game.apply({"skip": True})
            self._after_game_change(events, action={"skip": True}, notes=[("skip", text)])
        else:
            self.announcement = {"seq": self.seq + 1, "text": text, "kind": kind}
            self._commit(notes=[(kind, text)])

    def _bots_current(self) -> str | None:
        if self.game is None:
            return None
        current = self.game.state.current
        return self.bots.get(current) if current else None

    def _bot_turn(self) -> str | None:
        """The current player's bot name if a computer player must act now.

        In the simulator a computer player also presses ROLL when the tray
        needs fixing (there is no person at a simulated tray).
        """
        if self.game is None or self.game.state.finished:
            return None
        phases = ("ready", "choose", "fix_tray") if self.hw.sim_hands else ("ready", "choose")
        if self.phase not in phases:
            return None
        return self._bots_current()

    def _bot_move(self, bot_name: str) -> None:
        game = self._need_game()
        me = game.state.current or ""
        if self.phase == "fix_tray":
            self.roll()
            return
        if self.phase == "ready":
            if self.then == "bank" and game.state.turn.can_bank:
                self.bank()
            else:
                self.roll()
            return
        bot = self._bot_objects.get(me)
        if bot is None:
            bot = self._bot_objects[me] = self._make_bot(bot_name, game.rules)
        decision = bot.decide(game.state, me)
        self.keep(list(decision.keep))
        self.then = decision.then
        if decision.then == "bank" and not game.state.finished and game.state.current == me:
            self.bank()

    def _make_bot(self, name: str, rules: Any) -> Any:
        """A computer player; ``optimal`` gets its solution from the service's cache."""
        if name not in BOTS:
            raise UnknownBot(f"unknown computer player {name!r}; choose one of {', '.join(BOTS)}")
        return make_bot(name, rules, self._solution) if name == "optimal" else make_bot(name, rules)

    def _fail(self, exc: Exception) -> None:
        """The hardware failed mid-phase: show it, and let ROLL try again from a safe phase."""
        if self.phase in BUSY_PHASES:
            self.phase = "fix_tray"
        self._detector = None
        self.message = f"The tower hit a problem ({exc}); check it, then press ROLL."
        try:
            self.hw.tower.light.show("error")
            self._commit(notes=[("error", self.message)])
        except Exception:
            log.exception("could not report the failure")


__all__ = ["BUSY_PHASES", "Controller", "Hardware", "TableError", "Timing"]
