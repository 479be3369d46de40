"""The table service: the tower, the camera, the store and the controller thread.

:class:`TableService` wires the parts together from the configuration and
answers for the table: ``state()`` is the ``/api/state`` document (rebuilt
after each committed change and shared by every reader), ``subscribe()`` the
live event stream, and the action methods run on the controller's thread.
"""

from __future__ import annotations

import json
import logging
import math
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, cast

import numpy as np

from firmware import SimulatedTower, Tower, open_tower
from server.config import Config
from server.controller import CORRECT_PHASES, Controller
from server.events import Broker
from server.hands import Hands, PeopleHands, SimClock, SimulatedHands
from server.host import Host
from server.pictures import roll_pictures
from server.solver_cache import CACHE_FOLDER, SolverCache
from server.store import CorruptJournal, Store
from server.table_edits import table_undo_refusal
from server.table_state import TableError, TablePhase, TableState, turn_token
from server.teaching import Lessons, SeenRoll, Teacher
from server.tray import Hardware, Timing
from server.win_service import WinTables
from vision import (
    Calibration,
    FrameSource,
    Reading,
    RendererSource,
    SharedCamera,
    open_source,
    read_dice,
)
from vision.settle import SettleDetector
from vision.watcher import CalibrationFile, DiceWatcher
from zilch import Game, GameState, RuleSet, find_preset
from zilch.edits import undoable
from zilch.strategy import advice, coach, preview, solve_cached
from zilch.strategy.view import view_of

log = logging.getLogger(__name__)

DB_NAME = "zilch.db"
RECOVER_TRIES = 20  # damaged games set aside in one start at most


class StateDocument:
    """Builds the ``/api/state`` document from the controller (on its thread)."""

    def __init__(
        self,
        host: Host,
        wall_clock: Callable[[], datetime],
        speech: Callable[[], bool],
        solutions: Solutions,
        wins: WinTables | None = None,
    ) -> None:
        self.host = host
        self.wall_clock = wall_clock
        self.speech = speech
        self.solutions = solutions
        self.wins = wins
        self.pin_backoff: Callable[[], float] = lambda: 0.0  # set by the app's PIN guard

    def build(self, table: TableState) -> dict[str, Any]:
        """The whole table as the design's ``/api/state`` describes it."""
        game = table.game
        doc: dict[str, Any] = {
            "preset": table.preset or None,
            "house_rules": dict(table.house_rules),
            "game_id": table.game_id,
            "seq": table.seq,
            "turn_token": turn_token(table.game_id, game),
            "paused": table.paused,
            "players": [],
            "current": None,
            "phase": table.phase.value,
            "round": 0,
            "final_round": False,
            "turn": empty_turn(),
            "win_chance": None,
            "reading": None if table.reading is None else dict(table.reading),
            "message": table.message,
            "announcement": None if table.announcement is None else table.announcement.to_json(),
            "finished": False,
            "winners": [],
            "log": [dict(entry) for entry in table.log],
            "correction": None if table.correction is None else table.correction.to_json(),
            "correctable": None,
            "table": {
                "speech": self.speech(),
                "next_game": self.host.next_game(self.wall_clock()),
                "join_open": False,
                "skip_open": False,
                "in_tray": table.in_tray,
                "last_shake": None if table.last_shake is None else table.last_shake.to_json(),
                "cannot_save": False,  # true while the storage refuses to save the table
                "pin_backoff_s": math.ceil(self.pin_backoff()),  # no PINs taken for this long
            },
        }
        if game is None:
            return doc
        state = game.state
        doc.update(
            players=[
                {
                    "name": p.name,
                    "score": p.score,
                    "streak": p.streak,
                    "on_board": p.on_board,
                    "zilches": p.zilches,
                    "bot": table.bots.get(p.name),
                    "left": p.name in table.left,
                }
                for p in state.players
            ],
            current=state.current,
            round=state.round,
            final_round=state.final_round,
            finished=state.finished,
            winners=list(state.winners),
        )
        doc["turn"] = self._turn(game)
        doc["turn"]["undo"] = undoable(game) if table_undo_refusal(table) is None else None
        doc["win_chance"] = self.wins.document(game, table.left) if self.wins else None
        allowed = game.allowed_actions()
        doc["table"]["join_open"] = "join" in allowed
        doc["table"]["skip_open"] = "skip" in allowed
        doc["correctable"] = correctable(table)
        return doc

    def _turn(self, game: Game) -> dict[str, Any]:
        state = game.state
        turn = state.turn
        doc: dict[str, Any] = {
            "total": turn.total,
            "roll": None if turn.roll is None else list(turn.roll),
            "dice_left": turn.dice_left,
            "set_aside": [list(group) for group in turn.set_aside],
            "best": None,
            "options": [],
            "can_bank": turn.can_bank,
            "zilch_chance": None,
            "hint": "",
            "coach": "",
        }
        if state.finished:
            return doc
        options = game.set_asides()  # best first, as the engine ranks them
        doc["options"] = [{"dice": list(o.dice), "points": o.points} for o in options]
        if options:
            doc["best"] = {"dice": list(options[0].dice), "points": options[0].points}
        doc["zilch_chance"] = round(float(preview(state, game.rules)["zilch_chance"]), 4)
        best = (tuple(options[0].dice), options[0].points) if options else None
        doc["hint"], doc["coach"] = self._coach(state, game.rules, best)
        return doc

    def _coach(
        self, state: GameState, rules: RuleSet, best: tuple[tuple[int, ...], int] | None
    ) -> tuple[str, str]:
        """The coach's best choice for the roll on the table, once the rules are solved.

        ``hint`` in the coach's short form ("keep the 1 and roll five: 399") and
        ``coach`` in words beside the table's ★ best choice.
        """
        if state.phase != "keep":
            return "", ""
        solution = self.solutions.get(rules)
        if solution is None:
            return "", ""
        choices = coach(state, rules, solution)
        if not choices:
            return "", ""
        view = view_of(state, state.current or "")
        line = advice(choices, best, view.total, final=view.final)
        return str(choices[0].text), line


class Solutions:
    """Solved rule sets for the coach and the ``optimal`` player (about a second each).

    Kept in memory for the process, on disk in the state directory's solver
    cache across restarts.
    """

    _memory: ClassVar[dict[Any, Any]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, directory: Path | None = None) -> None:
        self.cache = None if directory is None else SolverCache(directory)

    def get(self, rules: Any) -> Any:
        """The solution of ``rules``."""
        with self._lock:
            found = self._memory.get(rules)
            if found is None:
                if self.cache is not None:
                    try:
                        found = self.cache.solution(rules)
                    except OSError as exc:
                        log.warning("%s", exc)
                if found is None:
                    found = solve_cached(rules)
                self._memory[rules] = found
            return found


def correctable(table: TableState) -> dict[str, Any] | None:
    """What a phone may say the dice show now: ``{"mode", "count", "dice"}`` or None.

    ``correct``: the roll on the table (``dice`` as read, in the reading's
    order when the reading is of that roll); ``enter``: after the last
    reshake, the ``count`` dice the tower could not read (``dice`` its best
    guess, possibly fewer or more).
    """
    game = table.game
    if game is None or game.state.finished or table.phase.busy:
        return None
    read = [int(d["value"]) for d in (table.reading or {}).get("dice", [])]
    if table.phase is TablePhase.FIX_TRAY:
        if game.state.phase != "roll":
            return None
        return {"mode": "enter", "count": game.state.turn.dice_left, "dice": read}
    dice = game.correctable()
    if dice is None or table.phase not in CORRECT_PHASES:
        return None
    in_order = read if sorted(read) == list(dice) else list(dice)
    return {"mode": "correct", "count": len(dice), "dice": in_order}


def empty_turn() -> dict[str, Any]:
    """The ``turn`` part of the state document between turns."""
    return {
        "total": 0,
        "roll": None,
        "dice_left": 6,
        "set_aside": [],
        "best": None,
        "options": [],
        "can_bank": False,
        "zilch_chance": None,
        "hint": "",
        "coach": "",
        "undo": None,
    }


class TableService:
    """One table: its tower, camera, database, controller thread and live stream."""

    def __init__(
        self,
        config: Config,
        *,
        sim: bool | None = None,
        seed: int | None = None,
        hardware: Hardware | None = None,
        timing: Timing | None = None,
        sim_settle_s: float = 0.4,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], datetime] = datetime.now,
        keepalive_s: float = 15.0,
        heartbeat: Callable[[], None] = lambda: None,
        status: Callable[[str], None] = lambda text: None,
        win_solver: bool = False,
        win_chance: bool = True,
    ) -> None:
        self.config = config
        self._status = status
        self.win_solver = win_solver  # solve the two-player win table at start (``serve``)
        self._status_text = ""
        self.state_dir = Path(config.state_dir)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.store = Store(self.state_dir / DB_NAME)
        tower_cfg = config["tower"]
        self.sim = tower_cfg["mode"] == "sim" if sim is None else sim
        self.seed = self._seed(seed if seed is not None else int(tower_cfg["seed"]))
        self.hands: Hands = PeopleHands()
        self.hardware = hardware or self._build_hardware(sim_settle_s)
        self.timing = timing or Timing(
            settle_timeout_s=float(tower_cfg["settle_timeout_s"]),
            reshakes=int(tower_cfg["reshakes"]),
        )
        self.broker = Broker(keepalive_s=keepalive_s)
        self.host = Host(config["host"]["call_timeout_s"], config["host"]["schedule"])
        self._speech = self.store.get_meta("speech")
        self.solutions = Solutions(self.state_dir / CACHE_FOLDER)
        self.teacher = Teacher(
            self.config.calibration_path.parent, self.hardware.watcher.calibration.get
        )
        self.hardware.watcher.profile = self.teacher.profile
        self.wins = WinTables(self.state_dir / CACHE_FOLDER, on_estimate=self._estimate_ready)
        self.document = StateDocument(
            self.host, wall_clock, self.speech, self.solutions, self.wins if win_chance else None
        )
        self.controller = Controller(
            self.store,
            self.hardware,
            hands=self.hands,
            timing=self.timing,
            publish=self._publish,
            notice=self._publish_notice,
            clock=clock,
            host=self.host,
            heartbeat=heartbeat,
            long_press_action=config["buttons"]["long_press_action"],
            solution=self.solutions.get,
            lessons=Lessons(self.teacher),
            win=self.wins.available,
        )
        self.max_streams: int | None = None  # live event streams allowed at once (None: any)
        self._doc: dict[str, Any] = {}
        self._doc_text = "{}"
        self._doc_lock = threading.Lock()
        self._started = False

    # -- construction -------------------------------------------------------

    def _seed(self, wanted: int) -> int:
        """The simulator's seed: the one this state directory was started with, if any."""
        stored = self.store.get_meta("seed")
        if stored is not None:
            if wanted not in (-1, int(stored)):
                log.warning(
                    "state dir was started with seed %s; keeping it, not %d", stored, wanted
                )
            return int(stored)
        seed = wanted if wanted >= 0 else random.SystemRandom().randrange(2**31)
        self.store.set_meta("seed", str(seed))
        return seed

    def _build_hardware(self, sim_settle_s: float) -> Hardware:
        """The tower, camera and watcher the configuration asks for (and the hands with them)."""
        camera_cfg = self.config["camera"]
        tower: Tower
        source: FrameSource
        fallback: Calibration | None = None
        if self.sim:
            clock = SimClock()
            simulated = SimulatedTower.from_config(
                self.config, seed=self.seed, settle_time_s=sim_settle_s, clock=clock
            )
            hands = SimulatedHands(simulated, clock)
            tower, self.hands = simulated, hands
            size = (camera_cfg["width"], camera_cfg["height"])
            source = RendererSource(simulated.tray, size, self.seed)
            camera = SharedCamera(source)
            fallback = hands.calibrate(camera, self.seed)
        else:
            tower = open_tower(self.config)
            camera = SharedCamera(open_source(camera_cfg["source"], **camera_cfg))
        watcher = DiceWatcher(CalibrationFile(self.config.calibration_path, fallback))
        return Hardware(tower=tower, camera=camera, watcher=watcher)

    # -- life cycle -----------------------------------------------------------

    def start(self, recover: bool = False) -> None:
        """Resume the table and start the controller thread.

        A damaged journal row stops the start (:class:`~server.store.CorruptJournal`,
        one line naming the game and the row); with ``recover`` that game is
        set aside (kept, marked abandoned) and the table starts clean after it.

        The table's rules are solved (or loaded from the solver cache) on a
        thread of their own, so the first roll's coach hint does not wait.
        """
        threading.Thread(
            target=self.solutions.get, args=(self.config.rules,), name="solver", daemon=True
        ).start()
        if self.win_solver:  # in a process of its own: minutes, never the table's time
            self.wins.start(self.config.rules)
        for _ in range(RECOVER_TRIES):
            try:
                self.controller.start()
                break
            except CorruptJournal as damaged:
                if not recover:
                    raise
                log.warning("setting aside: %s", damaged)
                self.store.put_aside(damaged, TableState().to_json())
        else:
            raise CorruptJournal(None, 0, f"still damaged after {RECOVER_TRIES} set-asides")
        self._publish(self.controller.state)
        self._started = True

    def stop(self) -> None:
        """Stop the controller, end every stream, coil off, close camera and database."""
        self.broker.close()
        self.wins.close()
        self.controller.stop()
        try:
            self.hardware.tower.close()
        finally:
            try:
                self.hardware.camera.close()
            finally:
                self.store.close()

    def __enter__(self) -> TableService:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- reading --------------------------------------------------------------

    def _publish(self, table: TableState) -> None:
        doc = self.document.build(table)
        text = json.dumps(doc, separators=(",", ":"))
        with self._doc_lock:
            self._doc, self._doc_text = doc, text
        self.broker.publish(table.seq, text)
        self._report_status(doc)

    def _publish_notice(self, table: TableState, text: str) -> None:
        """Show ``text`` over the unchanged table (a step the storage refused to save)."""
        doc = self.document.build(table)
        doc["message"] = text
        doc["table"]["cannot_save"] = True
        encoded = json.dumps(doc, separators=(",", ":"))
        with self._doc_lock:
            self._doc, self._doc_text = doc, encoded
        self.broker.publish(table.seq, encoded, notice=True)
        self._report_status(doc)

    def _estimate_ready(self) -> None:
        """A background win estimate came back: publish the table again, on its thread."""
        if self._started:
            self.controller.submit_nowait(self._republish)

    def _republish(self) -> None:
        """Publish the table as it stands once more (no journal row: nothing changed)."""
        table = self.controller.state
        doc = self.document.build(table)
        with self._doc_lock:
            shown = self._doc
            if shown.get("seq") == table.seq and shown["table"]["cannot_save"]:
                doc["message"], doc["table"]["cannot_save"] = shown["message"], True
            encoded = json.dumps(doc, separators=(",", ":"))
            if shown.get("seq", -1) > table.seq:
                return
            self._doc, self._doc_text = doc, encoded
        self.broker.publish(table.seq, encoded, notice=True)

    def _report_status(self, doc: Mapping[str, Any]) -> None:
        """One line for systemd's status (``systemctl status``) when it changes."""
        if doc["game_id"] is None:
            text = "no game; waiting for a new one"
        else:
            who = f"{doc['current']}'s turn" if doc["current"] else "game over"
            text = f"game {doc['game_id']} ({doc['preset']}), {who}, {doc['phase']}"
        if text != self._status_text:
            self._status_text = text
            self._status(text)

    def state(self) -> dict[str, Any]:
        """The current ``/api/state`` document (do not modify it)."""
        with self._doc_lock:
            return self._doc

    def state_json(self) -> str:
        """The current state document as JSON text (encoded once per change)."""
        with self._doc_lock:
            return self._doc_text

    def subscribe(self, last_id: int | None = None) -> Iterator[str]:
        """Server-sent events: every state after ``last_id``, with keep-alives."""
        return self.broker.subscribe(last_id)

    def speech(self) -> bool:
        """Whether the TV speaks announcements (a runtime setting over the config)."""
        if self._speech is not None:
            return self._speech == "1"
        return bool(self.config["table"]["speech"])

    # -- actions (each waits for the controller and returns the new state) -------

    def new_game(
        self,
        preset: str | None = None,
        rules: Mapping[str, Any] | None = None,
        players: list[str] | None = None,
        bots: Mapping[str, str] | None = None,
        *,
        replace: bool = True,
    ) -> dict[str, Any]:
        """Start a new game; ``rules`` go on top of the configured house rules.

        ``replace`` false refuses while a game is running (the API without the admin PIN).
        """
        table = self.config["table"]
        name = preset or table["preset"]
        find_preset(name)
        merged = {**table["rules"], **(rules or {})}
        self.controller.call(
            self.controller.new_game, name, merged, players or [], dict(bots or {}), replace
        )
        return self.state()

    def join(self, name: str, bot: str | None = None) -> dict[str, Any]:
        self.controller.call(self.controller.join, name, bot)
        return self.state()

    def roll(self, player: str | None = None, turn: str | None = None) -> dict[str, Any]:
        self.controller.call(self.controller.roll, player, turn)
        return self.state()

    def end_game(self) -> dict[str, Any]:
        """End the running game unfinished (the host, with the admin PIN)."""
        self.controller.call(self.controller.end_game)
        return self.state()

    def pause(self, paused: bool) -> dict[str, Any]:
        """Pause or resume the table (the host, with the admin PIN)."""
        self.controller.call(self.controller.set_paused, paused)
        return self.state()

    def undo(self) -> dict[str, Any]:
        """Take back the last set-aside of the turn (the host, with the admin PIN)."""
        self.controller.call(self.controller.undo)
        return self.state()

    def rename(self, old: str, new: str) -> dict[str, Any]:
        """Call a player by another name (the host, with the admin PIN)."""
        self.controller.call(self.controller.rename, old, new)
        return self.state()

    def remove_player(self, name: str) -> dict[str, Any]:
        """A player has left the game (the host, with the admin PIN)."""
        self.controller.call(self.controller.remove_player, name)
        return self.state()

    def keep(
        self, values: list[int], player: str | None = None, turn: str | None = None
    ) -> dict[str, Any]:
        self.controller.call(self.controller.keep, values, player, turn)
        return self.state()

    def bank(self, player: str | None = None, turn: str | None = None) -> dict[str, Any]:
        self.controller.call(self.controller.bank, player, turn)
        return self.state()

    def skip(self, player: str | None = None, turn: str | None = None) -> dict[str, Any]:
        self.controller.call(self.controller.skip, player, turn)
        return self.state()

    def challenge(self, victim: str, player: str | None = None) -> dict[str, Any]:
        self.controller.call(self.controller.challenge, victim, player)
        return self.state()

    def correct(self, values: list[int], by: str | None = None) -> dict[str, Any]:
        """Someone says what the dice show: the roll is corrected, or entered after a reshake."""
        self.controller.call(self.controller.correct, values, by)
        return self.state()

    def correct_pictures(self) -> dict[str, Any]:
        """What may be said about the dice now, with the camera's picture of each die.

        The ``correctable`` offer of the state document (``mode``, ``count``,
        ``dice`` in the reading's order) and ``pictures``: a PNG data URL for
        each of ``dice``, or none when the frame in hand is not of that roll.
        Raises ``TableError`` when nothing may be said now.
        """
        table, seen = cast(
            "tuple[TableState, SeenRoll | None]",
            self.controller.call(self.controller.roll_in_view),
        )
        offer = correctable(table)
        if offer is None:
            raise TableError("there is no roll to say the dice of now")
        shown = list((table.reading or {}).get("dice", []))
        pictures: list[str] = []
        if offer["dice"] == [int(d["value"]) for d in shown]:
            pictures = roll_pictures(shown, seen, self.hardware.watcher.calibration.get())
        return {**offer, "game_id": table.game_id, "seq": table.seq, "pictures": pictures}

    def teach_roll(self) -> tuple[np.ndarray, Reading]:
        """The calibration page's teach step: shake the tower, wait for the dice, read them.

        Read with the tower's calibration and without its profile (a person
        says what each die shows). Raises ``TableError`` while a game runs.
        """
        self.controller.call(self.controller.shake_between_games)
        detector = SettleDetector()
        deadline = time.monotonic() + self.timing.settle_timeout_s
        frame = np.asarray(self.hardware.camera.read())
        while not detector.update(frame) and time.monotonic() < deadline:
            time.sleep(0.02)
            frame = np.asarray(self.hardware.camera.read())
        calibration = self.hardware.watcher.calibration.get()
        return frame, read_dice(frame, calibration, expected=6)

    def sim_take_out(self) -> dict[str, Any]:
        """Simulator, between games: take every die out of the tray (journaled)."""
        self.controller.call(self.controller.move_dice_between_games, True)
        return self.state()

    def sim_put_back(self) -> dict[str, Any]:
        """Simulator, between games: put every die back into the tray (journaled)."""
        self.controller.call(self.controller.move_dice_between_games, False)
        return self.state()

    def set_speech(self, on: bool) -> dict[str, Any]:
        """Switch the TV's speech on or off (kept across restarts)."""
        self.store.set_meta("speech", "1" if on else "0")
        self._speech = "1" if on else "0"
        self.controller.call(self.controller.touch)
        return self.state()

    def wait_quiet(self, timeout: float = 30.0) -> bool:
        """Wait until the table is waiting for people (tests and benchmarks)."""
        return self.controller.wait_quiet(timeout)


__all__ = ["DB_NAME", "TableError", "TableService"]
