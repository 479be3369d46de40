"""The table's state as one value: :class:`TableState`, with its phase :class:`TablePhase`.

The controller holds exactly one ``TableState``. Each change builds the next
value (``dataclasses.replace``), commits it to the journal and only then
adopts and publishes it; the state document is built from it alone. The part
stored with every journal row (``to_json``, the row's ``snapshot``) is the
journal format of :mod:`server.store` and does not change: ``from_json``
reads every snapshot ever written, with the same defaults as before.

The game itself is rebuilt from its replay record, not from the snapshot;
``game`` holds the engine's :class:`~zilch.Game`, never changed in place
(actions go through :meth:`zilch.Game.after`, which returns a new game).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, cast

from zilch import Game

LOG_LENGTH = 50


class TablePhase(StrEnum):
    """Where the table is; its value is the state document's ``phase``."""

    IDLE = "idle"  # no game
    READY = "ready"  # waiting for ROLL or BANK
    SHAKING = "shaking"
    SETTLING = "settling"
    READING = "reading"
    CHOOSE = "choose"  # dice read, waiting for a set-aside
    REMOVE_DICE = "remove_dice"  # waiting for set-aside dice to leave the tray
    RETURN_DICE = "return_dice"  # waiting for dice to come back
    FIX_TRAY = "fix_tray"  # a person must straighten the tray
    OVER = "over"

    @property
    def busy(self) -> bool:
        """The dice are rolling or being read: play actions wait."""
        return self in BUSY_PHASES

    @property
    def tray_moving(self) -> bool:
        """Dice must leave the tray or come back before the next roll."""
        return self in (TablePhase.REMOVE_DICE, TablePhase.RETURN_DICE)


BUSY_PHASES = frozenset({TablePhase.SHAKING, TablePhase.SETTLING, TablePhase.READING})

AnnouncementKind = Literal[
    "announcement", "final_round", "forgiven", "game_over", "call", "call_again", "skip"
]
ANNOUNCED: tuple[AnnouncementKind, ...] = (
    "announcement",
    "final_round",
    "forgiven",
    "game_over",
    "call",
    "call_again",
    "skip",
)
# An announcement saying several things takes the kind of the weightiest.
ANNOUNCED_FIRST: tuple[AnnouncementKind, ...] = (
    "game_over",
    "final_round",
    "skip",
    "call_again",
    "call",
    "forgiven",
    "announcement",
)
Then = Literal["roll", "bank"]


CHOOSE_MESSAGE = "Take out the dice you keep, or tap them on your phone."


class TableError(ValueError):
    """An action the table refuses now (wrong phase, no game, not your turn)."""


class SnapshotError(ValueError):
    """A journal row's snapshot that is not a table state (names the field)."""


@dataclass(frozen=True)
class Announcement:
    """What the TV says aloud once: ``seq`` is the journal row that said it."""

    seq: int
    text: str
    kind: AnnouncementKind

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "text": self.text, "kind": self.kind}

    @classmethod
    def from_json(cls, data: object) -> Announcement:
        if not isinstance(data, Mapping) or set(data) != {"seq", "text", "kind"}:
            raise SnapshotError(f'announcement {data!r} is not {{"seq", "text", "kind"}}')
        seq, text, kind = data["seq"], data["text"], data["kind"]
        if not isinstance(seq, int) or not isinstance(text, str) or kind not in ANNOUNCED:
            raise SnapshotError(
                f"announcement {dict(data)!r}: seq is a number, text a sentence, "
                f"kind one of {', '.join(ANNOUNCED)}"
            )
        return cls(seq, text, cast(AnnouncementKind, kind))


@dataclass(frozen=True)
class LastShake:
    """The last roll's shake: coil time and the whole tumble (seconds; reshakes add up)."""

    shake_s: float
    tumble_s: float

    def to_json(self) -> dict[str, float]:
        return {"shake_s": self.shake_s, "tumble_s": self.tumble_s}

    @classmethod
    def from_json(cls, data: object) -> LastShake:
        if not isinstance(data, Mapping) or not all(
            isinstance(data.get(k), int | float) for k in ("shake_s", "tumble_s")
        ):
            raise SnapshotError(f'last_shake {data!r} is not {{"shake_s": s, "tumble_s": s}}')
        return cls(float(data["shake_s"]), float(data["tumble_s"]))


@dataclass(frozen=True)
class Correction:
    """A person said what the dice of ``player``'s roll show: ``dice``, read as ``read``.

    ``by`` names who said it (None when the phone gave no name); ``entered``
    is true when the tower could not read the roll at all and the dice were
    entered after the last reshake.
    """

    player: str
    dice: tuple[int, ...]
    read: tuple[int, ...]
    by: str | None = None
    entered: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "dice": list(self.dice),
            "read": list(self.read),
            "by": self.by,
            "entered": self.entered,
        }

    @classmethod
    def from_json(cls, data: object) -> Correction:
        keys = {"player", "dice", "read", "by", "entered"}
        if not isinstance(data, Mapping) or set(data) != keys:
            raise SnapshotError(f"correction {data!r} is not {{{', '.join(sorted(keys))}}}")
        player, by, entered = data["player"], data["by"], data["entered"]
        if not isinstance(player, str) or not (by is None or isinstance(by, str)):
            raise SnapshotError(f"correction {dict(data)!r}: player and by are names")
        if not isinstance(entered, bool):
            raise SnapshotError(f"correction {dict(data)!r}: entered is true or false")
        dice, read = _dice(data, "dice"), _dice(data, "read")
        return cls(player, dice or (), read or (), by, entered)


@dataclass(frozen=True)
class TableState:
    """Everything the table shows and resumes from, as one immutable value.

    ``seq`` is the journal row this state was committed as (0 before any),
    ``log`` the newest log entries (each with its ``seq``). ``reading`` is
    vision's reading as JSON, ``expect_tray`` the dice that must stay in the
    tray while set-aside dice leave it, ``refused`` a take-out the engine
    refused (not asked again until the tray changes), ``then`` what a computer
    player does after its set-aside, ``tries`` the unsure readings of this roll.
    """

    phase: TablePhase = TablePhase.IDLE
    game: Game | None = field(default=None, compare=False)
    game_id: int | None = None
    seq: int = 0
    preset: str = ""
    house_rules: Mapping[str, Any] = field(default_factory=dict)
    bots: Mapping[str, str] = field(default_factory=dict)
    message: str = ""
    reading: Mapping[str, Any] | None = None
    in_tray: int = 6
    expect_tray: tuple[int, ...] | None = None
    then: Then | None = None
    tries: int = 0
    announcement: Announcement | None = None
    refused: tuple[int, ...] | None = None
    last_shake: LastShake | None = None
    log: tuple[Mapping[str, Any], ...] = ()
    correction: Correction | None = None  # who said what the dice show, until the next roll
    paused: bool = False  # the host paused the table: no calls, no skips, no computer moves
    left: tuple[str, ...] = ()  # players the host removed: their turns are skipped

    @property
    def playing(self) -> bool:
        """A game is running and not over."""
        return self.game is not None and not self.game.state.finished

    def to_json(self) -> dict[str, Any]:
        """The snapshot stored with every journal row (the journal format).

        ``correction`` is written only while there is one, ``paused`` only
        while the table is paused and ``left`` only once a player has left, so
        every other row keeps its old format.
        """
        snapshot: dict[str, Any] = {
            "phase": self.phase.value,
            "message": self.message,
            "reading": None if self.reading is None else dict(self.reading),
            "in_tray": self.in_tray,
            "expect_tray": None if self.expect_tray is None else list(self.expect_tray),
            "then": self.then,
            "tries": self.tries,
            "announcement": None if self.announcement is None else self.announcement.to_json(),
            "refused": None if self.refused is None else list(self.refused),
            "preset": self.preset,
            "house_rules": dict(self.house_rules),
            "bots": dict(self.bots),
            "last_shake": None if self.last_shake is None else self.last_shake.to_json(),
        }
        if self.correction is not None:
            snapshot["correction"] = self.correction.to_json()
        if self.paused:
            snapshot["paused"] = True
        if self.left:
            snapshot["left"] = list(self.left)
        return snapshot

    @classmethod
    def from_json(cls, data: object) -> TableState:
        """A snapshot read back (game, game id, seq and log are the journal's to add).

        Fields missing from older rows take their defaults; a field of the
        wrong type raises :class:`SnapshotError` naming it.
        """
        if not isinstance(data, Mapping):
            raise SnapshotError(f"a snapshot is an object, not {type(data).__name__}")
        phase = data.get("phase", "idle")
        if phase not in {p.value for p in TablePhase}:
            raise SnapshotError(
                f"phase {phase!r} is not one of {', '.join(p.value for p in TablePhase)}"
            )
        then = data.get("then")
        if then not in (None, "roll", "bank"):
            raise SnapshotError(f"then {then!r} is not 'roll', 'bank' or null")
        reading = data.get("reading")
        if reading is not None and not isinstance(reading, Mapping):
            raise SnapshotError(f"reading {reading!r} is not an object")
        announcement = data.get("announcement")
        last_shake = data.get("last_shake")
        correction = data.get("correction")
        paused = data.get("paused", False)
        if not isinstance(paused, bool):
            raise SnapshotError(f"paused {paused!r} is not true or false")
        left = data.get("left", [])
        if not isinstance(left, list) or not all(isinstance(n, str) and n for n in left):
            raise SnapshotError(f"left {left!r} is not a list of player names")
        return cls(
            phase=TablePhase(phase),
            preset=_text(data, "preset"),
            house_rules=dict(_mapping(data, "house_rules")),
            bots={str(k): str(v) for k, v in _mapping(data, "bots").items()},
            message=_text(data, "message"),
            reading=None if reading is None else dict(reading),
            in_tray=_count(data, "in_tray", 6),
            expect_tray=_dice(data, "expect_tray"),
            then=cast("Then | None", then),
            tries=_count(data, "tries", 0),
            announcement=None if announcement is None else Announcement.from_json(announcement),
            refused=_dice(data, "refused"),
            last_shake=None if last_shake is None else LastShake.from_json(last_shake),
            correction=None if correction is None else Correction.from_json(correction),
            paused=paused,
            left=tuple(left),
        )


def turn_token(game_id: int | None, game: Game | None) -> str | None:
    """Which turn of which game is being played: ``"12-7"`` (game 12, its 7th turn).

    The state document carries it as ``turn_token``; a play action that sends
    one is refused once that turn has ended, so a request racing the turn's
    end never acts for the next player.
    """
    if game_id is None or game is None or game.state.finished:
        return None
    return f"{game_id}-{game.state.turn_number}"


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise SnapshotError(f"{key} {value!r} is not text")
    return value


def _mapping(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, Mapping):
        raise SnapshotError(f"{key} {value!r} is not an object")
    return value


def _count(data: Mapping[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 1000:
        raise SnapshotError(f"{key} {value!r} is not a count")
    return value


def _dice(data: Mapping[str, Any], key: str) -> tuple[int, ...] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise SnapshotError(f"{key} {value!r} is not a list of dice")
    if not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in value):
        raise SnapshotError(f"{key} {value!r} is not a list of die values 1..6")
    return tuple(value)


__all__ = [
    "ANNOUNCED",
    "ANNOUNCED_FIRST",
    "BUSY_PHASES",
    "LOG_LENGTH",
    "Announcement",
    "AnnouncementKind",
    "Correction",
    "LastShake",
    "SnapshotError",
    "TableError",
    "TablePhase",
    "TableState",
    "Then",
    "turn_token",
]
