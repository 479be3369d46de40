"""Server-Sent Events: one broker, many live browsers.

The controller publishes the whole state document after every committed
change. Each subscriber gets every state it has not seen yet, in order, from
a short history, and the newest state at once when it reconnects with a
``Last-Event-ID`` older than that history. A ``: keepalive`` comment goes out
when nothing happened for ``keepalive_s`` seconds, so proxies and browsers
keep the connection open for hours.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator


def format_event(seq: int, data: str, event: str = "state") -> str:
    """One SSE message: ``event``, ``id`` and a single-line ``data`` field."""
    if "\n" in data:
        data = data.replace("\r\n", "\n")
        lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    else:
        lines = f"data: {data}\n"
    return f"event: {event}\nid: {seq}\n{lines}\n"


KEEPALIVE = ": keepalive\n\n"


class Broker:
    """Fans the latest state out to every subscriber; thread-safe."""

    def __init__(self, history: int = 256, keepalive_s: float = 15.0) -> None:
        self.keepalive_s = keepalive_s
        self._history: deque[tuple[int, str]] = deque(maxlen=history)
        self._cond = threading.Condition()
        self._closed = False
        self.subscribers = 0

    def publish(self, seq: int, data: str) -> None:
        """Make ``data`` (a JSON state document) with sequence ``seq`` the newest event."""
        with self._cond:
            if self._history and seq <= self._history[-1][0]:
                return
            # Formatted once here, not once per subscriber: with hundreds of
            # pages open the fan-out is then one shared string per event.
            self._history.append((seq, format_event(seq, data)))
            self._cond.notify_all()

    def close(self) -> None:
        """End every stream (service shutdown)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def latest_seq(self) -> int:
        """Sequence number of the newest event, 0 before the first."""
        with self._cond:
            return self._history[-1][0] if self._history else 0

    def _pending(self, last: int) -> list[tuple[int, str]]:
        """Events after ``last``: all of them if the history reaches back, else the newest."""
        if not self._history or self._history[-1][0] <= last:
            return []
        if self._history[0][0] > last + 1 and last >= 0:
            return [self._history[-1]]
        return [item for item in self._history if item[0] > last]

    def subscribe(self, last_id: int | None = None) -> Iterator[str]:
        """Yield SSE text: every state after ``last_id`` (None: the newest at once)."""
        with self._cond:
            self.subscribers += 1
            last = -1 if last_id is None else last_id
            if self._history and (last_id is None or last_id > self._history[-1][0]):
                last = self._history[-1][0] - 1
        try:
            yield "retry: 2000\n\n"
            while True:
                with self._cond:
                    pending = self._pending(last)
                    if not pending and not self._closed:
                        self._cond.wait(self.keepalive_s)
                        pending = self._pending(last)
                    closed = self._closed
                if not pending:
                    if closed:
                        return
                    yield KEEPALIVE
                    continue
                for seq, text in pending:
                    last = seq
                    yield text
        finally:
            with self._cond:
                self.subscribers -= 1
