"""`zilch-tower serve` as a process: URLs printed, HTTP play, kill -9 and restart, SIGTERM."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

PIN = {"X-Table-Pin": "2468"}


class Server:
    """A ``zilch-tower serve --sim`` subprocess on a free port."""

    def __init__(self, state_dir: Path, seed: int = 42, env_extra: dict | None = None) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("ZILCH_TOWER_PIN", None)
        env.pop("NOTIFY_SOCKET", None)
        env.update(env_extra or {})
        self.log = state_dir.parent / f"{state_dir.name}-{time.monotonic_ns()}.log"
        self._log = self.log.open("w")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server.cli",
                "serve",
                "--sim",
                "--seed",
                str(seed),
                "--state-dir",
                str(state_dir),
                "--host",
                "127.0.0.1",
                "--port",
                "0",
            ],
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None
        first = self.proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", first)
        if match is None:
            self.kill()
            raise AssertionError(f"no URL printed: {first!r} {self.log.read_text()!r}")
        self.base = f"http://127.0.0.1:{match[1]}"
        self.banner = first + "".join(self.proc.stdout.readline() for _ in range(4))

    def get(self, path: str) -> dict:
        with urllib.request.urlopen(self.base + path, timeout=10) as response:
            return json.loads(response.read())

    def post(self, path: str, body: dict, pin: dict | None = None) -> tuple[int, dict]:
        request = urllib.request.Request(
            self.base + path,
            data=json.dumps(body).encode(),
            method="POST",
            headers={**(PIN if pin is None else pin), "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def post_admin(self, path: str, body: dict) -> tuple[int, dict]:
        """A POST with the default admin PIN (the host's controls)."""
        return self.post(path, body, {"X-Admin-Pin": "13579"})

    def quiet_state(self, timeout: float = 30.0) -> dict:
        """The state once the dice are not moving."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.get("/api/state")
            if state["phase"] not in (
                "shaking",
                "settling",
                "reading",
                "remove_dice",
                "return_dice",
            ):
                return state
            if time.monotonic() > deadline:
                raise AssertionError(f"table stuck in {state['phase']}")
            time.sleep(0.05)

    def kill(self) -> None:
        self.proc.kill()
        self.close()

    def close(self) -> None:
        self.proc.wait(15)
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        self._log.close()


def _table(state: dict) -> dict:
    """What a person sees, without sequence numbers (a restart may journal differently)."""
    keys = ("phase", "current", "players", "turn", "finished", "winners", "message")
    table = {key: state[key] for key in keys}
    # the camera's noise differs from run to run: compare what was read, not how surely
    table["read"] = sorted(d["value"] for d in state["reading"]["dice"])
    return table


def _keep_best_and_roll(server: Server) -> None:
    state = server.quiet_state()
    assert state["phase"] == "choose", state
    assert server.post("/api/keep", {"keep": state["turn"]["best"]["dice"]})[0] == 200
    assert server.post("/api/roll", {})[0] == 200


@pytest.mark.slow
def test_kill_9_and_restart_shows_the_same_table(tmp_path: Path) -> None:
    # Reference: the same seed and actions, never interrupted.
    reference = Server(tmp_path / "reference")
    try:
        assert "/play" in reference.banner
        assert reference.post("/api/new-game", {"players": ["Ann", "Ben"]})[0] == 200
        assert reference.post("/api/roll", {})[0] == 200
        first = reference.quiet_state()
        _keep_best_and_roll(reference)
        second = reference.quiet_state()
    finally:
        reference.kill()

    state_dir = tmp_path / "state"
    server = Server(state_dir)
    try:
        assert server.post("/api/new-game", {"players": ["Ann", "Ben"]})[0] == 200
        assert server.post("/api/roll", {})[0] == 200
        shown = server.quiet_state()
        assert _table(shown) == _table(first)  # same seed, same dice
    finally:
        server.kill()
    server = Server(state_dir)
    try:
        assert server.quiet_state() == shown  # exactly the table that was shown
        _keep_best_and_roll(server)  # killed while the dice may still be rolling
    finally:
        server.kill()
    server = Server(state_dir)
    try:
        resumed = server.quiet_state()
        assert _table(resumed) == _table(second)
    finally:
        server.kill()


def _events(server: Server, last_id: int | None = None):  # type: ignore[no-untyped-def]
    """The event stream over HTTP, as (id, state) pairs."""
    headers = {} if last_id is None else {"Last-Event-ID": str(last_id)}
    request = urllib.request.Request(server.base + "/api/events", headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        seq = None
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line.startswith("id: "):
                seq = int(line[4:])
            elif line.startswith("data: "):
                yield seq, json.loads(line[6:])


@pytest.mark.slow
def test_event_stream_over_http_is_live_and_resumes(tmp_path: Path) -> None:
    server = Server(tmp_path / "state")
    try:
        stream = _events(server)
        seq, state = next(stream)
        assert seq == state["seq"] and state["phase"] == "idle"
        assert server.post("/api/new-game", {"players": ["Ann", "Ben"]})[0] == 200
        seq2, state2 = next(stream)  # pushed without polling
        assert seq2 > seq and state2["players"][0]["name"] == "Ann"
        assert server.post("/api/join", {"join": "Cy"})[0] == 200
        newest = server.get("/api/state")["seq"]
        again = _events(server, last_id=seq)
        missed = [s for s, _ in itertools.islice(again, 2)]
        again.close()
        stream.close()
        assert missed == [seq2, newest]  # a reconnecting browser gets what it missed, in order
    finally:
        server.kill()


@pytest.mark.slow
def test_sigterm_shuts_down_cleanly(tmp_path: Path) -> None:
    server = Server(tmp_path / "state")
    server.post("/api/new-game", {"players": ["Ann"]})
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(15) == 0
    server.close()
    err = server.log.read_text()
    assert "Traceback" not in err
    assert "shutting down" in err
    # the database was closed: SQLite checkpoints and removes the WAL file on the last close
    assert (tmp_path / "state" / "zilch.db").exists()
    assert not (tmp_path / "state" / "zilch.db-wal").exists()


@pytest.mark.slow
def test_systemd_notifications(tmp_path: Path) -> None:
    path = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        sock.settimeout(20)
        server = Server(
            tmp_path / "state", env_extra={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"}
        )
        try:
            messages: list[str] = []
            while not any("READY=1" in m for m in messages) or messages.count("WATCHDOG=1") < 3:
                messages.append(sock.recv(4096).decode())
            assert server.post("/api/new-game", {"players": ["Ann", "Ben"]})[0] == 200
            while not any("Ann's turn" in m for m in messages):
                messages.append(sock.recv(4096).decode())
            server.proc.send_signal(signal.SIGTERM)
            while "STOPPING=1" not in messages:
                messages.append(sock.recv(4096).decode())
            assert server.proc.wait(15) == 0
        finally:
            server.kill()
    assert any(m.startswith("STATUS=no game") for m in messages)


def test_bad_serve_arguments_are_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.cli",
            "serve",
            "--sim",
            "--port",
            "70000",
            "--state-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "--port 70000" in result.stderr
