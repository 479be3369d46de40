"""The simulator's helper hands: moves planned, journaled, then made; replayed from a journal."""

from __future__ import annotations

import json
import logging

import pytest

from firmware import SimulatedTower
from server.hands import (
    PutBack,
    Remove,
    Shake,
    SimClock,
    SimulatedHands,
    TowerOp,
    Turn,
    count_after,
    journaled_ops,
    tower_op_from_json,
)
from server.table_state import TablePhase


def _hands(seed: int = 5) -> SimulatedHands:
    clock = SimClock()
    return SimulatedHands(SimulatedTower(seed, settle_time_s=0.0, clock=clock), clock)


def _values(hands: SimulatedHands) -> list[int]:
    return sorted(d["value"] for d in hands.tower.tray())


def test_planned_moves_touch_no_die_until_performed() -> None:
    hands = _hands()
    rolled = _values(hands)
    kept = rolled[1:]  # the first die is set aside: the tray should keep the rest
    ops = hands.help(TablePhase.REMOVE_DICE, tuple(kept), len(kept))
    assert ops == [Remove(tuple(rolled[:1]))]
    assert _values(hands) == rolled and hands.tower.out_of_tray == 0
    hands.perform(ops)
    assert _values(hands) == kept and hands.tower.taken_out == tuple(rolled[:1])
    assert count_after(len(rolled), ops) == len(kept)


def test_a_corrected_roll_plans_a_turn_then_the_take_out() -> None:
    hands = _hands()
    rolled = _values(hands)
    said = [v % 6 + 1 for v in rolled]  # every die said to show another value
    kept = said[2:]
    ops = hands.help(TablePhase.REMOVE_DICE, tuple(kept), len(kept))
    assert [type(op) for op in ops] == [Turn, Remove]
    assert _values(hands) == rolled
    hands.perform(ops)
    assert _values(hands) == sorted(kept)


def test_restore_and_between_games_are_plans_too() -> None:
    hands = _hands()
    rolled = _values(hands)
    hands.perform([Remove(tuple(rolled[:2]))])
    ops = hands.restore(rolled)
    assert ops == [PutBack(2)] and _values(hands) == rolled[2:]
    hands.perform(ops)
    assert _values(hands) == rolled
    out = hands.between_games(take_out=True)
    assert count_after(len(rolled), out) == 0 and _values(hands) == rolled
    hands.perform(out)
    assert _values(hands) == [] and hands.between_games(take_out=True) == []
    back = hands.between_games(take_out=False)
    assert back == [PutBack(len(rolled))]
    hands.perform(back)
    assert _values(hands) == rolled


@pytest.mark.parametrize(
    "op",
    [
        ["remove"],
        ["put_back", "2"],
        ["put_back", None],
        ["put_back", -1],
        ["put_back", True],
        ["turn", [1]],
        ["turn", [1, 2], [3]],
        ["turn", [7], [1]],
        ["jump", 3],
        ["remove", 7],
        ["remove", [0]],
        "shake",
        None,
    ],
)
def test_a_journaled_move_no_version_writes_is_logged_and_skipped(
    op: object, caplog: pytest.LogCaptureFixture
) -> None:
    # a state database edited by hand or damaged may hold anything in a row's moves: the
    # replay names the move it cannot make and goes on with the rest
    hands = _hands()
    rolled = _values(hands)
    with caplog.at_level(logging.WARNING, logger="server.hands"):
        hands.replay(journaled_ops([op, ["remove", rolled[:1]]]))
    assert f"cannot make tower operation {op}" in caplog.text
    assert _values(hands) == rolled[1:]


@pytest.mark.parametrize(
    "op", [Shake(), Remove((1, 5)), PutBack(2), PutBack(0), Turn((2, 6), (1, 5))]
)
def test_every_move_reads_back_from_its_journal_form(op: TowerOp) -> None:
    assert tower_op_from_json(json.loads(json.dumps(op.to_json()))) == op


def test_a_move_the_tray_no_longer_allows_is_logged_and_skipped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    hands = _hands()
    rolled = _values(hands)
    absent = next(v for v in range(1, 7) if v not in rolled)
    with caplog.at_level(logging.WARNING, logger="server.hands"):
        hands.perform([Remove((absent,)), Remove(tuple(rolled[:1]))])
    assert f"cannot make tower operation ['remove', [{absent}]]" in caplog.text
    assert _values(hands) == rolled[1:]
