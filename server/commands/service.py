"""Service verbs: serve, config."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

from server.commands import Subparsers
from server.config import Config, load_config
from server.errors import UserError
from server.net import lan_address

log = logging.getLogger(__name__)


def register(sub: Subparsers) -> None:
    p = sub.add_parser("serve", help="run the table service (simulated tower by default)")
    p.add_argument("--sim", action="store_true", help="simulated tower whatever the config says")
    p.add_argument("--host", help="address to listen on")
    p.add_argument("--port", type=int, help="TCP port (0 picks a free one)")
    p.add_argument("--config", metavar="FILE", help="configuration file")
    p.add_argument("--seed", type=int, help="seed of the simulated tower")
    p.add_argument("--state-dir", metavar="DIR", help="state directory")
    p.add_argument(
        "--threads", type=int, help="worker threads for requests (default [server] threads)"
    )
    p.add_argument(
        "--sim-settle",
        type=float,
        metavar="S",
        help="seconds the simulated dice tumble after a shake (default 0.4)",
    )
    p.add_argument(
        "--no-win-chance",
        action="store_true",
        help="neither solve nor show the chance to win (a slow machine; a plain timing run)",
    )
    p.add_argument(
        "--recover",
        action="store_true",
        help="set aside a game whose journal row is damaged (kept, not deleted) and start clean",
    )
    p.set_defaults(func=run_serve)

    p = sub.add_parser("config", help="print the effective configuration")
    p.add_argument("--config", metavar="FILE", help="configuration file")
    p.set_defaults(func=run_config)


def run_config(args: argparse.Namespace) -> int:
    print(load_config(args.config).to_toml(), end="")
    return 0


class Watchdog:
    """systemd notifications: READY, STATUS and WATCHDOG pings; silent outside systemd."""

    def __init__(self) -> None:
        import sdnotify

        self._notifier = sdnotify.SystemdNotifier()
        usec = os.environ.get("WATCHDOG_USEC", "")
        self.interval = int(usec) / 2e6 if usec.isdigit() and int(usec) > 0 else 5.0
        self._last = 0.0

    def notify(self, message: str) -> None:
        self._notifier.notify(message)

    def ping(self) -> None:
        """WATCHDOG=1, at most every half watchdog period (called from the controller loop)."""
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self._notifier.notify("WATCHDOG=1")


def _effective_config(args: argparse.Namespace) -> Config:
    config = load_config(args.config)
    if args.port is not None and not 0 <= args.port <= 65535:
        raise UserError(f"--port {args.port} is invalid: expected 0 to 65535 (0 picks a free one)")
    if args.seed is not None and not 0 <= args.seed < 2**31:
        raise UserError(f"--seed {args.seed} is invalid: expected 0 to {2**31 - 1}")
    if args.sim_settle is not None and not 0 <= args.sim_settle <= 30:
        raise UserError(f"--sim-settle {args.sim_settle} is invalid: expected 0 to 30 seconds")
    if args.threads is not None and not 4 <= args.threads <= 1024:
        raise UserError(f"--threads {args.threads} is invalid: expected 4 to 1024")
    if args.state_dir is None:
        return config
    values = {section: dict(config[section]) for section in config}
    values["state"]["dir"] = args.state_dir
    return Config(values, config.source, Path(args.state_dir))


def run_serve(args: argparse.Namespace) -> int:
    """Run the table service under waitress until SIGTERM or Ctrl-C."""
    from server.app import create_app
    from server.service import TableService
    from server.serving import Limits, create_server

    config = _effective_config(args)
    host = args.host or config["server"]["host"]
    port = config["server"]["port"] if args.port is None else args.port
    threads = args.threads or int(config["server"]["threads"])
    watchdog = Watchdog()
    service = TableService(
        config,
        sim=True if args.sim else None,
        seed=args.seed,
        heartbeat=watchdog.ping,
        status=lambda text: watchdog.notify(f"STATUS={text}"),
        sim_settle_s=0.4 if args.sim_settle is None else args.sim_settle,
        win_solver=not args.no_win_chance,
        win_chance=not args.no_win_chance,
    )
    # Each live page holds a worker thread; keep a few for the API so phones can always play.
    limits = Limits.for_threads(threads, streams=int(config["server"]["live_pages"]))
    service.max_streams = limits.streams
    try:
        service.start(recover=args.recover)
        app = create_app(config, service)
        server: Any = create_server(app, host, port, limits)
    except BaseException:
        service.stop()
        raise
    _print_urls(host, int(server.effective_port), service)
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        if not stopping.is_set():
            stopping.set()
            watchdog.notify("STOPPING=1")
            raise KeyboardInterrupt

    # A request's threads wait for the interpreter lock behind the controller's
    # work and the streams' fan-out: hand it over every 1 ms, not every 5 ms
    # (benchmarks/hostile.py: API p95 less than half under load, same CPU).
    sys.setswitchinterval(0.001)
    previous = signal.signal(signal.SIGTERM, stop)
    watchdog.notify(f"READY=1\nSTATUS=serving on port {server.effective_port}")
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        log.info("shutting down: coil off, database closed")
        service.stop()
        server.close()
    return 0


def _print_urls(host: str, port: int, service: Any) -> None:
    local = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
    lines = [
        f"Zilch Tower is serving on http://{local}:{port}/ "
        f"({'simulated tower, seed ' + str(service.seed) if service.sim else 'tower on GPIO'})",
        f"  TV display:    http://{local}:{port}/",
    ]
    lan = lan_address() if host in ("0.0.0.0", "", "::") else None
    if lan:
        lines.append(f"  phones (LAN):  http://{lan}:{port}/play")
    else:
        lines.append(f"  phones:        http://{local}:{port}/play")
    lines.append(f"  state dir:     {service.state_dir}")
    lines.append(f"  live pages:    up to {service.max_streams} at once ([server] live_pages)")
    print("\n".join(lines), flush=True)
    sys.stdout.flush()
