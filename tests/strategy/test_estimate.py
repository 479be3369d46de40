"""Chances to win by playing the game out (three or more players), checked against the solve."""

from __future__ import annotations

import math

import pytest

from zilch import Game, RuleSet
from zilch.strategy.bots import WinBot
from zilch.strategy.estimate import Estimate, EstimateError, estimate
from zilch.strategy.winchance import Side, WinTable


def test_shape_and_margins(rules: RuleSet, table: WinTable) -> None:
    game = Game(rules, ["Ann", "Ben", "Cat"])
    found = estimate(game, WinBot(rules, table), 60, seed=3, batch=20)
    assert found.games == 60 and found.names == ("Ann", "Ben", "Cat")
    assert sum(found.chance(n) for n in found.names) == pytest.approx(1.0)
    for name in found.names:
        p = found.chance(name)
        assert found.margin(name) == pytest.approx(1.959963984540054 * math.sqrt(p * (1 - p) / 60))
    shown = found.to_json()
    assert set(shown) == {"games", "players", "margins"} and shown["games"] == 60
    assert game.state == Game(rules, ["Ann", "Ben", "Cat"]).state  # the game itself is untouched


def test_the_games_do_not_depend_on_the_batch(rules: RuleSet, table: WinTable) -> None:
    game = Game(rules, ["Ann", "Ben", "Cat"])
    game.roll([1, 5, 2, 3, 4, 6])
    one = estimate(game, WinBot(rules, table), 24, seed=9, batch=24)
    many = estimate(game, WinBot(rules, table), 24, seed=9, batch=5)
    assert one == many
    other = estimate(game, WinBot(rules, table), 24, seed=10, batch=24)
    assert other.games == 24


OPENING = ({"roll": [1, 5, 5, 2, 3, 4]}, {"keep": [1, 5, 5]}, {"roll": [1, 2, 3]}, {"keep": [1]})


def test_two_players_agree_with_the_exact_solve(rules: RuleSet, table: WinTable) -> None:
    """The method itself where the answer is known: 600 games from 300-0, Ben to play."""
    game = Game(rules, ["Ann", "Ben"])
    for action in (*OPENING, {"bank": True}):
        game.apply(action)
    assert game.state.player("Ann").score == 300 and game.state.current == "Ben"
    # Ben, not on board yet, starts a turn against Ann at 300: Ann's chance is the rest
    exact = 1 - table.start_chance(Side(0, 0, False), Side(300, 0, True))
    found = estimate(game, WinBot(rules, table), 600, seed=1, batch=100)
    sigma = math.sqrt(exact * (1 - exact) / 600)
    assert abs(found.chance("Ann") - exact) < 4 * sigma, (found.chance("Ann"), exact)


def test_the_leader_is_favoured_mid_turn(rules: RuleSet, table: WinTable) -> None:
    game = Game(rules, ["Ann", "Ben", "Cat"])
    for action in (*OPENING, {"bank": True}):
        game.apply(action)
    game.apply({"roll": [2, 3, 4, 6, 6, 2]})  # Ben zilches; Cat to play
    game.apply({"roll": [1, 2, 3, 4, 6, 6]})  # Cat rolls: mid-turn, a 1 to keep
    assert game.state.current == "Cat" and game.state.phase == "keep"
    found = estimate(game, WinBot(rules, table), 100, seed=2, batch=50)
    assert found.chance("Ann") > max(found.chance("Ben"), found.chance("Cat"))


def test_a_player_who_left_never_wins(rules: RuleSet, table: WinTable) -> None:
    game = Game(rules, ["Ann", "Ben", "Cat"])
    found = estimate(game, WinBot(rules, table), 40, seed=4, batch=20, absent={"Cat"})
    assert found.chance("Cat") == 0.0
    assert found.chance("Ann") + found.chance("Ben") == pytest.approx(1.0)


def test_report_sees_each_batch_and_can_stop_it(rules: RuleSet, table: WinTable) -> None:
    game = Game(rules, ["Ann", "Ben", "Cat"])
    seen: list[Estimate] = []

    def report(so_far: Estimate) -> bool:
        seen.append(so_far)
        return len(seen) < 2

    found = estimate(game, WinBot(rules, table), 100, seed=5, batch=10, report=report)
    assert [e.games for e in seen] == [10, 20] and found == seen[-1]


def test_nothing_to_estimate(rules: RuleSet, table: WinTable) -> None:
    game = Game(rules, ["Ann", "Ben", "Cat"])
    with pytest.raises(EstimateError, match="at least one game"):
        estimate(game, WinBot(rules, table), 0)
    for action in ({"roll": [1, 1, 1, 1, 1, 1]}, {"keep": [1, 1, 1, 1, 1, 1]}):
        game.apply(action)
    while not game.state.finished:
        game.apply({"roll": [1, 1, 1, 1, 1, 1]} if game.state.phase == "roll" else {"bank": True})
        if game.state.phase == "keep":
            game.apply({"keep": [1, 1, 1, 1, 1, 1]})
            game.apply({"bank": True})
    with pytest.raises(EstimateError, match="game is over"):
        estimate(game, WinBot(rules, table), 10)
