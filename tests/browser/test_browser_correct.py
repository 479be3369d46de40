"""Saying what the dice show from a phone, and the TV's "corrected by", in headless Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tower_pages import TABLE_PIN, LiveTable, settled

from tests.server.test_correct import in_reading_order
from vision import Reading

pytestmark = pytest.mark.browser

PHONE = {"width": 412, "height": 915, "is_mobile": True, "has_touch": True}
ZILCHES = ([2, 2, 3, 4, 6, 6], [2, 3, 3, 4, 6, 6])


def _phone_as(page_for: Any, live_table: LiveTable, name: str) -> Any:
    page = page_for(**PHONE)
    page.goto(live_table.url + f"/play#pin={TABLE_PIN}")
    page.evaluate("name => localStorage.setItem('zilch.name', name)", name)
    page.reload()
    page.wait_for_selector("#connection[data-online='true']")
    return page


def _tv(page_for: Any, live_table: LiveTable) -> Any:
    page = page_for()
    page.goto(live_table.url + "/")
    page.wait_for_selector("#connection[data-online='true']")
    return page


def _tap_to(page: Any, wanted: list[int]) -> None:
    """Tap each die of the correction panel until it shows the wanted value."""
    for index, value in enumerate(wanted):
        die = page.locator(f"#correct-dice [data-index='{index}']")
        shown = int(die.get_attribute("data-value"))
        for _ in range((value - shown) % 6):
            die.click()
        assert (
            int(page.locator(f"#correct-dice [data-index='{index}']").get_attribute("data-value"))
            == value
        )


def test_a_misread_roll_corrected_from_a_phone(
    live_table: LiveTable, page_for: Any, artifacts: Path
) -> None:
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    phone = _phone_as(page_for, live_table, "Ben")  # anyone at the table may correct
    tv = _tv(page_for, live_table)
    live_table.post("/api/roll")
    state = settled(phone, "play", live_table)
    offer = state["correctable"]
    assert offer["mode"] == "correct"
    phone.wait_for_selector("#correct-panel:not([hidden])")
    assert phone.text_content("#correct-title") == "Dice read wrong?"
    assert phone.is_disabled("#correct-send"), "nothing changed yet: nothing to send"
    zilch = next(z for z in ZILCHES if z != sorted(offer["dice"]))
    wanted = in_reading_order(offer["dice"], zilch)
    _tap_to(phone, wanted)
    assert phone.locator("#correct-dice .changed").count() == sum(
        a != b for a, b in zip(wanted, offer["dice"], strict=True)
    )
    phone.screenshot(path=str(artifacts / "correct-phone.png"))
    with phone.expect_response("**/api/correct") as answer:
        phone.click("#correct-send")
    assert answer.value.status == 200
    state = settled(tv, "tv", live_table)
    assert state["correction"]["by"] == "Ben" and state["current"] == "Ben"
    tv.wait_for_selector("#correction-note:not([hidden])")
    assert tv.text_content("#correction-note") == "corrected by Ben"
    shown = tv.eval_on_selector_all("#tray [data-die]", "els => els.map(e => +e.dataset.die)")
    assert sorted(shown) == zilch
    assert tv.locator("#log li", has_text="Ann's roll corrected by Ben").count() == 1
    tv.screenshot(path=str(artifacts / "correct-tv.png"))
    # the panel goes once the next roll is on the table and not correctable
    phone.wait_for_selector("#error", state="hidden")
    assert not phone.js_errors and not tv.js_errors


def test_dice_entered_from_a_phone_after_the_last_reshake(
    live_table: LiveTable, page_for: Any, artifacts: Path
) -> None:
    watcher = live_table.service.hardware.watcher
    sure = watcher.read

    def unsure(frame: Any, expected: int | None = None) -> Reading:
        reading = sure(frame, expected)
        return Reading(reading.dice, False, "the die at the left wall is leaning")

    watcher.read = unsure
    try:
        live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
        phone = _phone_as(page_for, live_table, "Ann")
        live_table.post("/api/roll")
        state = settled(phone, "play", live_table)
        assert state["phase"] == "fix_tray"
    finally:
        watcher.read = sure
    tv = _tv(page_for, live_table)
    phone.wait_for_selector("#correct-panel:not([hidden])")
    assert phone.text_content("#correct-title") == "Tell the tower what the dice show"
    assert phone.locator("#correct-dice [data-die]").count() == 6
    phone.wait_for_selector("#correct-dice .die-button img.die-picture")  # the six dice seen
    assert phone.locator("#correct-dice img.die-picture").count() == 6
    _tap_to(phone, [1, 1, 1, 5, 2, 3])
    phone.screenshot(path=str(artifacts / "correct-enter-phone.png"))
    with phone.expect_response("**/api/correct") as answer:
        phone.click("#correct-send")
    assert answer.value.status == 200
    state = settled(tv, "tv", live_table)
    assert state["phase"] == "choose" and state["turn"]["roll"] == [1, 1, 1, 2, 3, 5]
    tv.wait_for_selector("#correction-note:not([hidden])")
    assert tv.text_content("#correction-note") == "entered by Ann"
    assert tv.locator("#log li", has_text="Ann's roll entered by Ann").count() == 1
    tv.screenshot(path=str(artifacts / "correct-enter-tv.png"))
    phone.wait_for_selector("#correct-panel:not([hidden])")  # still correctable until a set-aside
    assert phone.text_content("#correct-title") == "Dice read wrong?"
    assert not phone.js_errors and not tv.js_errors


def test_each_die_shown_as_the_camera_saw_it_and_who_corrects_is_asked(
    live_table: LiveTable, page_for: Any, artifacts: Path
) -> None:
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    phone = page_for(**PHONE)  # a phone at the table that does not play: no name yet
    phone.goto(live_table.url + f"/play#pin={TABLE_PIN}")
    phone.wait_for_selector("#connection[data-online='true']")
    tv = _tv(page_for, live_table)
    live_table.post("/api/roll")
    state = settled(phone, "play", live_table)
    offer = state["correctable"]
    phone.wait_for_selector("#correct-dice .die-button img.die-picture")
    # one picture per die, inside the die's button, each a 64 px crop the browser decoded
    widths = phone.eval_on_selector_all(
        "#correct-dice .die-button", "els => els.map(e => e.querySelector('img').naturalWidth)"
    )
    assert widths == [64] * offer["count"]
    assert phone.is_hidden("#correct-seen")
    # the phone has no name: it asks, and will not send without one
    assert phone.is_visible("#correct-name")
    zilch = next(z for z in ZILCHES if z != sorted(offer["dice"]))
    _tap_to(phone, in_reading_order(offer["dice"], zilch))
    assert phone.is_disabled("#correct-send")
    phone.fill("#correct-name", "Cat")
    assert phone.is_enabled("#correct-send")
    phone.screenshot(path=str(artifacts / "correct-pictures-phone.png"), full_page=True)
    with phone.expect_response("**/api/correct") as answer:
        phone.click("#correct-send")
    assert answer.value.status == 200
    state = settled(tv, "tv", live_table)
    assert state["correction"]["by"] == "Cat"
    tv.wait_for_selector("#correction-note:not([hidden])")
    assert tv.text_content("#correction-note") == "corrected by Cat"
    # remembered for the next correction, without making the phone a player
    assert phone.evaluate("localStorage.getItem('zilch.corrector')") == "Cat"
    assert phone.evaluate("localStorage.getItem('zilch.name')") is None
    assert not phone.js_errors and not tv.js_errors


def test_the_dice_seen_are_shown_apart_when_their_number_is_not_the_roll_s(
    live_table: LiveTable, page_for: Any
) -> None:
    watcher = live_table.service.hardware.watcher
    sure = watcher.read

    def five_seen(frame: Any, expected: int | None = None) -> Reading:
        reading = sure(frame, expected)
        return Reading(reading.dice[:5], False, "5 dice seen, 6 expected")

    watcher.read = five_seen
    try:
        live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
        phone = _phone_as(page_for, live_table, "Ann")
        live_table.post("/api/roll")
        assert settled(phone, "play", live_table)["phase"] == "fix_tray"
    finally:
        watcher.read = sure
    phone.wait_for_selector("#correct-seen:not([hidden]) img.die-picture")
    assert phone.locator("#correct-seen img.die-picture").count() == 5
    assert phone.locator("#correct-dice [data-die]").count() == 6
    assert phone.locator("#correct-dice img").count() == 0
    assert not phone.js_errors


def test_the_pictures_come_once_the_pin_is_entered(live_table: LiveTable, page_for: Any) -> None:
    # a phone opened at the table without the PIN: the panel shows the dice as read, and
    # the camera's pictures of them (which need the PIN) as soon as it is entered, with no
    # reload
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    phone = page_for(**PHONE)
    phone.goto(live_table.url + "/play")
    phone.wait_for_selector("#connection[data-online='true']")
    live_table.post("/api/roll")
    offer = settled(phone, "play", live_table)["correctable"]
    phone.wait_for_selector("#correct-panel:not([hidden])")
    assert phone.locator("#correct-dice [data-die]").count() == offer["count"]
    assert phone.locator("#correct-dice img").count() == 0
    phone.fill("#pin-input", TABLE_PIN)
    phone.click("#pin-form button[type=submit]")
    phone.wait_for_selector("#correct-dice .die-button img.die-picture")
    assert phone.locator("#correct-dice img.die-picture").count() == offer["count"]
    assert not phone.js_errors
