"""Errors of the rules engine: one root, each leaf also the builtin it resembles.

Every message says what was wrong and what would be allowed, so the command
line and the service can show it to a person as one line.
"""

from __future__ import annotations

QUOTE_MAX = 40  # characters of a refused value that a message quotes


def cut(text: str, limit: int = QUOTE_MAX) -> str:
    """``text`` (a refused value written out) cut to one short quote: it may be kilobytes."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ZilchError(Exception):
    """Root of every error the rules engine raises."""


class InvalidDice(ZilchError, ValueError):
    """Dice values outside 1..6, or the wrong number of dice for the moment."""


class UnknownPreset(ZilchError, ValueError):
    """A preset name that is not one of the shipped presets."""


class UnknownRule(ZilchError, ValueError):
    """A house rule name that no rule set has."""


class BadRuleValue(ZilchError, ValueError):
    """A house rule given a value it cannot take."""


class IllegalAction(ZilchError, ValueError):
    """An action that is not legal in the game's current state."""


class IllegalSetAside(IllegalAction):
    """Dice chosen to set aside that were not rolled or do not all score."""


class GameOver(IllegalAction):
    """An action on a game that has already ended."""


class ReplayError(ZilchError, ValueError):
    """A game record that is malformed or holds an illegal action.

    ``action_index`` is the index (from 0) of the failing action in the
    record's ``actions``, or ``None`` when the record itself is malformed.
    """

    def __init__(self, message: str, action_index: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.action_index = action_index


class InvalidPlayer(IllegalAction):
    """A player name or list of players the game cannot take."""
