"""The HTTP server's limits: idle, slow and stalled sockets cannot starve the API (issue 19 item 2).

The full-size run (300 hostile sockets, 200 live pages, API p95) is the
benchmark ``benchmarks/hostile.py``; this is a small version without timings.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from dataclasses import replace
from typing import Any

import pytest

from server.app import create_app
from server.serving import Limits, create_server
from tests.server.conftest import PIN


def test_limits_follow_the_thread_count() -> None:
    small, big = Limits.for_threads(8), Limits.for_threads(220)
    assert small.streams == 4 and big.streams == 216
    assert big.connections >= big.streams + 300  # room for every page and a crowd besides
    assert small.connections < big.connections


@pytest.fixture
def served(service) -> Any:  # type: ignore[no-untyped-def]
    """The app under the guarded waitress server on a free loopback port, short timeouts."""
    limits = replace(Limits.for_threads(12), idle_s=1.0, request_s=1.5, stall_s=1.5, cleanup_s=1.0)
    service.max_streams = limits.streams
    server = create_server(create_app(service.config, service), "127.0.0.1", 0, limits)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield server, limits
    service.broker.close()  # end the streams before their server, as `serve` does
    time.sleep(0.3)
    server.close()
    thread.join(5)


def _open(port: int, data: bytes = b"", rcvbuf: int | None = None) -> socket.socket:
    sock = socket.socket()
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.connect(("127.0.0.1", port))
    if data:
        sock.sendall(data)
    return sock


def _closed_by_server(sock: socket.socket, within_s: float) -> bool:
    sock.settimeout(within_s)
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return True
    except TimeoutError:
        return False
    except OSError:
        return True


def _api(port: int, method: str = "GET", path: str = "/api/state", body: Any = None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        data = None if body is None else json.dumps(body)
        conn.request(method, path, body=data, headers={**PIN, "Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


class Page(threading.Thread):
    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port, self.status, self.seqs, self.halt = port, 0, [], False
        self.connected = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request("GET", "/api/events")
        response = conn.getresponse()
        self.status = response.status
        self.connected.set()
        while not self.halt and self.status == 200:
            line = response.fp.readline()
            if not line:
                break
            if line.startswith(b"id: "):
                self.seqs.append(int(line[4:]))
        conn.close()


def test_a_crowd_of_hostile_sockets_does_not_starve_the_api(served, service) -> None:
    server, limits = served
    port = int(server.effective_port)
    idle = [_open(port) for _ in range(20)]
    partial = b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a"
    slow = [_open(port, partial) for _ in range(20)]
    pages = [Page(port) for _ in range(limits.streams + 3)]
    for page in pages:
        page.start()
        page.connected.wait(20)
    assert _api(port, "POST", "/api/new-game", {"players": ["Ann", "Ben"]}) == 200
    for _ in range(5):
        assert _api(port, "POST", "/api/roll") in (200, 409)
        assert service.wait_quiet(20)
        state = service.state()
        if state["phase"] == "choose":
            assert _api(port, "POST", "/api/keep", {"keep": state["turn"]["best"]["dice"]}) == 200
        assert _api(port) == 200
    final = service.state()["seq"]
    time.sleep(0.5)
    live = [p for p in pages if p.status == 200]
    assert len(live) == limits.streams
    assert [p.status for p in pages if p.status != 200] == [503] * 3
    first = max(p.seqs[0] for p in live)
    for page in live:
        assert set(range(first, final + 1)) <= set(page.seqs)
    # The idle and the slow sockets are closed by the server, not left holding slots.
    assert all(_closed_by_server(s, 6.0) for s in idle + slow)
    for page in pages:
        page.halt = True
    for sock in idle + slow:
        sock.close()


def test_a_page_that_stops_reading_is_dropped_and_frees_its_thread(served, service) -> None:
    server, limits = served
    port = int(server.effective_port)
    stalled = [
        _open(port, b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", rcvbuf=2048)
        for _ in range(limits.streams)
    ]
    time.sleep(0.5)
    assert service.broker.subscribers == limits.streams
    # Publish until the stalled readers' buffers are full, then a while longer.
    deadline = time.monotonic() + 30
    while service.broker.subscribers and time.monotonic() < deadline:
        service.controller.call(service.controller.touch)
        time.sleep(0.05)
    assert service.broker.subscribers == 0, "stalled streams still hold their threads"
    page = Page(port)
    page.start()
    page.connected.wait(20)
    assert page.status == 200
    page.halt = True
    for sock in stalled:
        sock.close()
