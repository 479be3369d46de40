"""Host mode (club): calls, second calls, skips, late joiners, announcements, schedule."""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime

import pytest

from server.host import next_game, parse_schedule
from server.service import TableService
from tests.server.conftest import FAST, QUICK_SHAKE, make_config


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def wait_for(check, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.01)


@pytest.fixture
def club(tmp_path):  # type: ignore[no-untyped-def]
    clock = FakeClock()
    config = make_config(
        tmp_path / "state",
        QUICK_SHAKE
        + '[host]\ncall_timeout_s = 30\nschedule = ["Mon 15:30", "Wed 09:30", "Fri 15:30"]\n',
    )
    table = TableService(
        config,
        sim=True,
        seed=4,
        timing=FAST,
        sim_settle_s=0.0,
        clock=clock,
        wall_clock=lambda: datetime(2026, 11, 30, 16, 0),  # a Monday afternoon
    )
    table.start()
    yield table, clock
    table.stop()


def _announcement(table: TableService) -> dict:
    return table.state()["announcement"] or {}


def test_a_quiet_table_has_published_its_own_last_step(club) -> None:  # type: ignore[no-untyped-def]
    """The host's second call keeps the table in ``ready``: until the TV and phones
    have been sent it, ``wait_quiet`` does not say the table waits for people."""
    table, clock = club
    table.new_game("club", {}, ["Ben", "Ann"])
    assert table.wait_quiet(10)
    publish = table.controller._publish
    held, release = threading.Event(), threading.Event()

    def slow_publish(state):  # type: ignore[no-untyped-def]
        if state.announcement is not None and state.announcement.kind == "call_again":
            held.set()
            release.wait(20)
        publish(state)

    table.controller._publish = slow_publish
    clock.advance(30)
    try:
        assert held.wait(10), "no second call"
        assert table.controller.state.phase.value == "ready"
        assert not table.wait_quiet(0.5), "quiet while the second call was not yet published"
    finally:
        release.set()
    assert table.wait_quiet(10)
    assert table.state()["announcement"]["kind"] == "call_again"


def test_host_calls_calls_again_then_skips(club) -> None:  # type: ignore[no-untyped-def]
    table, clock = club
    state = table.new_game("club", {}, ["Ben", "Ann"])
    assert state["current"] == "Ann"  # club order is alphabetical
    assert _announcement(table)["kind"] == "call"
    assert "Ann, it's your turn." in _announcement(table)["text"]
    first_seq = _announcement(table)["seq"]
    clock.advance(29)
    time.sleep(0.4)
    assert _announcement(table)["seq"] == first_seq  # not yet
    clock.advance(1)
    wait_for(lambda: _announcement(table).get("kind") == "call_again")
    assert "Ann, second call" in _announcement(table)["text"]
    clock.advance(30)
    wait_for(lambda: table.state()["current"] == "Ben")
    state = table.state()
    assert _announcement(table)["kind"] == "skip"
    assert "Ann did not answer" in state["announcement"]["text"]
    assert "Ben, it's your turn." in state["announcement"]["text"]
    assert any(e["kind"] == "skip" and e["player"] == "Ann" for e in state["log"])
    ann = next(p for p in state["players"] if p["name"] == "Ann")
    assert ann["score"] == 0 and ann["streak"] == 0 and ann["zilches"] == 0
    assert table.store.record(state["game_id"])["actions"] == [{"skip": True}]


def test_the_hosts_skip_is_announced_once(club) -> None:  # type: ignore[no-untyped-def]
    table, clock = club
    table.new_game("club", {}, ["Ben", "Ann"])
    clock.advance(30)
    wait_for(lambda: _announcement(table).get("kind") == "call_again")
    clock.advance(30)
    wait_for(lambda: table.state()["current"] == "Ben")
    text = _announcement(table)["text"]
    assert text.count("Ann") == 1, text
    assert "does not answer: the turn is skipped" not in text


def test_a_player_who_answers_is_not_called_again(club) -> None:  # type: ignore[no-untyped-def]
    table, clock = club
    table.new_game("club", {}, ["Ann", "Ben"])
    table.roll()
    assert table.wait_quiet()
    current = table.state()["current"]
    seq = table.state()["seq"]
    if current != "Ann":
        pytest.skip("Ann zilched at once; the call moved on")
    clock.advance(120)
    time.sleep(0.5)
    assert table.state()["seq"] == seq and table.state()["current"] == "Ann"


def test_late_joiners_and_score_announcements(club) -> None:  # type: ignore[no-untyped-def]
    table, _ = club
    state = table.new_game("club", {}, ["Ann", "Ben"])
    assert state["table"]["join_open"] is True
    table.join("Cy")
    assert [p["name"] for p in table.state()["players"]] == ["Ann", "Ben", "Cy"]
    for _ in range(6):  # two rounds of skipped turns
        table.skip()
    state = table.state()
    assert state["round"] == 3
    assert "Scores after round 2" in state["announcement"]["text"]
    assert state["table"]["join_open"] is False
    with pytest.raises(ValueError):
        table.join("Dee")


def test_non_club_games_are_not_hosted(club) -> None:  # type: ignore[no-untyped-def]
    table, clock = club
    table.new_game("dicenow", {}, ["Ann", "Ben"])
    clock.advance(1000)
    time.sleep(0.4)
    assert table.state()["current"] == "Ann"
    assert table.state()["announcement"] is None


def test_next_game_on_the_idle_screen(club) -> None:  # type: ignore[no-untyped-def]
    table, _ = club
    assert table.state()["table"]["next_game"] == "Wed 09:30"


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (datetime(2026, 11, 30, 15, 29), "Mon 15:30"),  # Monday, just before
        (datetime(2026, 11, 30, 15, 30), "Wed 09:30"),  # Monday, at the time: the next one
        (datetime(2026, 12, 4, 18, 0), "Mon 15:30"),  # Friday evening: wraps to Monday
        (datetime(2026, 12, 6, 12, 0), "Mon 15:30"),  # Sunday
    ],
)
def test_next_game(now: datetime, expected: str) -> None:
    assert next_game(["Mon 15:30", "Wed 09:30", "Fri 15:30"], now) == expected


def test_empty_schedule_and_bad_entries() -> None:
    assert next_game([], datetime(2026, 11, 30)) is None
    assert parse_schedule(["Wednesday 9:05"]) == [(2, 9, 5)]
    with pytest.raises(ValueError, match="Mon 15:30"):
        parse_schedule(["someday 10:00"])


@pytest.mark.slow
def test_a_hosted_game_to_the_end_announces_the_final_round_and_the_lead(club) -> None:  # type: ignore[no-untyped-def]
    table, _ = club
    table.new_game("club", {"target": 1000}, ["Cy", "Di"], {"Cy": "dicenow", "Di": "dicenow"})
    wait_for(lambda: table.state()["finished"], timeout=120)
    rows = table.store._reader.execute("SELECT snapshot, log FROM journal ORDER BY seq").fetchall()
    texts = [e["text"] for row in rows for e in json.loads(row["log"])]
    spoken = [json.loads(row["snapshot"])["announcement"] for row in rows]
    assert any("Scores after round" in t for t in texts)
    assert any("take the lead" in t or "keeps the lead" in t for t in texts)
    said = {a["text"] for a in spoken if a}
    assert any("take the lead" in t or "keeps the lead" in t for t in said)
    assert any(t.endswith("it's your turn.") for t in said)
    state = table.state()
    assert state["announcement"]["kind"] == "game_over"
    assert state["winners"][0] in state["announcement"]["text"]
