"""The TV uses its whole height mid-turn; a phone told a player not in the game acts for nobody."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_browser_moments import open_phone
from tower_pages import LiveTable

pytestmark = pytest.mark.browser

LOWEST = """() => Math.max(...[...document.querySelectorAll('#tv *')]
  .filter((e) => !e.closest('[hidden]'))
  .map((e) => e.getBoundingClientRect())
  .filter((r) => r.width && r.height)
  .map((r) => r.bottom))"""


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1920, 1080)])
def test_tv_uses_its_bottom_quarter_mid_turn(
    live_table: LiveTable, page_for: Any, width: int, height: int
) -> None:
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    live_table.post("/api/roll")
    assert live_table.service.wait_quiet(10)
    page = page_for(width, height)
    page.goto(live_table.url + "/")
    page.wait_for_selector("#tray [data-die]")
    lowest = page.evaluate(LOWEST)
    assert 0.85 * height <= lowest <= height, f"the lowest element ends at {lowest}px"
    assert page.js_errors == []


def test_a_phone_whose_player_is_not_in_the_game_acts_for_nobody(
    live_table: LiveTable, page_for: Any
) -> None:
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    assert live_table.service.wait_quiet(10)
    page = open_phone(page_for, live_table.url, "Zed")
    page.wait_for_function(
        "() => document.getElementById('me').textContent === 'Zed (not playing)'"
    )
    assert page.text_content("#status") == "Zed is not in this game"
    assert page.is_disabled("#roll") and page.is_disabled("#bank") and page.is_hidden("#skip")
    assert page.is_visible("#join-panel"), "it may join or be told who it is"
    assert page.js_errors == []


def test_the_tv_idle_screen_and_the_phone_lead_to_the_rules(
    live_table: LiveTable, page_for: Any
) -> None:
    tv = page_for()
    tv.goto(live_table.url + "/")
    tv.wait_for_selector("#idle:not([hidden])")
    address = tv.text_content(".idle-rules .url")
    assert tv.is_visible(".idle-rules") and address.endswith("/rules")
    phone = open_phone(page_for, live_table.url)
    phone.click("p.forget a[href='/rules']")
    phone.wait_for_selector("h1")
    assert phone.text_content("h1").startswith("Rules in force")
    assert "twinson-5000" in phone.text_content("body"), "every preset is described"
    assert tv.js_errors == [] and phone.js_errors == []


TURN_TOTAL_SHOWN = """() => {
  const table = document.querySelector('.table').getBoundingClientRect();
  const box = document.querySelector('.turn-total-box').getBoundingClientRect();
  return box.bottom <= table.bottom + 0.5 && box.bottom <= document.getElementById('band')
    .getBoundingClientRect().top;
}"""


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1920, 1080)])
def test_tv_asking_to_straighten_the_tray_still_shows_the_turn_total(
    live_table: LiveTable, page_for: Any, artifacts: Path, width: int, height: int
) -> None:
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    live_table.service.hardware.tower.cocked_chance = 1.0
    live_table.post("/api/roll")
    assert live_table.service.wait_quiet(20)
    assert live_table.service.state()["phase"] == "fix_tray"
    page = page_for(width, height)
    page.goto(live_table.url + "/")
    page.wait_for_selector("#reading-note:not([hidden])")
    page.screenshot(path=str(artifacts / f"tv-fix-tray-{width}x{height}.png"))
    assert page.evaluate(TURN_TOTAL_SHOWN), "the turn total is cut off under the message"
    assert page.js_errors == []
