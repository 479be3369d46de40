"""Host mode (the ``club`` preset): the tower calls players and runs the schedule.

The host calls the current player by name when the turn starts, calls again
after ``[host] call_timeout_s`` without an answer, and skips the turn after
the second call (the engine's ``skip``: not a zilch, the streak unchanged).
Score announcements after round two and every later round, the final
round, the points each final-round player needs to take the lead and the
late-joiner window are the engine's rules and events; the controller shows
them with the host's calls. The clock is injected so tests never sleep.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zilch import Event, Game

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_ENTRY = re.compile(r"([A-Za-z]{3})\w* (\d{1,2}):(\d{2})")


def hosted(game: Game) -> bool:
    """Whether the game is one the tower hosts (a club game, played to a final round)."""
    return game.rules.ending == "final_round"


def parse_schedule(entries: Sequence[object]) -> list[tuple[int, int, int]]:
    """``["Mon 15:30"]`` → ``[(0, 15, 30)]`` (weekday from Monday, hour, minute).

    The one reader of ``[host] schedule`` entries (the configuration checks with it too).
    """
    slots = []
    for entry in entries:
        match = _ENTRY.fullmatch(entry.strip()) if isinstance(entry, str) else None
        if (
            match is None
            or match[1].lower() not in DAYS
            or int(match[2]) > 23
            or int(match[3]) > 59
        ):
            raise ValueError(f"schedule entry {entry!r} is not like 'Mon 15:30'")
        slots.append((DAYS.index(match[1].lower()), int(match[2]), int(match[3])))
    return slots


def next_game(schedule: Sequence[str], now: datetime) -> str | None:
    """The next scheduled game time after ``now``, as ``"Wed 09:30"``; None without a schedule."""
    best: datetime | None = None
    for weekday, hour, minute in parse_schedule(schedule):
        day = now + timedelta(days=(weekday - now.weekday()) % 7)
        when = day.replace(hour=hour, minute=minute, second=0, microsecond=0)
        if when <= now:
            when += timedelta(days=7)
        if best is None or when < best:
            best = when
    return None if best is None else best.strftime("%a %H:%M")


class Host:
    """Calls, second calls and skips for hosted games, on an injected clock."""

    def __init__(self, call_timeout_s: float, schedule: Sequence[str] = ()) -> None:
        self.call_timeout_s = call_timeout_s
        self.schedule = list(schedule)
        parse_schedule(self.schedule)
        self.player: str | None = None
        self.calls = 0
        self.called_at = 0.0

    def turn_started(self, player: str | None, now: float) -> None:
        """A turn began (or the table resumed): the first call counts from ``now``."""
        self.player = player
        self.calls = 1 if player is not None else 0
        self.called_at = now

    def memo(self) -> tuple[str | None, int, float]:
        """The host's calls as they stand (restored when a step could not be saved)."""
        return (self.player, self.calls, self.called_at)

    def recall(self, memo: tuple[str | None, int, float]) -> None:
        """Go back to calls taken with :meth:`memo`."""
        self.player, self.calls, self.called_at = memo

    def renamed(self, old: str, new: str) -> None:
        """A player is called by another name: the calls of their turn go on under it."""
        if self.player == old:
            self.player = new

    def player_acted(self) -> None:
        """The current player answered (rolled, kept or banked): no more calls this turn."""
        self.calls = 0

    def after_events(
        self, game: Game, events: Sequence[Event], now: float
    ) -> list[tuple[str, str]]:
        """Announcements the host makes after these game events (a new turn: call)."""
        current = game.state.current
        new_turn = current != self.player or any(e.kind == "turn_start" for e in events)
        if game.state.finished or current is None or not new_turn:
            return []
        if game.state.turn.total or game.state.turn.set_aside:
            return []
        self.turn_started(current, now)
        if not hosted(game):
            self.calls = 0
            return []
        notes = []
        notes.append(("call", f"{current}, it's your turn."))
        return notes

    def due(self, game: Game, now: float) -> tuple[str, str] | None:
        """The second call or the skip, once its time has come; else None."""
        current = game.state.current
        if not hosted(game) or current is None or current != self.player or not self.calls:
            return None
        if now - self.called_at < self.call_timeout_s:
            return None
        self.called_at = now
        if self.calls == 1:
            self.calls = 2
            return ("call_again", f"{current}, second call: it's your turn.")
        self.calls = 0
        return ("skip", f"{current} did not answer two calls: turn skipped.")

    def next_game(self, now: datetime) -> str | None:
        """The next scheduled game time for the idle screen."""
        return next_game(self.schedule, now)
