"""Storage faults at every phase of a running table: unchanged, told, and restartable?

For each fault and each phase, a fresh table service (the simulated tower, the
app under waitress as ``serve`` runs it, on the loopback) in this process, so
that the fault can be put on the service's own database; a TV on
``/api/events``; a game played to the phase. Then the fault goes on, the
action is tried over HTTP (or, for a step the table takes by itself, the
command before it), and the run checks:

- ``503``: the action was answered 503 with "cannot save: ..." (a step of the
  table's own: refused and retried, never adopted);
- ``unchanged``: the state document shows the same table under the notice and
  the journal has no new row (own steps: no row of the refused phase);
- ``told``: the TV's event stream and a phone's ``/api/state`` say "cannot save";
- ``restart``: with the fault lifted, the service stopped and started again
  on the same state directory shows the same table;
- ``resumes``: the action tried again there goes through, and a second
  restart shows the table it led to.

Faults: ``read-only`` and ``full`` are SQLite's own refusals on the
service's connection (``PRAGMA query_only``; ``max_page_count`` with the free
space used up), shared with tests/server/test_storage_faults.py;
``no-space`` puts the state directory on a tmpfs of its own filled to the
last byte (the kernel's ENOSPC; needs mount rights, else reported as not
run), and a restart is tried while it is still full; ``immutable``
(``chattr +i`` on zilch.db) only bites when the file is opened, so it is
tried at the restart after the phase's action.

Run: ``.venv/bin/python benchmarks/faults.py [--faults read-only full no-space
immutable] [--phases ...] [--json]``. Loopback only; about a minute.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from server.app import create_app  # noqa: E402
from server.service import DB_NAME, TableService  # noqa: E402
from server.serving import Limits, create_server  # noqa: E402
from server.store import CANNOT_SAVE, StorageRefused  # noqa: E402
from tests.server import storage_faults as faults  # noqa: E402
from tests.server.conftest import ADMIN, FAST, PIN, make_config  # noqa: E402

FAULTS = ("read-only", "full", "no-space", "immutable")
CHECKS = ("503", "unchanged", "told", "restart", "resumes", "refused")


@dataclass(frozen=True)
class Phase:
    """Where the fault strikes: the table set up, then one action (or a step of its own)."""

    name: str
    setup: Callable[[TableService], None]
    path: str  # the command tried under the fault
    body: Callable[[dict[str, Any]], dict[str, Any]]
    own_step: str | None = None  # the table's own next step refused (its phase), if not the command


def _new_game(table: TableService) -> None:
    table.new_game("dicenow", {}, ["Ann", "Ben"])
    assert table.wait_quiet()


def _choosing(table: TableService) -> None:
    _new_game(table)
    faults.to_choose(table)


def _bankable(table: TableService) -> None:
    _new_game(table)
    faults.to_bankable(table)


def _best(state: dict[str, Any]) -> dict[str, Any]:
    return {"keep": state["turn"]["best"]["dice"]}


PHASES = (
    Phase("new game", _new_game, "/api/new-game", lambda s: {"players": ["Cy", "Di"]}),
    Phase("join", _new_game, "/api/join", lambda s: {"join": "Cy"}),
    Phase("before roll", _new_game, "/api/roll", lambda s: {}),
    Phase("after roll", _new_game, "/api/roll", lambda s: {}, own_step="choose"),
    Phase("set-aside", _choosing, "/api/keep", _best),
    Phase("dice taken out", _choosing, "/api/keep", _best, own_step="ready"),
    Phase("bank", _bankable, "/api/bank", lambda s: {}),
)


class Tv(threading.Thread):
    """A TV on ``/api/events``: every state document it is sent."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.docs: list[dict[str, Any]] = []
        self.connected = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            conn.request("GET", "/api/events", headers={"Host": "127.0.0.1"})
            response = conn.getresponse()
            self.connected.set()
            while line := response.readline():
                if line.startswith(b"data: "):
                    self.docs.append(json.loads(line[6:]))
        except (OSError, http.client.HTTPException, ValueError):
            pass
        finally:
            self.connected.set()
            conn.close()

    def told(self) -> bool:
        return any(d["message"] == CANNOT_SAVE and d["table"]["cannot_save"] for d in self.docs)


class Served:
    """A table service under the real HTTP server on a free loopback port."""

    def __init__(self, state_dir: Path) -> None:
        self.config = make_config(state_dir)
        self.table = TableService(self.config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0)
        self.table.start()
        try:
            app = create_app(self.config, self.table)
            self.server = create_server(app, "127.0.0.1", 0, Limits.for_threads(8, streams=16))
        except BaseException:
            self.table.stop()
            raise
        self.port = int(self.server.effective_port)
        self._thread = threading.Thread(target=self.server.run, daemon=True)
        self._thread.start()

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            data = None if body is None else json.dumps(body)
            headers = {**PIN, **ADMIN, "Content-Type": "application/json"}  # the host
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            return response.status, json.loads(response.read())
        finally:
            conn.close()

    def phone_told(self) -> bool:
        """Whether a phone's ``/api/state`` says "cannot save"."""
        status, state = self.call("GET", "/api/state")
        return status == 200 and state["message"] == CANNOT_SAVE

    def stop(self) -> None:
        self.table.broker.close()  # the streams end before their server, as `serve` does
        time.sleep(0.2)
        self.server.close()
        self._thread.join(10)
        self.table.stop()


def _same_table(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("game_id", "seq", "phase", "players", "current", "turn", "finished")
    return all(a[k] == b[k] for k in keys)


class NoSpace:
    """A tmpfs of its own for the state directory, filled to the last byte while inside."""

    def __init__(self, where: Path) -> None:
        self.where = where
        where.mkdir(parents=True)
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "zilch-faults", str(where)],
            check=True,
            capture_output=True,
        )

    @contextlib.contextmanager
    def full(self, _table: TableService | None = None) -> Iterator[None]:
        filler = self.where / "filler"
        with open(filler, "wb", buffering=0) as out:
            for size in (1 << 16, 1 << 12, 1):
                with contextlib.suppress(OSError):
                    while True:
                        out.write(b"\0" * size)
        try:
            yield
        finally:
            filler.unlink()

    def close(self) -> None:
        subprocess.run(["umount", str(self.where)], check=False, capture_output=True)


def mount_allowed() -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        try:
            space = NoSpace(Path(tmp) / "m")
        except (OSError, subprocess.CalledProcessError):
            return False
        space.close()
        return True


def chattr_allowed(path: Path) -> bool:
    return subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0


@dataclass
class Cell:
    """One phase under one fault: each check passed or not, and what was seen."""

    checks: dict[str, bool] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    before: dict[str, Any] = field(default_factory=dict)  # the table the fault struck

    def check(self, name: str, test: Callable[[], object]) -> bool:
        try:
            value = test()
            ok = value is True
            if not ok:
                self.notes.append(f"{name}: {value!r:.200}")
        except AssertionError as exc:
            ok = False
            self.notes.append(f"{name}: {exc}".strip())
        self.checks[name] = self.checks.get(name, True) and ok
        return ok

    def text(self) -> str:
        failed = [name for name, ok in self.checks.items() if not ok]
        return "ok" if not failed else "FAILED " + ",".join(failed)


def run_cell(phase: Phase, fault: str, base: Path) -> Cell:
    cell = Cell()
    space = NoSpace(base / "tmpfs") if fault == "no-space" else None
    state_dir = (space.where if space else base) / "state"
    try:
        served = Served(state_dir)
        try:
            _cell_under_fault(served, phase, fault, space, cell)
        finally:
            served.stop()
        _cell_after(state_dir, phase, fault, space, cell)
    finally:
        if space is not None:
            space.close()
    return cell


def _fault(fault: str, space: NoSpace | None) -> Callable[[TableService], Any]:
    if fault == "read-only":
        return faults.read_only
    if fault == "full":
        return faults.full_disk
    assert space is not None
    return space.full


def _cell_under_fault(
    served: Served, phase: Phase, fault: str, space: NoSpace | None, cell: Cell
) -> None:
    table = served.table
    phase.setup(table)
    tv = Tv(served.port)
    tv.start()
    tv.connected.wait(10)
    before, rows = table.state(), faults.journal_rows(table)
    body = phase.body(before)
    cell.before = before
    if fault == "immutable":  # bites only when the file is opened: at the restart
        status, answer = served.call("POST", phase.path, body)
        cell.check("resumes", lambda: status == 200 or answer)
        assert table.wait_quiet()
        cell.before = table.state()
        return
    put_on = _fault(fault, space)
    if phase.own_step is None:
        with put_on(table):
            status, answer = served.call("POST", phase.path, body)
            cell.check("503", lambda: (status, answer) == (503, {"error": CANNOT_SAVE}) or answer)
            shown = table.state()
            cell.check("unchanged", lambda: faults.shown_unchanged(before, shown) or True)
            cell.check("unchanged", lambda: faults.journal_rows(table)[: len(rows)] == rows)
            cell.check("unchanged", lambda: not fault_rows_added(table, rows))
            with contextlib.suppress(AssertionError):
                faults.wait_for(tv.told, 5)
            cell.check("told", tv.told)
            cell.check("told", served.phone_told)
        return
    fault_at = faults.FaultAt(table, {phase.own_step}, put_on)
    status, answer = served.call("POST", phase.path, body)
    cell.check("503", lambda: status == 200 or answer)
    cell.check("503", lambda: faults.wait_for(lambda: fault_at.refused >= 2, 20) or True)  # retried
    shown = table.state()
    cell.check("unchanged", lambda: shown["phase"] != phase.own_step)
    cell.check(
        "unchanged",
        lambda: all(
            json.loads(row[5])["phase"] != phase.own_step
            for row in faults.journal_rows(table)[len(rows) :]
        ),
    )
    with contextlib.suppress(AssertionError):
        faults.wait_for(tv.told, 5)
    cell.check("told", tv.told)
    cell.check("told", served.phone_told)
    fault_at.lift()


def fault_rows_added(table: TableService, rows: list[tuple[Any, ...]]) -> bool:
    """Whether the journal holds a row more than before (``full``'s filler rows aside)."""
    return len([r for r in faults.journal_rows(table) if r[6] != ""]) > len(rows)


def _cell_after(
    state_dir: Path, phase: Phase, fault: str, space: NoSpace | None, cell: Cell
) -> None:
    before = cell.before
    db = state_dir / DB_NAME
    if fault == "no-space":
        assert space is not None
        with space.full():  # still full at the restart: refused in one line, or the same table
            try:
                again = Served(state_dir)
            except StorageRefused as exc:
                cell.notes.append(f"restart while full: refused: {exc}")
            else:
                shown = again.table.state()
                again.stop()
                same = phase.own_step is not None or _same_table(before, shown)
                cell.notes.append(f"restart while full: started, same table: {same}")
                cell.check("restart", lambda: same)
    if fault == "immutable":
        if not chattr_allowed(db):
            cell.notes.append("chattr +i not allowed here: not run")
            cell.checks.clear()
            return
        try:
            try:
                Served(state_dir).stop()
                refused = ""
            except StorageRefused as exc:
                refused = str(exc)
            cell.check("refused", lambda: "read-only" in refused and "\n" not in refused)
            cell.notes.append(f"start on an immutable zilch.db: {refused or 'not refused'}")
        finally:
            subprocess.run(["chattr", "-i", str(db)], check=True)
    again = Served(state_dir)
    try:
        shown = again.table.state()
        if fault == "immutable":
            cell.check("restart", lambda: _same_table(before, shown))
            return
        if phase.own_step is None:
            cell.check("restart", lambda: _same_table(before, shown))
            status, answer = again.call("POST", phase.path, phase.body(before))
            cell.check("resumes", lambda: status == 200 or answer)
        else:  # the step refused is taken again by the table itself
            cell.check("restart", lambda: shown["game_id"] == before["game_id"])
            cell.check("resumes", lambda: again.table.wait_quiet(20) is True)
            cell.check("resumes", lambda: again.table.state()["phase"] != "idle")
        assert again.table.wait_quiet(20)
        after = again.table.state()
    finally:
        again.stop()
    last = Served(state_dir)
    try:
        cell.check("resumes", lambda: _same_table(after, last.table.state()))
    finally:
        last.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faults", nargs="+", choices=FAULTS, default=list(FAULTS))
    parser.add_argument("--phases", nargs="+", choices=[p.name for p in PHASES])
    parser.add_argument("--json", action="store_true", help="the cells as JSON too")
    args = parser.parse_args()
    phases = [p for p in PHASES if args.phases is None or p.name in args.phases]
    faults = list(args.faults)
    if "no-space" in faults and not mount_allowed():
        print("no-space: cannot mount a tmpfs here (needs root): not run", file=sys.stderr)
        faults.remove("no-space")
    results: dict[str, dict[str, Cell]] = {}
    for phase in phases:
        results[phase.name] = {}
        for fault in faults:
            with tempfile.TemporaryDirectory() as tmp:
                started = time.monotonic()
                cell = run_cell(phase, fault, Path(tmp))
                cell.notes.append(f"{time.monotonic() - started:.1f} s")
            results[phase.name][fault] = cell
            print(f"{phase.name:15} {fault:10} {cell.text()}", file=sys.stderr, flush=True)
    width = max(len(f) for f in faults) + 2
    print("phase           " + "".join(f"{f:{width}}" for f in faults))
    for name, row in results.items():
        print(f"{name:16}" + "".join(f"{row[f].text():{width}}" for f in faults))
    print(f"checks: {', '.join(CHECKS)} (see the docstring)")
    for name, row in results.items():
        for fault, cell in row.items():
            for note in cell.notes:
                print(f"  {name} / {fault}: {note}")
    if args.json:
        print(json.dumps({n: {f: c.checks for f, c in r.items()} for n, r in results.items()}))
    cells = [cell for row in results.values() for cell in row.values()]
    failed = any(not ok for cell in cells for ok in cell.checks.values())
    return 1 if failed else 0


if __name__ == "__main__":
    os.umask(0o077)
    sys.exit(main())
