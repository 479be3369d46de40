"""The physical side of the table controller: the tower, the camera and the tray.

:class:`TrayPhases` is the part of :class:`~server.controller.Controller`
that drives the hardware: shake, settle (one frame per loop turn), read and
reshake; dice leaving the tray (taken out by hand, or asked for after a tap on
a phone) and coming back; a tray a person must fix; and the replay of the
simulated tower's journaled operations after a restart. It runs only on the
controller's thread.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zilch import Event, Game, IllegalAction

log = logging.getLogger(__name__)

FLYING_MOTION = 0.03  # share of the picture changing between frames while dice fly
FLYING_WAIT_S = 0.025  # pause before the next frame while they do


class TableError(ValueError):
    """An action the table refuses now (wrong phase, no game, not your turn)."""


@dataclass
class Hardware:
    """What the controller drives: the tower, the camera and how to read a frame.

    ``read(frame, expected)`` returns a vision ``Reading``; ``settle()`` makes a
    fresh settle detector. ``sim_hands`` makes the controller move dice itself
    (the simulated tower has no people to take dice out or put them back);
    ``skip_time(s)`` moves the simulated tower's clock on, so that replayed
    shakes are long over (not tumbling, not duty-limited) when the table resumes.
    """

    tower: Any
    camera: Any
    read: Callable[[Any, int | None], Any]
    settle: Callable[[], Any]
    sim_hands: bool = False
    skip_time: Callable[[float], None] | None = None


@dataclass(frozen=True)
class Timing:
    """How long the controller waits for things; tests set them near zero."""

    settle_timeout_s: float = 3.0
    poll_s: float = 0.3
    bot_delay_s: float = 1.0
    reshakes: int = 3


def multiset_minus(whole: Sequence[int], part: Sequence[int]) -> tuple[int, ...] | None:
    """``whole`` without the dice of ``part``, or None if ``part`` is not inside it."""
    rest = Counter(whole)
    rest.subtract(Counter(part))
    if any(n < 0 for n in rest.values()):
        return None
    return tuple(sorted(rest.elements()))


def dice_text(values: Sequence[int]) -> str:
    return " ".join(str(v) for v in sorted(values))


class TrayPhases:
    """Shake, settle, read; dice out and back in; the simulator's hands (a controller mixin)."""

    hw: Hardware
    timing: Timing
    clock: Callable[[], float]
    game: Game | None
    phase: str
    message: str
    reading: dict[str, Any] | None
    in_tray: int
    expect_tray: tuple[int, ...] | None
    tries: int
    refused: tuple[int, ...] | None
    last_shake: dict[str, float] | None
    _next_poll: float
    _candidate: tuple[int, ...] | None
    _detector: Any
    _settle_deadline: float
    _next_frame: float
    _bot_due: float

    if TYPE_CHECKING:

        def _commit(
            self,
            *,
            action: dict[str, Any] | None = None,
            events: Sequence[Event] = (),
            tower: Sequence[list[Any]] = (),
            notes: Sequence[tuple[str, str]] = (),
            roll: tuple[str, Sequence[int]] | None = None,
        ) -> int: ...

        def _need_game(self, player: str | None = None) -> Game: ...

        def _acted(self) -> None: ...

        def _after_game_change(
            self,
            events: Sequence[Event],
            *,
            action: dict[str, Any] | None = None,
            roll: tuple[str, Sequence[int]] | None = None,
            notes: Sequence[tuple[str, str]] = (),
        ) -> None: ...

    def _replay_tower(self, ops: Sequence[list[Any]]) -> None:
        """Repeat the journaled tower operations on a fresh simulated tower (same seed)."""
        tower = self.hw.tower
        for op in ops:
            try:
                if op[0] == "shake":
                    if self.hw.skip_time is not None:
                        self.hw.skip_time(3600.0)
                    tower.shake()
                elif op[0] == "remove":
                    tower.remove(op[1])
                elif op[0] == "put_back":
                    tower.put_back(min(int(op[1]), tower.out_of_tray))
            except ValueError as exc:  # dice moved outside the journal; the tray check recovers
                log.warning("cannot replay tower operation %s: %s", op, exc)
        if ops and self.hw.skip_time is not None:
            self.hw.skip_time(3600.0)

    def move_sim_dice(self, take_out: bool) -> None:
        """Simulator only, between games: take every die out of the tray, or put all back."""
        if not self.hw.sim_hands:
            raise TableError("only the simulated tower has helper hands; move the dice")
        if self.phase not in ("idle", "over"):
            raise TableError("a game is running: move the dice between games")
        tower = self.hw.tower
        if take_out:
            values = [int(d["value"]) for d in tower.tray()]
            if values:
                tower.remove(values)
                self.in_tray = 0
                self._commit(tower=[["remove", values]])
        elif tower.out_of_tray:
            n = tower.out_of_tray
            tower.put_back(n)
            self.in_tray = tower.in_tray
            self._commit(tower=[["put_back", n]])

    def _begin_shake(self) -> None:
        """Journal the shake (before it happens, so a restart replays it) and go on."""
        self.phase, self.message = "shaking", ""
        self.hw.tower.light.show("rolling")
        self._commit(tower=[["shake"]])

    def _shake(self) -> None:
        """Shake the tower, then settle: frames are watched one per loop turn."""
        pulses = self.hw.tower.shake()
        shake_s = float(pulses[-1][1]) if pulses else 0.0
        tumble_s = shake_s + float(getattr(self.hw.tower, "settle_time_s", 0.0))
        if self.tries and self.last_shake is not None:  # a reshake: count every shake of the roll
            tumble_s += self.last_shake["tumble_s"]
        self.last_shake = {"shake_s": round(shake_s, 3), "tumble_s": round(tumble_s, 3)}
        self.phase = "settling"
        self._detector = None
        self._commit()

    def _settle_step(self) -> None:
        """One frame for the settle detector; read the dice once they stopped (or on timeout).

        Commands arriving meanwhile are answered between frames (refused while
        the dice roll), so the web app never waits for a shake to end.
        """
        if self._detector is None:
            self._detector = self.hw.settle()
            self._settle_deadline = self.clock() + self.timing.settle_timeout_s
        if time.monotonic() < self._next_frame:
            return
        frame = self.hw.camera.read()
        if not self._detector.update(frame) and self.clock() < self._settle_deadline:
            motion = getattr(self._detector, "motion", None)
            if motion is not None and motion > FLYING_MOTION:
                # The dice are clearly still flying: look again a little later, leaving
                # the CPU to the web app (a camera gives ~30 frames a second anyway).
                self._next_frame = time.monotonic() + FLYING_WAIT_S
            return
        self._detector = None
        self._read_roll(frame)

    def _read_roll(self, frame: Any) -> None:
        """Read the settled dice: score a sure reading, shake again on an unsure one."""
        game = self._need_game()
        self.phase = "reading"  # not published: the result follows within milliseconds
        self.hw.tower.light.show("reading")
        reading = self.hw.read(frame, game.state.turn.dice_left)
        if reading.ok:
            self._score(reading)
            return
        self.tries += 1
        self.reading = reading.to_json()
        if self.tries > self.timing.reshakes:
            self._ask_fix(reading)
            return
        note = f"Unsure reading ({reading.reason}): shaking again."
        self._commit(notes=[("reshake", note)])
        self._begin_shake()

    def _score(self, reading: Any) -> None:
        game = self._need_game()
        player = game.state.current or ""
        values = list(reading.values)
        self.reading = reading.to_json()
        self.in_tray = len(values)
        self.tries = 0
        self.hw.tower.light.show("ready")
        events = game.apply({"roll": values})
        self._after_game_change(events, action={"roll": values}, roll=(player, values))
        if any(e.kind == "forgiven" for e in events) and self.phase == "ready":
            self._begin_shake()

    def _ask_fix(self, reading: Any) -> None:
        self.reading = reading.to_json()
        self.phase = "fix_tray"
        self.message = (
            f"Please straighten the dice in the tray ({reading.reason}), then press ROLL."
        )
        self.hw.tower.light.show("attention")
        self._commit(notes=[("fix_tray", self.message)])
        self._next_poll = self.clock() + self.timing.poll_s

    def _tray_step(self) -> None:
        """In the simulator, move the dice as a person would; then check the tray."""
        if self.phase not in ("remove_dice", "return_dice"):
            return
        tower = self.hw.tower
        if self.hw.sim_hands:
            if self.phase == "remove_dice":
                assert self.expect_tray is not None
                roll = [int(d["value"]) for d in tower.tray()]
                out = multiset_minus(roll, self.expect_tray)
                if out:
                    tower.remove(list(out))
                    self._commit(tower=[["remove", list(out)]])
            else:
                want = self._need_game().state.turn.dice_left
                if tower.in_tray < want:
                    n = min(want - tower.in_tray, tower.out_of_tray)
                    tower.put_back(n)
                    self._commit(tower=[["put_back", n]])
                elif tower.in_tray > want:
                    extra = [int(d["value"]) for d in tower.tray()][: tower.in_tray - want]
                    tower.remove(extra)
                    self._commit(tower=[["remove", extra]])
        self._check_tray()

    def _check_tray(self) -> None:
        """Read the tray; move on once it holds the dice the next roll needs.

        In the simulator a tray the reader cannot make out after the table's
        own hands moved the dice is taken as the simulator knows it (nobody is
        there to nudge a die); on the real tower the person is asked until the
        camera confirms.
        """
        game = self._need_game()
        frame = self.hw.camera.read()
        reading = self.hw.read(frame, None)
        self._next_poll = self.clock() + self.timing.poll_s
        if reading.ok:
            values = tuple(sorted(reading.values))
        elif self.hw.sim_hands:
            log.info("simulated tray not readable (%s); using the simulator's tray", reading.reason)
            values = tuple(sorted(int(d["value"]) for d in self.hw.tower.tray()))
        else:
            return
        if self.phase == "remove_dice":
            good = values == self.expect_tray
        else:
            good = len(values) == game.state.turn.dice_left
        if good:
            self.in_tray = len(values)
            self.reading = reading.to_json() if reading.ok else self.reading
            self.expect_tray = None
            self.phase, self.message = "ready", ""
            self.hw.tower.light.show("ready")
            self._bot_due = self.clock() + self.timing.bot_delay_s
            self._commit()

    def _check_take_out(self, stable: bool = True) -> None:
        """In ``choose``: dice taken out of the tray are a set-aside, if legal."""
        game = self._need_game()
        roll = tuple(sorted(game.state.turn.roll or ()))
        reading = self.hw.read(self.hw.camera.read(), None)
        self._next_poll = self.clock() + self.timing.poll_s
        if not reading.ok:
            return
        left = tuple(sorted(reading.values))
        taken = multiset_minus(roll, left)
        if taken is None or len(left) == len(roll):
            self._candidate = None
            if self.refused is not None and left == roll:
                self.refused = None
                self.message = "Take out the dice you keep, or tap them on your phone."
                self._commit()
            return
        if stable and taken != self._candidate:
            self._candidate = taken  # wait for the same reading twice: hands may be in the way
            return
        if taken == self.refused:
            return
        try:  # the engine checks the set-aside and leaves the game unchanged if illegal
            events = game.apply({"keep": list(taken)})
        except IllegalAction as exc:
            self.refused = taken
            self.message = f"Put the dice back: {exc}"
            self._commit(notes=[("refused", f"Set-aside of {dice_text(taken)} refused: {exc}")])
            return
        self.in_tray = len(left)
        self.refused = None
        self._acted()
        self._after_game_change(events, action={"keep": list(taken)})

    def _check_fixed(self) -> None:
        game = self._need_game()
        reading = self.hw.read(self.hw.camera.read(), game.state.turn.dice_left)
        self._next_poll = self.clock() + self.timing.poll_s
        if reading.ok:
            self._score(reading)
