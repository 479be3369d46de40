"""The HTTP server under the app: waitress with limits derived from the thread count.

waitress reads and writes every socket on one event loop and runs requests on
a pool of threads. A live page (``/api/events``) holds one thread for as long
as it is open, so the pool is split: :attr:`Limits.streams` threads at most
serve event streams (the API answers 503 for the next page) and the rest stay
free for API requests. Connections cost no thread until a whole request has
arrived, so the connection limit can be far above the thread count; what is
bounded instead is how long a connection may hold a slot without doing its
part:

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
from dataclasses import dataclass
from typing import Any

from waitress.adjustments import Adjustments
from waitress.server import MultiSocketServer, TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher

log = logging.getLogger(__name__)

API_THREADS = 4  # worker threads kept free of event streams, for API requests
SEND_BUFFER_BYTES = 64 * 1024


@dataclass(frozen=True)
class Limits:
    """How many of everything the server takes, from the worker thread count."""

    threads: int
    streams: int  # live event streams at once; the next page gets 503
    connections: int  # open sockets at once; beyond it waitress stops accepting
    idle_s: float = 30.0
    request_s: float = 10.0
    stall_s: float = 30.0
    cleanup_s: float = 2.0
    backlog_bytes: int = 256 * 1024  # output a stream may queue before its thread waits

    @classmethod
    def for_threads(cls, threads: int) -> Limits:
        """The limits for ``threads`` worker threads (at least ``API_THREADS + 1``)."""
        streams = max(1, threads - API_THREADS)
        # Every stream, plus room for phones, the TV's fetches and hostile
        # sockets waiting out their timeouts.
        return cls(threads=threads, streams=streams, connections=4 * threads + 256)


class GuardedServer(TcpWSGIServer):  # type: ignore[misc]
    """waitress's TCP server whose periodic clean-up also closes slow and stalled sockets.

    ``maintenance`` runs on waitress's event loop thread every ``cleanup_s``.
    """

    limits: Limits

    def set_socket_options(self, conn: socket.socket) -> None:
        super().set_socket_options(conn)
        # A fixed send buffer (no autotuning up to megabytes) keeps a reader
        # that stops from soaking up output unseen: it shows as stalled.
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)

    def maintenance(self, now: float) -> None:
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
    for sockinfo in adj.listen:
        server = GuardedServer(app, socket_map, dispatcher=dispatcher, adj=adj, sockinfo=sockinfo)
        server.limits = limits
        servers.append(server)
    if len(servers) == 1:
        return servers[0]
    listening = [(s.effective_host, s.effective_port) for s in servers]
    multi = MultiSocketServer(socket_map, adj, listening, dispatcher, servers[-1].log_info)
    multi.effective_port = servers[0].effective_port
    return multi
