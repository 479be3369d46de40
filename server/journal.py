"""The table's journal: a :class:`TableState` written as one row, and read back at a restart.

:class:`TableJournal` is the one translation between the table's state value
and :mod:`server.store`'s journal rows (the journal format): ``write`` turns
the next state and what led to it (the engine's events, notes, tower
operations, a scored roll) into one committed row and returns the state with
its ``seq`` and log, for the controller to adopt; ``read`` rebuilds the
newest state (the game replayed row by row from its record, the simulated
tray from the tower operations).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from server.hands import Hands, TowerOp, journaled_ops
from server.store import CorruptJournal, NewGame, Store
from server.store import Step as JournalEntry
from server.table_state import LOG_LENGTH, SnapshotError, TablePhase, TableState
from zilch import Event, Game, ReplayError, ZilchError
from zilch.edits import fold
from zilch.game import new_game

Note = tuple[str, str]  # (kind, text) of a log entry the engine did not make


class TableJournal:
    """Writes and reads the table's journal rows."""

    def __init__(self, store: Store, hands: Hands) -> None:
        self.store = store
        self.hands = hands

    def write(
        self,
        following: TableState,
        *,
        action: Mapping[str, object] | None = None,
        events: Sequence[Event] = (),
        tower: Sequence[TowerOp] = (),
        notes: Sequence[Note] = (),
        roll: tuple[str, Sequence[int]] | None = None,
        new_game: NewGame | None = None,
        ended: int | None = None,
    ) -> TableState:
        """Commit one row for ``following``; the state with its ``seq`` and log (not adopted).

        ``new_game`` is the game this row starts, written in the same transaction;
        ``ended`` a game the host ended unfinished, marked abandoned the same way.

        Raises :class:`~server.store.StorageError` when the storage refuses:
        nothing was written.
        """
        entries: list[dict[str, Any]] = [
            {"kind": e.kind, "player": e.player, "text": e.text, "data": dict(e.data)}
            for e in events
        ]
        entries += [
            {"kind": kind, "player": None, "text": text, "data": {}} for kind, text in notes
        ]
        turns = [
            (e.player, int(e.data.get("points", e.data.get("total", 0))))
            for e in events
            if e.kind == "bank" and e.player
        ]
        game = following.game
        finished = None
        if game is not None and game.state.finished and any(e.kind == "game_over" for e in events):
            finished = game.summary()
        entry = JournalEntry(
            game_id=following.game_id,
            snapshot=following.to_json(),
            action=None if action is None else dict(action),
            tower=[op.to_json() for op in tower],
            log=entries,
            roll=roll,
            turns=turns,
            finished=finished,
            new_game=new_game,
            ended=ended,
        )
        seq = self.store.append(entry, preset=following.preset or None)
        logged = (*following.log, *({"seq": seq, **e} for e in entries))[-LOG_LENGTH:]
        return replace(following, seq=seq, log=logged)

    def read(self) -> TableState | None:
        """The newest state in the journal (None for a new table); the hands' tray replayed.

        A row that cannot be read back raises :class:`~server.store.CorruptJournal`
        naming the game and the row; nothing is changed.
        """
        last = self.store.last_step()
        if last is None:
            return None
        seq, game_id, snap = last
        try:
            state = replace(TableState.from_json(snap), seq=seq)
        except SnapshotError as exc:
            problem = f"its snapshot is not a table state: {exc}"
            raise CorruptJournal(game_id, seq, problem) from None
        if game_id is not None:
            game = self._replayed(game_id, seq)
            log_entries = tuple(self.store.log(game_id, LOG_LENGTH))
            state = replace(state, game=game, game_id=game_id, log=log_entries)
        self.hands.replay(journaled_ops(self.store.tower_ops()))
        if state.phase.busy:
            # The dice were shaken (the shake is journaled before it happens):
            # wait for them to lie still and read them.
            state = replace(state, phase=TablePhase.SETTLING)
        return state

    def _replayed(self, game_id: int, last_seq: int) -> Game:
        """The game rebuilt from its record, row by row; a row that does not replay is named."""
        try:
            row = self.store.game(game_id)
        except ValueError as exc:  # a games row whose JSON does not read back
            raise CorruptJournal(game_id, last_seq, f"its games row is damaged ({exc})") from None
        if row is None:
            raise CorruptJournal(game_id, last_seq, f"game {game_id} is not in the games table")
        rows = self.store.action_rows(game_id)
        try:  # the host's edits (undo, rename) folded into the record they stand for
            players, actions = fold(row.players, rows)
        except ReplayError as exc:
            seq = rows[exc.action_index][0] if exc.action_index is not None else last_seq
            raise CorruptJournal(game_id, seq, f"its edit does not fit: {exc}") from None
        record = {"preset": row.preset, "rules": row.rules, "players": players, "actions": []}
        try:
            game = new_game(record)
        except ReplayError as exc:
            raise CorruptJournal(game_id, last_seq, f"the game cannot start again: {exc}") from None
        for seq, action in actions:
            try:
                game.apply(action)
            except ZilchError as exc:
                raise CorruptJournal(
                    game_id, seq, f"its action {action} does not replay: {exc}"
                ) from None
        return game


__all__ = ["Note", "TableJournal"]
