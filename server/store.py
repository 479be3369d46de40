"""SQLite persistence: games, their journals, players, records and scored rolls.

The controller writes one :class:`Step` per change of the table; the step is
committed (WAL, ``synchronous=FULL``) before the state it leads to is
published, so a power cut loses nothing that was shown. A restart reads the
journal back: the replay record rebuilds the game, the last snapshot the
controller, and the tower operations the simulated tray.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from server.errors import UserError
from zilch.edits import fold
from zilch.errors import ReplayError

SQLITE_INT_MAX = 2**63 - 1  # the largest INTEGER SQLite stores; Python ints are unbounded


def utc_now() -> str:
    """The current time as an ISO 8601 UTC string (seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


CANNOT_SAVE = "cannot save: the storage is full or read-only"


class StorageError(Exception):
    """A write the storage refused (disk full, read-only or immutable file, I/O error).

    ``str()`` is :data:`CANNOT_SAVE`, what the TV, the phones and the API say;
    ``detail`` is SQLite's own words, for the log. Nothing was written.
    """

    def __init__(self, detail: str) -> None:
        super().__init__(CANNOT_SAVE)
        self.detail = detail


class StorageRefused(UserError):
    """The state database cannot be used at all (empty file, read-only, not a database)."""


class CorruptJournal(UserError):
    """A journal row that cannot be read back; names the game and the row."""

    def __init__(self, game_id: int | None, seq: int, problem: str) -> None:
        where = "between games" if game_id is None else f"game {game_id}"
        hint = (
            f"; start with --recover to set game {game_id} aside (nothing is deleted)"
            if game_id is not None
            else "; start with --recover to start clean after it (nothing is deleted)"
        )
        super().__init__(f"journal row {seq} ({where}): {problem}{hint}")
        self.game_id = game_id
        self.seq = seq


SET_ASIDE = "set_aside"  # meta key: the games set aside by serve --recover (JSON list)


def _row_json(row: sqlite3.Row, column: str) -> Any:
    """A journal row's JSON column, or :class:`CorruptJournal` naming the row."""
    try:
        return json.loads(row[column])
    except (TypeError, ValueError, RecursionError) as exc:
        raise CorruptJournal(
            row["game_id"], int(row["seq"]), f"its {column} is not JSON ({exc})"
        ) from None


FULL_BELOW_BYTES = 64 * 1024  # free space under which a failed open is put down to a full disk


def _why(exc: sqlite3.Error, directory: Path | None = None) -> str:
    """SQLite's error in words a person acts on.

    A full disk met while opening shows as "disk I/O error" (SQLite's
    recovery could not write its index file): the free space in
    ``directory`` tells the two apart.
    """
    text = str(exc)
    if "readonly" in text or "read-only" in text:
        return f"it is read-only ({text})"
    if "full" in text:
        return f"the disk is full ({text})"
    if directory is not None:
        with suppress(OSError):
            space = os.statvfs(directory)
            if space.f_bavail * space.f_frsize < FULL_BELOW_BYTES:
                return f"the disk is full: free some space ({text})"
    return text


@dataclass(frozen=True)
class NewGame:
    """A game to create in the same transaction as its first journal row.

    ``abandon`` is the id of a game still playing that the new one replaces.
    """

    preset: str
    rules: Mapping[str, Any]
    players: Sequence[str]
    bots: Mapping[str, str]
    abandon: int | None = None


@dataclass
class Step:
    """One change of the table, written as one journal row in one transaction.

    ``action`` is a replay-format action applied to the game, ``tower`` the
    physical operations performed (``["shake"]``, ``["remove", [1, 5]]``,
    ``["put_back", 2]``, the simulator's ``["turn", [2, 6], [1, 5]]``), ``log``
    the log entries (``kind``, ``player``, ``text``, ``data``), ``snapshot`` the
    controller's state after the change.
    ``roll`` is ``(player, values)`` for a scored roll, ``turns`` the banked
    turns ``(player, points)`` and ``finished`` the final summary of a game;
    ``new_game`` creates the game ``game_id`` (from :meth:`Store.next_game_id`)
    in the same transaction, so a kill never leaves a game without its rows;
    ``ended`` a game ended before its finish, marked abandoned the same way.
    """

    game_id: int | None
    snapshot: dict[str, Any]
    action: dict[str, Any] | None = None
    tower: list[list[Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    roll: tuple[str, Sequence[int]] | None = None
    turns: list[tuple[str, int]] = field(default_factory=list)
    finished: dict[str, Any] | None = None
    new_game: NewGame | None = None
    ended: int | None = None  # a game the host ended unfinished: marked abandoned


@dataclass(frozen=True)
class GameRow:
    """A game as stored: how it started and how it ended."""

    id: int
    preset: str
    rules: dict[str, Any]
    players: list[str]
    bots: dict[str, str]
    status: str
    winners: list[str]
    summary: dict[str, Any] | None
    started_at: str
    finished_at: str | None

    def to_json(self) -> dict[str, Any]:
        """The game as the ``/api/games`` list shows it."""
        return {
            "id": self.id,
            "preset": self.preset,
            "rules": self.rules,
            "players": self.players,
            "bots": self.bots,
            "status": self.status,
            "winners": self.winners,
            "summary": self.summary,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
        }


class Store:
    """The state database. Thread-safe: one connection behind a lock."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        if self.path.is_file() and self.path.stat().st_size == 0:
            raise StorageRefused(
                f"state database {self.path} is empty (0 bytes), not a Zilch Tower database: "
                "move it away (or restore a backup) and start again"
            )
        try:
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._conn.row_factory = sqlite3.Row
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            self._conn.execute("PRAGMA foreign_keys=ON")
            schema = resources.files("server").joinpath("schema.sql").read_text(encoding="utf-8")
            with self._lock:
                self._conn.executescript(f"BEGIN;\n{schema}\nCOMMIT;")
                self._check_writable()
            # Reads go through their own connection: in WAL mode they never wait for a commit.
            self._read_lock = threading.Lock()
            self._reader = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._reader.row_factory = sqlite3.Row
        except sqlite3.Error as exc:
            raise StorageRefused(
                f"state database {self.path} cannot be used: {_why(exc, self.path.parent)}"
            ) from None
        self._closed = False

    def _check_writable(self) -> None:
        """Write (and roll back) one row, so a read-only database is refused at the start."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            self._conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('write_check', '')"
            )
        finally:
            self._conn.execute("ROLLBACK")

    def close(self) -> None:
        """Checkpoint and close the database; safe to repeat."""
        with self._lock, self._read_lock:
            if not self._closed:
                self._closed = True
                self._reader.close()
                self._conn.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; a write the storage refuses raises :class:`StorageError`."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StorageError(_why(exc)) from exc
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException as exc:
                if self._conn.in_transaction:
                    with suppress(sqlite3.Error):
                        self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError | sqlite3.DatabaseError) and not (
                    isinstance(exc, sqlite3.IntegrityError)
                ):
                    raise StorageError(_why(exc)) from exc
                raise

    # -- meta -------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        """A stored setting (the simulator's seed, the speech switch), or None."""
        with self._read_lock:
            row = self._reader.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row["value"])

    def set_meta(self, key: str, value: str) -> None:
        """Store a setting, committed at once."""
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # -- writing ----------------------------------------------------------

    def next_game_id(self) -> int:
        """The id the next game will get (games are never deleted, so ids only grow)."""
        with self._read_lock:
            row = self._reader.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM games").fetchone()
        return int(row[0])

    def start_game(
        self,
        preset: str,
        rules: Mapping[str, Any],
        players: Sequence[str],
        bots: Mapping[str, str],
        abandon: int | None = None,
    ) -> int:
        """Create a game row alone (marking ``abandon`` abandoned) and return its id.

        The table starts games with :attr:`Step.new_game` instead, which also
        writes the game's first journal row in the same transaction.
        """
        game_id = self.next_game_id()
        with self._transaction() as conn:
            self._create_game(conn, game_id, NewGame(preset, rules, players, bots, abandon))
        return game_id

    def _create_game(self, conn: sqlite3.Connection, game_id: int, new: NewGame) -> None:
        if new.abandon is not None:
            conn.execute(
                "UPDATE games SET status = 'abandoned', finished_at = ? "
                "WHERE id = ? AND status = 'playing'",
                (utc_now(), new.abandon),
            )
        conn.execute(
            "INSERT INTO games (id, preset, rules, players, bots, started_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                game_id,
                new.preset,
                json.dumps(dict(new.rules)),
                json.dumps(list(new.players)),
                json.dumps(dict(new.bots)),
                utc_now(),
            ),
        )
        for name, bot in new.bots.items():
            self._add_player(conn, name, bot)
        for name in new.players:
            self._add_player(conn, name, new.bots.get(name))

    def add_bot(self, game_id: int, name: str, bot: str | None) -> None:
        """Note a player who joined a running game (and which bot plays them)."""
        with self._transaction() as conn:
            self._add_player(conn, name, bot)
            if bot is not None:
                row = conn.execute("SELECT bots FROM games WHERE id = ?", (game_id,)).fetchone()
                bots = json.loads(row["bots"]) if row else {}
                bots[name] = bot
                conn.execute("UPDATE games SET bots = ? WHERE id = ?", (json.dumps(bots), game_id))

    @staticmethod
    def _add_player(conn: sqlite3.Connection, name: str, bot: str | None) -> None:
        conn.execute(
            "INSERT INTO players (name, bot, first_seen) VALUES (?, ?, ?) "
            "ON CONFLICT (name) DO NOTHING",
            (name, bot, utc_now()),
        )

    def append(self, step: Step, preset: str | None = None) -> int:
        """Write one step in one transaction; returns its sequence number."""
        with self._transaction() as conn:
            if step.new_game is not None:
                assert step.game_id is not None
                self._create_game(conn, step.game_id, step.new_game)
            cursor = conn.execute(
                "INSERT INTO journal (game_id, action, tower, log, snapshot, at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    step.game_id,
                    None if step.action is None else json.dumps(step.action),
                    json.dumps(step.tower),
                    json.dumps(step.log),
                    json.dumps(step.snapshot),
                    utc_now(),
                ),
            )
            seq = int(cursor.lastrowid or 0)
            if step.roll is not None and step.game_id is not None:
                player, values = step.roll
                if step.action is not None and "correct" in step.action:
                    # the corrected dice replace the misread ones in the fairness counts
                    conn.execute(
                        "DELETE FROM rolls WHERE seq = "
                        "(SELECT MAX(seq) FROM rolls WHERE game_id = ?)",
                        (step.game_id,),
                    )
                conn.execute(
                    "INSERT INTO rolls (seq, game_id, player, dice) VALUES (?, ?, ?, ?)",
                    (seq, step.game_id, player, ",".join(str(v) for v in values)),
                )
            if step.ended is not None:
                conn.execute(
                    "UPDATE games SET status = 'abandoned', finished_at = ? "
                    "WHERE id = ? AND status = 'playing'",
                    (utc_now(), step.ended),
                )
            if preset is not None:
                for player, points in step.turns:
                    self._best(conn, player, preset, "best_turn", points)
                if step.finished is not None and step.game_id is not None:
                    self._finish(conn, step.game_id, preset, step.finished)
        return seq

    def _best(
        self, conn: sqlite3.Connection, player: str, preset: str, column: str, n: int
    ) -> None:
        assert column in ("best_turn", "best_game")
        conn.execute(
            "INSERT INTO records (player, preset) VALUES (?, ?) ON CONFLICT DO NOTHING",
            (player, preset),
        )
        conn.execute(
            f"UPDATE records SET {column} = MAX({column}, ?) WHERE player = ? AND preset = ?",
            (n, player, preset),
        )

    def _finish(
        self, conn: sqlite3.Connection, game_id: int, preset: str, summary: Mapping[str, Any]
    ) -> None:
        winners = list(summary.get("winners", []))
        conn.execute(
            "UPDATE games SET status = 'finished', winners = ?, summary = ?, finished_at = ? "
            "WHERE id = ?",
            (json.dumps(winners), json.dumps(summary), utc_now(), game_id),
        )
        for player in summary.get("players", []):
            name = str(player["name"])
            self._best(conn, name, preset, "best_game", int(player["score"]))
            column = "wins" if name in winners else "losses"
            conn.execute(
                f"UPDATE records SET {column} = {column} + 1 WHERE player = ? AND preset = ?",
                (name, preset),
            )

    # -- reading ----------------------------------------------------------

    def last_step(self) -> tuple[int, int | None, dict[str, Any]] | None:
        """``(seq, game_id, snapshot)`` of the newest journal row, or None."""
        with self._read_lock:
            row = self._reader.execute(
                "SELECT seq, game_id, snapshot FROM journal ORDER BY seq DESC LIMIT 1"
            ).fetchone()
        if row is None:
            return None
        snapshot = _row_json(row, "snapshot")
        if not isinstance(snapshot, dict):
            raise CorruptJournal(row["game_id"], int(row["seq"]), "its snapshot is not an object")
        return int(row["seq"]), row["game_id"], snapshot

    def tower_ops(self) -> list[list[Any]]:
        """Every physical operation journaled, oldest first (games set aside left out), in
        its JSON form (``server.hands.journaled_ops`` reads them)."""
        aside = self.set_aside()
        games = {entry["game"] for entry in aside if entry["game"] is not None}
        seqs = {entry["row"] for entry in aside}
        with self._read_lock:
            rows = self._reader.execute(
                "SELECT seq, game_id, tower FROM journal WHERE tower != '[]' ORDER BY seq"
            ).fetchall()
        ops = []
        for row in rows:
            if row["game_id"] in games or int(row["seq"]) in seqs:
                continue
            found = _row_json(row, "tower")
            if not isinstance(found, list) or not all(isinstance(op, list) and op for op in found):
                raise CorruptJournal(
                    row["game_id"], int(row["seq"]), "its tower operations are not a list"
                )
            ops.extend(found)
        return ops

    def action_rows(self, game_id: int) -> list[tuple[int, dict[str, Any]]]:
        """The game's replay actions in order, each with its journal row's seq."""
        with self._read_lock:
            rows = self._reader.execute(
                "SELECT seq, game_id, action FROM journal "
                "WHERE game_id = ? AND action IS NOT NULL ORDER BY seq",
                (game_id,),
            ).fetchall()
        found = []
        for row in rows:
            action = _row_json(row, "action")
            if not isinstance(action, dict):
                raise CorruptJournal(game_id, int(row["seq"]), "its action is not an object")
            found.append((int(row["seq"]), action))
        return found

    def actions(self, game_id: int) -> list[dict[str, Any]]:
        """The game's journal actions in order (the host's edits among them)."""
        return [action for _, action in self.action_rows(game_id)]

    def log(self, game_id: int, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` log entries of a game, oldest first, each with its seq."""
        with self._read_lock:
            rows = self._reader.execute(
                "SELECT seq, game_id, log FROM journal WHERE game_id = ? AND log != '[]' "
                "ORDER BY seq DESC LIMIT ?",
                (game_id, limit),
            ).fetchall()
        entries = []
        for row in reversed(rows):
            found = _row_json(row, "log")
            if not isinstance(found, list) or not all(isinstance(e, dict) for e in found):
                raise CorruptJournal(game_id, int(row["seq"]), "its log is not a list of entries")
            entries += [{"seq": int(row["seq"]), **entry} for entry in found]
        return entries[-limit:]

    # -- games set aside --------------------------------------------------

    def set_aside(self) -> list[dict[str, Any]]:
        """Games (or between-games rows) set aside by ``serve --recover``, oldest first."""
        raw = self.get_meta(SET_ASIDE)
        return [] if raw is None else list(json.loads(raw))

    def put_aside(self, damaged: CorruptJournal, snapshot: Mapping[str, Any]) -> int:
        """Set the damaged row's game aside (kept, marked abandoned) and start clean after it.

        One transaction: the note in ``meta``, the game's status, and a new
        journal row (between games, ``snapshot``) the table resumes from.
        Returns that row's seq.
        """
        entry = {
            "game": damaged.game_id,
            "row": damaged.seq,
            "reason": str(damaged),
            "at": utc_now(),
        }
        aside = [*self.set_aside(), entry]
        where = "between games" if damaged.game_id is None else f"game {damaged.game_id}"
        text = f"Journal row {damaged.seq} ({where}) was damaged; set aside, starting clean."
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (SET_ASIDE, json.dumps(aside)),
            )
            if damaged.game_id is not None:
                conn.execute(
                    "UPDATE games SET status = 'abandoned', finished_at = ? "
                    "WHERE id = ? AND status = 'playing'",
                    (utc_now(), damaged.game_id),
                )
            cursor = conn.execute(
                "INSERT INTO journal (game_id, action, tower, log, snapshot, at) "
                "VALUES (NULL, NULL, '[]', ?, ?, ?)",
                (
                    json.dumps([{"kind": "set_aside", "player": None, "text": text, "data": {}}]),
                    json.dumps(dict(snapshot)),
                    utc_now(),
                ),
            )
            return int(cursor.lastrowid or 0)

    def game(self, game_id: int) -> GameRow | None:
        """One game, or None (also for an id SQLite cannot hold, such as one from a URL)."""
        if not 0 < game_id <= SQLITE_INT_MAX:
            return None
        with self._read_lock:
            row = self._reader.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else _game_row(row)

    def games(self, limit: int = 50, offset: int = 0) -> list[GameRow]:
        """Games, newest first."""
        with self._read_lock:
            rows = self._reader.execute(
                "SELECT * FROM games ORDER BY id DESC LIMIT ? OFFSET ?", (limit, offset)
            ).fetchall()
        return [_game_row(row) for row in rows]

    def record(self, game_id: int) -> dict[str, Any] | None:
        """The game's replay record (DESIGN.md), or None for an unknown game."""
        game = self.game(game_id)
        if game is None:
            return None
        # The journal keeps every row; the record leaves out what an undo took back
        # and calls renamed players by their new names (zilch.edits.fold).
        rows = self.action_rows(game_id)
        try:
            players, actions = fold(game.players, rows)
        except ReplayError as exc:
            seq = rows[exc.action_index][0] if exc.action_index is not None else 0
            raise CorruptJournal(game_id, seq, f"its edit does not fit: {exc}") from None
        return {
            "preset": game.preset,
            "rules": game.rules,
            "players": players,
            "actions": [action for _, action in actions],
        }

    def records(self, preset: str | None = None) -> list[dict[str, Any]]:
        """Records per player and preset, best games first."""
        sql = "SELECT * FROM records"
        params: tuple[Any, ...] = ()
        if preset is not None:
            sql += " WHERE preset = ?"
            params = (preset,)
        sql += " ORDER BY preset, wins DESC, best_game DESC, player"
        with self._read_lock:
            rows = self._reader.execute(sql, params).fetchall()
        return [dict(row) for row in rows]

    def corrections(self, game_ids: Sequence[int]) -> dict[int, int]:
        """How often people said what the dice show, per game: the rolls they corrected
        and the dice they entered when the tower could not read them (log kinds
        ``correct`` and ``dice_entered``)."""
        if not game_ids:
            return {}
        marks = ", ".join("?" * len(game_ids))
        with self._read_lock:
            rows = self._reader.execute(
                "SELECT journal.game_id AS game, COUNT(*) AS n "
                "FROM journal, json_each(journal.log) "
                f"WHERE journal.game_id IN ({marks}) "
                "AND json_extract(json_each.value, '$.kind') IN ('correct', 'dice_entered') "
                "GROUP BY journal.game_id",
                tuple(game_ids),
            ).fetchall()
        return {int(row["game"]): int(row["n"]) for row in rows}

    def face_counts(self) -> tuple[list[int], int]:
        """How often each face 1..6 showed in every scored roll, and the number of rolls."""
        counts = [0] * 6
        with self._read_lock:
            rows = self._reader.execute("SELECT dice FROM rolls").fetchall()
        for row in rows:
            for value in row["dice"].split(","):
                counts[int(value) - 1] += 1
        return counts, len(rows)


def _game_row(row: sqlite3.Row) -> GameRow:
    return GameRow(
        id=int(row["id"]),
        preset=row["preset"],
        rules=json.loads(row["rules"]),
        players=json.loads(row["players"]),
        bots=json.loads(row["bots"]),
        status=row["status"],
        winners=json.loads(row["winners"]),
        summary=None if row["summary"] is None else json.loads(row["summary"]),
        started_at=row["started_at"],
        finished_at=row["finished_at"],
    )
