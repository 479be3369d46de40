"""Fixtures for the browser tests: the real service on a free port, and headless Chromium.

The service is the real one (``create_app`` + ``TableService``) on the
simulated tower with no settle time, served by werkzeug's threaded server in
a background thread. Chromium is Debian's ``/usr/bin/chromium`` driven by
Playwright; without it the browser tests skip, except under CI (``CI`` set),
where a missing browser is a failure.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

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
SEED = 4
PAGE_TIMEOUT_MS = 60_000  # generous: CI machines are shared and slow at times


@dataclass
class LiveTable:
    """A running service: its base URL, the service object and its configuration."""

    url: str
    service: Any
    config: Any

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        """POST to the JSON API with the table PIN, as a phone would; the decoded answer."""
        import json
        import urllib.request

        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body or {}).encode(),
            headers={"Content-Type": "application/json", "X-Table-Pin": TABLE_PIN},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())


def _require_chromium() -> None:
    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is absent: install Debian's chromium to run the browser tests"
    if os.environ.get("CI"):
        pytest.fail(message + " (CI is set, so this is a failure, not a skip)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One headless Chromium for the whole session."""
    _require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def artifacts() -> Path:
    """``artifacts/`` at the project root (gitignored): where the screenshots go."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def write_config(state_dir: Path) -> Path:
    """A configuration file for a test table in ``state_dir``."""
    path = state_dir / "zilch-tower.toml"
    path.write_text(
        "[table]\n"
        f'pin = "{TABLE_PIN}"\n'
        f'admin_pin = "{ADMIN_PIN}"\n'
        'players = ["Ann", "Ben"]\n'
        "speech = false\n"
        "[tower]\n"
        f"seed = {SEED}\n"
        f'[state]\ndir = "{state_dir / "state"}"\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture
def live_table(tmp_path: Path) -> Iterator[LiveTable]:
    """The real service on the simulated tower, served on a free local port."""
    from server.app import create_app
    from server.config import load_config
    from server.controller import Timing
    from server.service import TableService

    config = load_config(write_config(tmp_path), env={})
    service = TableService(
        config,
        sim=True,
        seed=SEED,
        sim_settle_s=0.0,
        timing=Timing(settle_timeout_s=1.0, poll_s=0.05, bot_delay_s=0.0, reshakes=3),
        keepalive_s=1.0,
    )
    service.start()
    app = create_app(config, service)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="test-http", daemon=True)
    thread.start()
    try:
        yield LiveTable(f"http://127.0.0.1:{server.server_port}", service, config)
    finally:
        server.shutdown()
        thread.join(timeout=10)
        service.stop()


@pytest.fixture
def page_for(chromium: Any) -> Iterator[Any]:
    """Make pages in fresh browser contexts (own localStorage); all closed afterwards."""
    contexts: list[Any] = []

    def make(width: int = 1920, height: int = 1080, **options: Any) -> Any:
        context = chromium.new_context(viewport={"width": width, "height": height}, **options)
        context.set_default_timeout(PAGE_TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.js_errors = errors
        return page

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def example_table() -> Iterator[str]:
    """The pages served with example state documents (see harness.py); its base URL."""
    from harness import make_app

    server = make_server("127.0.0.1", 0, make_app(), threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="test-harness", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)
