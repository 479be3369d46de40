"""Game records: the design's replay format, read from text.

A record is ``{"preset": NAME, "rules": {K: V}, "players": [names],
"actions": [...]}``; replaying it through :class:`~zilch.game.Game` rebuilds
the game exactly, so a record is all a game needs to be stored. Rebuilding
(``replay``, ``new_game``, ``game_from_json``) lives beside the game in
:mod:`zilch.game`, which this module sits above.
"""

from __future__ import annotations

import json
from typing import Any

from zilch.errors import ReplayError
from zilch.game import RECORD_KEYS, game_from_json, new_game, replay

__all__ = ["RECORD_KEYS", "game_from_json", "load_record", "new_game", "replay"]


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
