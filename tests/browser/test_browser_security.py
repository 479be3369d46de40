"""The pages under their strict Content-Security-Policy in headless Chromium (issue 19 item 3)."""

from __future__ import annotations

from typing import Any

import pytest
from tower_pages import TABLE_PIN, LiveTable

pytestmark = pytest.mark.browser


def _watch_csp(page: Any) -> list[str]:
    """Every CSP violation the page reports, from the console and the DOM event."""
    violations: list[str] = []
    page.on(
        "console",
        lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', e => "
        "console.error('Content Security Policy violation: ' + e.violatedDirective))"
    )
    return violations


def test_pages_work_under_the_policy(live_table: LiveTable, page_for: Any) -> None:
    live_table.post("/api/new-game", {"players": ["Ann", "Ben"]})
    live_table.post("/api/roll", {})
    assert live_table.service.wait_quiet(15)
    for path, ready in [
        ("/", "[data-die]"),
        (f"/play#pin={TABLE_PIN}", "#connection[data-online='true']"),
        ("/calibrate", "#pin-form"),
        ("/history", "svg.fairness-plot"),
    ]:
        page = page_for()
        violations = _watch_csp(page)
        page.goto(live_table.url + path)
        page.wait_for_selector(ready)
        page.wait_for_timeout(300)
        assert violations == [], (path, violations)
        assert page.js_errors == [], (path, page.js_errors)
    # The history page's own stylesheet applies (it was an inline <style> before).
    width = page.eval_on_selector("main.history", "el => getComputedStyle(el).maxWidth")
    assert width != "none"


def test_no_page_loads_inside_a_frame(live_table: LiveTable, page_for: Any) -> None:
    """``frame-ancestors 'none'`` refuses even the table's own origin as a framer."""
    page = page_for()
    framer = f"{live_table.url}/framer"  # answered by the browser, never by the service
    html = f'<iframe id="f" src="{live_table.url}/play"></iframe>'
    page.route(framer, lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    page.goto(framer)
    page.wait_for_timeout(1500)
    assert [f.url for f in page.frames if f.url.endswith("/play")] == []
    assert page.frame_locator("#f").locator("#pin-input").count() == 0


def test_the_tv_counts_down_a_pin_back_off(live_table: LiveTable, page_for: Any) -> None:
    page = page_for()
    page.goto(live_table.url + "/")
    page.wait_for_selector("#connection[data-online='true']")
    assert page.is_hidden("#pin-backoff")
    service = live_table.service
    service.document.pin_backoff = lambda: 3.0
    service.controller.call(service.controller.touch)
    page.wait_for_selector("#pin-backoff:not([hidden])")
    assert "Too many wrong PINs" in page.text_content("#pin-backoff")
    service.document.pin_backoff = lambda: 0.0
    page.wait_for_selector("#pin-backoff", state="hidden", timeout=10_000)
