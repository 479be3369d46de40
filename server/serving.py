"""The HTTP server under the app: waitress, with event streams served by its loop.

waitress reads and writes every socket on one event loop and runs requests on
a pool of threads. A WSGI response that streams holds its thread for as long
as it is open, so a live page (``/api/events``) is not served that way:
the app checks the request and answers with the stream's opening (the
headers and the events the page has missed), and the connection is then
handed to the loop (:class:`StreamHub`). From there on, each state the
broker publishes is encoded once and appended to every open stream's output
on the loop thread, which sends it as the sockets take it: one wake-up per
event, not one thread per page. Worker threads serve only requests, so the
API keeps its threads however many pages are open; :attr:`Limits.streams`
bounds the pages (the next one gets 503). A stream whose reader is slow
gets nothing new while more than ``lag_bytes`` of its output wait; once its
socket has taken them, it gets every state it missed from the broker's
history, ``backlog_bytes`` at most at a time: backpressure without a
thread, and a bounded queue. (A reader more than the history behind gets
the newest state, as a browser coming back does.)

Connections cost no thread until a whole request has arrived, so the
connection limit can be far above the thread count; what is bounded instead
is how long a connection may hold a slot without doing its part:

- idle: no request for ``idle_s`` seconds (waitress's ``channel_timeout``);
- slow request: a request header or body still incomplete ``request_s``
  seconds after it began (slowloris);
- stalled reader: output waiting and nothing sent for ``stall_s`` seconds (a
  page or script that stopped reading; this also frees its stream thread).
"""

from __future__ import annotations

import contextlib
import logging
import resource
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import MultiSocketServer, TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher, WSGITask

from server.events import KEEPALIVE, Broker

log = logging.getLogger(__name__)

SEND_BUFFER_BYTES = 64 * 1024
STREAMS = 512  # live pages at once: far more than a table's TV and phones
STREAM_KEY = "zilch_tower.stream"  # the environ key of a request's StreamSlot


@dataclass(frozen=True)
class Limits:
    """How many of everything the server takes, from the worker thread count."""

    threads: int  # worker threads, for requests only (streams hold none)
    streams: int  # live event streams at once; the next page gets 503
    connections: int  # open sockets at once; beyond it waitress stops accepting
    idle_s: float = 30.0
    request_s: float = 10.0
    stall_s: float = 30.0
    cleanup_s: float = 2.0
    lag_bytes: int = 64 * 1024  # output waiting past which a stream gets nothing new for now
    backlog_bytes: int = 256 * 1024  # the most a slow stream catches up at once

    @classmethod
    def for_threads(cls, threads: int, streams: int = STREAMS) -> Limits:
        """The limits for ``threads`` worker threads and ``streams`` live pages."""
        # Every stream, plus room for phones, the TV's fetches and hostile
        # sockets waiting out their timeouts.
        return cls(threads=threads, streams=streams, connections=streams + 4 * threads + 512)


class StreamSlot:
    """What the app is given (``environ[STREAM_KEY]``) to hand its event stream to the loop."""

    def __init__(self) -> None:
        self.broker: Broker | None = None
        self.seen = 0

    def open(self, broker: Broker, last_id: int | None, limit: int | None) -> str | None:
        """The stream's opening text (None: ``limit`` streams are open); the loop sends the rest."""
        opened = broker.attach(last_id, limit)
        if opened is None:
            return None
        self.broker, (text, self.seen) = broker, opened
        return text


class _Stream:
    """An open event stream: its broker, the publication it has seen, how it is framed."""

    def __init__(self, broker: Broker, seen: int, chunked: bool) -> None:
        self.broker, self.seen, self.chunked = broker, seen, chunked
        self.sent_at = time.monotonic()
        self.ended = False
        self.behind = False  # news held back while its reader is slow


class StreamTask(WSGITask):  # type: ignore[misc]
    """A request task that leaves the connection open for the loop when the app opened a stream."""

    slot: StreamSlot | None = None

    def get_environment(self) -> dict[str, Any]:
        environ: dict[str, Any] = super().get_environment()
        if self.slot is None:
            self.slot = StreamSlot()
        environ[STREAM_KEY] = self.slot
        return environ

    def finish(self) -> None:
        slot = self.slot
        if slot is None or slot.broker is None:
            super().finish()
            return
        channel = self.channel
        if not (self.status.startswith("200") and channel.connected):
            slot.broker.detach()
            super().finish()
            return
        if not self.wrote_header:
            self.write(b"")
        # No end of the response: the loop goes on writing to this connection.
        self.close_on_finish = False
        with channel.requests_lock:
            for pipelined in channel.requests[1:]:
                pipelined.close()
            del channel.requests[1:]
        channel.stream = _Stream(slot.broker, slot.seen, self.chunked_response)


class StreamChannel(HTTPChannel):  # type: ignore[misc]
    """A waitress connection that can become an event stream the loop writes to."""

    task_class = StreamTask
    stream: _Stream | None = None
    will_close: bool  # waitress's own, typed for mypy

    def received(self, data: bytes) -> int:
        if self.stream is not None:
            return len(data)  # a stream takes no further requests
        return int(super().received(data))

    def service(self) -> None:
        super().service()
        stream = self.stream
        if stream is not None:
            hub = self.server.hub
            self.server.trigger.pull_trigger(lambda: hub.adopt(self))

    def push(self, data: bytes) -> None:
        """Queue ``data`` and send what the socket takes now (on the loop thread)."""
        if self.will_close or not self.connected:
            return
        if not self.total_outbufs_len:
            # Nothing queued (the usual case): one send, no buffer copies.
            try:
                sent = self.socket.send(data)
            except BlockingIOError:
                sent = 0
            except OSError:
                self.will_close = True  # the loop closes it
                return
            if sent:
                self.last_activity = time.time()
            if sent == len(data):
                return
            data = data[sent:]
        with self.outbuf_lock:  # the rest goes when the socket takes it
            self.outbufs[-1].append(data)
            self.total_outbufs_len += len(data)

    def handle_write(self) -> None:
        super().handle_write()
        stream = self.stream
        if stream is not None and stream.behind and not self.total_outbufs_len:
            self.server.hub.catch_up(self)  # its reader has taken all: what it missed

    def handle_close(self) -> None:
        super().handle_close()
        stream = self.stream
        if stream is not None and not stream.ended:
            stream.ended = True
            stream.broker.detach()
            self.server.hub.drop(self)


_NewsKey = tuple[int, int, bool]  # broker, publication seen, chunked
_News = tuple[int, bytes, bool, bool]  # publication reached, bytes, closed, more to come


def _chunk(data: bytes) -> bytes:
    return b"%X\r\n%s\r\n" % (len(data), data)


class StreamHub:
    """The open event streams, written by waitress's loop thread; one wake-up per event.

    A broker's publication pulls the loop's trigger once; on the loop, each
    group of streams that has seen the same publication gets the same bytes,
    encoded once (and framed once as a chunk, for HTTP/1.1).
    """

    def __init__(self, limits: Limits, wake: Callable[[Callable[[], None]], None]) -> None:
        self.limits = limits
        self._wake = wake
        self.streams: set[StreamChannel] = set()  # only the loop thread touches it
        self._brokers: set[int] = set()
        self._lock = threading.Lock()
        self._closed = False

    def wake(self) -> None:
        """Have the loop :meth:`pump` (from any thread; nothing once the server is closed)."""
        with self._lock:
            if not self._closed:
                self._wake(self.pump)

    def close(self) -> None:
        """The server is closing: no more wake-ups (its trigger is about to go)."""
        with self._lock:
            self._closed = True

    def adopt(self, channel: StreamChannel) -> None:
        stream = channel.stream
        if stream is None or stream.ended:
            return
        with self._lock:
            if id(stream.broker) not in self._brokers:
                self._brokers.add(id(stream.broker))
                stream.broker.listen(self.wake)
        if not channel.connected:
            channel.handle_close()
            return
        self.streams.add(channel)
        self.pump()

    def drop(self, channel: StreamChannel) -> None:
        self.streams.discard(channel)

    def pump(self) -> None:
        """Send every stream what was published since it last heard (on the loop thread)."""
        cache: dict[_NewsKey, _News] = {}
        for channel in list(self.streams):
            self._send_news(channel, cache)

    def catch_up(self, channel: StreamChannel) -> None:
        """A slow stream's reader has taken its output: send what it missed meanwhile."""
        if channel in self.streams:
            self._send_news(channel, {})

    def _send_news(self, channel: StreamChannel, cache: dict[_NewsKey, _News]) -> None:
        stream = channel.stream
        assert stream is not None
        more = True
        while more and not channel.will_close:
            if channel.total_outbufs_len > self.limits.lag_bytes:
                stream.behind = True  # nothing new until its socket has taken this
                return
            key = (id(stream.broker), stream.seen, stream.chunked)
            if key not in cache:
                cache[key] = self._news(stream)
            newest, data, closed, more = cache[key]
            stream.behind = more  # the rest once its socket has taken this batch
            stream.seen = newest
            if data:
                stream.sent_at = time.monotonic()
                channel.push(data)
            if closed:
                self.streams.discard(channel)
                channel.close_when_flushed = True
                channel.handle_write()
                return
            if channel.total_outbufs_len:
                return  # the socket is full: handle_write resumes when it drains

    def _news(self, stream: _Stream) -> _News:
        """What ``stream`` is sent next: at most ``backlog_bytes`` (one state at least).

        A reader far behind goes through the broker's history a batch at a
        time, each when its socket has taken the one before.
        """
        news, closed = stream.broker.since(stream.seen)
        size, upto = 0, 0
        for upto, (_, text) in enumerate(news, 1):
            size += len(text)
            if size > self.limits.backlog_bytes and upto > 1:
                upto -= 1
                break
        more = upto < len(news)
        data = "".join(text for _, text in news[:upto]).encode()
        if stream.chunked and data:
            data = _chunk(data)
        if closed and stream.chunked and not more:
            data += b"0\r\n\r\n"
        newest = news[upto - 1][0] if news else stream.seen
        return newest, data, closed and not more, more

    def keep_alive(self, now: float) -> None:
        """A keep-alive comment on every stream quiet for the broker's ``keepalive_s``.

        A stream whose reader has taken everything is waiting for the table,
        not idle: waitress's idle timeout is for connections that owe a
        request. One with output waiting keeps the time of its last send,
        so the stall timeout still drops a reader that stopped.
        """
        wall = time.time()
        for channel in list(self.streams):
            stream = channel.stream
            assert stream is not None
            if not channel.total_outbufs_len:
                channel.last_activity = wall
            if now - stream.sent_at >= stream.broker.keepalive_s and not channel.total_outbufs_len:
                stream.sent_at = now
                data = KEEPALIVE.encode()
                channel.push(_chunk(data) if stream.chunked else data)


class GuardedServer(TcpWSGIServer):  # type: ignore[misc]
    """waitress's TCP server whose periodic clean-up also closes slow and stalled sockets.

    ``maintenance`` runs on waitress's event loop thread every ``cleanup_s``.
    """

    limits: Limits
    hub: StreamHub
    channel_class = StreamChannel

    def set_socket_options(self, conn: socket.socket) -> None:
        super().set_socket_options(conn)
        # A fixed send buffer (no autotuning up to megabytes) keeps a reader
        # that stops from soaking up output unseen: it shows as stalled.
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)

    def close(self) -> None:
        self.hub.close()
        super().close()

    def maintenance(self, now: float) -> None:
        self.hub.keep_alive(time.monotonic())
        super().maintenance(now)
        if not hasattr(self, "_requests_seen"):
            self._requests_seen: dict[int, tuple[object, float]] = {}
        seen, self._requests_seen = self._requests_seen, {}
        for fd, channel in list(self.active_channels.items()):
            request = channel.request  # a request still arriving, or None
            if request is not None and not channel.requests:
                first = seen.get(fd)
                began = first[1] if first is not None and first[0] is request else now
                self._requests_seen[fd] = (request, began)
                if now - began > self.limits.request_s:
                    log.info("closing a connection whose request took over %.0f s", now - began)
                    channel.will_close = True
                    continue
            if channel.total_outbufs_len and now - channel.last_activity > self.limits.stall_s:
                log.info("closing a connection that read nothing for %.0f s", self.limits.stall_s)
                # Its socket is full, so the loop would never get to close it:
                # a shutdown makes poll report it, waitress closes it the usual
                # way, and a task blocked writing to it wakes (ClientDisconnected).
                channel.will_close = True
                with contextlib.suppress(OSError):
                    channel.socket.shutdown(socket.SHUT_RDWR)


def raise_file_limit(wanted: int) -> int:
    """Raise this process's open-file limit towards ``wanted`` (up to the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        return target
    return soft


def create_server(app: Any, host: str, port: int, limits: Limits) -> Any:
    """A waitress server for ``app`` on ``host:port`` with ``limits``; ``run()`` serves."""
    files = raise_file_limit(limits.connections + 128)
    if files < limits.connections + 64:
        log.warning(
            "only %d open files allowed: fewer connections than %d", files, limits.connections
        )
    adj = Adjustments(
        host=host,
        port=port,
        threads=limits.threads,
        connection_limit=min(limits.connections, max(64, files - 64)),
        channel_timeout=int(limits.idle_s),
        cleanup_interval=max(1, int(limits.cleanup_s)),
        outbuf_high_watermark=limits.backlog_bytes,
        asyncore_use_poll=True,  # select() cannot watch descriptors past 1024
        ident="zilch-tower",
    )
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(adj.threads)
    socket_map: dict[int, Any] = {}
    servers = []
    hub: StreamHub | None = None
    for sockinfo in adj.listen:
        server = GuardedServer(app, socket_map, dispatcher=dispatcher, adj=adj, sockinfo=sockinfo)
        server.limits = limits
        if hub is None:  # one hub: every listening socket shares waitress's one loop
            hub = StreamHub(limits, server.trigger.pull_trigger)
        server.hub = hub
        servers.append(server)
    if len(servers) == 1:
        return servers[0]
    listening = [(s.effective_host, s.effective_port) for s in servers]
    multi = MultiSocketServer(socket_map, adj, listening, dispatcher, servers[-1].log_info)
    multi.effective_port = servers[0].effective_port
    return multi
