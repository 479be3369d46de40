"""Immutable game state and events: what a display, a log and a bot read.

:class:`~zilch.game.Game` replaces its :class:`GameState` as a whole after
each legal action, so a state object never changes once handed out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from zilch.errors import ReplayError

Phase = Literal["roll", "keep", "over"]

EVENT_KINDS = (
    "roll",
    "correct",
    "set_aside",
    "free_roll",
    "zilch",
    "forgiven",
    "nothing",
    "penalty",
    "bank",
    "turn_start",
    "join",
    "skip",
    "challenge",
    "announcement",
    "final_round",
    "game_over",
)


@dataclass(frozen=True)
class PlayerState:
    """One player: banked score, zilch streak and what the rules track for them.

    ``forgiveness`` is how many forgiven zilches are left, ``challenges`` the
    challenge turns used (1, 2), ``reached`` the turn number at which the
    score first reached the target, ``last_turn`` the points banked on the
    player's most recent turn (0 after a zilch or a skip).
    """

    name: str
    score: int = 0
    streak: int = 0
    on_board: bool = False
    zilches: int = 0
    forgiveness: int = 0
    challenges: tuple[int, ...] = ()
    reached: int | None = None
    last_turn: int = 0


@dataclass(frozen=True)
class TurnState:
    """The turn in progress.

    ``roll`` is the roll waiting for a set-aside (None between rolls);
    ``set_aside`` the groups taken out since the turn began or since the
    last free roll; ``pyramid`` the frozen single 1s and 5s that may still
    complete a triple (pyramiding only); ``free_roll`` is true while all six
    dice are back after hot dice or a "nothing"; ``challenge`` names the
    victim of a challenge turn (``challenge_level`` 1 or 2).
    """

    player: str | None = None
    total: int = 0
    roll: tuple[int, ...] | None = None
    dice_left: int = 6
    set_aside: tuple[tuple[int, ...], ...] = ()
    can_bank: bool = False
    rolls: int = 0
    free_roll: bool = False
    pyramid: tuple[int, ...] = ()
    challenge: str | None = None
    challenge_level: int = 0


@dataclass(frozen=True)
class GameState:
    """The whole table: players in playing order, whose turn, the turn, the end.

    ``pending`` lists the players still owed a final or tie-break turn,
    ``closer`` the first player to reach the target (``final_turn`` games),
    ``last_turn_score`` what the previous turn banked (for surpassing),
    ``turn_number`` counts turns from 1, ``started`` is true after the
    game's first roll.
    """

    preset: str
    players: tuple[PlayerState, ...]
    current: str | None
    phase: Phase
    turn: TurnState
    finished: bool = False
    winners: tuple[str, ...] = ()
    round: int = 1
    final_round: bool = False
    turn_number: int = 1
    last_turn_score: int = 0
    closer: str | None = None
    pending: tuple[str, ...] = ()
    tiebreak: bool = False
    started: bool = False

    def player(self, name: str) -> PlayerState:
        """The player called ``name`` (KeyError if absent)."""
        for player in self.players:
            if player.name == name:
                return player
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        """Player names in playing order."""
        return tuple(player.name for player in self.players)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of the whole state."""
        return _jsonable(dataclasses.asdict(self))  # type: ignore[no-any-return]


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    return value


@dataclass(frozen=True)
class Event:
    """Something that happened at the table, for a display and a log.

    ``kind`` is one of :data:`EVENT_KINDS`; ``data`` holds the details as
    JSON-ready values; ``text`` is a sentence for the log.
    """

    kind: str
    player: str | None
    data: Mapping[str, Any] = field(default_factory=dict)
    text: str = ""

    def to_json(self) -> dict[str, Any]:
        """``{"kind", "player", "data", "text"}``."""
        return {
            "kind": self.kind,
            "player": self.player,
            "data": _jsonable(dict(self.data)),
            "text": self.text,
        }

    @classmethod
    def from_json(cls, data: object) -> Event:
        """Rebuild an event from :meth:`to_json`; :class:`ReplayError` if malformed."""
        if not isinstance(data, Mapping) or set(data) != {"kind", "player", "data", "text"}:
            raise ReplayError('an event is {"kind", "player", "data", "text"}')
        kind, player, details, text = data["kind"], data["player"], data["data"], data["text"]
        if kind not in EVENT_KINDS:
            raise ReplayError(f"unknown event kind {kind!r}; one of {', '.join(EVENT_KINDS)}")
        if not (player is None or isinstance(player, str)) or not isinstance(text, str):
            raise ReplayError("an event's player is a name or null and its text a string")
        if not isinstance(details, Mapping):
            raise ReplayError("an event's data is an object")
        return cls(kind, player, dict(details), text)
