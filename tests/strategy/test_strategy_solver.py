"""The long-run solver: the published optimum, the equations it solves, an independent check."""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

from zilch import find_preset
from zilch.strategy import Solution, SolutionDataError, solve, solve_cached
from zilch.strategy.model import roll_table, streak_model
from zilch.strategy.sweep import TurnModel, sweep


def test_playr_reproduces_busche_620_855() -> None:
    assert round(solve_cached(find_preset("playr")).points_per_turn, 3) == 620.855


@pytest.mark.parametrize("name", ["dicenow", "playr", "greedy", "twinson-5000", "club"])
def test_solution_satisfies_the_optimality_equations(name: str) -> None:
    rules = find_preset(name)
    sol = solve_cached(rules)
    model = streak_model(rules)
    h = np.array(sol.streak_values)
    payoffs = np.append(h[1:], -model.penalty + (0.0 if model.resets else h[-1]))
    table = roll_table(rules)
    turn = TurnModel(table, rules.entry_needed(True), rules.free_roll == "compulsory", sol.cap)
    turn_values = sweep(turn, payoffs).roll[0, 6]
    assert np.allclose(sol.points_per_turn + h, turn_values, atol=1e-6)


def _reference_turn_value(rules_name: str, payoff: float, cap: int) -> float:
    """Plain recursive solve of one turn (zilch worth ``payoff``), for comparison."""
    rules = find_preset(rules_name)
    table = roll_table(rules)
    minimum = rules.entry_needed(True)

    @cache
    def after(total: int, left: int) -> float:
        if total > cap:
            return float(total)
        roll_value = rolling(total, left or 6)
        if total >= minimum and total > 0:
            return max(float(total), roll_value)
        return roll_value

    @cache
    def rolling(total: int, dice: int) -> float:
        odds = table.dice[dice]
        value = odds.zilch_chance * payoff
        for profile in odds.profiles:
            value += profile.chance * max(
                after(total + points, dice - used) for used, points in profile.options
            )
        return value

    return rolling(0, 6)


@pytest.mark.parametrize("payoff", [0.0, -500.0])
def test_vectorised_sweep_matches_a_plain_recursive_solve(payoff: float) -> None:
    rules = find_preset("dicenow")
    turn = TurnModel(roll_table(rules), 300, False, 6000)
    fast = sweep(turn, np.array([payoff])).roll[0, 6, 0]
    assert fast == pytest.approx(_reference_turn_value("dicenow", payoff, 6000), abs=1e-9)


def test_streak_makes_play_more_careful() -> None:
    sol = solve_cached(find_preset("dicenow"))
    assert sol.streak_values[0] == 0.0
    assert sol.streak_values[2] < sol.streak_values[1] < 0
    for dice in range(1, 6):
        relaxed = sol.threshold(dice, streak=0)
        careful = sol.threshold(dice, streak=2)
        assert relaxed is not None and careful is not None
        assert careful <= relaxed
    # The 300 minimum: with three dice on a two-zilch streak, bank the first 300.
    assert sol.threshold(3, streak=2) == 300


def test_compulsory_free_roll_is_never_banked() -> None:
    sol = solve_cached(find_preset("twinson-5000"))
    assert sol.threshold(0) is None
    assert sol.must_roll(5000, 0)
    assert sol.should_roll(5000, 0)


def test_free_roll_of_playr_is_always_taken_since_six_dice_cannot_zilch() -> None:
    sol = solve_cached(find_preset("playr"))
    assert roll_table(find_preset("playr")).dice[6].zilch_chance == 0.0
    assert sol.threshold(0) is None
    assert sol.should_roll(15000, 0)


def test_dicenow_free_roll_is_banked_only_at_huge_totals() -> None:
    sol = solve_cached(find_preset("dicenow"))
    threshold = sol.threshold(0)
    assert threshold is not None and 15000 < threshold < 20000
    assert sol.should_roll(threshold - 50, 0)
    assert not sol.should_roll(threshold, 0)


def test_entry_status_is_solved_where_the_minimum_depends_on_it() -> None:
    twinson = solve_cached(find_preset("twinson-5000"))
    assert twinson.entry is not None
    assert twinson.entry_value < 0  # not being on board costs points
    assert twinson.threshold(3, on_board=False) == 500
    assert not twinson.can_bank(450, on_board=False)
    assert twinson.can_bank(350, on_board=True)
    assert solve_cached(find_preset("dicenow")).entry is None


def test_solution_arrays_round_trip_and_bad_arrays_are_refused() -> None:
    rules = find_preset("club")
    sol = solve_cached(rules)
    arrays = sol.to_arrays()
    again = Solution.from_arrays(rules, sol.streak, arrays, sol.notes)
    assert again.points_per_turn == sol.points_per_turn
    assert again.summary() == sol.summary()
    broken = dict(arrays)
    broken["on_board_roll"] = arrays["on_board_roll"][:10]
    with pytest.raises(SolutionDataError, match="on_board"):
        Solution.from_arrays(rules, sol.streak, broken, sol.notes)
    with pytest.raises(SolutionDataError):
        Solution.from_arrays(rules, sol.streak, {}, sol.notes)


def test_summary_lists_thresholds_and_decisions_for_every_status() -> None:
    summary = solve_cached(find_preset("greedy")).summary()
    assert summary["points_per_turn"] > 0
    statuses = {(row["status"], row["streak"]) for row in summary["thresholds"]}
    assert statuses == {("on_board", 0), ("on_board", 1), ("on_board", 2), ("entry", 0)}
    assert len(summary["decisions"]) == 4 * 6
    assert summary["notes"]  # greedy's score floor is an approximation, and says so


def test_house_rules_change_the_solution() -> None:
    base = solve_cached(find_preset("dicenow")).points_per_turn
    no_penalty = solve(find_preset("dicenow").with_house_rules({"zilch_penalty": "0"}))
    assert no_penalty.streak.states == 1
    assert no_penalty.points_per_turn > base


def _simulate_turn(sol: Solution, rng: random.Random, streak: int) -> int | None:
    """Play one dicenow turn with the solved policy; banked points or None for a zilch."""
    rules = sol.rules
    table = roll_table(rules)
    total, dice = 0, 6
    while True:
        roll = tuple(sorted(rng.randint(1, 6) for _ in range(dice)))
        from zilch.strategy.model import set_aside_options

        options = set_aside_options(roll, rules)
        if not options:
            return None
        used, points = max(
            options,
            key=lambda o: sol.state_value(total + o[1], dice - o[0], streak),
        )
        total += points
        left = dice - used
        if not sol.should_roll(total, left, streak):
            return total
        dice = left or 6
        assert table.dice[dice]


@pytest.mark.slow
def test_simulated_play_of_the_policy_averages_the_solved_points_per_turn() -> None:
    sol = solve_cached(find_preset("dicenow"))
    rng = random.Random(4)
    streak, points, turns = 0, 0, 30000
    for _ in range(turns):
        banked = _simulate_turn(sol, rng, streak)
        if banked is None:
            streak += 1
            if streak == 3:
                points -= 500
                streak = 0
        else:
            points += banked
            streak = 0
    # Per-turn standard deviation is about 700 points: 5 standard errors is ~20.
    assert points / turns == pytest.approx(sol.points_per_turn, abs=20)


@pytest.mark.parametrize("name", ["dicenow", "playr", "twinson-15000", "greedy"])
def test_doubling_the_cap_changes_nothing(name: str) -> None:
    rules = find_preset(name)
    usual = solve_cached(rules)
    wide = solve(rules, cap=2 * usual.cap)
    assert wide.points_per_turn == pytest.approx(usual.points_per_turn, abs=1e-6)
    assert wide.thresholds() == usual.thresholds()
    assert wide.entry_value == pytest.approx(usual.entry_value, abs=1e-6)


def test_a_bad_cap_is_refused() -> None:
    with pytest.raises(ValueError, match="multiple of 50"):
        solve(find_preset("dicenow"), cap=12345)


@pytest.mark.parametrize("name", ["dicenow", "twinson-5000", "greedy"])
def test_more_points_on_the_table_are_never_worth_less(name: str) -> None:
    sol = solve_cached(find_preset(name))
    for tables in (sol.on_board, sol.entry):
        if tables is None:
            continue
        steps = np.diff(tables.roll[:, 1:, :], axis=0)
        assert np.all(steps >= -1e-9)
        assert np.all((tables.zilch[:, 1:, :] >= 0) & (tables.zilch[:, 1:, :] <= 1 + 1e-12))
