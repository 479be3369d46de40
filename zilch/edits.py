"""Edits of a game in progress: taking back the last set-aside, renaming a player.

Neither is a replay action: a game record (the design's replay format) holds
only what was played. An edit gives a new :class:`~zilch.game.Game` rebuilt
from an edited record (the current game is never changed):

- :func:`undone`: the game as it was before its last action, which must be
  a set-aside of the turn in progress with no roll since (so the roll it
  was taken from is back, waiting for its set-aside). A bank, a skip, a
  roll, a join or a challenge is never taken back: a bank or a skip passes
  the turn on (the next player was called, best turns are recorded, a bank
  can end the game), a roll is what the dice did (a misread roll is
  corrected instead, which is a replay action).
- :func:`renamed`: the same game with one player called by another name
  everywhere (players, joins, challenges, who corrected).

:func:`fold` turns a list of played actions and edits, in the order they
happened (as a journal keeps them, with ``{"undo": true}`` and
``{"rename": {"from": OLD, "to": NEW}}`` rows among the actions), into the
players and actions of the replay record they stand for: an undo removes
the action it took back, a rename renames. A journal keeps every row; the
record it exports is the fold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from zilch.errors import IllegalAction, InvalidPlayer, ReplayError
from zilch.game import Game, replay
from zilch.names import check_name, name_key
from zilch.steps import dice_text

__all__ = [
    "EDIT_KINDS",
    "fold",
    "is_edit",
    "rename_action",
    "renamed",
    "undo_refusal",
    "undoable",
    "undone",
]

EDIT_KINDS = ("undo", "rename")

Key = TypeVar("Key")


def is_edit(action: Mapping[str, object]) -> bool:
    """Whether a journal action is an edit (``undo``, ``rename``) rather than a replay action."""
    return len(action) == 1 and next(iter(action)) in EDIT_KINDS


def undoable(game: Game) -> dict[str, Any] | None:
    """The set-aside an undo would take back (``{"player", "dice"}``), or None."""
    if undo_refusal(game) is not None:
        return None
    last = game.actions[-1]
    return {"player": game.state.current, "dice": sorted(last["keep"])}


def undo_refusal(game: Game) -> str | None:
    """Why the last action cannot be taken back now (a sentence), or None."""
    state = game.state
    if state.finished:
        return "the game is over: nothing can be taken back"
    actions = game.actions
    if not actions:
        return "nothing has been played yet"
    last = actions[-1]
    if "keep" in last:
        return None
    kind = next(iter(last))
    if kind == "bank":
        return (
            "a bank cannot be taken back: it ended the turn (the score and best turn are "
            "recorded and the next player's turn has begun)"
        )
    if kind == "skip":
        return "a skipped turn cannot be taken back: the next player's turn has begun"
    if kind in ("roll", "correct"):
        return (
            "the last action is a roll: only a set-aside is taken back, before the next roll "
            "(a misread roll is corrected instead)"
        )
    return f"a {kind} cannot be taken back; only the last set-aside of the turn, before the roll"


def undone(game: Game) -> tuple[Game, str]:
    """The game before its last set-aside, and a sentence for the log; :class:`IllegalAction`.

    The game is rebuilt by replaying its record without that action, so it
    is exactly the game as it stood before (the roll waiting for its set-aside).
    """
    refusal = undo_refusal(game)
    if refusal is not None:
        raise IllegalAction(refusal)
    record = game.record()
    kept = record["actions"].pop()
    before = replay(record)
    me = game.state.current
    if before.state.current != me or before.state.turn_number != game.state.turn_number:
        raise IllegalAction("that set-aside belongs to a turn that has ended")
    roll = dice_text(before.state.turn.roll or ())
    text = (
        f"{me}'s set-aside of {dice_text(sorted(kept['keep']))} is taken back: "
        f"the roll {roll} waits for a set-aside again."
    )
    return before, text


def rename_action(action: Mapping[str, Any], old: str, new: str) -> dict[str, Any]:
    """A replay action with the player ``old`` called ``new`` (joins, challenges, ``by``)."""
    moved = dict(action)
    for key in ("join", "challenge", "by"):
        value = moved.get(key)
        if isinstance(value, str) and name_key(value) == name_key(old):
            moved[key] = new
    return moved


def renamed(game: Game, old: str, new: str) -> tuple[Game, str, str]:
    """The game with player ``old`` called ``new``: ``(game, old name, new name)``.

    ``old`` is matched as names are (case and spacing aside); ``new`` must be
    a valid name no other player has. :class:`InvalidPlayer` otherwise.
    """
    found = next((n for n in game.state.names if name_key(n) == name_key(old)), None)
    if found is None:
        players = ", ".join(game.state.names)
        raise InvalidPlayer(f"{old!r} is not playing; the players are {players}")
    new = check_name(new)
    if new == found:
        raise InvalidPlayer(f"{found} is already called {new}")
    taken = [n for n in game.state.names if n != found and name_key(n) == name_key(new)]
    if taken:
        raise InvalidPlayer(f"{new} is already playing")
    record = game.record()
    starting = [new if p == found else p for p in record["players"]]
    actions = [rename_action(a, found, new) for a in record["actions"]]
    order = [new if n == found else n for n in game.state.names]
    try:
        following = replay({**record, "players": starting, "actions": actions})
    except ReplayError:
        following = None
    if following is None or list(following.state.names) != order:
        # Only where the rules seat players by name (alphabetical order).
        raise IllegalAction(
            f"under {game.rules.name} players sit in order of their names: calling {found} "
            f"{new} would change the order of play; choose a name that sorts in the same place"
        )
    return following, found, new


def fold(
    players: Sequence[str], rows: Sequence[tuple[Key, Mapping[str, Any]]]
) -> tuple[list[str], list[tuple[Key, dict[str, Any]]]]:
    """The record's players and actions a journal's rows stand for (edits applied).

    Each row is ``(key, action)``; the actions kept come back with their keys
    (a journal row's seq), so a replay error can name the row.
    :class:`ReplayError` for an edit that does not fit (an undo with no
    set-aside before it, a rename of nobody), with the row's index.
    """
    names = list(players)
    kept: list[tuple[Key, dict[str, Any]]] = []
    for index, (key, action) in enumerate(rows):
        if not is_edit(action):
            kept.append((key, dict(action)))
            continue
        ((kind, value),) = action.items()
        if kind == "undo":
            if value is not True or not kept or "keep" not in kept[-1][1]:
                raise ReplayError("an undo row without a set-aside before it to take back", index)
            kept.pop()
            continue
        if not isinstance(value, Mapping) or set(value) != {"from", "to"}:
            raise ReplayError('a rename row is {"rename": {"from": OLD, "to": NEW}}', index)
        old, new = value["from"], value["to"]
        if not isinstance(old, str) or not isinstance(new, str):
            raise ReplayError("a rename row names the player and the new name", index)
        names = [new if name_key(n) == name_key(old) else n for n in names]
        kept = [(k, rename_action(a, old, new)) for k, a in kept]
    return names, kept
