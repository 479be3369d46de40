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
from collections.abc import Callable, Iterator


def format_event(seq: int, data: str, event: str = "state") -> str:
    """One SSE message: ``event``, ``id`` and a single-line ``data`` field."""
    if "\n" in data:
        data = data.replace("\r\n", "\n")
        lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    else:
        lines = f"data: {data}\n"
    return f"event: {event}\nid: {seq}\n{lines}\n"


KEEPALIVE = ": keepalive\n\n"
RETRY = "retry: 2000\n\n"  # a browser reconnects two seconds after a stream ends


class Broker:
    """Fans the latest state out to every subscriber; thread-safe.

    Each publication gets a running number of its own, so a notice about the
    newest state (:meth:`publish` with ``notice=True``: the same ``seq``, other
    words, such as "cannot save") reaches every stream too.
    """

    def __init__(self, history: int = 256, keepalive_s: float = 15.0) -> None:
        self.keepalive_s = keepalive_s
        # (n, seq, event text): n numbers the publications, seq is the state's
        self._history: deque[tuple[int, int, str]] = deque(maxlen=history)
        self._count = 0
        self._cond = threading.Condition()
        self._closed = False
        self._listeners: list[Callable[[], None]] = []
        self.subscribers = 0  # streams open: generators and streams served elsewhere

    def publish(self, seq: int, data: str, *, notice: bool = False) -> None:
        """Make ``data`` (a JSON state document) with sequence ``seq`` the newest event.

        An older or repeated ``seq`` is dropped, unless ``notice`` says that
        the newest state is shown with other words (and they differ).
        """
        with self._cond:
            # Formatted once here, not once per subscriber: with hundreds of
            # pages open the fan-out is then one shared string per event.
            text = format_event(seq, data)
            if self._history:
                _, newest, shown = self._history[-1]
                if seq < newest or (seq == newest and (not notice or text == shown)):
                    return
            self._count += 1
            self._history.append((self._count, seq, text))
            self._cond.notify_all()
            listeners = list(self._listeners)
        for listener in listeners:
            listener()

    def close(self) -> None:
        """End every stream (service shutdown)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            listeners = list(self._listeners)
        for listener in listeners:
            listener()

    def listen(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` after every publication and at :meth:`close`.

        It runs on the publishing thread, outside the broker's lock, and must
        only hand the news on (the HTTP server's loop reads :meth:`since`).
        """
        with self._cond:
            self._listeners.append(callback)

    def latest_seq(self) -> int:
        """Sequence number of the newest event, 0 before the first."""
        with self._cond:
            return self._history[-1][1] if self._history else 0

    def _start(self, last_id: int | None) -> int:
        """The publication a stream resuming after ``last_id`` has seen (a running number)."""
        if not self._history:
            return 0
        first_n, first_seq, _ = self._history[0]
        newest_n, newest_seq, _ = self._history[-1]
        if last_id is None or last_id > newest_seq:
            return newest_n - 1  # the newest at once
        if last_id < 0:
            return first_n - 1
        if first_seq > last_id + 1:
            return newest_n - 1  # the history does not reach back: the newest is enough
        seen = [n for n, seq, _ in self._history if seq < last_id]
        same = [n for n, seq, _ in self._history if seq == last_id]
        if same:
            return same[0]  # its first publication was seen; notices about it follow
        return seen[-1] if seen else first_n - 1

    def _pending(self, last: int) -> list[tuple[int, int, str]]:
        """Publications after ``last``: all of them if the history reaches back, else the newest."""
        if not self._history or self._history[-1][0] <= last:
            return []
        if self._history[0][0] > last + 1:
            return [self._history[-1]]
        # the running numbers are consecutive: take the tail (deque ends are cheap)
        return [self._history[-i] for i in range(self._history[-1][0] - last, 0, -1)]

    def _cursor(self, last_id: int | None) -> int:
        last = self._start(last_id)
        return 0 if not self._history and last_id is not None else last

    def attach(self, last_id: int | None, limit: int | None) -> tuple[str, int] | None:
        """Open a stream that another loop serves: its opening text and the publication seen.

        The opening text is what :meth:`subscribe` would yield at once; after
        it, :meth:`since` with the returned number gives what follows. None
        when ``limit`` streams are open already. Each stream attached is
        counted in :attr:`subscribers` until :meth:`detach`.
        """
        with self._cond:
            if limit is not None and self.subscribers >= limit:
                return None
            self.subscribers += 1
            pending = self._pending(self._cursor(last_id))
            seen = pending[-1][0] if pending else self._cursor(last_id)
            return RETRY + "".join(text for _, _, text in pending), seen

    def detach(self) -> None:
        """A stream opened with :meth:`attach` has ended."""
        with self._cond:
            self.subscribers -= 1

    def since(self, last: int) -> tuple[list[tuple[int, str]], bool]:
        """The publications after ``last`` (number, event text), oldest first; whether closed."""
        with self._cond:
            return [(n, text) for n, _, text in self._pending(last)], self._closed

    def subscribe(self, last_id: int | None = None) -> Iterator[str]:
        """Yield SSE text: every state after ``last_id`` (None: the newest at once).

        The stream holds the thread that reads it: the HTTP server serves
        its streams from its loop instead (:meth:`attach`, server/serving.py);
        this is for other servers and the tests' client.
        """
        with self._cond:
            self.subscribers += 1
            last = self._cursor(last_id)
        try:
            yield RETRY
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
                for n, _, text in pending:
                    last = n
                    yield text
        finally:
            with self._cond:
                self.subscribers -= 1
