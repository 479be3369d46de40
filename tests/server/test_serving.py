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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest

from server.app import create_app
from server.serving import SEND_BUFFER_BYTES, Limits, create_server
from tests.server.conftest import PIN


def test_limits_give_streams_a_budget_of_their_own() -> None:
    small, big = Limits.for_threads(8), Limits.for_threads(220)
    # streams hold no worker thread: their number does not follow the threads
    assert small.streams == big.streams == 512
    assert Limits.for_threads(8, streams=20).streams == 20
    for limits in (small, big):  # room for every page, a thread's worth and a crowd besides
        assert limits.connections >= limits.streams + limits.threads + 300
    assert small.connections < big.connections


@contextmanager
def _serving(service, limits: Limits) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    service.max_streams = limits.streams
    server = create_server(create_app(service.config, service), "127.0.0.1", 0, limits)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield server
    service.broker.close()  # end the streams before their server, as `serve` does
    time.sleep(0.3)
    server.close()
    thread.join(5)


@pytest.fixture
def served(service) -> Any:  # type: ignore[no-untyped-def]
    """The app under the guarded waitress server on a free loopback port, short timeouts."""
    # more live pages allowed than there are worker threads: streams must not hold one
    limits = replace(
        Limits.for_threads(4, streams=12), idle_s=1.0, request_s=1.5, stall_s=1.5, cleanup_s=1.0
    )
    with _serving(service, limits) as server:
        yield server, limits


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
    def __init__(self, port: int, last_id: int | None = None) -> None:
        super().__init__(daemon=True)
        self.port, self.status, self.seqs, self.halt = port, 0, [], False
        self.last_id, self.lines = last_id, []
        self.connected = threading.Event()
        self.ended = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {} if self.last_id is None else {"Last-Event-ID": str(self.last_id)}
        conn.request("GET", "/api/events", headers=headers)
        response = conn.getresponse()
        self.status = response.status
        self.headers = dict(response.getheaders())
        self.connected.set()
        while not self.halt and self.status == 200:
            line = response.fp.readline()  # chunked framing and all: a browser's view
            if not line:
                break
            self.lines.append(line)
            if line.startswith(b"id: "):
                self.seqs.append(int(line[4:]))
        conn.close()
        self.ended.set()


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


def test_a_page_that_stops_reading_is_dropped_and_frees_its_place(served, service) -> None:
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
    assert service.broker.subscribers == 0, "stalled streams still hold their places"
    page = Page(port)
    page.start()
    page.connected.wait(20)
    assert page.status == 200
    page.halt = True
    for sock in stalled:
        sock.close()


def test_a_stream_keeps_the_sse_contract_through_the_server(served, service) -> None:
    """Headers, keep-alives, resumption with Last-Event-ID and the end at shutdown."""
    server, _ = served
    port = int(server.effective_port)
    service.broker.keepalive_s = 0.5
    assert _api(port, "POST", "/api/new-game", {"players": ["Ann", "Ben"]}) == 200
    assert service.wait_quiet(20)
    first = service.state()["seq"]
    page = Page(port)
    page.start()
    page.connected.wait(20)
    assert page.status == 200
    assert page.headers["Content-Type"].startswith("text/event-stream")
    assert page.headers["Cache-Control"] == "no-cache"
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    for _ in range(3):
        assert _api(port, "POST", "/api/roll") in (200, 409)
        assert service.wait_quiet(20)
        state = service.state()
        if state["phase"] == "choose":
            assert _api(port, "POST", "/api/keep", {"keep": state["turn"]["best"]["dice"]}) == 200
            assert service.wait_quiet(20)
    final = service.state()["seq"]
    deadline = time.monotonic() + 10
    while (not page.seqs or page.seqs[-1] < final) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert page.seqs[0] == first and page.seqs[-1] == final
    assert page.seqs == sorted(set(page.seqs))
    time.sleep(1.5)
    assert b": keepalive\n" in page.lines
    # a page coming back with the last seq it saw gets every state after it
    back = Page(port, last_id=first)
    back.start()
    back.connected.wait(20)
    deadline = time.monotonic() + 10
    while (not back.seqs or back.seqs[-1] < final) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert back.seqs == [s for s in page.seqs if s > first]
    assert service.broker.subscribers == 2
    # the service's shutdown ends every stream cleanly
    service.broker.close()
    assert page.ended.wait(10) and back.ended.wait(10)


@pytest.mark.parametrize("batches", ["one", "several"])
def test_a_slow_page_is_held_back_then_gets_every_state_it_missed(service, batches: str) -> None:
    service.new_game("dicenow", {}, ["Ann", "Ben"])  # a state of a few kilobytes
    assert service.wait_quiet(20)
    # the usual 30 s before a stall is cut; a lag that a few states pass
    limits = replace(Limits.for_threads(4, streams=4), lag_bytes=16 * 1024)
    if batches == "several":  # what it missed is more than one batch: sent batch by batch
        limits = replace(limits, backlog_bytes=4 * len(service.state_json()))
    with _serving(service, limits) as server:
        _slow_page(server, limits, service)


def _slow_page(server: Any, limits: Limits, service: Any) -> None:
    port = int(server.effective_port)
    sock = _open(port, b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", rcvbuf=4096)
    time.sleep(0.3)
    first = service.state()["seq"]
    size = len(service.state_json())
    count = (SEND_BUFFER_BYTES + 3 * limits.lag_bytes) // size + 5  # past the buffers and lag
    assert count < 200  # within the broker's history of 256 states
    for _ in range(count):
        service.controller.call(service.controller.touch)
    final = service.state()["seq"]
    assert final >= first + count
    time.sleep(0.2)
    streams = list(server.hub.streams)
    assert len(streams) == 1 and streams[0].stream.behind  # news held back, not queued
    assert streams[0].total_outbufs_len <= limits.lag_bytes + 2 * size
    sock.settimeout(5)
    received, seqs = b"", []
    while not seqs or seqs[-1] < final:
        received += sock.recv(65536)
        complete = received.split(b"\n")[:-1]  # a line the last chunk cut is read whole next
        seqs = [int(line[4:]) for line in complete if line.startswith(b"id: ")]
    assert seqs == list(range(first, final + 1))  # every state, in order, none twice
    sock.close()
