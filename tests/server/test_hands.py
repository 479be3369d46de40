"""The simulator's helper hands: moves planned, journaled, then made; replayed from a journal."""

from __future__ import annotations

import logging

import pytest

from firmware import SimulatedTower
from server.hands import SimClock, SimulatedHands, count_after
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
    assert ops == [["remove", rolled[:1]]]
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
    assert [op[0] for op in ops] == ["turn", "remove"]
    assert _values(hands) == rolled
    hands.perform(ops)
    assert _values(hands) == sorted(kept)


def test_restore_and_between_games_are_plans_too() -> None:
    hands = _hands()
    rolled = _values(hands)
    hands.perform([["remove", rolled[:2]]])
    ops = hands.restore(rolled)
    assert ops == [["put_back", 2]] and _values(hands) == rolled[2:]
    hands.perform(ops)
    assert _values(hands) == rolled
    out = hands.between_games(take_out=True)
    assert count_after(len(rolled), out) == 0 and _values(hands) == rolled
    hands.perform(out)
    assert _values(hands) == [] and hands.between_games(take_out=True) == []
    back = hands.between_games(take_out=False)
    assert back == [["put_back", len(rolled)]]
    hands.perform(back)
    assert _values(hands) == rolled


@pytest.mark.parametrize(
    "op",
    [["remove"], ["put_back", "2"], ["put_back", None], ["turn", [1]], ["jump", 3], ["remove", 7]],
)
def test_a_journaled_move_no_version_writes_is_logged_and_skipped(
    op: list, caplog: pytest.LogCaptureFixture
) -> None:
    # a state database edited by hand or damaged may hold anything in a row's moves: the
    # replay names the move it cannot make and goes on with the rest
    hands = _hands()
    rolled = _values(hands)
    with caplog.at_level(logging.WARNING, logger="server.hands"):
        hands.replay([op, ["remove", rolled[:1]]])
    assert f"cannot make tower operation {op}" in caplog.text
    assert _values(hands) == rolled[1:]
