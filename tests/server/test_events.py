"""The SSE broker: every event in order, resumption, keep-alives, shutdown."""

import threading
import time
from itertools import islice

from server.events import KEEPALIVE, Broker, format_event


def _events(chunks):
    return [c for c in chunks if c.startswith("event:")]


def test_format_event_has_event_id_and_data() -> None:
    assert format_event(7, '{"a":1}') == 'event: state\nid: 7\ndata: {"a":1}\n\n'
    assert format_event(8, "x\ny") == "event: state\nid: 8\ndata: x\ndata: y\n\n"


def test_new_subscriber_gets_the_newest_state_at_once() -> None:
    broker = Broker()
    broker.publish(1, "one")
    broker.publish(2, "two")
    stream = broker.subscribe(None)
    assert next(stream).startswith("retry:")
    assert next(stream) == format_event(2, "two")


def test_resumption_sends_every_missed_state_in_order() -> None:
    broker = Broker()
    for seq in range(1, 6):
        broker.publish(seq, f"s{seq}")
    stream = broker.subscribe(2)
    got = list(islice(stream, 4))[1:]
    assert got == [format_event(n, f"s{n}") for n in (3, 4, 5)]


def test_resumption_older_than_history_sends_only_the_newest() -> None:
    broker = Broker(history=3)
    for seq in range(1, 11):
        broker.publish(seq, f"s{seq}")
    stream = broker.subscribe(1)
    next(stream)
    assert next(stream) == format_event(10, "s10")


def test_last_id_from_the_future_gets_the_current_state() -> None:
    broker = Broker()
    broker.publish(4, "four")
    stream = broker.subscribe(99)
    next(stream)
    assert next(stream) == format_event(4, "four")


def test_stale_or_repeated_seq_is_not_published() -> None:
    broker = Broker()
    broker.publish(5, "five")
    broker.publish(5, "again")
    broker.publish(3, "old")
    assert broker.latest_seq() == 5


def test_keepalive_when_nothing_happens() -> None:
    broker = Broker(keepalive_s=0.01)
    broker.publish(1, "one")
    stream = broker.subscribe(1)
    next(stream)
    assert next(stream) == KEEPALIVE


def test_waiting_subscriber_wakes_on_publish_and_close_ends_streams() -> None:
    broker = Broker(keepalive_s=30)
    broker.publish(1, "one")
    received: list[str] = []
    stream = broker.subscribe(None)

    def consume() -> None:
        received.extend(stream)

    thread = threading.Thread(target=consume)
    thread.start()
    for seq in range(2, 40):
        broker.publish(seq, f"s{seq}")
    broker.close()
    thread.join(5)
    assert not thread.is_alive()
    seqs = [int(c.split("\n")[1][4:]) for c in _events(received)]
    assert seqs == sorted(seqs) and seqs[-1] == 39 and seqs[0] == 1
    assert broker.subscribers == 0


def test_fifty_subscribers_each_receive_every_event() -> None:
    broker = Broker(keepalive_s=30)
    broker.publish(1, "s1")
    received: list[list[int]] = [[] for _ in range(50)]
    streams = [broker.subscribe(1) for _ in range(50)]

    def consume(stream, into: list[int]) -> None:  # type: ignore[no-untyped-def]
        for chunk in stream:
            if chunk.startswith("event:"):
                into.append(int(chunk.split("\n")[1][4:]))

    threads = [
        threading.Thread(target=consume, args=pair) for pair in zip(streams, received, strict=True)
    ]
    for thread in threads:
        thread.start()
    for seq in range(2, 102):
        broker.publish(seq, f"s{seq}")
    deadline = time.monotonic() + 10
    while any(len(r) < 100 for r in received) and time.monotonic() < deadline:
        time.sleep(0.01)
    broker.close()
    for thread in threads:
        thread.join(5)
    assert all(r == list(range(2, 102)) for r in received)
