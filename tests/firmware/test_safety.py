"""Shake patterns and the duty guard, on an injected clock: no real waiting."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import DutyGuard, FirmwareError, ShakePattern
from firmware.safety import DUTY_WINDOW_S, MAX_ON_S, MIN_GAP_S, max_window_on_time
from server.config import load_config


def test_default_config_pattern() -> None:
    pattern = ShakePattern.from_config(load_config(env={}))
    assert pattern == ShakePattern(0.06, 0.18, 4)
    flat = [t for pulse in pattern.offsets() for t in pulse]
    assert flat == pytest.approx([0, 0.06, 0.24, 0.30, 0.48, 0.54, 0.72, 0.78])
    assert pattern.duration_s == pytest.approx(0.78)


def test_patterns_at_the_limits_are_accepted() -> None:
    assert ShakePattern.from_config({"pulse_ms": 150, "gap_ms": 100, "pulses": 5}).pulses == 5


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"pulse_ms": 151, "gap_ms": 180, "pulses": 4}, "a single pulse is at most 150 ms"),
        ({"pulse_ms": 60, "gap_ms": 99, "pulses": 4}, "gaps between pulses are at least 100 ms"),
        ({"pulse_ms": 150, "gap_ms": 100, "pulses": 20}, "20% duty (2 s) in any 10 s window"),
        ({"pulse_ms": 60, "gap_ms": 180, "pulses": 0}, "solenoid.pulses = 0"),
        ({"pulse_ms": "60", "gap_ms": 180, "pulses": 4}, "solenoid.pulse_ms = '60'"),
        ({"pulse_ms": 60, "pulses": 4}, "solenoid.gap_ms = None"),
    ],
)
def test_unsafe_patterns_are_refused_naming_the_limit(
    section: dict[str, object], message: str
) -> None:
    with pytest.raises(FirmwareError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ShakePattern.from_config(section)


def test_max_window_on_time() -> None:
    assert max_window_on_time([]) == 0
    assert max_window_on_time([(0, 1), (5, 6), (12, 13)]) == pytest.approx(2.0)
    assert max_window_on_time([(0, 1), (10.5, 11)]) == pytest.approx(0.5 + 0.5)


def test_wait_after_a_long_burst_is_exact() -> None:
    guard = DutyGuard()
    guard.record(0.0, 2.0)  # the whole 10 s budget in one go
    # a 0.1 s pulse fits once the window ending at its end holds only 1.9 s of the burst
    assert guard.wait_before([(0.0, 0.1)], 2.0) == pytest.approx(8.0)
    assert guard.wait_before([(0.0, 0.1)], 10.0) == pytest.approx(0.0)


def test_minimum_gap_between_shakes() -> None:
    guard = DutyGuard()
    assert guard.wait_before_pattern(ShakePattern(), 50.0) == 0
    guard.record(50.0, 50.06)
    assert guard.wait_before_pattern(ShakePattern(), 50.06) == pytest.approx(MIN_GAP_S)
    assert guard.wait_before_pattern(ShakePattern(), 51.0) == 0


def test_old_history_is_forgotten() -> None:
    guard = DutyGuard()
    guard.record(0.0, 2.0)
    guard.record(20.0, 20.1)
    assert guard.on_time(20.1) == pytest.approx(0.1)


@settings(max_examples=60, deadline=None)
@given(
    pattern=st.builds(
        ShakePattern,
        st.floats(0.01, 0.15),
        st.floats(0.1, 0.6),
        st.integers(1, 6),
    ),
    arrivals=st.lists(st.floats(0.0, 3.0), min_size=1, max_size=25),
)
def test_shakes_on_demand_never_break_the_limits(
    pattern: ShakePattern, arrivals: list[float]
) -> None:
    """Shakes asked for at random moments: the guard's waits keep every window within limits,
    and none of its waits is longer than needed."""
    guard = DutyGuard()
    now = 0.0
    driven: list[tuple[float, float]] = []
    for pause in arrivals:
        now += pause
        wait = guard.wait_before_pattern(pattern, now)
        if wait > 0.001:
            shorter = [(now + wait - 0.001 + on, now + wait - 0.001 + off)
                       for on, off in pattern.offsets()]  # fmt: skip
            too_soon = driven + shorter
            gaps_ok = not driven or shorter[0][0] - driven[-1][1] >= MIN_GAP_S - 1e-9
            assert not gaps_ok or max_window_on_time(too_soon) > MAX_ON_S - 1e-6
        for on, off in pattern.offsets():
            guard.record(now + wait + on, now + wait + off)
            driven.append((now + wait + on, now + wait + off))
        now = driven[-1][1]
    assert max_window_on_time(driven, DUTY_WINDOW_S) <= MAX_ON_S + 1e-6
    assert all(b[0] - a[1] >= MIN_GAP_S - 1e-9 for a, b in itertools.pairwise(driven))
