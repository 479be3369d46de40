"""The moments of a turn, the stale tray and the announcement band, on the TV and the phone."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from tower_pages import TABLE_PIN, LiveTable, harness, tv_on_a_new_game, wait_for_seq

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844, "is_mobile": True, "has_touch": True}

# Records each moment shown (kind, when it appeared and went) and each tone the TV plays,
# and whether the moment or an announcement ever overlapped the tray, the current player
# or the set-asides while shown.
WATCH = """
window.moments = [];
window.tones = [];
window.overlaps = [];
const overlap = (a, b) => a && b && a.width && b.width &&
  a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const check = () => {
  const shown = [...document.querySelectorAll(
    '#moment:not([hidden]), #announcement:not([hidden])')];
  for (const el of shown) {
    const box = el.getBoundingClientRect();
    for (const id of ['tray', 'current', 'options']) {
      const other = document.getElementById(id);
      if (other && !other.closest('[hidden]') && overlap(box, other.getBoundingClientRect())) {
        window.overlaps.push(el.id + ' over ' + id);
      }
    }
  }
  const el = document.querySelector('#moment:not([hidden])[data-moment]');
  const kind = el ? el.dataset.moment : null;
  const last = window.moments[window.moments.length - 1];
  if (last && !last.end && last.kind !== kind) last.end = performance.now();
  if (kind && (!last || last.end)) window.moments.push({kind, start: performance.now()});
  const tv = document.getElementById('tv');
  if (tv && tv.dataset.lastSound && tv.dataset.lastSound !== window.lastTone) {
    window.lastTone = tv.dataset.lastSound;
  }
};
new MutationObserver(check).observe(document, {subtree: true, childList: true, attributes: true});
new MutationObserver((records) => {
  for (const r of records) {
    if (r.attributeName === 'data-last-sound') window.tones.push(r.target.dataset.lastSound);
  }
}).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-last-sound']});
"""


def add_log(url: str, *entries: tuple[str, str, str, dict[str, Any]]) -> int:
    """Append log entries (kind, player, text, data) to the example table in one change."""
    query = []
    for kind, player, text, data in entries:
        query += [("kind", kind), ("player", player), ("text", text), ("data", json.dumps(data))]
    return harness(url, "log?" + urllib.parse.urlencode(query))


ZILCH = ("zilch", "Ann", "Zilch! Ann loses the turn's 300.", {"lost": 300, "streak": 3})
PENALTY = (
    "penalty",
    "Ann",
    "Ann loses 500 for a 3rd zilch in a row and has 2,750.",
    {"amount": 500, "score": 2750},
)
BANK = ("bank", "Dmitri", "Dmitri banks 650 and has 4,800.", {"points": 650, "score": 4800})
HOT = (
    "free_roll",
    "Ann",
    "Hot dice! All six dice scored: Ann must roll all six again.",
    {"total": 900, "compulsory": True},
)
ROLL = ("roll", "Ann", "Ann rolls 1 2 2 3 4 6.", {"dice": [1, 2, 2, 3, 4, 6]})


def test_tv_shows_each_moment_for_long_enough_beside_the_tray(
    example_table: str, page_for: Any, artifacts: Path
) -> None:
    page = page_for()
    page.add_init_script(WATCH)
    page.goto(example_table + "/")
    wait_for_seq(page, "tv", harness(example_table, "use/choose"))
    page.wait_for_selector("#game:not([hidden])")
    assert page.locator("[data-moment]").count() == 0, "nothing old is replayed on load"

    add_log(example_table, ZILCH, PENALTY)
    page.wait_for_selector("[data-moment='zilch']")
    assert "ZILCH" in page.text_content("#moment")
    page.screenshot(path=str(artifacts / "tv-moment-zilch.png"))
    add_log(example_table, BANK)
    add_log(example_table, HOT, ROLL)
    wait_for_seq(page, "tv", harness(example_table, "announce?text=Ben%2C+it%27s+your+turn."))
    page.wait_for_selector("#announcement:not([hidden])")
    page.wait_for_function("() => window.moments.filter(m => m.end).length >= 5", timeout=40000)

    moments = page.evaluate("window.moments")
    kinds = [m["kind"] for m in moments]
    assert kinds == ["zilch", "penalty", "bank", "hot-dice", "free-roll"], kinds
    for moment in moments:
        assert moment["end"] - moment["start"] >= 2500, moment
    assert page.evaluate("window.overlaps") == []
    assert page.evaluate("window.tones") == kinds, "each moment plays its tone"
    assert page.is_hidden("#moment") and page.locator("[data-moment]").count() == 0
    assert page.js_errors == []


def test_tv_is_silent_when_speech_is_off(example_table: str, page_for: Any) -> None:
    page = page_for()
    page.add_init_script(WATCH)
    page.goto(example_table + "/")
    wait_for_seq(page, "tv", harness(example_table, "use/choose"))
    page.click("#speech-toggle")
    add_log(example_table, BANK)
    page.wait_for_selector("[data-moment='bank']")
    assert "BANKED 650" in page.text_content("#moment")
    assert page.evaluate("window.tones") == []


def test_tv_marks_an_ended_turns_dice_stale(example_table: str, page_for: Any) -> None:
    page = page_for()
    page.goto(example_table + "/")
    wait_for_seq(page, "tv", harness(example_table, "use/after_zilch"))
    stale = page.eval_on_selector_all(
        "#tray [data-die]", "els => els.map(e => [e.dataset.die, e.hasAttribute('data-stale')])"
    )
    assert stale == [["2", True], ["3", True], ["4", True], ["4", True]]
    assert page.text_content("#tray-label") == "Ann's last roll"
    assert page.text_content("#current") == "Ben"
    opacity = page.eval_on_selector("#tray [data-die]", "e => getComputedStyle(e).opacity")
    assert float(opacity) < 0.6, "stale dice are visibly dimmed"

    wait_for_seq(page, "tv", harness(example_table, "use/ready"))
    assert page.locator("#tray [data-stale]").count() == 0
    assert page.locator("#tray [data-die]").count() == 3, "Ann's own dice left in the tray"
    assert page.text_content("#tray-label") == "In the tray"
    assert page.text_content("#phase") == "Press ROLL", "no BANK offered under the minimum"
    page.wait_for_function(
        "() => document.getElementById('bank-status').textContent === 'Needs 300 to get on board'"
    )

    wait_for_seq(page, "tv", harness(example_table, "use/free_roll"))
    assert page.locator("#tray [data-die]").count() == 0
    assert page.text_content("#tray .tray-empty") == "Free roll: 6 dice next"
    assert page.js_errors == []


@pytest.mark.slow
def test_tv_tray_after_the_turn_passes_in_a_real_game(
    live_table: LiveTable, page_for: Any, artifacts: Path
) -> None:
    page = tv_on_a_new_game(live_table, page_for)
    assert page.locator("#tray [data-die]").count() == 0, "nothing rolled yet this game"
    for _ in range(30):
        state = live_table.service.state()
        if state["current"] != "Ann":
            break
        wait_for_seq(page, "tv", state["seq"])
        assert page.locator("#tray [data-stale]").count() == 0, "Ann's own dice are not stale"
        turn = state["turn"]
        if state["phase"] == "choose":
            live_table.post("/api/keep", {"keep": turn["best"]["dice"]})
        elif turn["can_bank"]:
            live_table.post("/api/bank")
        else:
            live_table.post("/api/roll")
        assert live_table.service.wait_quiet(10)
    state = live_table.service.state()
    assert state["current"] == "Ben"
    wait_for_seq(page, "tv", state["seq"])
    dice = page.locator("#tray [data-die]").count()
    assert dice > 0 and page.locator("#tray [data-stale]").count() == dice
    assert "Ann" in page.text_content("#tray-label")
    kind = "zilch" if any(e["kind"] == "zilch" for e in state["log"]) else "bank"
    page.wait_for_selector(f"[data-moment='{kind}']")
    page.screenshot(path=str(artifacts / "tv-stale-tray.png"))
    assert page.js_errors == []


SIZE_CHECK = """() => {
  let smallest = Infinity, where = '';
  for (const el of document.querySelectorAll('#tv *')) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || el.closest('[hidden]')) continue;
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < smallest) { smallest = size; where = el.id || String(el.className); }
  }
  const px = (sel) => parseFloat(getComputedStyle(document.querySelector(sel)).fontSize);
  const dice = document.querySelector('#set-aside .die').getBoundingClientRect().height;
  return {smallest, where, score: px('.player-score'), dice};
}"""


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1920, 1080), (3840, 2160)])
def test_tv_band_type_and_screens(
    example_table: str, page_for: Any, artifacts: Path, width: int, height: int
) -> None:
    page = page_for(width, height)
    page.add_init_script(WATCH)
    page.goto(example_table + "/")
    wait_for_seq(page, "tv", harness(example_table, "use/choose"))
    sizes = page.evaluate(SIZE_CHECK)
    assert sizes["smallest"] >= 28 * height / 1080 - 0.5, sizes
    assert sizes["score"] >= sizes["dice"], "scores at least as large as the set-aside dice"

    add_log(example_table, ZILCH)
    text = "Final round! Ben needs 1,250 to take the lead."
    harness(example_table, "announce?" + urllib.parse.urlencode({"text": text}))
    page.wait_for_selector("#announcement:not([hidden])")
    page.wait_for_selector("[data-moment='zilch']")
    band = page.locator("#band").bounding_box()
    for sel in ("#tray", "#current", "#options", ".options-box", "#players"):
        other = page.locator(sel).bounding_box()
        apart = (
            band["x"] >= other["x"] + other["width"]
            or other["x"] >= band["x"] + band["width"]
            or band["y"] >= other["y"] + other["height"]
            or other["y"] >= band["y"] + band["height"]
        )
        assert apart, f"the band overlaps {sel} at {width}x{height}"
    assert page.evaluate("window.overlaps") == []
    page.screenshot(path=str(artifacts / f"tv-band-{width}x{height}.png"))
    assert page.js_errors == []


def open_phone(page_for: Any, url: str, name: str | None = None) -> Any:
    page = page_for(**PHONE)
    page.add_init_script(WATCH)
    if name:
        page.add_init_script(f"localStorage.setItem('zilch.name', {json.dumps(name)})")
    page.goto(url + f"/play#pin={TABLE_PIN}")
    page.wait_for_selector("#connection[data-online='true']")
    return page


def test_phone_says_what_roll_and_bank_do(
    example_table: str, page_for: Any, artifacts: Path
) -> None:
    page = open_phone(page_for, example_table, "Ann")
    wait_for_seq(page, "play", harness(example_table, "use/choose"))
    assert page.is_disabled("#roll") and page.text_content("#roll") == "SET ASIDE FIRST"

    wait_for_seq(page, "play", harness(example_table, "use/ready"))
    assert page.is_enabled("#roll") and page.text_content("#roll") == "ROLL 3 DICE"
    page.wait_for_function("() => document.getElementById('bank').textContent.includes('needs')")
    assert page.is_disabled("#bank")
    assert page.text_content("#bank") == "BANKneeds 300 to get on board"
    page.screenshot(path=str(artifacts / "phone-ready.png"), full_page=True)

    wait_for_seq(page, "play", harness(example_table, "use/free_roll"))
    assert page.text_content("#roll") == "FREE ROLL — 6 DICE"
    assert page.is_enabled("#bank") and page.text_content("#bank") == "BANK 600"

    wait_for_seq(page, "play", harness(example_table, "use/choose"))
    ben = page.text_content("#scores [data-player='Ben']")
    assert "streak 2" in ben and "3 zilches" in ben
    assert page.locator("#phone-log li").count() == 5
    assert page.text_content("#phone-log li") == "Ann rolls 1 5 2 2 3 6."
    assert page.is_hidden("#final-note")
    start = ("turn_start", "Ann", "Ann's final turn.", {"final": True})
    wait_for_seq(page, "play", add_log(example_table, start))
    assert page.text_content("#final-note") == "Last turn: you need 950 to lead"
    assert page.text_content("#status") == "Your turn, Ann!"
    assert page.js_errors == []


def test_phone_shows_its_own_players_moments_only(
    example_table: str, page_for: Any, artifacts: Path
) -> None:
    page = open_phone(page_for, example_table, "Ann")
    wait_for_seq(page, "play", harness(example_table, "use/choose"))
    add_log(example_table, BANK)  # Dmitri's bank: not this phone's moment
    wait_for_seq(page, "play", add_log(example_table, ZILCH))
    page.wait_for_selector("#moment[data-moment='zilch']")
    page.screenshot(path=str(artifacts / "phone-moment-zilch.png"))
    page.wait_for_function("() => window.moments.filter(m => m.end).length >= 1", timeout=10000)
    moments = page.evaluate("window.moments")
    assert [m["kind"] for m in moments] == ["zilch"]
    assert moments[0]["end"] - moments[0]["start"] >= 2500
    assert page.js_errors == []


def test_phone_checks_the_pin_and_its_notices_fade(live_table: LiveTable, page_for: Any) -> None:
    page = page_for(**PHONE)
    page.goto(live_table.url + "/play")
    page.wait_for_selector("#pin-panel:not([hidden])")
    page.fill("#pin-input", "0000")
    page.click("#pin-form button[type=submit]")
    page.wait_for_selector("#error:not([hidden])")
    assert "not the table's PIN" in page.text_content("#error")
    assert page.evaluate("localStorage.getItem('zilch.pin')") is None
    assert page.is_visible("#pin-panel")
    page.fill("#pin-input", TABLE_PIN)
    page.click("#pin-form button[type=submit]")
    page.wait_for_selector("#notice:not([hidden])")
    assert page.text_content("#notice") == "PIN accepted and kept on this phone."
    assert page.is_hidden("#error") and page.is_hidden("#pin-panel")
    assert page.evaluate("localStorage.getItem('zilch.pin')") == TABLE_PIN
    page.wait_for_selector("#notice", state="hidden", timeout=8000)


def test_phone_confirms_before_replacing_a_running_game(
    live_table: LiveTable, page_for: Any, artifacts: Path
) -> None:
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    assert live_table.service.wait_quiet(10)
    game = live_table.service.state()["game_id"]
    page = open_phone(page_for, live_table.url)
    page.click("#new-game-panel summary")
    page.fill("#ng-players", "Cleo\nDev")
    page.click("#ng-add-bot")
    page.click("#new-game-form button[type=submit]")
    page.wait_for_selector("#error:not([hidden])")
    assert "has no name" in page.text_content("#error"), "an unnamed computer player"
    page.click("#ng-bots .bot-remove")
    page.click("#new-game-form button[type=submit]")
    page.wait_for_selector("#replace-panel:not([hidden])")
    assert "Ann 0, Ben 0" in page.text_content("#replace-text")
    page.screenshot(path=str(artifacts / "phone-confirm-new-game.png"), full_page=True)
    assert live_table.service.state()["game_id"] == game, "nothing changed before confirming"
    page.click("#replace-no")
    assert page.is_hidden("#replace-panel")
    assert live_table.service.state()["game_id"] == game

    page.click("#new-game-form button[type=submit]")
    page.click("#replace-yes")  # replacing a running game needs the admin PIN
    page.wait_for_selector("#error:not([hidden])")
    assert "admin PIN" in page.text_content("#error")
    assert live_table.service.state()["game_id"] == game
    page.fill("#replace-pin", TABLE_PIN)
    page.click("#replace-yes")
    page.wait_for_function(
        "() => document.getElementById('error').textContent.includes('admin PIN in the')"
    )
    assert live_table.service.state()["game_id"] == game, "a wrong admin PIN changes nothing"
    from tower_pages import ADMIN_PIN

    page.fill("#replace-pin", ADMIN_PIN)
    page.click("#replace-yes")
    page.wait_for_function(
        "g => Number(document.getElementById('play').dataset.seq) >= 0 &&"
        " document.getElementById('status').textContent.includes('Cleo')",
        arg=game,
    )
    state = live_table.service.state()
    assert state["game_id"] != game and [p["name"] for p in state["players"]] == ["Cleo", "Dev"]
    assert page.js_errors == []


def test_phone_plays_again_with_the_same_players(example_table: str, page_for: Any) -> None:
    page = open_phone(page_for, example_table)
    sent: list[Any] = []

    def capture(route: Any) -> None:
        sent.append(json.loads(route.request.post_data))
        route.fulfill(status=200, content_type="application/json", body="{}")

    page.route("**/api/new-game", capture)
    wait_for_seq(page, "play", harness(example_table, "use/over"))
    page.click("#play-again")
    page.wait_for_function(
        "() => document.getElementById('notice').textContent === 'New game started.'"
    )
    assert sent == [
        {
            "preset": "dicenow",
            "players": ["Ann", "Ben", {"name": "Cleo", "bot": "dicenow"}, "Dmitri"],
        }
    ]
    assert page.input_value("#ng-players") == "Ann\nBen\nDmitri", "the names are offered again"
    assert page.input_value("#ng-bots .bot-name") == "Cleo"


def test_history_fits_a_phone(live_table: LiveTable, page_for: Any, artifacts: Path) -> None:
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    live_table.post("/api/roll")
    assert live_table.service.wait_quiet(10)
    page = page_for(**PHONE)
    page.goto(live_table.url + "/history")
    page.wait_for_selector("#games tr[data-game]")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(artifacts / "phone-history.png"), full_page=True)
    page.click("#games tr[data-game] a")
    page.wait_for_selector("#game-log li")
    assert "Ann rolls" in page.text_content("#game-log")
    assert page.js_errors == []


def test_phone_skips_a_turn_after_asking_twice(live_table: LiveTable, page_for: Any) -> None:
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    assert live_table.service.wait_quiet(10)
    page = open_phone(page_for, live_table.url, "Ben")
    page.wait_for_selector("#skip:not([hidden])")
    assert page.text_content("#skip") == "Skip Ann's turn"
    page.click("#skip")
    assert page.text_content("#skip") == "Tap again to skip Ann's turn"
    assert live_table.service.state()["current"] == "Ann", "one tap does nothing"
    page.click("#skip")
    page.wait_for_function(
        "() => document.getElementById('status').textContent === 'Your turn, Ben!'"
    )
    log = live_table.service.state()["log"]
    assert any(e["kind"] == "skip" and e["player"] == "Ann" for e in log)
    assert page.js_errors == []


def test_a_turn_under_way_offers_no_skip(live_table: LiveTable, page_for: Any) -> None:
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    assert live_table.service.wait_quiet(10)
    page = open_phone(page_for, live_table.url, "Ann")
    page.wait_for_selector("#skip:not([hidden])")
    live_table.post("/api/roll")
    assert live_table.service.wait_quiet(10)
    state = live_table.service.state()
    assert state["phase"] == "choose" and state["current"] == "Ann", "a scoring roll (the seed)"
    live_table.post("/api/keep", {"keep": state["turn"]["best"]["dice"]})
    assert live_table.service.wait_quiet(10)
    assert live_table.service.state()["phase"] == "ready"
    page.wait_for_function("() => !document.getElementById('roll').disabled")
    assert page.is_hidden("#skip"), "Ann has rolled: she rolls on or banks"
    assert page.js_errors == []


def test_host_pauses_and_ends_a_game_from_a_phone(
    live_table: LiveTable, page_for: Any, artifacts: Path
) -> None:
    from tower_pages import ADMIN_PIN

    tv = tv_on_a_new_game(live_table, page_for)
    page = open_phone(page_for, live_table.url)
    page.click("#host-panel summary")
    page.fill("#admin-input", TABLE_PIN)
    page.click("#admin-form button[type=submit]")
    page.wait_for_selector("#error:not([hidden])")
    assert page.text_content("#error") == "That is not the admin PIN."
    page.fill("#admin-input", ADMIN_PIN)
    page.click("#admin-form button[type=submit]")
    page.wait_for_selector("#host-actions:not([hidden])")

    page.click("#pause")
    page.wait_for_function(
        "() => document.getElementById('status').textContent === 'Paused by the host'"
    )
    assert live_table.service.state()["paused"] is True
    assert page.is_disabled("#roll") and page.is_hidden("#skip"), "nothing to play while paused"
    tv.wait_for_function(
        "() => document.getElementById('phase').textContent === 'Paused by the host'"
    )
    page.screenshot(path=str(artifacts / "phone-host-paused.png"), full_page=True)
    page.click("#pause")
    page.wait_for_function(
        "() => document.getElementById('pause').textContent === 'Pause the game'"
    )
    assert live_table.service.state()["paused"] is False

    game = live_table.service.state()["game_id"]
    page.click("#end-game")
    assert live_table.service.state()["game_id"] == game, "one tap does nothing"
    page.click("#end-game")
    tv.wait_for_selector("#idle:not([hidden])")
    assert live_table.service.store.game(game).status == "abandoned"
    assert page.js_errors == [] and tv.js_errors == []
