"""Fixtures for the browser tests: the real service on a free port, and headless Chromium.

The service is the real one (``create_app`` + ``TableService``) on the
simulated tower with no settle time, served by werkzeug's threaded server in
a background thread. Chromium is Debian's ``/usr/bin/chromium`` driven by
Playwright; without it the browser tests skip, except under CI (``CI`` set),
where a missing browser is a failure.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tower_pages import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    PAGE_TIMEOUT_MS,
    LiveTable,
    require_chromium,
    served_table,
    write_config,
)
from werkzeug.serving import make_server


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One headless Chromium for the whole session."""
    require_chromium()
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


@pytest.fixture
def live_table(tmp_path: Path) -> Iterator[LiveTable]:
    """The real service on the simulated tower, served on a free local port."""
    from server.config import load_config

    with served_table(load_config(write_config(tmp_path), env={})) as table:
        yield table


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
    """The pages served with example state documents (see page_examples.py); its base URL."""
    from page_examples import make_app

    server = make_server("127.0.0.1", 0, make_app(), threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="test-harness", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)
