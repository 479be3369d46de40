"""Who moves the dice besides the players: nobody on a real tower, helper hands in the simulator.

Everything the simulated tower adds to the table lives here, behind
:class:`Hands`, which the service injects into the controller:

- :class:`PeopleHands` (the GPIO tower): people take dice out and put them
  back; the camera alone says what the tray holds.
- :class:`SimulatedHands`: the simulator's helper hands take out the dice a
  phone or a computer player set aside and put dice back for the next roll,
  between games on the calibration page's request too; every move is
  journaled and replayed after a restart on a clock moved on
  (:class:`SimClock`), so replayed shakes are long over. It also calibrates
  the rendered camera from a rendered empty tray.

The controller and :mod:`server.tray` never ask which tower they drive.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from firmware import FirmwareError, SimulatedTower
from server.table_state import TableError, TablePhase
from vision import Calibration, CalibrationError, SharedCamera, calibrate, render_tray

log = logging.getLogger(__name__)

REPLAY_SKIP_S = 3600.0  # how far a replay moves the simulated clock on


class BadTowerOp(ValueError):
    """A journaled tower move no version of the journal writes (a damaged or edited row)."""


def _values_of(data: object) -> tuple[int, ...]:
    if not isinstance(data, list) or not all(type(v) is int and 1 <= v <= 6 for v in data):
        raise BadTowerOp(f"{data!r} is not a list of die values 1-6")
    return tuple(data)


@dataclass(frozen=True)
class Shake:
    """The coil shook the tray (journaled before it happens)."""

    def to_json(self) -> list[object]:
        return ["shake"]


@dataclass(frozen=True)
class Remove:
    """Dice showing ``values`` taken out of the tray."""

    values: tuple[int, ...]

    def to_json(self) -> list[object]:
        return ["remove", list(self.values)]


@dataclass(frozen=True)
class PutBack:
    """``count`` dice put back into the tray, those taken out first going back first."""

    count: int

    def to_json(self) -> list[object]:
        return ["put_back", self.count]


@dataclass(frozen=True)
class Turn:
    """The simulated dice showing ``faces`` turned to show ``to`` (a corrected roll)."""

    faces: tuple[int, ...]
    to: tuple[int, ...]

    def to_json(self) -> list[object]:
        return ["turn", list(self.faces), list(self.to)]


#: a physical move the journal records: ``["shake"]``, ``["remove", [1, 5]]``,
#: ``["put_back", 2]`` or ``["turn", [2, 6], [1, 5]]`` in its JSON form
TowerOp = Shake | Remove | PutBack | Turn


def tower_op_from_json(data: object) -> TowerOp:
    """A journaled move from its JSON form; :class:`BadTowerOp` for anything else."""
    match data:
        case ["shake"]:
            return Shake()
        case ["remove", values]:
            return Remove(_values_of(values))
        case ["put_back", int(count)] if type(count) is int and count >= 0:
            return PutBack(count)
        case ["turn", faces, to]:
            turn = Turn(_values_of(faces), _values_of(to))
            if len(turn.faces) != len(turn.to):
                raise BadTowerOp(f"turns {len(turn.faces)} dice to {len(turn.to)} values")
            return turn
    raise BadTowerOp(
        'not a move: expected ["shake"], ["remove", [values]], ["put_back", n] or '
        '["turn", [values], [values]]'
    )


def journaled_ops(rows: Sequence[object]) -> list[TowerOp]:
    """The moves of the journal's rows, in order; one no version writes is logged and
    skipped (the tray check then finds what the tray holds and asks for the rest)."""
    ops: list[TowerOp] = []
    for data in rows:
        try:
            ops.append(tower_op_from_json(data))
        except BadTowerOp as exc:
            log.warning("cannot make tower operation %s: %s", data, exc)
    return ops


class NoHelperHands(TableError):
    """Dice moves asked of a tower that has no helper hands (people move the dice)."""


def multiset_minus(whole: Sequence[int], part: Sequence[int]) -> tuple[int, ...] | None:
    """``whole`` without the dice of ``part``, or None if ``part`` is not inside it."""
    rest = Counter(whole)
    rest.subtract(Counter(part))
    if any(n < 0 for n in rest.values()):
        return None
    return tuple(sorted(rest.elements()))


def count_after(count: int, ops: Sequence[TowerOp]) -> int:
    """The number of dice in a tray of ``count`` once the moves ``ops`` are made."""
    for op in ops:
        if isinstance(op, Remove):
            count -= len(op.values)
        elif isinstance(op, PutBack):
            count += op.count
    return count


class Hands(ABC):
    """What happens to the dice between the tower's shakes, besides the camera's view."""

    helper = False  # helper hands stand in for people (the calibration page offers them)
    tumble_s = 0.0  # seconds the dice tumble after the coil's last pulse, beyond the camera's view

    def replay(self, ops: Sequence[TowerOp]) -> None:  # noqa: B027 (nothing to do by default)
        """Repeat the journaled tower operations after a restart (nothing on a real tower)."""

    def perform(self, ops: Sequence[TowerOp]) -> None:  # noqa: B027 (nothing to do by default)
        """Make the moves planned by :meth:`help`, :meth:`restore` or :meth:`between_games`,
        once they are journaled (nothing on a real tower, where people move the dice)."""

    def help(
        self, phase: TablePhase, expect_tray: tuple[int, ...] | None, dice_left: int
    ) -> list[TowerOp]:
        """The moves a person would make in ``phase``, to journal and then :meth:`perform`."""
        return []

    def known_tray(self) -> tuple[int, ...] | None:
        """The tray's dice as known without the camera, when the camera cannot tell."""
        return None

    def restore(self, roll: Sequence[int]) -> list[TowerOp]:
        """The moves that make the tray hold ``roll`` again (a set-aside taken back), to
        journal and then :meth:`perform`.

        On a real tower people put the dice back and the camera sees them.
        """
        return []

    def tray_touched(self, rolled: int, refused: bool) -> bool:
        """Whether the dice in the tray may have changed since the roll (camera work)."""
        return True

    def moves_dice(self, phase: TablePhase) -> bool:
        """Whether these hands will move dice themselves in ``phase`` (nobody to wait for)."""
        return False

    @property
    def straightens_tray(self) -> bool:
        """Whether nobody straightens a tray the camera cannot read (ROLL shakes it instead)."""
        return False

    def in_tray(self, counted: int) -> int:
        """Dice in the tray when a game starts: known exactly, or as last counted."""
        return counted

    @abstractmethod
    def between_games(self, take_out: bool) -> list[TowerOp]:
        """The moves that take every die out of the tray (or put all back), to journal and
        then :meth:`perform`."""


class PeopleHands(Hands):
    """The real tower: people move the dice and the camera sees the result."""

    def between_games(self, take_out: bool) -> list[TowerOp]:
        raise NoHelperHands("only the simulated tower has helper hands; move the dice")


class SimClock:
    """The simulated tower's clock: monotonic, moved on by replays."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset

    def skip(self, seconds: float) -> None:
        self.offset += seconds


class SimulatedHands(Hands):
    """The simulator's helper hands on a :class:`~firmware.SimulatedTower`."""

    helper = True

    def __init__(self, tower: SimulatedTower, clock: SimClock) -> None:
        self.tower = tower
        self.clock = clock

    @property
    def tumble_s(self) -> float:  # type: ignore[override]
        return self.tower.settle_time_s

    @property
    def straightens_tray(self) -> bool:
        return True

    def replay(self, ops: Sequence[TowerOp]) -> None:
        """Repeat the journaled operations on the fresh tower (same seed), clock moved on."""
        for op in ops:
            if isinstance(op, Shake):
                self.clock.skip(REPLAY_SKIP_S)
                self.tower.shake()
            else:
                self._apply(op)
        if ops:
            self.clock.skip(REPLAY_SKIP_S)

    def perform(self, ops: Sequence[TowerOp]) -> None:
        for op in ops:
            self._apply(op)

    def _apply(self, op: TowerOp) -> None:
        """One move on the tower. A move the tray no longer allows (dice moved outside the
        journal) is logged and skipped: the tray check finds what the tray holds and asks
        for the rest."""
        tower = self.tower
        try:
            match op:
                case Remove(values):
                    tower.remove(values)
                case PutBack(count):
                    tower.put_back(min(count, tower.out_of_tray))
                case Turn(faces, to):
                    tower.turn(faces, to)
        except FirmwareError as exc:
            log.warning("cannot make tower operation %s: %s", op.to_json(), exc)

    def help(
        self, phase: TablePhase, expect_tray: tuple[int, ...] | None, dice_left: int
    ) -> list[TowerOp]:
        tower, tray = self.tower, self._values()
        if phase is TablePhase.REMOVE_DICE:
            assert expect_tray is not None
            ops: list[TowerOp] = []
            turn = self._show(tray, expect_tray)
            if turn is not None:
                ops.append(turn)
                tray = sorted((Counter(tray) - Counter(turn.faces) + Counter(turn.to)).elements())
            out = multiset_minus(tray, expect_tray)
            if out:
                ops.append(Remove(out))
            return ops
        elif phase is TablePhase.RETURN_DICE:
            if tower.in_tray < dice_left:
                return [PutBack(min(dice_left - tower.in_tray, tower.out_of_tray))]
            if tower.in_tray > dice_left:
                return [Remove(tuple(tray[: tower.in_tray - dice_left]))]
        return []

    def known_tray(self) -> tuple[int, ...]:
        return tuple(sorted(self._values()))

    def restore(self, roll: Sequence[int]) -> list[TowerOp]:
        """Every die out of the tray goes back, then those not in ``roll`` come out again."""
        tray, ops = self._values(), list[TowerOp]()
        if sorted(tray) == sorted(roll):
            return ops
        if self.tower.out_of_tray:
            ops.append(PutBack(self.tower.out_of_tray))
            tray += self.tower.taken_out
        extra = multiset_minus(tray, roll)
        if extra:
            ops.append(Remove(extra))
        return ops

    def tray_touched(self, rolled: int, refused: bool) -> bool:
        """Only when someone took dice out or put them back (no camera work otherwise)."""
        return self.tower.in_tray != rolled or refused

    def moves_dice(self, phase: TablePhase) -> bool:
        return phase.tray_moving

    def in_tray(self, counted: int) -> int:
        return self.tower.in_tray

    def between_games(self, take_out: bool) -> list[TowerOp]:
        if take_out:
            values = self._values()
            return [Remove(tuple(values))] if values else []
        n = self.tower.out_of_tray
        return [PutBack(n)] if n else []

    def calibrate(self, camera: SharedCamera, seed: int) -> Calibration | None:
        """A calibration of the rendered camera, used while no calibration file exists.

        The simulator knows its empty tray exactly, so it calibrates itself the
        way the calibration page would (empty tray, then the dice): the reader
        is then as fast and sure as on a calibrated tower.
        """
        dice = len(self.tower.tray())
        if not dice:
            return None
        empty, _ = render_tray([], size=camera.size, seed=seed)
        try:
            calibration, report = calibrate(empty, camera.source.read(), expected=dice)
        except CalibrationError as exc:
            log.warning("the simulator could not calibrate itself: %s", exc)
            return None
        log.info("simulated camera calibrated: %s", report.get("text", ""))
        return calibration

    @staticmethod
    def _show(tray: Sequence[int], kept: Sequence[int]) -> Turn | None:
        """The turn that makes ``tray`` hold the values of ``kept`` (the dice a roll leaves
        after its set-aside), where the roll was corrected to values the simulated dice do
        not show: as many of the dice no kept value needs turn to the values missing (no
        move where the dice show what was said)."""
        values = Counter(tray)
        missing = sorted((Counter(kept) - values).elements())
        spare = sorted((values - Counter(kept)).elements())
        if not missing or len(spare) < len(missing):
            return None
        return Turn(tuple(spare[: len(missing)]), tuple(missing))

    def _values(self) -> list[int]:
        return [int(d["value"]) for d in self.tower.tray()]


__all__ = [
    "BadTowerOp",
    "Hands",
    "NoHelperHands",
    "PeopleHands",
    "PutBack",
    "Remove",
    "Shake",
    "SimClock",
    "SimulatedHands",
    "TowerOp",
    "Turn",
    "count_after",
    "journaled_ops",
    "multiset_minus",
    "tower_op_from_json",
]
