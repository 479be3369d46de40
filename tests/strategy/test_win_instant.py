"""The win solve under ``ending=instant``: the first bank that reaches the target wins.

The solve is checked against a plain game-graph solve (:class:`BruteInstant`) at a
target of 1,000 for two rule sets without a zilch penalty: domsleee/farkle's rules
as house rules (any bank above 0) and dicenow's 300 bank minimum. The plain solve
keeps every state by absolute scores, values a bank at or past the target at 1,
solves each turn exactly for its own zilch payoff, and iterates the two-turn cycle
of zilches at its scores until nothing moves by more than 1e-13: no payoff nodes,
no shared sweeps, no interpolation.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path

import numpy as np
import pytest

from server.cli import main
from server.solver_cache import WinTableCache
from tests.zilch.zilch_known_answers import FARKLE_HOUSE_RULES
from zilch import RuleSet, find_preset
from zilch.strategy import make_bot
from zilch.strategy.duel import play_duel, play_game
from zilch.strategy.model import roll_table
from zilch.strategy.view import InvalidSituation
from zilch.strategy.winchance import Side, WinTable
from zilch.strategy.winround import solve_rows
from zilch.strategy.winsolve import Options, solve_win

SMALL = {"target": "1000", "ending": "instant"}


class BruteInstant:
    """Chance that the mover wins from each turn start ``(mover's score, opponent's)``."""

    def __init__(self, rules: RuleSet) -> None:
        assert rules.zilch_penalty == 0 and rules.entry_minimum <= rules.bank_minimum
        self.rules = rules
        self.unit = roll_table(rules).unit
        self.options = Options.of(roll_table(rules))
        self.value: dict[tuple[int, int], float] = {}
        scores = range(0, rules.target, self.unit)
        for level in range(2 * (rules.target - self.unit), -1, -self.unit):
            keys = [(x, level - x) for x in scores if 0 <= level - x < rules.target]
            self.value.update(dict.fromkeys(keys, 0.5))
            for _ in range(500):
                new = self.solve(keys)
                change = max(abs(new[k] - self.value[k]) for k in keys)
                self.value.update(new)
                if change < 1e-13:
                    break

    def worth(self, me: int, other: int) -> float:
        """The mover's value of its turn ending with these scores, the opponent to move."""
        return 1.0 if me >= self.rules.target else 1.0 - self.value[(other, me)]

    def solve(self, keys: list[tuple[int, int]]) -> dict[tuple[int, int], float]:
        rows = []
        minimum = max(1, -(-self.rules.bank_minimum // self.unit))
        for me, other in keys:
            # Every total from the row's end on is banked at its last value: the row
            # reaches the target and every total below the bank minimum.
            steps = max((self.rules.target - me) // self.unit + 1, minimum)
            bank = np.array([self.worth(me + t * self.unit, other) for t in range(steps)])
            rows.append((bank, self.worth(me, other), minimum))
        solved = solve_rows(self.options, rows, self.rules.free_roll == "compulsory")
        return {key: float(roll[0, 6]) for key, (roll, _) in zip(keys, solved, strict=True)}


@functools.cache
def _table(rules: RuleSet) -> WinTable:
    return WinTable.of(solve_win(rules))


@pytest.fixture(scope="module", params=["farkle", "bank-300"])
def rules(request: pytest.FixtureRequest) -> RuleSet:
    if request.param == "farkle":
        house = {**FARKLE_HOUSE_RULES, **SMALL}
    else:
        house = {"zilch_penalty": "0", **SMALL}
    return find_preset("dicenow").with_house_rules(house)


@pytest.fixture(scope="module")
def table(rules: RuleSet) -> WinTable:
    return _table(rules)


def test_solve_matches_the_plain_game_graph(rules: RuleSet, table: WinTable) -> None:
    brute = BruteInstant(rules)
    gaps = []
    for (me, other), value in brute.value.items():
        solved = table.start_chance(Side(me), Side(other))
        exact = table.turn(Side(me), Side(other)).roll_chance(0, 6)
        assert exact == pytest.approx(value, abs=2e-3)
        gaps.append(solved - value)
    gaps_array = np.abs(np.array(gaps))
    # The table's payoff interpolation between nodes (as under final_turn): small.
    assert gaps_array.max() < 2e-3 and gaps_array.mean() < 3e-4
    assert table.start_chance(Side(0), Side(0)) == pytest.approx(brute.value[(0, 0)], abs=3e-4)


def test_reaching_the_target_is_a_win(rules: RuleSet, table: WinTable) -> None:
    turn = table.turn(Side(700), Side(950))
    assert turn.bank_chance(300) == pytest.approx(1.0)  # 1,000: the game is won
    assert turn.bank_chance(1000) == pytest.approx(1.0)
    assert turn.chance_after(300, 2) == pytest.approx(1.0)  # so the win player banks
    assert 0.0 < turn.bank_chance(250) < 1.0
    assert table.final.max() == 0.0  # nobody ever plays a last turn


def test_instant_and_final_turn_solves_differ_as_the_ending_does() -> None:
    """Next to the target, banking hands the opponent a last turn under final_turn only."""
    farkle = find_preset("dicenow").with_house_rules({**FARKLE_HOUSE_RULES, "target": "1000"})
    final = _table(farkle)
    instant = _table(farkle.with_house_rules({"ending": "instant"}))
    near = (Side(900), Side(900))
    assert instant.turn(*near).bank_chance(100) == pytest.approx(1.0)
    assert final.turn(*near).bank_chance(100) < 0.95
    assert instant.start_chance(*near) > final.start_chance(*near)


def test_turns_after_a_winning_bank_are_refused(table: WinTable) -> None:
    with pytest.raises(InvalidSituation, match="reached the target 1,000: under ending=instant"):
        table.start_chance(Side(0), Side(1000))
    with pytest.raises(InvalidSituation, match="reached the target 1,000: under ending=instant"):
        table.turn(Side(1050), Side(0))
    with pytest.raises(InvalidSituation, match="there is no final turn"):
        table.turn(Side(0), Side(500), final=True)


def test_win_player_games_end_at_the_first_bank_that_reaches_the_target(
    rules: RuleSet, table: WinTable
) -> None:
    bots = [make_bot("win", rules, win=table), make_bot("dicenow", rules)]
    result = play_duel(rules, bots, 40, 3)
    assert result.games == 40 and sum(result.wins) == pytest.approx(40)
    for seed in range(6):
        game = play_game(rules, [("Ann", bots[0]), ("Ben", bots[1])], random.Random(seed))
        banks = [e for e in game.journal if e.kind == "bank"]
        assert game.journal[-1].kind == "game_over" and game.journal[-2] == banks[-1]
        assert banks[-1].data["score"] >= rules.target
        assert all(e.data["score"] < rules.target for e in banks[:-1])
        (winner,) = game.state.winners
        assert winner == banks[-1].player


def test_win_chance_verb_under_instant(
    rules: RuleSet, table: WinTable, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    WinTableCache(tmp_path)._store(rules, table)
    rule_args = []
    for key, value in rules.overrides:
        text = "-".join(map(str, value)) if isinstance(value, tuple) else str(value)
        rule_args += ["--rule", f"{key}={text}"]
    base = ["win-chance", *rule_args, "--cache-dir", str(tmp_path)]
    assert main([*base, "--score", "0", "--opponent", "0", "--json"]) == 0
    out = capsys.readouterr().out
    assert f'"win": {round(table.turn(Side(0), Side(0)).roll_chance(0, 6), 6)}' in out
    for argv, message in (
        (["--score", "0", "--opponent", "1000"], "--opponent 1,000 has reached the target 1,000"),
        (["--score", "0", "--opponent", "500", "--final"], "there is no final turn"),
    ):
        assert main([*base, *argv]) != 0
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1
    decide = ["decide", *rule_args, "--bot", "optimal", "--roll", "1", "2", "3", "4", "6", "6"]
    assert main([*decide, "--score", "500", "--opponent", "900", "--final"]) != 0
    err = capsys.readouterr().err.strip()
    assert "there is no final turn" in err and len(err.splitlines()) == 1
    assert main([*decide, "--score", "500", "--opponent", "900", "--json"]) == 0
    assert '"keep": [1]' in capsys.readouterr().out
