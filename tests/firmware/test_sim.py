"""The simulated tower: a seeded tray of dice, shaken, tumbling, taken out and put back."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import DIE_MM, TRAY_MM, FirmwareError, ShakePattern, SimulatedTower


def _corners(die: dict[str, Any]) -> list[tuple[float, float]]:
    a = math.radians(die["angle"])
    h = DIE_MM / 2
    return [
        (die["x"] + h * (sx * math.cos(a) - sy * math.sin(a)),
         die["y"] + h * (sx * math.sin(a) + sy * math.cos(a)))
        for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
    ]  # fmt: skip


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Separating-axis test of two rotated squares (touching is not overlapping)."""
    ca, cb = _corners(a), _corners(b)
    for die in (a, b):
        t = math.radians(die["angle"])
        for axis in ((math.cos(t), math.sin(t)), (-math.sin(t), math.cos(t))):
            pa = [x * axis[0] + y * axis[1] for x, y in ca]
            pb = [x * axis[0] + y * axis[1] for x, y in cb]
            if max(pa) <= min(pb) + 1e-6 or max(pb) <= min(pa) + 1e-6:
                return False
    return True


def _check_tray(tray: list[dict[str, Any]]) -> None:
    for die in tray:
        assert set(die) == {"value", "x", "y", "angle", "cocked"}
        assert die["value"] in range(1, 7)
        assert 0 <= die["angle"] < 360
        for x, y in _corners(die):
            assert -0.05 <= x <= TRAY_MM[0] + 0.05 and -0.05 <= y <= TRAY_MM[1] + 0.05
    for i, a in enumerate(tray):
        for b in tray[i + 1 :]:
            assert not _overlap(a, b), (a, b)


def _settle(tower: SimulatedTower, clock: Any) -> None:
    clock.sleep(tower.pattern.duration_s + tower.settle_time_s + tower.last_wait_s + 0.01)


def test_same_seed_same_tray(clock: Any) -> None:
    a, b = SimulatedTower(3, clock=clock), SimulatedTower(3, clock=clock)
    assert a.tray() == b.tray()
    assert a.shake() == b.shake()
    _settle(a, clock)
    assert a.tray() == b.tray()
    assert SimulatedTower(4, clock=clock).tray() != a.tray()
    assert a.in_tray == 6 and a.out_of_tray == 0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), touch=st.floats(0, 1), cocked=st.floats(0, 1))
def test_thrown_dice_lie_in_the_tray_without_overlap(
    seed: int, touch: float, cocked: float
) -> None:
    now = [0.0]
    tower = SimulatedTower(seed, clock=lambda: now[0], touch_chance=touch, cocked_chance=cocked)
    for _ in range(3):
        tower.shake()
        now[0] += 100
        _check_tray(tower.tray())


def test_touching_and_cocked_dice_appear_only_when_asked(clock: Any) -> None:
    def nearest_pairs(tower: SimulatedTower) -> list[float]:
        tray = tower.tray()
        return [math.dist((a["x"], a["y"]), (b["x"], b["y"]))
                for i, a in enumerate(tray) for b in tray[i + 1 :]]  # fmt: skip

    apart = SimulatedTower(1, clock=clock, touch_chance=0.0)
    close = SimulatedTower(1, clock=clock, touch_chance=0.5)
    distances_apart, distances_close, cocked = [], [], 0
    for _ in range(30):
        for tower in (apart, close):
            tower.shake()
            _settle(tower, clock)
        distances_apart += nearest_pairs(apart)
        distances_close += nearest_pairs(close)
        cocked += sum(d["cocked"] for d in apart.tray() + close.tray())
    assert min(distances_apart) >= DIE_MM * math.sqrt(2)
    assert min(distances_close) < DIE_MM * 1.05
    assert cocked == 0  # default: no cocked dice
    tower = SimulatedTower(2, clock=clock)
    tower.cocked_chance = 1.0
    tower.shake()
    _settle(tower, clock)
    assert all(d["cocked"] for d in tower.tray())
    with pytest.raises(FirmwareError, match=r"cocked_chance = 1\.5: expected a number from 0 to 1"):
        tower.cocked_chance = 1.5


def test_tumbling_then_settled(clock: Any) -> None:
    tower = SimulatedTower(5, settle_time_s=0.4, clock=clock)
    before = tower.tray()
    assert tower.tray() == before and tower.settled
    tower.shake()
    assert not tower.settled
    first, second = tower.tray(), tower.tray()
    assert first != second
    _check_positions_in_tray(first)
    clock.sleep(tower.pattern.duration_s + 0.39)
    assert not tower.settled
    clock.sleep(0.02)
    assert tower.settled
    settled = tower.tray()
    assert settled == tower.tray()
    assert settled != first and len(settled) == 6


def _check_positions_in_tray(tray: list[dict[str, Any]]) -> None:
    for die in tray:
        assert 0 < die["x"] < TRAY_MM[0] and 0 < die["y"] < TRAY_MM[1]


def test_shake_keeps_the_coil_timing_without_sleeping(clock: Any) -> None:
    pattern = ShakePattern(0.15, 0.1, 5)
    tower = SimulatedTower(9, clock=clock, pattern=pattern)
    first = tower.shake()
    assert [t for p in first for t in p] == pytest.approx([t for p in pattern.offsets() for t in p])
    assert clock.sleeps == []
    tower.shake()
    third = tower.shake()  # 2.25 s of coil within 10 s: must be pushed later
    assert clock.sleeps == []
    assert tower.last_wait_s > 5
    assert third[0][0] == pytest.approx(tower.last_wait_s)


def test_shake_sleeps_when_asked(clock: Any) -> None:
    tower = SimulatedTower(9, clock=clock, sleep=clock.sleep)
    start = clock()
    tower.shake()
    assert clock() - start == pytest.approx(tower.pattern.duration_s)


def test_remove_and_put_back(clock: Any) -> None:
    tower = SimulatedTower(11, clock=clock)
    values = Counter(d["value"] for d in tower.tray())
    take = [next(iter(values))]
    tower.remove(take)
    assert tower.in_tray == 5 and tower.out_of_tray == 1
    tower.shake()
    _settle(tower, clock)
    assert tower.in_tray == 5
    kept = Counter(d["value"] for d in tower.tray())
    tower.put_back()
    assert tower.in_tray == 6 and tower.out_of_tray == 0
    assert Counter(d["value"] for d in tower.tray()) == kept + Counter(take)
    _check_tray(tower.tray())


def test_put_back_some(clock: Any) -> None:
    tower = SimulatedTower(12, clock=clock)
    tray = tower.tray()
    tower.remove([tray[0]["value"], tray[1]["value"], tray[2]["value"]])
    tower.put_back(2)
    assert (tower.in_tray, tower.out_of_tray) == (5, 1)
    tower.put_back(0)
    assert (tower.in_tray, tower.out_of_tray) == (5, 1)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([7], "die value 7 is not a whole number from 1 to 6"),
        ([True], "die value True"),
        ("12", "dice to take out must be a list"),
    ],
)
def test_bad_removals_change_nothing(clock: Any, values: Any, message: str) -> None:
    tower = SimulatedTower(13, clock=clock)
    before = tower.tray()
    with pytest.raises(FirmwareError, match=message):
        tower.remove(values)
    assert tower.tray() == before


def test_removing_dice_that_are_not_there_changes_nothing(clock: Any) -> None:
    tower = SimulatedTower(13, clock=clock)
    before = tower.tray()
    held = sorted(d["value"] for d in before)
    missing = next(v for v in range(1, 7) if v not in held)
    with pytest.raises(FirmwareError, match=rf"cannot take out \[{held[0]}, {missing}\]"):
        tower.remove([held[0], missing])
    assert tower.tray() == before and tower.out_of_tray == 0


def test_dice_turned_to_the_values_a_person_said(clock: Any) -> None:
    tower = SimulatedTower(16, clock=clock)
    before = tower.tray()
    held = [d["value"] for d in before]
    to = [held[0] % 6 + 1, held[1] % 6 + 1]
    tower.turn(held[:2], to)
    after = tower.tray()
    assert Counter(d["value"] for d in after) == Counter(held[2:]) + Counter(to)
    # turned where they lie: no die moved
    assert [(d["x"], d["y"]) for d in after] == [(d["x"], d["y"]) for d in before]


@pytest.mark.parametrize(
    ("faces", "to", "message"),
    [
        ([1, 2], [3], "cannot turn 2 dice to 1 values"),
        ([1], [0], "die value 0 is not a whole number from 1 to 6"),
    ],
)
def test_bad_turns_change_nothing(clock: Any, faces: Any, to: Any, message: str) -> None:
    tower = SimulatedTower(17, clock=clock)
    before = tower.tray()
    with pytest.raises(FirmwareError, match=message):
        tower.turn(faces, to)
    held = sorted(d["value"] for d in before)
    missing = next(v for v in range(1, 7) if v not in held)
    with pytest.raises(FirmwareError, match=r"cannot turn .*: the tray holds"):
        tower.turn([held[0], missing], [1, 1])
    assert tower.tray() == before


def test_put_back_more_than_out_is_refused(clock: Any) -> None:
    tower = SimulatedTower(14, clock=clock)
    tower.remove([tower.tray()[0]["value"]])
    for n in (2, -1, "1"):
        with pytest.raises(FirmwareError, match=r"cannot put back .* dice: 1 are out of the tray"):
            tower.put_back(n)  # type: ignore[arg-type]
    assert tower.out_of_tray == 1


def test_light_buttons_and_close(clock: Any) -> None:
    tower = SimulatedTower(15, clock=clock)
    tower.light.show("attention")
    assert tower.light.status == "attention"
    with pytest.raises(FirmwareError, match="unknown light status"):
        tower.light.show("purple")
    heard: list[str] = []
    tower.on_bank = lambda: heard.append("bank")
    tower.on_long_press = lambda: heard.append("long")
    tower.press("bank")
    tower.press("long_press")
    assert heard == ["bank", "long"]
    tower.close()
    tower.close()
    assert tower.light.status == "off"
    with pytest.raises(FirmwareError, match="closed"):
        tower.shake()


def test_bad_construction_is_refused() -> None:
    with pytest.raises(FirmwareError, match="dice = 0"):
        SimulatedTower(1, dice=0)
    with pytest.raises(FirmwareError, match="settle_time_s = -1"):
        SimulatedTower(1, settle_time_s=-1)
    with pytest.raises(FirmwareError, match=r"cannot fit \d+ dice of 16 mm in a 60 x 60 mm tray"):
        SimulatedTower(1, dice=12, tray_mm=(60.0, 60.0))


def test_same_operations_give_the_same_tray_however_often_it_is_looked_at(clock: Any) -> None:
    """A journal of shakes, removals and returns replays to the same tray (the server relies
    on it to restore a simulated table), whatever frames were rendered in between."""
    watched, replayed = SimulatedTower(21, clock=clock), SimulatedTower(21, clock=clock)
    for tower, looks in ((watched, 5), (replayed, 0)):
        tower.shake()
        for _ in range(looks):
            tower.tray()  # tumbling frames
        _settle(tower, clock)
        tower.remove([tower.tray()[0]["value"], tower.tray()[1]["value"]])
        tower.shake()
        _settle(tower, clock)
        tower.put_back(1)
    assert watched.tray() == replayed.tray()
    assert (watched.in_tray, watched.out_of_tray) == (5, 1)


def test_force_off_is_harmless_without_a_coil(clock: Any) -> None:
    tower = SimulatedTower(22, clock=clock)
    tower.force_off()
    assert tower.in_tray == 6
