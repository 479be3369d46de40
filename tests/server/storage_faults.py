"""Storage faults put on a running table service: shared by the tests and benchmarks/faults.py.

Faults are real SQLite refusals on the service's own connection: read-only
(``PRAGMA query_only``, SQLite's answer for a read-only file or file system)
and full (``PRAGMA max_page_count`` after the free space is used up, its
answer for a full disk).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from server.service import TableService
from server.store import CANNOT_SAVE


def journal_rows(table: TableService) -> list[tuple[Any, ...]]:
    with table.store._read_lock:
        return [tuple(r) for r in table.store._reader.execute("SELECT * FROM journal").fetchall()]


@contextmanager
def read_only(table: TableService) -> Iterator[None]:
    """The service's database refuses every write while inside."""
    store = table.store
    with store._lock:
        store._conn.execute("PRAGMA query_only = 1")
    try:
        yield
    finally:
        with store._lock:
            store._conn.execute("PRAGMA query_only = 0")


class FaultAt:
    """Puts ``fault`` on the database for every journal row leading to one of ``phases``
    (with ``moves``, only the rows that carry the simulator's helper hands' dice moves)."""

    def __init__(
        self,
        table: TableService,
        phases: set[str],
        fault: Callable[[TableService], AbstractContextManager[object]] = read_only,
        moves: bool = False,
    ) -> None:
        self.table = table
        self.phases = phases
        self.fault = fault
        self.moves = moves
        self.refused = 0
        self._append = table.store.append
        table.store.append = self.append  # type: ignore[method-assign]

    def append(self, step: Any, preset: str | None = None) -> int:
        moved = any(op[0] != "shake" for op in step.tower)
        if step.snapshot["phase"] not in self.phases or (self.moves and not moved):
            return self._append(step, preset)
        self.refused += 1
        with self.fault(self.table):
            return self._append(step, preset)

    def lift(self) -> None:
        self.phases = set()


def wait_for(check: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.01)


def shown_unchanged(before: dict[str, Any], after: dict[str, Any]) -> None:
    """The document shows the same table, with the storage notice over it."""
    assert after["message"] == CANNOT_SAVE and after["table"]["cannot_save"] is True
    rest = {k: v for k, v in after.items() if k not in ("message", "table")}
    assert rest == {k: v for k, v in before.items() if k not in ("message", "table")}
    table_rest = {k: v for k, v in after["table"].items() if k != "cannot_save"}
    assert table_rest == {k: v for k, v in before["table"].items() if k != "cannot_save"}


def to_choose(table: TableService) -> dict[str, Any]:
    for _ in range(30):
        state = table.state()
        if state["phase"] == "choose":
            return state
        if state["phase"] == "ready":
            table.roll()
        assert table.wait_quiet()
    raise AssertionError("no roll to choose from in 30 tries")


def to_bankable(table: TableService) -> None:
    for _ in range(60):
        state = table.state()
        if state["phase"] == "ready" and state["turn"]["can_bank"]:
            return
        if state["phase"] == "choose":
            table.keep(state["turn"]["best"]["dice"])
        elif state["phase"] == "ready":
            table.roll()
        assert table.wait_quiet()
    raise AssertionError("no bankable turn in 60 steps")


@contextmanager
def full_disk(table: TableService) -> Iterator[list[tuple[Any, ...]]]:
    """The service's database is full while inside (it yields the journal as filled).

    No new page may be added and the free space of the pages there are is
    used up with filler rows in every table a step writes; leaving deletes
    them and lifts the page limit.
    """
    store = table.store
    fill = (
        ("INSERT INTO meta VALUES ('fill' || ?, 'x')", "DELETE FROM meta WHERE key LIKE 'fill%'"),
        (
            "INSERT INTO journal (game_id, snapshot, at) VALUES (NULL, ?, '')",
            "DELETE FROM journal WHERE at = ''",
        ),
    )
    with store._lock:
        pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
        store._conn.execute(f"PRAGMA max_page_count = {pages}")
        for insert, _ in fill:
            for i in range(1_000_000):
                try:
                    store._conn.execute(insert, (str(i),))
                except sqlite3.OperationalError as exc:
                    assert "full" in str(exc)
                    break
    try:
        yield journal_rows(table)
    finally:
        with store._lock:
            for _, delete in fill:
                store._conn.execute(delete)
            store._conn.execute("PRAGMA max_page_count = 1073741823")
