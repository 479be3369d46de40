"""The chance to win on the TV and the phone: from example documents and from a live table."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from tower_pages import TABLE_PIN, LiveTable, harness, served_table, wait_for_seq, write_config

if TYPE_CHECKING:
    from zilch import RuleSet
    from zilch.strategy.winchance import WinTable

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844, "is_mobile": True, "has_touch": True}


def widths(page: Any) -> dict[str, float]:
    """Each bar segment's share of the bar, by player, as drawn."""
    return page.evaluate(
        """() => {
          const bar = document.querySelector('#win-chance .win-bar').getBoundingClientRect();
          return Object.fromEntries([...document.querySelectorAll('#win-chance .win-fill')]
            .map((el) => [el.dataset.player, el.getBoundingClientRect().width / bar.width]));
        }"""
    )


def test_two_players_on_tv_and_phone(example_table: str, page_for: Any, artifacts: Path) -> None:
    tv = page_for()
    tv.goto(example_table + "/")
    phone = page_for(width=390, height=844)
    phone.goto(example_table + "/play")
    seq = harness(example_table, "use/duel")
    wait_for_seq(tv, "tv", seq)
    wait_for_seq(phone, "play", seq)
    for page in (tv, phone):
        box = page.locator("#win-chance")
        box.wait_for(state="visible")
        text = box.inner_text()
        assert "Ann 64%" in text and ("36% Ben" in text or "Ben 36%" in text)
        shares = widths(page)
        assert shares["Ann"] == pytest.approx(0.64, abs=0.01)
        assert shares["Ben"] == pytest.approx(0.36, abs=0.01)
        assert page.locator("#win-chance .win-line").inner_text() == "▅▄▄▄▅▅"
        assert not page.js_errors
    assert "Coach: bank: 64% to win; roll: 58%" in tv.locator("#win-chance").inner_text()
    assert phone.locator("#win-advice").inner_text() == "Coach: bank: 64% to win; roll: 58%"
    tv.screenshot(path=str(artifacts / "win-tv-duel.png"))
    phone.screenshot(path=str(artifacts / "win-phone-duel.png"), full_page=True)
    # the game moves on to a state without a chance: both hide it
    seq = harness(example_table, "use/choose")
    wait_for_seq(tv, "tv", seq)
    wait_for_seq(phone, "play", seq)
    assert tv.locator("#win-chance").is_hidden() and phone.locator("#win-chance").is_hidden()
    assert phone.locator("#win-advice").is_hidden()


def test_four_players_show_the_estimate_and_its_error(
    example_table: str, page_for: Any, artifacts: Path
) -> None:
    tv = page_for()
    tv.goto(example_table + "/")
    phone = page_for(width=390, height=844)
    phone.goto(example_table + "/play")
    seq = harness(example_table, "use/crowd_estimating")
    for page, root in ((tv, "tv"), (phone, "play")):
        wait_for_seq(page, root, seq)
        assert "estimating…" in page.locator("#win-chance").inner_text()
        assert page.locator("#win-chance .win-fill").count() == 0
    seq = harness(example_table, "use/crowd_win")
    for page, root in ((tv, "tv"), (phone, "play")):
        wait_for_seq(page, root, seq)
        text = page.locator("#win-chance").inner_text()
        for shown in ("Ann 31% ±2", "Ben 18% ±2", "Cleo 4.0% ±1", "Dmitri 47% ±2"):
            assert shown in text
        assert "1,600 games" in text
        shares = widths(page)
        assert list(shares) == ["Ann", "Ben", "Cleo", "Dmitri"]
        assert shares["Dmitri"] == pytest.approx(0.47, abs=0.01)
        assert not page.js_errors
    tv.screenshot(path=str(artifacts / "win-tv-crowd.png"))
    phone.screenshot(path=str(artifacts / "win-phone-crowd.png"), full_page=True)


@pytest.fixture
def solved_table(
    tmp_path: Path, small_rules: RuleSet, small_win_table: WinTable
) -> Iterator[LiveTable]:
    """The real service playing dicenow to 1,000 with its win table already solved."""
    from server.config import load_config
    from server.solver_cache import CACHE_FOLDER, WinTableCache

    config = load_config(write_config(tmp_path, {"target": "1000"}), env={})
    assert config.rules == small_rules
    WinTableCache(config.state_dir / CACHE_FOLDER)._store(small_rules, small_win_table)
    with served_table(config) as table:
        yield table


def test_a_live_two_player_game_updates_the_phone_after_each_step(
    solved_table: LiveTable, page_for: Any, artifacts: Path
) -> None:
    table = solved_table
    phone = page_for(width=390, height=844, is_mobile=True, has_touch=True)
    phone.add_init_script("localStorage.setItem('zilch.name', 'Ann')")
    phone.goto(table.url + f"/play#pin={TABLE_PIN}")
    tv = page_for()
    tv.goto(table.url + "/")
    table.post("/api/new-game", {"players": ["Ann", "Ben"]})
    table.service.wait_quiet(20)

    def shown_matches(page: Any, root: str) -> None:
        state = table.service.state()
        win = state["win_chance"]
        wait_for_seq(page, root, state["seq"])
        page.wait_for_function(
            """(ann) => { const bar = document.querySelector('#win-chance .win-bar');
               const seg = document.querySelector('#win-chance .win-fill[data-player="Ann"]');
               return bar && seg && Math.abs(seg.getBoundingClientRect().width
                 / bar.getBoundingClientRect().width - ann) < 0.01; }""",
            arg=win["players"]["Ann"],
        )
        label = page.locator("#win-chance .win-name").first.inner_text()
        assert label.startswith("Ann ") and label.endswith("%")

    for step in range(6):  # roll, set aside the best, roll or bank: each step shows
        shown_matches(phone, "play")
        shown_matches(tv, "tv")
        state = table.service.state()
        if state["finished"]:
            break
        if state["phase"] == "choose":
            table.post("/api/keep", {"keep": state["turn"]["best"]["dice"]})
        elif state["turn"]["can_bank"] and step >= 3:
            table.post("/api/bank", {})
        else:
            table.post("/api/roll", {})
        table.service.wait_quiet(20)
    assert not phone.js_errors and not tv.js_errors
    phone.screenshot(path=str(artifacts / "win-phone-live.png"), full_page=True)
