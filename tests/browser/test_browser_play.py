"""The phone control in headless Chromium against the real service on the simulated tower."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tower_pages import TABLE_PIN, LiveTable, harness, settled

pytestmark = pytest.mark.browser

PHONE = {"width": 412, "height": 915, "is_mobile": True, "has_touch": True}


def open_phone(page_for: Any, live_table: LiveTable, pin: str | None = TABLE_PIN) -> Any:
    """The phone page, with the PIN arriving through the TV's QR link when given."""
    page = page_for(**PHONE)
    page.goto(live_table.url + "/play" + (f"#pin={pin}" if pin else ""))
    page.wait_for_selector("#connection[data-online='true']")
    return page


def wait_phase(page: Any, *phases: str) -> str:
    """Wait until the phone shows one of ``phases``; the phase it shows."""
    page.wait_for_function(
        "phases => phases.includes(document.getElementById('play').dataset.phase)",
        arg=list(phases),
        timeout=15000,
    )
    return str(page.eval_on_selector("#play", "el => el.dataset.phase"))


@pytest.mark.slow
def test_phone_plays_a_whole_turn(live_table: LiveTable, page_for: Any, artifacts: Path) -> None:
    page = open_phone(page_for, live_table)
    assert page.evaluate("localStorage.getItem('zilch.pin')") == TABLE_PIN
    assert "pin=" not in page.url, "the PIN stays out of the address bar"

    page.fill("#ng-players", "Ann\nBen")
    page.click("#new-game-form button[type=submit]")
    wait_phase(page, "ready")
    page.fill("#join-name", "Ann")
    page.click("#join-form button[type=submit]")
    page.wait_for_selector("#join-panel", state="hidden")
    assert page.evaluate("localStorage.getItem('zilch.name')") == "Ann"
    assert page.text_content("#status") == "Your turn, Ann!"
    assert live_table.service.state()["current"] == "Ann"

    # Ann plays from the phone: keep the best set-aside, bank as soon as the rules allow.
    # Ben's turns (after a zilch of Ann's) are played through the API, the same way.
    kept = 0
    for _ in range(80):
        state = settled(page, "play", live_table)
        ann = next(p for p in state["players"] if p["name"] == "Ann")
        if ann["score"]:
            break
        turn = state["turn"]
        if state["current"] != "Ann":
            assert page.is_disabled("#roll") and page.is_disabled("#bank")
            if state["phase"] == "choose":
                live_table.post("/api/keep", {"keep": turn["best"]["dice"]})
            elif turn["can_bank"] and turn["total"]:
                live_table.post("/api/bank")
            else:
                live_table.post("/api/roll")
        elif state["phase"] == "ready" and turn["total"] and page.is_enabled("#bank"):
            assert page.text_content("#bank") == f"BANK {turn['total']:,}"
            page.click("#bank")
        elif state["phase"] == "ready":
            page.click("#roll")
        else:
            assert state["phase"] == "choose", state["message"]
            best = turn["best"]
            for value in best["dice"]:
                index = page.eval_on_selector_all(
                    "#dice .die-button",
                    "(els, v) => els.findIndex(e => !e.classList.contains('selected')"
                    " && e.querySelector('[data-die]').dataset.die === String(v))",
                    value,
                )
                page.click(f"#dice .die-button[data-index='{index}']")
            assert page.text_content("#keep") == f"Set aside for {best['points']:,}"
            if not kept:
                page.screenshot(path=str(artifacts / "phone-choose.png"))
            page.click("#keep")
            kept += 1
        page.wait_for_function(
            "seq => Number(document.getElementById('play').dataset.seq) > seq", arg=state["seq"]
        )

    state = settled(page, "play", live_table)
    ann = next(p for p in state["players"] if p["name"] == "Ann")
    assert ann["score"] > 0 and kept >= 1, [e["text"] for e in state["log"]]
    assert any(e["text"].startswith(f"Ann banks {ann['score']:,}") for e in state["log"]), [
        e["text"] for e in state["log"]
    ]
    assert state["current"] == "Ben", "the bank did not end Ann's turn"
    assert page.text_content("#status") == "Ben's turn"
    assert page.is_disabled("#roll"), "this phone plays as Ann, not Ben"
    assert f"{ann['score']:,}" in page.text_content("#scores")
    page.screenshot(path=str(artifacts / "phone-after-turn.png"))
    assert page.js_errors == []


def test_phone_refuses_a_set_aside_that_does_not_score(
    live_table: LiveTable, page_for: Any
) -> None:
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    page = open_phone(page_for, live_table)
    page.wait_for_selector("#roll:not([disabled])")
    page.click("#roll")
    wait_phase(page, "choose")
    state = live_table.service.state()
    dead = [v for v in state["turn"]["roll"] if v not in (1, 5)]
    assert dead, f"the fixed seed's first roll {state['turn']['roll']} should have a dead die"
    index = page.eval_on_selector_all(
        "#dice [data-die]", "(els, v) => els.findIndex(e => e.dataset.die === String(v))", dead[0]
    )
    page.click(f"#dice .die-button[data-index='{index}']")
    assert "does not score" in page.text_content("#selection")
    assert page.is_disabled("#keep")


def test_phone_shows_the_engines_refusal_in_plain_words(
    live_table: LiveTable, page_for: Any
) -> None:
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    live_table.post("/api/roll")
    assert live_table.service.wait_quiet(10)
    assert live_table.service.state()["table"]["join_open"] is False
    page = open_phone(page_for, live_table)
    assert "takes no new players now" in page.text_content("#join-help")
    page.fill("#join-name", "Cleo")
    page.click("#join-form button[type=submit]")
    page.wait_for_selector("#error:not([hidden])")
    assert page.text_content("#error") == (
        "Cleo cannot join now: under dicenow players join before the first roll"
    )
    assert [p["name"] for p in live_table.service.state()["players"]] == ["Ann", "Ben"]


def test_phone_asks_for_the_pin_and_forgets_a_wrong_one(
    live_table: LiveTable, page_for: Any
) -> None:
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    page = open_phone(page_for, live_table, pin=None)
    assert page.is_visible("#pin-panel")
    page.fill("#pin-input", "0000")
    page.click("#pin-form button[type=submit]")
    page.click("#roll")
    page.wait_for_selector("#error:not([hidden])")
    assert "PIN" in page.text_content("#error")
    assert page.is_visible("#pin-panel")
    assert page.evaluate("localStorage.getItem('zilch.pin')") is None
    assert live_table.service.state()["phase"] == "ready", "a refused ROLL changed the table"


def test_a_phone_plays_only_its_own_players_turns(live_table: LiveTable, page_for: Any) -> None:
    live_table.post("/api/new-game", {"preset": "dicenow", "players": ["Ann", "Ben"]})
    assert live_table.service.wait_quiet(10)
    page = open_phone(page_for, live_table)
    page.wait_for_selector("#roll:not([disabled])")  # not identified: acts for anyone
    page.fill("#join-name", "Ben")
    page.click("#join-form button[type=submit]")
    page.wait_for_selector("#join-panel", state="hidden")
    assert page.text_content("#status") == "Ann's turn"
    assert page.is_disabled("#roll") and page.is_disabled("#bank")
    assert [p["name"] for p in live_table.service.state()["players"]] == ["Ann", "Ben"]

    page.click("#forget")
    page.wait_for_selector("#roll:not([disabled])")
    assert page.is_visible("#pin-panel"), "forgetting also forgets the PIN"


def test_new_game_form_adds_computer_players(live_table: LiveTable, page_for: Any) -> None:
    page = open_phone(page_for, live_table)
    assert page.is_visible("#new-game-form"), "with no game the form is open"
    page.select_option("#ng-preset", "club")
    page.fill("#ng-players", "Ann")
    page.click("#ng-add-bot")
    page.fill("#ng-bots .bot-row:last-child .bot-name", "Robo")
    page.select_option("#ng-bots .bot-row:last-child .bot-kind", "optimal")
    page.click("#new-game-form button[type=submit]")
    page.wait_for_selector("#notice:not([hidden])")
    state = live_table.service.state()
    assert state["preset"] == "club"
    assert {p["name"]: p["bot"] for p in state["players"]} == {"Ann": None, "Robo": "optimal"}
    assert page.js_errors == []


def test_phone_offers_roll_once_the_tray_is_straightened(example_table: str, page_for: Any) -> None:
    page = page_for(**PHONE)
    page.goto(example_table + "/play#pin=2468")
    page.wait_for_selector("#play[data-phase='choose']")
    harness(example_table, "use/fix_tray")
    page.wait_for_selector("#play[data-phase='fix_tray']")
    assert "Straighten the tray" in page.text_content("#message")
    assert page.is_enabled("#roll"), "ROLL tells the tower the tray is straight again"
    assert page.locator("#dice .die-button[disabled]").count() == 6
    assert page.is_disabled("#keep")
