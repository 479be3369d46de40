"""The table controller: the one thread that drives the tower and the game.

Every reading of the dice becomes a game action here and nowhere else. Work
arrives as commands (from the API, the tower's buttons, computer players and
the host) on a queue; the thread runs them one at a time and, between them,
advances the physical phases: shake, settle, read, wait for dice to leave or
come back.

The table is one value, :class:`~server.table_state.TableState`. Each step
builds the next value (the game's next state from :meth:`zilch.Game.after`),
commits it to the journal (:mod:`server.store`) and only then adopts and
publishes it; a restart resumes from the journal. The hardware side (shake,
settle, read, dice out and back) is :class:`~server.tray.Tray`, which
reports outcomes; what the simulator adds is :class:`~server.hands.Hands`;
the journal rows are :class:`~server.journal.TableJournal`'s. What stays here
(about 700 lines) is the state machine itself, kept in one file so that every
transition of the table can be read in one place.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import replace
from typing import Any

from server.hands import Hands, PeopleHands, Shake, TowerOp, count_after, multiset_minus
from server.host import Host
from server.journal import Note, TableJournal
from server.store import NewGame, StorageError, Store
from server.table_edits import leave_step, left_turn, rename_step, undo_step
from server.table_state import (
    ANNOUNCED,
    ANNOUNCED_FIRST,
    CHOOSE_MESSAGE,
    Announcement,
    AnnouncementKind,
    Correction,
    LastShake,
    TableError,
    TablePhase,
    TableState,
    turn_token,
)
from server.teaching import Lessons, SeenRoll, said_reading
from server.tray import Hardware, Settled, TakenOut, Timing, Tray, TrayRight, Untouched
from zilch import (
    Event,
    Game,
    IllegalAction,
    RuleSet,
    dice_text,
    find_preset,
)
from zilch.names import name_key
from zilch.strategy import BOTS, UnknownBot, make_bot
from zilch.strategy.bots import Bot
from zilch.strategy.solution import Solution
from zilch.strategy.winchance import WinTable

log = logging.getLogger(__name__)

DEFAULT_TIMING = Timing()
STORAGE_RETRY_S = 1.0  # a step the storage refused is tried again this much later
# where a person may say what the roll on the table shows: while it waits for a
# set-aside, or after it zilched (or scored "nothing") before anyone acts again
CORRECT_PHASES = (TablePhase.CHOOSE, TablePhase.READY, TablePhase.RETURN_DICE)

Command = Callable[..., object]


class Controller:
    """The table state machine; all game and hardware work happens on its thread."""

    def __init__(
        self,
        store: Store,
        hardware: Hardware,
        *,
        hands: Hands | None = None,
        timing: Timing = DEFAULT_TIMING,
        publish: Callable[[TableState], None] = lambda state: None,
        notice: Callable[[TableState, str], None] = lambda state, text: None,
        clock: Callable[[], float] = time.monotonic,
        host: Host | None = None,
        heartbeat: Callable[[], None] = lambda: None,
        long_press_action: str = "new_game",
        solution: Callable[[RuleSet], Solution] | None = None,
        lessons: Lessons | None = None,
        win: Callable[[RuleSet], WinTable | None] | None = None,
    ) -> None:
        self.store = store
        self.hw = hardware
        self.hands = hands or PeopleHands()
        self.tray = Tray(hardware, self.hands, timing, clock)
        self.journal = TableJournal(store, self.hands)
        self.timing = timing
        self.clock = clock
        self.host = host
        self._publish = publish
        self._notice = notice
        self._heartbeat = heartbeat
        self.long_press_action = long_press_action
        self._solution = solution
        self.lessons = lessons or Lessons()
        self._win = win
        self._queue: queue.Queue[tuple[Command, tuple[object, ...], Future[object]]] = queue.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # guards the adoption of a new state
        self._state = TableState()
        # transient (not journaled)
        self._bot_objects: dict[str, Bot] = {}
        self._new_game: NewGame | None = None  # created with the next journal row
        self._bot_due = 0.0
        self._idle = threading.Event()
        self._shown = self._state  # the state last published
        self._unsaved_shake: LastShake | None = None  # shaken, but the storage refused the step

    @property
    def state(self) -> TableState:
        """The table as last committed (an immutable value)."""
        return self._state

    @property
    def seq(self) -> int:
        return self._state.seq

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

    def call(self, fn: Command, *args: object, timeout: float = 30.0) -> object:
        """Run ``fn(*args)`` on the controller thread and return its result or raise."""
        future: Future[object] = Future()
        if self._stop.is_set():
            raise TableError("the table service is shutting down")
        self._queue.put((fn, args, future))
        return future.result(timeout)

    def submit_nowait(self, fn: Command, *args: object) -> None:
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
            phase = self._shown.phase
            if phase.busy or phase is not self._state.phase:
                return False
            if self._shown.seq != self._state.seq:  # adopted, still being published
                return False
            if self.hands.moves_dice(phase) or left_turn(self._state) is not None:
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
                self._unchanged_unless_saved(self._advance)
            except StorageError:
                self._stop.wait(STORAGE_RETRY_S)  # the same step is tried again
            except Exception as exc:
                log.exception("the table controller failed to advance")
                self._fail(exc)
                self._stop.wait(1.0)  # a failing camera or tower is not retried in a tight loop
            if self._queue.empty():
                self._idle.set()

    def _wait_time(self) -> float:
        phase = self._state.phase
        if phase.busy:
            return max(0.0, self.tray.next_frame - time.monotonic())
        if phase in (TablePhase.CHOOSE, TablePhase.FIX_TRAY) or phase.tray_moving:
            return max(0.0, min(self.timing.poll_s, self.tray.next_poll - self.clock()))
        if self._bot_turn() is not None:
            return max(0.0, min(0.5, self._bot_due - self.clock()))
        return 0.25

    def _execute(self, fn: Command, args: tuple[object, ...], future: Future[object]) -> None:
        try:
            result = self._unchanged_unless_saved(fn, *args)
        except Exception as exc:
            if not isinstance(exc, ValueError | StorageError):
                log.exception("command %s failed", getattr(fn, "__name__", fn))
            future.set_exception(exc)
        else:
            future.set_result(result)

    def _unchanged_unless_saved(self, fn: Command, *args: object) -> object:
        """Run ``fn``; if the storage refuses a step, the host's calls go back as they were.

        The table state itself is only ever replaced by a committed one, so it
        needs no undoing; the TV and phones are told that nothing could be saved.
        """
        memo = None if self.host is None else self.host.memo()
        try:
            return fn(*args)
        except StorageError as exc:
            if self.host is not None and memo is not None:
                self.host.recall(memo)
            log.warning("the table could not save a step: %s", exc.detail)
            self._notice(self._state, str(exc))
            raise

    # -- persistence --------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The controller's own state, stored with every journal row."""
        return self._state.to_json()

    def _commit(
        self,
        following: TableState,
        *,
        action: Mapping[str, object] | None = None,
        events: Sequence[Event] = (),
        tower: Sequence[TowerOp] = (),
        notes: Sequence[Note] = (),
        roll: tuple[str, Sequence[int]] | None = None,
        ended: int | None = None,
    ) -> TableState:
        """Journal ``following`` (committed), then adopt and publish it; the adopted state.

        If the storage refuses, :class:`~server.store.StorageError` leaves this
        table's state untouched.
        """
        new_game, self._new_game = self._new_game, None  # only the first row makes the game
        adopted = self.journal.write(
            following,
            action=action,
            events=events,
            tower=tower,
            notes=notes,
            roll=roll,
            new_game=new_game,
            ended=ended,
        )
        with self._lock:
            self._state = adopted
        self._publish(adopted)
        self._shown = adopted
        return adopted

    def resume(self) -> None:
        """Rebuild the table from the journal (see :meth:`TableJournal.read`)."""
        state = self.journal.read()
        if state is None:
            return
        self._state = state
        if self.host is not None and state.game is not None:
            self.host.turn_started(state.game.state.current, self.clock())
        self._shown = state
        self._bot_due = self.clock() + self.timing.bot_delay_s
        log.info("resumed table at seq %d, phase %s", state.seq, state.phase.value)

    # -- commands (run on the controller thread) --------------------------------

    def new_game(
        self,
        preset: str,
        rules: dict[str, Any],
        players: list[str],
        bots: dict[str, str],
        replace_running: bool = True,
    ) -> None:
        """Start a new game (abandoning one in progress, unless told not to) with these players."""
        now = self._state
        if now.playing and not replace_running:
            raise TableError("a game is running: replacing it needs the host's admin PIN")
        if now.phase.busy:
            raise TableError("wait for the dice to be read before starting a new game")
        ruleset = find_preset(preset).with_house_rules(rules)
        for name, bot in bots.items():
            self._make_bot(bot, ruleset)  # checks the bot's name before anything changes
            if name not in players:
                raise TableError(f"computer player {name!r} is not among the players")
        game = Game(ruleset, players)
        old = now.game_id if now.playing else None
        game_id = self.store.next_game_id()
        self._bot_objects = {}
        following = replace(
            now,
            game=game,
            game_id=game_id,
            preset=preset,
            house_rules=dict(rules),
            bots=dict(bots),
            in_tray=self.hands.in_tray(now.in_tray),
            then=None,
            refused=None,
            announcement=None,
            log=(),
            correction=None,
        )
        text = f"New game of {preset}" + (": " + ", ".join(players) if players else "")
        # The game's row is written with its first journal row, in one transaction.
        self._new_game = NewGame(preset, rules, players, bots, abandon=old)
        try:
            self._after_game_change(following, [], notes=[("new_game", text + ".")])
        finally:
            self._new_game = None

    def join(self, name: str, bot: str | None = None) -> None:
        """Add a player to the running game (the engine's joining rules apply)."""
        now = self._state
        game = self._need_game()
        if bot is not None:
            self._make_bot(bot, game.rules)
        game, events = game.after({"join": name})
        assert now.game_id is not None
        self.store.add_bot(now.game_id, name, bot)
        bots = dict(now.bots) if bot is None else {**now.bots, name: bot}
        following = replace(now, game=game, bots=bots)
        self._after_game_change(following, events, action={"join": name})

    def roll(self, player: str | None = None, turn: str | None = None) -> None:
        """ROLL: shake the tower once the dice in the tray are right."""
        game = self._person_acts(player, turn)
        phase = self._state.phase
        if phase.busy:
            raise TableError("the dice are already rolling")
        if phase is TablePhase.CHOOSE:
            self._check_take_out(stable=False)
            if self._state.phase is TablePhase.CHOOSE:
                raise TableError(
                    "set dice aside first: take them out of the tray or tap them on your phone"
                )
        if self._state.phase.tray_moving:
            self._tray_step()
            if self._state.phase is not TablePhase.READY:
                raise TableError(self._state.message or "the dice in the tray are not right yet")
        phase = self._state.phase
        if phase not in (TablePhase.READY, TablePhase.FIX_TRAY):
            raise IllegalAction(f"cannot roll now: the table is {phase.value}")
        game = self._need_game(player)
        if game.state.phase != "roll":
            raise IllegalAction("cannot roll now: set dice aside first")
        self._acted()
        self._begin_shake(replace(self._state, then=None, tries=0))

    def keep(self, values: list[int], player: str | None = None, turn: str | None = None) -> None:
        """Set these dice aside (tapped on a phone, or a computer player's choice)."""
        now = self._state
        game = self._person_acts(player, turn)
        if now.phase is not TablePhase.CHOOSE:
            raise IllegalAction(f"cannot set dice aside now: the table is {now.phase.value}")
        roll = tuple(game.state.turn.roll or ())
        game, events = game.after({"keep": list(values)})
        self._acted()
        rest = multiset_minus(roll, values) or ()
        following = replace(now, game=game, refused=None)
        if game.state.phase == "roll" and game.state.turn.dice_left == len(rest) and rest:
            # The kept dice are still in the tray: ask for exactly those to leave.
            following = replace(
                following,
                expect_tray=rest,
                phase=TablePhase.REMOVE_DICE,
                message=f"Take out {dice_text(sorted(values))} from the tray.",
            )
            self._commit(following, action={"keep": list(values)}, events=events)
            self.tray.poll_now()  # the loop moves or checks the dice next
        else:
            self._after_game_change(following, events, action={"keep": list(values)})

    def bank(self, player: str | None = None, turn: str | None = None) -> None:
        """BANK: end the turn and add its total."""
        game = self._person_acts(player, turn)
        if self._state.phase.busy:
            raise TableError("wait for the dice to be read")
        game, events = game.after({"bank": True})
        self._acted()
        following = replace(self._state, game=game, then=None)
        self._after_game_change(following, events, action={"bank": True})

    def skip(self, player: str | None = None, turn: str | None = None) -> None:
        """Skip the current player's turn (the host, or a person on the phone)."""
        game = self._person_acts(player, turn)
        if self._state.phase.busy:
            raise TableError("wait for the dice to be read")
        game, events = game.after({"skip": True})
        following = replace(self._state, game=game, then=None)
        self._after_game_change(following, events, action={"skip": True})

    def challenge(self, victim: str, player: str | None = None) -> None:
        """Announce a challenge turn against ``victim`` (when the rules allow it)."""
        game = self._need_game(player)
        phase = self._state.phase
        if phase is not TablePhase.READY:
            raise IllegalAction(f"cannot challenge now: the table is {phase.value}")
        game, events = game.after({"challenge": victim})
        following = replace(self._state, game=game)
        self._after_game_change(following, events, action={"challenge": victim})

    def correct(self, values: list[int], by: str | None = None) -> None:
        """A person says what the dice show (anyone at the table, ``by`` naming them).

        While a roll waits for its set-aside, or right after it zilched, the
        engine takes it as a correction of that roll; after the last reshake
        (``fix_tray``) the values are the roll the tower could not read.
        """
        now = self._state
        game = self._need_game()
        if now.phase.busy:
            raise TableError("wait for the dice to be read before saying what they show")
        if now.phase is TablePhase.FIX_TRAY:
            self._enter_dice(values, by)
            return
        read = game.correctable()
        if read is None:
            raise IllegalAction(game.correct_refusal() or "there is no roll to correct now")
        if now.phase not in CORRECT_PHASES:
            raise IllegalAction(f"cannot correct the dice now: the table is {now.phase.value}")
        action: dict[str, object] = {"correct": list(values)}
        if by is not None:
            action["by"] = by
        game, events = game.after(action)
        player = events[0].player or ""
        dice = tuple(sorted(values))
        following = replace(
            now,
            game=game,
            refused=None,
            in_tray=len(dice) if game.state.phase == "keep" else now.in_tray,
            correction=Correction(player, dice, read, by),
            reading=said_reading(now.reading, values),
        )
        adopted = self._after_game_change(
            following, events, action=action, roll=(player, list(dice))
        )
        self.lessons.said(read, values)
        if any(e.kind == "forgiven" for e in events) and adopted.phase is TablePhase.READY:
            self._begin_shake(adopted)

    def roll_in_view(self) -> tuple[TableState, SeenRoll | None]:
        """The table and the frame and reading of its last roll read, taken together (on
        the controller's thread, so that the frame is of the roll the state shows)."""
        return self._state, self.lessons.last_seen()

    def _enter_dice(self, values: list[int], by: str | None) -> None:
        """After the last reshake: the dice a person says the unread roll shows."""
        now = self._state
        game = self._need_game()
        player = game.state.current or ""
        game, events = game.after({"roll": list(values)})
        read = tuple(sorted(int(d["value"]) for d in (now.reading or {}).get("dice", [])))
        dice = tuple(sorted(values))
        by_whom = f" by {by}" if by else ""
        note = (
            "dice_entered",
            f"{player}'s roll entered{by_whom}: {dice_text(dice)} (the tower could not read it).",
        )
        following = replace(
            now,
            game=game,
            in_tray=len(dice),
            tries=0,
            correction=Correction(player, dice, read, by, entered=True),
            reading=said_reading(now.reading, values),
        )
        self.tray.show("ready")
        adopted = self._after_game_change(
            following,
            events,
            action={"roll": list(values)},
            roll=(player, list(dice)),
            notes=[note],
        )
        self.lessons.said(read, values)
        if any(e.kind == "forgiven" for e in events) and adopted.phase is TablePhase.READY:
            self._begin_shake(adopted)

    def end_game(self) -> None:
        """The host ends the running game unfinished: journaled, marked abandoned, table idle."""
        now = self._state
        game = self._need_game()
        ended = now.game_id
        leader = max(game.state.players, key=lambda p: p.score)
        text = f"Game {ended} ended by the host before its finish (leader {leader.name}, " + (
            f"{leader.score:,})."
        )
        idle = replace(
            now,
            phase=TablePhase.IDLE,
            game=None,
            game_id=None,
            message="",
            announcement=None,
            expect_tray=None,
            then=None,
            tries=0,
            refused=None,
            paused=False,
            correction=None,
            log=(),
        )
        if self.host is not None:
            self.host.turn_started(None, self.clock())
        self._commit(idle, notes=[("game_ended", text)], ended=ended)

    def set_paused(self, paused: bool) -> None:
        """Pause the table (host calls, skip timers and computer players stop) or go on."""
        now = self._state
        game = self._need_game()
        if now.paused == paused:
            raise TableError("the table is already " + ("paused" if paused else "playing"))
        if self.host is not None and not paused:
            self.host.turn_started(game.state.current, self.clock())  # the calls start afresh
        self._bot_due = self.clock() + self.timing.bot_delay_s
        text = "Paused by the host." if paused else "The game goes on."
        self._commit(replace(now, paused=paused), notes=[("pause" if paused else "resume", text)])

    def undo(self) -> None:
        """Take back the last set-aside of the turn, before the next roll (table_edits)."""
        following, ops, text = undo_step(self._state, self.hands)
        self._commit(following, action={"undo": True}, tower=ops, notes=[("undo", text)])
        self.hands.perform(ops)
        self.tray.forget()
        self.tray.poll_now()

    def rename(self, old: str, new: str) -> None:
        """Call a player by another name, from the game's first action on."""
        following, old, new, text = rename_step(self._state, old, new)
        self._bot_objects = {}
        if self.host is not None:
            self.host.renamed(old, new)
        action = {"rename": {"from": old, "to": new}}
        self._commit(following, action=action, notes=[("rename", text)])

    def remove_player(self, name: str) -> None:
        """A player has left: their turns are skipped from now on (one starting now, at once)."""
        following, text = leave_step(self._state, name)
        self._commit(following, notes=[("left", text)])
        self._skip_left()

    def _skip_left(self) -> None:
        """Skip the turn of a player who left, when it comes (journaled as the engine's skip)."""
        name = left_turn(self._state)
        if name is None:
            return
        game, events = self._need_game().after({"skip": True})
        note = ("skip", f"{name} has left: the turn is skipped.")
        following = replace(self._state, game=game, then=None)
        self._after_game_change(following, events, action={"skip": True}, notes=[note])

    def touch(self) -> None:
        """Publish the state again (a table setting changed)."""
        self._commit(self._state)

    def long_press(self) -> None:
        """The BANK button held down: a new game with the same players, or a skip."""
        now = self._state
        if self.long_press_action == "new_game" and now.game is not None:
            names = [p.name for p in now.game.state.players]
            self.new_game(now.preset, dict(now.house_rules), names, dict(now.bots))
        elif self.long_press_action == "skip_turn" and now.game is not None:
            self.skip()

    def move_dice_between_games(self, take_out: bool) -> None:
        """Helper hands, between games: take every die out of the tray, or put all back."""
        if not self.hands.helper:
            raise TableError("only the simulated tower has helper hands; move the dice")
        now = self._state
        if now.phase not in (TablePhase.IDLE, TablePhase.OVER):
            raise TableError("a game is running: move the dice between games")
        ops = self.hands.between_games(take_out)
        if ops:  # journaled, then made: a failed write moves no die
            in_tray = count_after(self.hands.in_tray(now.in_tray), ops)
            self._commit(replace(now, in_tray=in_tray), tower=ops)
            self.hands.perform(ops)

    def shake_between_games(self) -> None:
        """Shake the tower with no game running (the calibration page's teach step).

        Journaled before it happens, as every shake is, so the simulator
        replays it after a restart.
        """
        now = self._state
        if now.playing or now.phase.busy:
            raise TableError("a game is running: teach the tower its dice between games")
        self._commit(now, tower=[Shake()])
        self.tray.shake(None)

    def _person_acts(self, player: str | None, turn: str | None) -> Game:
        """A person's play action (ROLL, set-aside, BANK, skip): never while paused."""
        if self._state.paused:
            raise TableError("the table is paused: the host resumes it from a phone")
        game = self._need_game(player, turn)
        if game.state.current in self._state.left:
            raise TableError(f"{game.state.current} has left the game: the turn is skipped")
        return game

    def _need_game(self, player: str | None = None, turn: str | None = None) -> Game:
        """The running game; refused when ``player`` is not to play or ``turn`` has ended.

        ``turn`` is the state document's ``turn_token`` the request was made
        from: a request sent while the turn passed on acts for nobody.
        """
        game = self._state.game
        if game is None:
            raise TableError("no game is running: start one with POST /api/new-game")
        if game.state.finished:
            raise IllegalAction("the game is over: start a new one")
        current = game.state.current
        if player is not None and (current is None or name_key(player) != name_key(current)):
            raise IllegalAction(f"it is {current}'s turn, not {player}'s")
        if turn is not None and turn != turn_token(self._state.game_id, game):
            raise IllegalAction(
                f"that was sent for a turn that has ended; it is now {current}'s turn "
                "and nothing was done"
            )
        return game

    def _acted(self) -> None:
        if self.host is not None:
            self.host.player_acted()

    # -- the roll ------------------------------------------------------------

    def _after_game_change(
        self,
        following: TableState,
        events: Sequence[Event],
        *,
        action: Mapping[str, object] | None = None,
        roll: tuple[str, Sequence[int]] | None = None,
        notes: Sequence[Note] = (),
    ) -> TableState:
        """Choose the next phase from the game and the tray, then commit."""
        game = following.game
        notes = list(notes)
        following = replace(following, expect_tray=None)
        light = None
        if game is None:
            following = replace(following, phase=TablePhase.IDLE)
        elif game.state.finished:
            following = replace(following, phase=TablePhase.OVER, message="")
            light = "ready"
        elif game.state.phase == "keep":
            following = replace(following, phase=TablePhase.CHOOSE, message=CHOOSE_MESSAGE)
            self.tray.forget()
        elif following.in_tray != game.state.turn.dice_left:
            want = game.state.turn.dice_left
            following = replace(
                following,
                phase=TablePhase.RETURN_DICE,
                message=f"Put the dice back: {want} dice in the tray.",
            )
        else:
            following = replace(following, phase=TablePhase.READY, message="")
        if self.host is not None and game is not None and game.state.current not in following.left:
            notes += self.host.after_events(game, events, self.clock())
        following = self._announce(following, events, notes)
        self._bot_due = self.clock() + self.timing.bot_delay_s
        adopted = self._commit(following, action=action, events=events, roll=roll, notes=notes)
        if any(e.kind in ("turn_start", "game_over") for e in events):
            self.lessons.turn_ended()
        if light is not None:
            self.tray.show(light)
        self.tray.poll_now()  # the loop moves or checks the dice next
        return adopted

    def _announce(
        self, following: TableState, events: Sequence[Event], notes: Sequence[Note]
    ) -> TableState:
        """Gather this step's announcements (engine's first, then the host's) into one.

        Its ``kind`` is the weightiest of them (the winner over a call over the scores);
        a skip is said once.
        """
        # the host's skip says it in its own words: the engine's skip line is not said again
        host_skip = any(kind == "skip" for kind, _ in notes)
        said: list[tuple[AnnouncementKind, str]] = [
            (k, e.text)
            for e in events
            for k in ANNOUNCED
            if e.kind == k and not (host_skip and k == "skip")
        ]
        said += [(k, text) for kind, text in notes for k in ANNOUNCED if kind == k]
        if not said:
            return following
        text = " ".join(text for _, text in said)
        kind = min((k for k, _ in said), key=ANNOUNCED_FIRST.index)
        return replace(following, announcement=Announcement(self.seq + 1, text, kind))

    def _begin_shake(self, following: TableState) -> None:
        """Journal the shake (before it happens, so a restart replays it) and go on."""
        self._commit(replace(following, phase=TablePhase.SHAKING, message=""), tower=[Shake()])
        self.tray.show("rolling")

    def _shake(self) -> None:
        """Shake the tower, then settle: frames are watched one per loop turn.

        A shake the storage would not record is not repeated: the next try saves it.
        """
        now = self._state
        shake = self._unsaved_shake or self.tray.shake(now.last_shake if now.tries else None)
        self._unsaved_shake = shake
        self._commit(replace(now, last_shake=shake, phase=TablePhase.SETTLING))
        self._unsaved_shake = None

    def _read_roll(self, settled: Settled) -> None:
        """A settled roll: score a sure reading, shake again on an unsure one."""
        reading = settled.reading
        self.lessons.seen(settled.frame, reading)
        if reading.ok:
            self._score(reading.values, reading.to_json())
            return
        now = self._state
        unsure = replace(now, tries=now.tries + 1, reading=reading.to_json())
        if unsure.tries > self.timing.reshakes:
            self._ask_fix(unsure, reading.reason)
            return
        note = f"Unsure reading ({reading.reason}): shaking again."
        self._begin_shake(self._commit(unsure, notes=[("reshake", note)]))

    def _score(self, values: Sequence[int], reading: Mapping[str, Any]) -> None:
        game = self._need_game()
        player = game.state.current or ""
        game, events = game.after({"roll": list(values)})
        following = replace(
            self._state, game=game, reading=reading, in_tray=len(values), tries=0, correction=None
        )
        self.tray.show("ready")
        adopted = self._after_game_change(
            following, events, action={"roll": list(values)}, roll=(player, list(values))
        )
        if any(e.kind == "forgiven" for e in events) and adopted.phase is TablePhase.READY:
            self._begin_shake(adopted)

    def _ask_fix(self, unsure: TableState, reason: str) -> None:
        # The reason stays out of the message: the TV writes it under the dice, and both
        # at once pushed the turn total off a 1080p screen.
        message = (
            "Please straighten the dice in the tray, then press ROLL, "
            "or say on a phone what the dice show."
        )
        fix = replace(unsure, phase=TablePhase.FIX_TRAY, message=message)
        self._commit(fix, notes=[("fix_tray", f"{message[:-1]} ({reason}).")])
        self.tray.show("attention")
        self.tray.poll_later()

    # -- dice out and back in ------------------------------------------------------

    def _tray_step(self) -> None:
        """Let the hands move the dice (journaled); then check the tray."""
        now = self._state
        if not now.phase.tray_moving:
            return
        dice_left = self._need_game().state.turn.dice_left
        ops = self.hands.help(now.phase, now.expect_tray, dice_left)
        if ops:  # journaled, then made: a failed write moves no die
            now = self._commit(now, tower=ops)
            self.hands.perform(ops)
        outcome = self.tray.check(now.phase, now.expect_tray, dice_left)
        if isinstance(outcome, TrayRight):
            reading = now.reading if outcome.reading is None else outcome.reading.to_json()
            ready = replace(
                now,
                in_tray=outcome.count,
                reading=reading,
                expect_tray=None,
                phase=TablePhase.READY,
                message="",
            )
            self._bot_due = self.clock() + self.timing.bot_delay_s
            self._commit(ready)
            self.tray.show("ready")

    def _check_take_out(self, stable: bool = True) -> None:
        """In ``choose``: dice taken out of the tray are a set-aside, if legal."""
        game = self._need_game()
        roll = tuple(sorted(game.state.turn.roll or ()))
        now = self._state
        outcome = self.tray.take_out(roll, stable)
        if isinstance(outcome, Untouched):
            if now.refused is not None and outcome.left == roll:
                self._commit(replace(now, refused=None, message=CHOOSE_MESSAGE))
            return
        if not isinstance(outcome, TakenOut) or outcome.dice == now.refused:
            return
        taken = outcome.dice
        try:  # the engine checks the set-aside and leaves the game unchanged if illegal
            game, events = game.after({"keep": list(taken)})
        except IllegalAction as exc:
            refused = replace(now, refused=taken, message=f"Put the dice back: {exc}")
            note = f"Set-aside of {dice_text(taken)} refused: {exc}"
            self._commit(refused, notes=[("refused", note)])
            return
        self._acted()
        following = replace(now, game=game, in_tray=len(outcome.left), refused=None)
        self._after_game_change(following, events, action={"keep": list(taken)})

    def _check_fixed(self) -> None:
        reading = self.tray.look(self._need_game().state.turn.dice_left)
        if reading.ok:
            self._score(reading.values, reading.to_json())

    # -- between commands --------------------------------------------------------

    def _advance(self) -> None:
        """Poll the tray, run host timers and computer players; refit the profile between turns."""
        now = self._state
        if now.phase in (TablePhase.READY, TablePhase.RETURN_DICE, TablePhase.OVER):
            self.lessons.between_turns()
        game = now.game
        if game is None or game.state.finished or now.paused:
            return
        phase = now.phase
        if phase is TablePhase.SHAKING:
            self._shake()
            return
        if phase.busy:
            settled = self.tray.watch(game.state.turn.dice_left)
            if settled is not None:
                self._read_roll(settled)
            return
        clock = self.clock()
        if clock >= self.tray.next_poll:
            if phase.tray_moving:
                self._tray_step()
            elif phase is TablePhase.CHOOSE and self._bots_current() is None:
                rolled = len(game.state.turn.roll or ())
                if self.hands.tray_touched(rolled, now.refused is not None):
                    self._check_take_out()
            elif phase is TablePhase.FIX_TRAY and not self.hands.straightens_tray:
                self._check_fixed()
        if left_turn(self._state) is not None:
            self._skip_left()
            return
        game = self._state.game
        hosting = self.host is not None and game is not None
        if hosting and self._state.phase is TablePhase.READY and self._bots_current() is None:
            assert self.host is not None and game is not None
            due = self.host.due(game, clock)
            if due is not None:
                self._host_action(*due)
        bot = self._bot_turn()
        if bot is not None and clock >= self._bot_due:
            self._bot_move(bot)

    def _host_action(self, kind: str, text: str) -> None:
        if kind == "skip":
            game, events = self._need_game().after({"skip": True})
            following = replace(self._state, game=game)
            self._after_game_change(
                following, events, action={"skip": True}, notes=[("skip", text)]
            )
        else:
            said = next(k for k in ANNOUNCED if k == kind)
            announcement = Announcement(self.seq + 1, text, said)
            self._commit(replace(self._state, announcement=announcement), notes=[(kind, text)])

    def _bots_current(self) -> str | None:
        game = self._state.game
        if game is None:
            return None
        current = game.state.current
        return self._state.bots.get(current) if current else None

    def _bot_turn(self) -> str | None:
        """The current player's bot name if a computer player must act now.

        Where nobody straightens the tray (the simulator), a computer player
        also presses ROLL when the tray needs fixing.
        """
        now = self._state
        if not now.playing:
            return None
        phases = [TablePhase.READY, TablePhase.CHOOSE]
        if self.hands.straightens_tray:
            phases.append(TablePhase.FIX_TRAY)
        if now.phase not in phases:
            return None
        return self._bots_current()

    def _bot_move(self, bot_name: str) -> None:
        game = self._need_game()
        me = game.state.current or ""
        phase = self._state.phase
        if phase is TablePhase.FIX_TRAY:
            self.roll()
            return
        if phase is TablePhase.READY:
            if self._state.then == "bank" and game.state.turn.can_bank:
                self.bank()
            else:
                self.roll()
            return
        bot = self._bot_objects.get(me)
        if bot is None:
            bot = self._bot_objects[me] = self._make_bot(bot_name, game.rules)
        decision = bot.decide(game.state, me)
        self.keep(list(decision.keep))
        self._adopt_then(decision.then)
        after = self._state.game
        still_mine = after is not None and self._state.playing and after.state.current == me
        if decision.then == "bank" and still_mine:
            self.bank()

    def _adopt_then(self, then: str) -> None:
        """Remember what the computer player does once its dice are out (not journaled)."""
        with self._lock:
            self._state = replace(self._state, then="bank" if then == "bank" else "roll")

    def _make_bot(self, name: str, rules: RuleSet) -> Bot:
        """A computer player; ``optimal`` gets its solution from the service's cache."""
        if name not in BOTS:
            raise UnknownBot(f"unknown computer player {name!r}; choose one of {', '.join(BOTS)}")
        if name == "win":  # never solved here: the service solves it off the table's thread
            table = self._win(rules) if self._win else None
            if table is None:
                raise UnknownBot(
                    f"the win player's table for {rules.name} is not solved yet (the service "
                    "solves it in a few minutes after start); choose dicenow or optimal for now"
                )
            return make_bot(name, rules, win=table)
        return make_bot(name, rules, self._solution) if name == "optimal" else make_bot(name, rules)

    def _fail(self, exc: Exception) -> None:
        """The hardware failed mid-phase: show it, and let ROLL try again from a safe phase."""
        now = self._state
        phase = TablePhase.FIX_TRAY if now.phase.busy else now.phase
        message = f"The tower hit a problem ({exc}); check it, then press ROLL."
        self.tray.forget()
        try:
            self.tray.show("error")
            self._commit(replace(now, phase=phase, message=message), notes=[("error", message)])
        except Exception:
            log.exception("could not report the failure")


__all__ = ["Controller", "Hardware", "TableError", "Timing"]
