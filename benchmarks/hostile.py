"""Hostile connections and many live pages at once: is the API still served?

Starts ``zilch-tower serve --sim`` on the loopback, then opens at once:

- ``--hostile`` connections split three ways: sockets that connect and send
  nothing, sockets that send a request header one byte every two seconds
  (slowloris), and event streams that are opened and never read;
- ``--pages`` live pages on ``/api/events`` that read every event;

and plays a game through the API meanwhile, timing every call. It reports the
API's p50/p95/max latency, how many pages got every event published while
they were connected, how many got a clean 503, and the service's RSS and
open file descriptors. The crowd runs in a process of its own, as real pages
run on other devices: reading 200 streams in the process that times the API
would slow the timing thread itself (one interpreter lock).

Run: ``.venv/bin/python benchmarks/hostile.py [--hostile 300] [--pages 200]
[--threads 220] [--actions 60]``. Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import multiprocessing
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service import BUSY, Service


class ApiFailed(Exception):
    """An API call that timed out or failed: the service did not serve it."""


class Page:
    """One live page on the event stream: the seqs it received, or why it was refused."""

    def __init__(self) -> None:
        self.seqs: list[int] = []
        self.status: int | None = None
        self.error: str | None = None
        self.closed = False


async def _page(port: int, page: Page, stop: asyncio.Event) -> None:
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError as exc:
        page.error = f"connect: {exc}"
        return
    writer.write(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    await writer.drain()
    try:
        status_line = await asyncio.wait_for(reader.readline(), 60)
        page.status = int(status_line.split()[1]) if status_line else None
        while not stop.is_set():
            line = await asyncio.wait_for(reader.readline(), 60)
            if not line:
                page.closed = True
                break
            if line.startswith(b"id: "):
                page.seqs.append(int(line[4:]))
    except (TimeoutError, OSError, ValueError, IndexError) as exc:
        page.error = type(exc).__name__
    finally:
        writer.close()


async def _idle(port: int, held: list[Any]) -> None:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        held.append(writer)
    except OSError:
        pass


async def _slowloris(port: int, held: list[Any], stop: asyncio.Event) -> None:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return
    held.append(writer)
    header = b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 4000
    try:
        for byte in header:
            if stop.is_set():
                break
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(2.0)
    except OSError:
        pass


async def _stalled_stream(port: int, held: list[Any]) -> None:
    import socket

    try:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
        sock.send(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        held.append(sock)  # never read
    except OSError:
        pass


class Crowd(threading.Thread):
    """The hostile sockets and the live pages, on one asyncio loop of their own."""

    def __init__(self, port: int, hostile: int, pages: int) -> None:
        super().__init__(daemon=True)
        self.port, self.hostile, self.n_pages = port, hostile, pages
        self.pages = [Page() for _ in range(pages)]
        self.held: list[Any] = []
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()
        self._halt: asyncio.Event | None = None

    def run(self) -> None:
        self.loop.run_until_complete(self._main())

    async def _main(self) -> None:
        self._halt = asyncio.Event()
        third = self.hostile // 3
        hostile = [_idle(self.port, self.held) for _ in range(self.hostile - 2 * third)] + [
            _stalled_stream(self.port, self.held) for _ in range(third)
        ]
        await asyncio.gather(*hostile)
        loris = [
            asyncio.create_task(_slowloris(self.port, self.held, self._halt)) for _ in range(third)
        ]
        await asyncio.sleep(1.0)
        tasks = [asyncio.create_task(_page(self.port, p, self._halt)) for p in self.pages]
        await asyncio.sleep(3.0)
        self.ready.set()
        await self._halt.wait()
        for task in [*tasks, *loris]:
            task.cancel()
        await asyncio.gather(*tasks, *loris, return_exceptions=True)

    def stop(self) -> None:
        if self._halt is not None:
            self.loop.call_soon_threadsafe(self._halt.set)
        self.join(30)
        for item in self.held:
            with contextlib.suppress(Exception):
                item.close()


CATCH_UP_S = 30.0  # how long pages may take to get the last state once play stops


def _crowd_process(
    port: int, hostile: int, pages: int, ready: Any, halt: Any, final: Any, results: Any
) -> None:
    crowd = Crowd(port, hostile, pages)
    crowd.start()
    crowd.ready.wait(120)
    ready.set()
    halt.wait(600)
    # Pages a little behind (the loaded reader's fault or the server's) are
    # given time to catch up; how long they took is reported.
    started = time.monotonic()
    live = [p for p in crowd.pages if p.status == 200 and not p.closed]
    while time.monotonic() - started < CATCH_UP_S:
        if all(p.closed or (p.seqs and p.seqs[-1] >= final.value) for p in live):
            break
        time.sleep(0.05)
    caught_up_s = time.monotonic() - started
    crowd.stop()
    results.put(([(p.seqs, p.status, p.error, p.closed) for p in crowd.pages], caught_up_s))


class CrowdProcess:
    """:class:`Crowd` in a child process; its pages come back when it stops."""

    def __init__(self, port: int, hostile: int, pages: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.ready, self.halt, self.results = context.Event(), context.Event(), context.Queue()
        self.final = context.Value("q", 0)
        self.proc = context.Process(
            target=_crowd_process,
            args=(port, hostile, pages, self.ready, self.halt, self.final, self.results),
            daemon=True,
        )
        self.pages: list[Page] = []
        self.caught_up_s = 0.0

    def start(self) -> None:
        self.proc.start()

    def stop(self, final_seq: int = 0) -> None:
        """Stop once every live page has ``final_seq`` (or after :data:`CATCH_UP_S`)."""
        self.final.value = final_seq
        self.halt.set()
        pages, self.caught_up_s = self.results.get(timeout=180)
        for seqs, status, error, closed in pages:
            page = Page()
            page.seqs, page.status, page.error, page.closed = seqs, status, error, closed
            self.pages.append(page)
        self.proc.join(30)


def _proc_figures(pid: int) -> dict[str, int]:
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    rss_kb, threads = int(fields["VmRSS"].split()[0]), int(fields["Threads"])
    fds = len(list(Path(f"/proc/{pid}/fd").iterdir()))
    return {"rss_mb": rss_kb // 1024, "fds": fds, "threads": threads}


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) the process has used; the machine's load barely moves it."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _gaps(seqs: list[int]) -> bool:
    return any(b > a + 1 for a, b in itertools.pairwise(seqs))


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1)))], 1)


def play(service: Service, actions: int) -> tuple[list[float], int, int]:
    """Play ``actions`` table actions, timing every API call; (latencies, first, last seq)."""
    latencies: list[float] = []

    def timed(method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        start = time.perf_counter()
        try:
            answer = service.request(method, path, body)
        except (OSError, RuntimeError) as exc:
            latencies.append((time.perf_counter() - start) * 1000)
            raise ApiFailed(f"{method} {path}: {type(exc).__name__} {exc}") from None
        latencies.append((time.perf_counter() - start) * 1000)
        return answer

    first = timed("POST", "/api/new-game", {"players": ["Ann", "Ben"]})["seq"]
    for _ in range(actions):
        state = timed("GET", "/api/state")
        if state["phase"] == "choose":
            timed("POST", "/api/keep", {"keep": state["turn"]["best"]["dice"]})
        elif (
            state["phase"] == "ready" and state["turn"]["can_bank"] and state["turn"]["total"] > 499
        ):
            timed("POST", "/api/bank", {})
        elif state["phase"] == "ready":
            timed("POST", "/api/roll", {})
        elif state["phase"] == "over":
            timed("POST", "/api/new-game", {"players": ["Ann", "Ben"]})
        while timed("GET", "/api/state")["phase"] in BUSY:
            time.sleep(0.05)
    last = timed("GET", "/api/state")["seq"]
    return latencies, first, last


def run(hostile: int, pages: int, threads: int, actions: int, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        service = Service(Path(tmp) / "s", seed, 0.2, threads)
        crowd = CrowdProcess(service.port, hostile, pages)
        last = 0
        try:
            crowd.start()
            crowd.ready.wait(120)
            during = _proc_figures(service.proc.pid)
            failure = None
            cpu_before = _cpu_s(service.proc.pid)
            try:
                latencies, first, last = play(service, actions)
            except ApiFailed as exc:
                failure, latencies, first, last = str(exc), [30_000.0], 0, 0
            cpu = _cpu_s(service.proc.pid) - cpu_before
            time.sleep(2.0)
            after = _proc_figures(service.proc.pid)
        finally:
            crowd.stop(last)
            service.stop()
    live = [p for p in crowd.pages if p.status == 200]
    refused = [p for p in crowd.pages if p.status == 503]
    wanted = set(range(first, last + 1))
    published = set().union(*(set(p.seqs) for p in live)) & wanted if live else set()
    complete = sum(1 for p in live if published <= set(p.seqs))
    return {
        "hostile": hostile,
        "pages": pages,
        "threads": threads,
        "api_failure": failure,
        "api_calls": len(latencies),
        "api_p50_ms": _p(latencies, 0.5),
        "api_p95_ms": _p(latencies, 0.95),
        "api_max_ms": round(max(latencies), 1),
        "events": len(published),
        "service_cpu_s": round(cpu, 2),
        "service_cpu_ms_per_event": round(1000 * cpu / max(1, last - first), 1),
        "pages_live": len(live),
        "pages_with_every_event": complete,
        "pages_503": len(refused),
        "pages_caught_up_s": round(crowd.caught_up_s, 1),  # after play stopped, the slowest
        "pages_cut_off": sum(1 for p in live if p.closed),  # the server ended the stream
        "pages_with_gaps": sum(1 for p in live if _gaps(p.seqs)),
        "pages_other": [p.status or p.error for p in crowd.pages if p.status not in (200, 503)][:5],
        "service_during": during,
        "service_after": after,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hostile", type=int, default=300)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--threads", type=int, default=220)
    parser.add_argument("--actions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    result = run(args.hostile, args.pages, args.threads, args.actions, args.seed)
    print(json.dumps(result, indent=1))
    print(
        f"API p95 {result['api_p95_ms']} ms (median {result['api_p50_ms']} ms) over "
        f"{result['api_calls']} calls; {result['pages_with_every_event']} of "
        f"{result['pages_live']} live pages got all {result['events']} events, "
        f"{result['pages_503']} got 503; service CPU {result['service_cpu_ms_per_event']} ms "
        "per event",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
