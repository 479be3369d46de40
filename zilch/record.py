"""Game records: the design's replay format, and whole games as JSON.

A record is ``{"preset": NAME, "rules": {K: V}, "players": [names],
"actions": [...]}``; replaying it through :class:`~zilch.game.Game` rebuilds
the game exactly, so a record is all a game needs to be stored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from zilch.errors import ReplayError, ZilchError
from zilch.game import Game
from zilch.rules import find_preset
from zilch.state import Event

RECORD_KEYS = {"preset", "rules", "players", "actions"}


def new_game(record: Mapping[str, Any]) -> Game:
    """The game a record starts from (its preset, house rules and players), before any action."""
    if not isinstance(record, Mapping):
        raise ReplayError('a game record is an object {"preset", "rules", "players", "actions"}')
    missing = sorted({"preset", "players", "actions"} - set(record))
    extra = sorted(set(record) - RECORD_KEYS)
    if missing or extra:
        wrong = f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(extra)}"
        raise ReplayError(
            f'game record has {wrong}; it holds "preset", "rules", "players", "actions"'
        )
    house = record.get("rules", {})
    if not isinstance(house, Mapping):
        raise ReplayError('the record\'s "rules" is an object of house rules, e.g. {}')
    if not isinstance(record["actions"], list):
        raise ReplayError('the record\'s "actions" is a list')
    try:
        rules = find_preset(record["preset"]).with_house_rules(house)
        return Game(rules, record["players"])
    except ZilchError as error:
        raise ReplayError(f"game record: {error}") from None


def replay(record: Mapping[str, Any]) -> Game:
    """Play a record's actions; :class:`ReplayError` at the first illegal one, with its index."""
    game = new_game(record)
    for index, action in enumerate(record["actions"]):
        try:
            game.apply(action)
        except ZilchError as error:
            raise ReplayError(str(error), index) from None
    return game


def load_record(text: str) -> dict[str, Any]:
    """Parse a record's JSON text; :class:`ReplayError` names what is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ReplayError(
            f"not JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    except RecursionError:
        raise ReplayError("arrays or objects nested too deeply (a game record nests 3)") from None
    if not isinstance(data, dict):
        raise ReplayError('a game record is an object {"preset", "rules", "players", "actions"}')
    return data


def game_from_json(data: Mapping[str, Any]) -> Game:
    """Rebuild :meth:`Game.to_json` output by replay, then check its state and journal."""
    if not isinstance(data, Mapping) or set(data) != {"record", "state", "journal"}:
        raise ReplayError('a saved game is {"record", "state", "journal"}')
    journal = data["journal"]
    if not isinstance(journal, list):
        raise ReplayError("a saved game's journal is a list of events")
    events = [Event.from_json(event) for event in journal]
    game = replay(data["record"])
    if _plain(game.state.to_dict()) != _plain(data["state"]):
        raise ReplayError("the saved state does not match its record's actions")
    if [e.to_json() for e in game.journal] != [_plain(e.to_json()) for e in events]:
        raise ReplayError("the saved journal does not match its record's actions")
    return game


def _plain(value: Any) -> Any:
    """The value as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(value))
