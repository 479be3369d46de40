"""The table's state value: its journal snapshot round-trips, and bad snapshots are named."""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError, replace

import pytest

from server.table_state import (
    Announcement,
    LastShake,
    SnapshotError,
    TablePhase,
    TableState,
)

SNAPSHOT = {
    "phase": "remove_dice",
    "message": "Take out 1 5 from the tray.",
    "reading": {
        "dice": [{"value": 1, "center": [1, 2], "confidence": 0.9}],
        "ok": True,
        "reason": "",
    },
    "in_tray": 6,
    "expect_tray": [2, 3, 4, 6],
    "then": "bank",
    "tries": 1,
    "announcement": {"seq": 4, "text": "Ann, it's your turn.", "kind": "call"},
    "refused": None,
    "preset": "club",
    "house_rules": {"target": 5000},
    "bots": {"Cy": "dicenow"},
    "last_shake": {"shake_s": 0.42, "tumble_s": 0.82},
}


def test_a_snapshot_reads_back_to_the_same_json() -> None:
    state = TableState.from_json(json.loads(json.dumps(SNAPSHOT)))
    assert state.phase is TablePhase.REMOVE_DICE and state.expect_tray == (2, 3, 4, 6)
    assert state.announcement == Announcement(4, "Ann, it's your turn.", "call")
    assert state.last_shake == LastShake(0.42, 0.82)
    assert state.to_json() == SNAPSHOT
    assert list(state.to_json()) == list(SNAPSHOT)  # the journal's keys, in the journal's order


def test_an_old_row_without_fields_takes_the_defaults() -> None:
    state = TableState.from_json({"phase": "ready"})
    assert state == TableState(phase=TablePhase.READY)
    assert state.in_tray == 6 and state.announcement is None and state.bots == {}


def test_the_state_is_a_value() -> None:
    state = TableState()
    with pytest.raises(FrozenInstanceError):
        state.phase = TablePhase.READY  # type: ignore[misc]
    assert replace(state, phase=TablePhase.READY).phase is TablePhase.READY
    assert state.phase is TablePhase.IDLE


def test_phases_are_the_documents_words() -> None:
    assert [p.value for p in TablePhase] == [
        "idle", "ready", "shaking", "settling", "reading", "choose",
        "remove_dice", "return_dice", "fix_tray", "over",
    ]  # fmt: skip
    assert {p for p in TablePhase if p.busy} == {
        TablePhase.SHAKING,
        TablePhase.SETTLING,
        TablePhase.READING,
    }


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"phase": "dancing"}, "phase 'dancing'"),
        ({"then": "sleep"}, "then 'sleep'"),
        ({"in_tray": -1}, "in_tray -1"),
        ({"expect_tray": [1, 7]}, "expect_tray [1, 7]"),
        ({"announcement": {"seq": 1, "text": "x"}}, "announcement"),
        ({"announcement": {"seq": 1, "text": "x", "kind": "shout"}}, "kind one of"),
        ({"last_shake": {"shake_s": "slow"}}, "last_shake"),
        ({"bots": ["Cy"]}, "bots ['Cy']"),
        ({"message": 3}, "message 3"),
    ],
)
def test_a_bad_snapshot_is_refused_naming_the_field(change: dict, named: str) -> None:
    with pytest.raises(SnapshotError, match=named.replace("[", r"\[").replace("]", r"\]")):
        TableState.from_json({**SNAPSHOT, **change})


def test_a_snapshot_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(SnapshotError, match="is an object"):
        TableState.from_json(["ready"])


def test_a_correction_is_kept_in_the_snapshot() -> None:
    from server.table_state import Correction

    correction = Correction("Ann", (1, 2, 3, 4, 6, 6), (2, 2, 3, 4, 6, 6), "Cat")
    state = replace(TableState.from_json(SNAPSHOT), correction=correction)
    snapshot = json.loads(json.dumps(state.to_json()))
    assert snapshot["correction"]["by"] == "Cat"
    assert TableState.from_json(snapshot).correction == correction
    for bad, message in [
        ({**snapshot["correction"], "dice": [7]}, "die values 1..6"),
        ({**snapshot["correction"], "by": 5}, "player and by are names"),
        ({"player": "Ann"}, "correction"),
    ]:
        with pytest.raises(SnapshotError, match=message):
            TableState.from_json({**snapshot, "correction": bad})


def test_a_paused_table_round_trips_and_others_keep_the_old_format() -> None:
    paused = TableState.from_json({**SNAPSHOT, "paused": True})
    assert paused.paused and paused.to_json() == {**SNAPSHOT, "paused": True}
    assert "paused" not in TableState.from_json(SNAPSHOT).to_json()
    with pytest.raises(SnapshotError, match="paused"):
        TableState.from_json({**SNAPSHOT, "paused": "yes"})
