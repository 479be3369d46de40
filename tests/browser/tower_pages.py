"""What the browser tests and the TV benchmark share: PINs, Chromium, a test table.

A module of its own (not ``conftest``) so test files import it by a name no
other test folder uses.
"""

from __future__ import annotations

import json
import os
import threading
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TABLE_PIN = "4321"
ADMIN_PIN = "97531"
SEED = 3
PAGE_TIMEOUT_MS = 60_000  # generous: CI machines are shared and slow at times


@dataclass
class LiveTable:
    """A running service: its base URL, the service object and its configuration."""

    url: str
    service: Any
    config: Any

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        """POST to the JSON API with the table PIN, as a phone would; the decoded answer."""
        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body or {}).encode(),
            headers={"Content-Type": "application/json", "X-Table-Pin": TABLE_PIN},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())


def harness(url: str, path: str) -> int:
    """Switch the example table (page_examples.py: ``use/NAME``, ``announce?text=...``); its seq."""
    with urllib.request.urlopen(f"{url}/harness/{path}", timeout=10) as response:
        return int(json.loads(response.read())["seq"])


def wait_for_seq(page: Any, root: str, seq: int) -> None:
    """Wait until the page (root ``tv`` or ``play``) has drawn state ``seq`` or a later one."""
    page.wait_for_function(
        "([root, seq]) => Number(document.getElementById(root).dataset.seq) >= seq",
        arg=[root, seq],
    )


def settled(page: Any, root: str, table: LiveTable) -> dict[str, Any]:
    """Wait until the table waits for people and the page shows that state; the state."""
    assert table.service.wait_quiet(15)
    state: dict[str, Any] = table.service.state()
    wait_for_seq(page, root, state["seq"])
    return state


def tv_on_a_new_game(table: LiveTable, page_for: Any) -> Any:
    """A new dicenow game of Ann and Ben at ``table``, and a TV page (``page_for()``) showing it."""
    table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    assert table.service.wait_quiet(10)
    page = page_for()
    page.goto(table.url + "/")
    page.wait_for_selector("#game:not([hidden])")
    return page


def open_calibration(page_for: Any, table: LiveTable) -> Any:
    """The calibration page of ``table`` opened with the admin PIN, once its first frame shows."""
    page = page_for(1280, 900)
    page.goto(table.url + "/calibrate")
    page.fill("#pin-input", ADMIN_PIN)
    page.click("#pin-form button[type=submit]")
    page.wait_for_function("() => Number(document.getElementById('live').dataset.frames || 0) >= 1")
    return page


def capture_empty_and_dice(page: Any) -> None:
    """The calibration page's two captures, the simulator's hands moving the dice between."""
    page.click("[data-sim='take-out']")
    page.wait_for_function(
        "() => document.getElementById('live-reading').textContent.startsWith('no dice read')"
    )
    page.click("#capture-empty")
    page.wait_for_selector("#calibrate[data-step='dice']")
    page.click("[data-sim='put-back']")
    page.wait_for_function(
        "() => document.getElementById('live-reading').textContent.startsWith('6 dice read')"
    )
    page.click("#capture-dice")
    page.wait_for_selector("#calibrate[data-step='test']")


def require_chromium() -> None:
    """Skip without Debian's Chromium; under CI (``CI`` set) fail instead."""
    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is absent: install Debian's chromium to run the browser tests"
    if os.environ.get("CI"):
        pytest.fail(message + " (CI is set, so this is a failure, not a skip)")
    pytest.skip(message)


def write_config(state_dir: Path, house_rules: Mapping[str, str] | None = None) -> Path:
    """A configuration file for a test table in ``state_dir`` (with ``house_rules``, if any)."""
    path = state_dir / "zilch-tower.toml"
    lines = [
        "[table]",
        f'pin = "{TABLE_PIN}"',
        f'admin_pin = "{ADMIN_PIN}"',
        'players = ["Ann", "Ben"]',
        "speech = false",
    ]
    if house_rules:
        lines += ["[table.rules]", *(f'{key} = "{value}"' for key, value in house_rules.items())]
    lines += ["[tower]", f"seed = {SEED}", "[state]", f'dir = "{state_dir / "state"}"']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@contextmanager
def served_table(config: Any, *, seed: int = SEED, keepalive_s: float = 1.0) -> Iterator[LiveTable]:
    """The real service for ``config`` on the simulated tower, served on a free local port.

    No settle time and quick polls, werkzeug's threaded server on a thread of
    its own; the server and the service are stopped on the way out.
    """
    from werkzeug.serving import make_server

    from server.app import create_app
    from server.controller import Timing
    from server.service import TableService

    service = TableService(
        config,
        sim=True,
        seed=seed,
        sim_settle_s=0.0,
        timing=Timing(settle_timeout_s=1.0, poll_s=0.05, bot_delay_s=0.0, reshakes=3),
        keepalive_s=keepalive_s,
    )
    service.start()
    try:
        server = make_server("127.0.0.1", 0, create_app(config, service), threaded=True)
        thread = threading.Thread(target=server.serve_forever, name="test-http", daemon=True)
        thread.start()
        try:
            yield LiveTable(f"http://127.0.0.1:{server.server_port}", service, config)
        finally:
            server.shutdown()
            thread.join(timeout=10)
    finally:
        service.stop()
