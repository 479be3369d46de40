"""The TV display in headless Chromium against the real service on the simulated tower."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import cv2
import pytest
from tower_pages import ADMIN_PIN, TABLE_PIN, LiveTable, harness, tv_on_a_new_game, wait_for_seq

pytestmark = pytest.mark.browser


def tray_values(page: Any) -> list[int]:
    """The values of the dice drawn in the TV's tray, in order."""
    values = page.eval_on_selector_all("#tray [data-die]", "els => els.map(e => e.dataset.die)")
    return [int(v) for v in values]


def test_tv_shows_a_new_roll_without_a_reload(
    live_table: LiveTable, page_for: Any, artifacts: Path
) -> None:
    page = tv_on_a_new_game(live_table, page_for)
    page.evaluate("window.loadedOnce = 'still here'")
    assert tray_values(page) == []

    live_table.post("/api/roll")
    assert live_table.service.wait_quiet(10)
    state = live_table.service.state()
    wait_for_seq(page, "tv", state["seq"])

    assert tray_values(page) == sorted(state["turn"]["roll"])
    assert page.evaluate("window.loadedOnce") == "still here", "the page reloaded"
    assert page.text_content("#current") == state["current"]
    names = page.eval_on_selector_all(".player-name", "els => els.map(e => e.textContent)")
    assert names == [p["name"] for p in state["players"]]
    if state["turn"]["options"]:
        assert page.locator(".option.best").count() == 1
    page.screenshot(path=str(artifacts / "tv-roll.png"))
    assert page.js_errors == []


def test_tv_qr_code_opens_the_phone_page_with_the_pin(
    live_table: LiveTable, page_for: Any, artifacts: Path
) -> None:
    page = page_for()
    page.goto(live_table.url + "/")
    page.wait_for_selector("#idle:not([hidden])")
    shot = artifacts / "tv-qr.png"
    page.locator("#idle .qr").screenshot(path=str(shot))
    image = cv2.imread(str(shot))
    image = cv2.copyMakeBorder(image, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert text.endswith(f"/play#pin={TABLE_PIN}"), text
    assert TABLE_PIN in page.text_content("#idle .idle-join")


def test_tv_idle_screen_shows_next_game_and_records(
    live_table: LiveTable, page_for: Any, artifacts: Path
) -> None:
    page = page_for()
    page.goto(live_table.url + "/")
    page.wait_for_selector("#idle:not([hidden])")
    assert live_table.service.state()["table"]["next_game"] is None  # none configured
    page.wait_for_selector("#records-empty:not([hidden])")
    assert page.is_hidden("#idle-next"), "no made-up schedule on a fresh install"
    page.screenshot(path=str(artifacts / "tv-idle.png"))
    assert page.js_errors == []


@pytest.mark.slow
def test_tv_follows_a_game_action_by_action(
    live_table: LiveTable, page_for: Any, artifacts: Path
) -> None:
    page = tv_on_a_new_game(live_table, page_for)
    for _ in range(10):
        state = live_table.service.state()
        if state["phase"] == "choose":
            live_table.post("/api/keep", {"keep": state["turn"]["best"]["dice"]})
        elif state["turn"]["can_bank"] and state["turn"]["total"]:
            live_table.post("/api/bank")
        else:
            live_table.post("/api/roll")
        assert live_table.service.wait_quiet(10)
        wait_for_seq(page, "tv", live_table.service.state()["seq"])
        shown = live_table.service.state()
        if shown["phase"] == "choose" and shown["turn"]["set_aside"]:
            page.screenshot(path=str(artifacts / "tv-game.png"))
        # the roll while it is being chosen from; afterwards the dice the camera sees
        seen = [d["value"] for d in (shown["reading"] or {}).get("dice", [])]
        assert tray_values(page) == sorted(shown["turn"]["roll"] or seen)
        assert page.text_content("#turn-total") == f"{shown['turn']['total']:,}"
    assert page.locator("#log li").count() == min(12, len(shown["log"]))
    assert page.js_errors == []


def test_tv_page_does_not_grow_over_hundreds_of_events(example_table: str, page_for: Any) -> None:
    page = page_for()
    page.goto(example_table + "/")
    page.wait_for_selector("#game:not([hidden])")
    count = "document.getElementsByTagName('*').length"
    cycle = ["use/fix_tray", "announce?text=Ben%2C+it%27s+your+turn.", "use/choose"]
    for name in cycle:
        wait_for_seq(page, "tv", harness(example_table, name))
    before = page.evaluate(count)
    for _ in range(100):
        for name in cycle:
            seq = harness(example_table, name)
    wait_for_seq(page, "tv", seq)
    assert page.evaluate(count) == before
    assert page.js_errors == []


def test_tv_draws_each_kind_of_table(example_table: str, page_for: Any, artifacts: Path) -> None:
    page = page_for()
    page.add_init_script(
        "window.spoken = [];window.speechSynthesis.speak = (u) => window.spoken.push(u.text);"
    )
    page.goto(example_table + "/")
    page.wait_for_selector("#game:not([hidden])")
    assert page.locator("#tray .die").count() == 6
    assert page.locator("#set-aside [data-die='1']").count() == 3
    assert "★" in page.text_content(".option.best")
    assert page.text_content("#zilch-chance") == "16%"
    assert page.is_hidden("#announcement"), "an announcement made before the page loaded"
    assert page.is_hidden("#play-again"), "play again shows only once the game is over"

    wait_for_seq(page, "tv", harness(example_table, "use/fix_tray"))
    assert page.locator("#tray .die.unsure").count() == 5
    assert "5 dice seen" in page.text_content("#reading-note")
    assert "Straighten" in page.text_content("#message")
    page.screenshot(path=str(artifacts / "tv-fix-tray.png"))

    page.click("#speech-toggle")
    assert page.text_content("#speech-toggle") == "Speech off"
    wait_for_seq(page, "tv", harness(example_table, "announce?text=Final+round%21"))
    assert page.text_content("#announcement") == "Final round!"
    assert page.evaluate("window.spoken") == [], "spoke while switched off"
    page.click("#speech-toggle")
    wait_for_seq(page, "tv", harness(example_table, "announce?text=Ben+needs+350."))
    assert page.evaluate("window.spoken") == ["Ben needs 350."]

    wait_for_seq(page, "tv", harness(example_table, "use/over"))
    assert page.text_content("#winner .winner-title") == "Dmitri wins!"
    assert page.is_hidden("#tray")
    # the band under the table says how to play again, where the odds and coach stood
    assert page.is_visible("#play-again") and page.is_hidden("#zilch-chance")
    assert "Play again with the same players" in page.text_content("#play-again")
    winner, side = page.locator("#winner").bounding_box(), page.locator(".side").bounding_box()
    assert winner["x"] + winner["width"] <= side["x"], "the winner covers the log"
    assert page.evaluate("window.spoken")[-1] == "Dmitri wins with 10,350!"
    page.screenshot(path=str(artifacts / "tv-over.png"))

    wait_for_seq(page, "tv", harness(example_table, "use/crowd"))
    bottoms = page.eval_on_selector_all(
        "#players .player", "els => els.map(e => e.getBoundingClientRect().bottom)"
    )
    assert len(bottoms) == 20 and max(bottoms) <= 0.95 * 1080, "a club table must fit the TV"
    page.screenshot(path=str(artifacts / "tv-crowd.png"))

    wait_for_seq(page, "tv", harness(example_table, "use/idle"))
    page.wait_for_selector("#records tbody tr")
    assert page.locator("#records tbody tr").count() == 2
    assert page.text_content("#next-game") == "Wed 09:30"
    page.screenshot(path=str(artifacts / "tv-idle-records.png"))
    assert page.js_errors == []


def test_tv_opens_a_new_stream_when_the_browser_gives_up(example_table: str, page_for: Any) -> None:
    page = page_for()
    refused = []

    def first_refused(route: Any) -> None:
        if not refused:
            refused.append(route.request.url)
            route.fulfill(status=503, body="the tower is starting")
        else:
            route.continue_()

    page.route("**/api/events", first_refused)
    page.goto(example_table + "/")
    page.wait_for_selector("#connection[data-online='false']")
    page.wait_for_selector("#connection[data-online='true']", timeout=15000)
    assert len(refused) == 1
    seq = harness(example_table, "use/fix_tray")
    wait_for_seq(page, "tv", seq)
    assert "Straighten" in page.text_content("#message")
    assert page.js_errors == []


def test_tv_speaks_the_hosts_call_once_speech_is_switched_on(
    live_table: LiveTable, page_for: Any
) -> None:
    page = page_for()
    page.add_init_script(
        "window.spoken = [];window.speechSynthesis.speak = (u) => window.spoken.push(u.text);"
    )
    page.goto(live_table.url + "/")
    page.wait_for_selector("#idle:not([hidden])")
    assert page.is_disabled("#speech-toggle"), "the configuration switched speech off"

    request = urllib.request.Request(
        live_table.url + "/api/settings",
        data=json.dumps({"speech": True}).encode(),
        headers={"Content-Type": "application/json", "X-Admin-Pin": ADMIN_PIN},
        method="POST",
    )
    urllib.request.urlopen(request, timeout=30).close()
    page.wait_for_selector("#speech-toggle:not([disabled])")
    assert page.text_content("#speech-toggle") == "Speech on"

    live_table.post("/api/new-game", {"preset": "club", "players": ["Ann", "Ben"]})
    assert live_table.service.wait_quiet(10)
    call = live_table.service.state()["announcement"]
    assert call and "Ann" in call["text"]
    page.wait_for_function("text => window.spoken.includes(text)", arg=call["text"])
    assert page.text_content("#announcement") == call["text"]
    assert page.js_errors == []


LAYOUT = """() => {
  const boxes = [];
  for (const el of document.querySelectorAll('#tv *')) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || el.closest('[hidden]')) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    const text = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    boxes.push({left: r.left, top: r.top, right: r.right, bottom: r.bottom,
                font: text ? size : null, id: el.id || el.className.baseVal || el.className});
  }
  return boxes;
}"""


def whole_set_asides(page: Any) -> int:
    """How many set-asides the TV shows, having checked that each is whole (none cut at
    the foot of the table) and that they and the "+N more" count every option."""
    bottom = page.eval_on_selector(".table", "el => el.getBoundingClientRect().bottom")
    rows = page.eval_on_selector_all(
        "#options li",
        "els => els.map(e => [e.className, e.textContent, e.getBoundingClientRect().bottom])",
    )
    assert rows and all(b <= bottom for _, _, b in rows), f"a set-aside cut at {bottom}: {rows}"
    shown = [text for kind, text, _ in rows if "more" not in kind]
    assert "★" in shown[0] and "1,100" in shown[0], "the best set-aside comes first"
    more = [int(text.strip("+ more")) for kind, text, _ in rows if "more" in kind]
    assert len(shown) + sum(more) == 11 and len(more) <= 1, rows
    return len(shown)


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1920, 1080)])
def test_tv_shows_whole_set_asides_and_counts_the_rest(
    example_table: str, page_for: Any, width: int, height: int
) -> None:
    page = page_for(2 * width, height)
    page.goto(example_table + "/")
    wait_for_seq(page, "tv", harness(example_table, "use/many_options"))
    assert "corrected by Cat" in page.text_content("#correction-note")
    wide = whole_set_asides(page)
    assert wide <= 6, "seven at most, the seventh place saying how many more"
    # a narrower window wraps the list onto more rows: the TV fits it again
    page.set_viewport_size({"width": width, "height": height})
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => setTimeout(done)))")
    assert whole_set_asides(page) < wide
    assert page.js_errors == []


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1920, 1080), (3840, 2160)])
def test_tv_keeps_to_the_safe_area_and_scales_its_text(
    example_table: str, page_for: Any, width: int, height: int
) -> None:
    page = page_for(width, height)
    page.goto(example_table + "/")
    slack = 1.0
    for name in ("crowd", "idle", "fix_tray", "choose"):
        wait_for_seq(page, "tv", harness(example_table, f"use/{name}"))
        if name == "idle":
            page.wait_for_selector("#records tbody tr")  # fetched after the state arrives
        boxes = page.evaluate(LAYOUT)
        for box in boxes:
            assert 0.05 * width - slack <= box["left"] <= box["right"] <= 0.95 * width + slack, (
                name,
                box,
            )
            assert 0.05 * height - slack <= box["top"] <= box["bottom"] <= 0.95 * height + slack, (
                name,
                box,
            )
        if name != "crowd":  # twenty players' cards use smaller text on purpose
            smallest = min(box["font"] for box in boxes if box["font"])
            assert smallest >= 18 * height / 1080, f"{name}: text of {smallest:.1f} px at {height}p"
    current = page.eval_on_selector("#current", "el => parseFloat(getComputedStyle(el).fontSize)")
    assert current >= 80 * height / 1080
