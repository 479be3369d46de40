"""The host's edits of a running game, as next table states: undo, rename, a player leaving.

Each function checks the edit against the table as it is and builds the
next :class:`~server.table_state.TableState` (with the log line to journal)
without changing anything; the controller commits it like every other step,
so a refused write leaves the table as it was.

- **Undo** takes back the last set-aside of the turn in progress, until the
  next ROLL (while its dice leave the tray, after they left, or while the
  six come back after hot dice). The roll it came from waits for a
  set-aside again, so the player may choose another. Banks, skips and rolls
  are never taken back (:mod:`zilch.edits` says why); neither is a computer
  player's move. The journal keeps the set-aside's row and adds an
  ``{"undo": true}`` row; the exported record leaves the set-aside out.
- **Rename** calls a player by another name everywhere, from the game's
  first action (journaled as ``{"rename": {"from", "to"}}``; the exported
  record simply uses the new name).
- **A player leaving**: their banked score stays on the board as it was
  (marked ``left``), and each of their turns from now on is skipped by the
  table (the engine's ``skip``: no zilch, no streak change), so the record
  stays a plain replay of the design's actions and the game's ending is the
  engine's own. They cannot be removed in the middle of a turn they have
  begun (BANK it, or let it end, first), and the last player still at the
  table cannot leave (end the game instead).
"""

from __future__ import annotations

from dataclasses import replace

from server.hands import Hands, TowerOp
from server.table_state import CHOOSE_MESSAGE, TableError, TablePhase, TableState
from zilch import Game, IllegalAction, dice_text
from zilch.edits import renamed, undo_refusal, undone
from zilch.names import name_key

# After a set-aside: its dice leaving the tray, the next ROLL awaited, or dice coming back.
UNDO_PHASES = (TablePhase.READY, TablePhase.REMOVE_DICE, TablePhase.RETURN_DICE)


def running(table: TableState) -> Game:
    """The running game, or why there is none."""
    game = table.game
    if game is None:
        raise TableError("no game is running: start one with POST /api/new-game")
    if game.state.finished:
        raise IllegalAction("the game is over: start a new one")
    return game


def table_undo_refusal(table: TableState) -> str | None:
    """Why the last action cannot be taken back now (a sentence), or None."""
    game = table.game
    if game is None or game.state.finished:
        return "no game is running"
    refusal = undo_refusal(game)
    if refusal is not None:
        return refusal
    if table.phase not in UNDO_PHASES:
        return f"the table is {table.phase.value}: a set-aside is taken back before the next roll"
    current = game.state.current or ""
    if current in table.bots:
        return f"{current} is a computer player: its moves are not taken back"
    return None


def undo_step(table: TableState, hands: Hands) -> tuple[TableState, list[TowerOp], str]:
    """The table with the last set-aside taken back: ``(next state, tower moves, log line)``."""
    running(table)
    refusal = table_undo_refusal(table)
    if refusal is not None:
        raise IllegalAction(refusal)
    assert table.game is not None
    kept = table.game.actions[-1]["keep"]
    game, text = undone(table.game)
    roll = tuple(sorted(game.state.turn.roll or ()))
    ops = hands.restore(roll)
    people = not hands.helper
    back = dice_text(sorted(kept))
    message = f"Put {back} back in the tray: the set-aside was taken back." if people else ""
    following = replace(
        table,
        game=game,
        phase=TablePhase.CHOOSE,
        in_tray=len(roll),
        expect_tray=None,
        then=None,
        # on a real tower the taken-back dice may still lie outside the tray: they are
        # not a set-aside again until the tray has held the whole roll once more
        refused=tuple(sorted(kept)) if people else None,
        message=message or CHOOSE_MESSAGE,
    )
    return following, ops, text


def rename_step(table: TableState, old: str, new: str) -> tuple[TableState, str, str, str]:
    """The table with ``old`` called ``new``: ``(next state, old name, new name, log line)``."""
    game = running(table)
    if table.phase.busy:
        raise TableError("wait for the dice to be read before renaming a player")
    game, old, new = renamed(game, old, new)

    def moved(name: str) -> str:
        return new if name == old else name

    correction = table.correction
    if correction is not None:
        correction = replace(
            correction,
            player=moved(correction.player),
            by=None if correction.by is None else moved(correction.by),
        )
    following = replace(
        table,
        game=game,
        bots={moved(name): bot for name, bot in table.bots.items()},
        left=tuple(moved(name) for name in table.left),
        correction=correction,
    )
    return following, old, new, f"{old} is now called {new}."


def leave_step(table: TableState, name: str) -> tuple[TableState, str]:
    """The table with player ``name`` gone from the turn order: ``(next state, log line)``."""
    game = running(table)
    state = game.state
    found = next((n for n in state.names if name_key(n) == name_key(name)), None)
    if found is None:
        raise IllegalAction(f"{name!r} is not playing; the players are {', '.join(state.names)}")
    if found in table.left:
        raise IllegalAction(f"{found} has already left the game")
    present = [n for n in state.names if n not in table.left and n != found]
    if not present:
        raise IllegalAction(f"{found} is the last player at the table: end the game instead")
    turn = state.turn
    if state.current == found and (turn.rolls or turn.set_aside or turn.challenge):
        raise IllegalAction(
            f"{found}'s turn is under way: BANK it or let it end, then remove {found}"
        )
    if table.phase.busy:
        raise TableError("wait for the dice to be read before removing a player")
    score = state.player(found).score
    text = (
        f"{found} has left the game with {score:,} banked; {found}'s turns are skipped from now on."
    )
    return replace(table, left=(*table.left, found)), text


def left_turn(table: TableState) -> str | None:
    """The player who left whose turn has come (to be skipped now), or None."""
    game = table.game
    if game is None or game.state.finished or table.paused or not table.left:
        return None
    if table.phase not in (TablePhase.READY, TablePhase.RETURN_DICE):
        return None
    current, turn = game.state.current, game.state.turn
    if current not in table.left or turn.rolls or turn.challenge:
        return None
    return current


__all__ = [
    "UNDO_PHASES",
    "leave_step",
    "left_turn",
    "rename_step",
    "table_undo_refusal",
    "undo_step",
]
