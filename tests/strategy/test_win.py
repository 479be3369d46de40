"""The two-player win solve, its table, the ``win`` player and the win-chance verb.

The solves here use a target of 1,000 (house rule) so they take seconds; the full
presets are measured by ``benchmarks/win.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from server.cli import main
from server.solver_cache import WinTableCache
from zilch import Game, RuleSet, find_preset
from zilch.scoring import legal_set_asides
from zilch.strategy import TurnView, make_bot
from zilch.strategy.bots import Bot, WinBot
from zilch.strategy.duel import play_duel
from zilch.strategy.model import roll_table
from zilch.strategy.winchance import Side, WinTable, WinTableDataError
from zilch.strategy.winsolve import (
    Options,
    WinSolveError,
    final_chances,
    solve_win,
    turn_values,
)

SMALL = {"target": "1000"}


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory, rules: RuleSet, table: WinTable) -> Path:
    folder = tmp_path_factory.mktemp("solver")
    WinTableCache(folder)._store(rules, table)
    return folder


def _loop_turn(rules: RuleSet, bank: list[float], zilch: float, bank_from: int) -> float:
    """The turn's first-roll value by plain loops over every profile and option."""
    table = roll_table(rules)
    unit = table.unit
    after = [[bank[-1]] * 7 for _ in range(len(bank) + table.max_points // unit + 1)]
    first = 0.0
    for t in range(len(bank) - 1, -1, -1):
        rolls = [0.0] * 7
        for n in range(1, 7):
            value = table.dice[n].zilch_chance * zilch
            for profile in table.dice[n].profiles:
                value += profile.chance * max(
                    after[t + points // unit][n - used or 6] for used, points in profile.options
                )
            rolls[n] = value
        for n in range(1, 7):
            after[t][n] = max(rolls[n], bank[t]) if t >= bank_from else rolls[n]
        first = rolls[6]
    return first


def test_turn_sweep_matches_plain_loops(rules: RuleSet) -> None:
    generator = np.random.default_rng(5)
    bank = np.sort(generator.random((3, 40)), axis=1)
    zilch = np.array([0.0, 0.3, 0.7])
    roll, _ = turn_values(Options.of(roll_table(rules)), bank, zilch, np.full(3, 6), False)
    for column in range(3):
        expected = _loop_turn(rules, list(bank[column]), float(zilch[column]), 6)
        assert roll[column, 0, 6] == pytest.approx(expected, abs=1e-12)


def test_final_turn_chances_match_the_points_solver_last_turn(rules: RuleSet) -> None:
    from zilch.strategy.final import solve_final_turn

    chances = final_chances(Options.of(roll_table(rules)), rules, 60, 0.0, True)
    for deficit in (50, 300, 1000, 2500):
        goal = deficit + 50  # strictly ahead: a tie goes to whoever reached the target first
        expected = solve_final_turn(rules, goal).roll_chance(0, 6)
        assert chances[deficit // 50] == pytest.approx(expected, abs=1e-9)


def test_table_is_a_chance_and_moves_the_right_way(table: WinTable) -> None:
    assert table.table.min() >= 0.0 and table.table.max() <= 1.0
    first = table.start_chance(Side(0), Side(0))
    assert 0.5 < first < 0.7
    # More points for the mover never hurt much; more for the opponent never help.
    assert table.start_chance(Side(500), Side(0)) > first > table.start_chance(Side(0), Side(500))
    assert table.start_chance(Side(0, streak=2), Side(0)) < first
    assert table.start_chance(Side(0), Side(0, streak=2)) > first
    # On the whole, more points help; only next to the target can a lower score be
    # better (a bank that reaches it hands the opponent a last turn).
    zero = table.layout.index(0)
    on = table.table[0, 0, 0, 0, zero:, zero:].astype(np.float64)
    assert (np.diff(on, axis=0).mean(axis=0) > 0).all()
    assert (np.diff(on, axis=1).mean(axis=1) < 0).all()


def test_solve_has_converged_and_nodes_matter_little(rules: RuleSet, table: WinTable) -> None:
    assert table.change < 1e-6
    finer = WinTable.of(solve_win(rules, nodes=12))
    zero = table.layout.index(0)
    difference = np.abs(finer.table.astype(np.float64) - table.table)
    assert difference.max() < 0.03  # the payoff interpolation, worst state (see docs)
    assert difference[..., zero:, zero:].mean() < 2e-3
    assert difference[0, 0, 0, 0, zero, zero] < 1e-3


def test_turn_start_agrees_with_the_on_demand_turn(table: WinTable) -> None:
    for me, other in ((Side(0), Side(0)), (Side(300, 1), Side(650, 2)), (Side(-400, 2), Side(900))):
        turn = table.turn(me, other)
        assert turn.roll_chance(0, 6) == pytest.approx(table.start_chance(me, other), abs=2e-3)


def test_turn_start_table_and_exact_turns_agree_everywhere(table: WinTable) -> None:
    """The table's payoff interpolation against each turn solved for its exact payoff.

    With 6 nodes this target-1,000 table was 0.2 points above its exact turn at 0-0
    and up to 1.1 points elsewhere; with 24 nodes both are near 0.1 point or less.
    """
    lay = table.layout
    differences = []
    for x in range(0, lay.scores, 2):
        for y in range(0, lay.scores, 2):
            me, other = Side(lay.floor + x * lay.unit), Side(lay.floor + y * lay.unit)
            exact = table.turn(me, other).roll_chance(0, 6)
            differences.append(table.start_chance(me, other) - exact)
    worst = np.abs(np.array(differences))
    assert worst.max() < 2e-3 and worst.mean() < 5e-4
    start = table.turn(Side(0), Side(0)).roll_chance(0, 6)
    assert abs(table.start_chance(Side(0), Side(0)) - start) < 2e-4


def test_bank_values_follow_the_game(table: WinTable) -> None:
    turn = table.turn(Side(700), Side(800))
    # Banking 300 reaches the target: the opponent's last turn must beat 1,000 by 50.
    assert turn.bank_chance(300) == pytest.approx(1 - table.final_chance(200), abs=1e-6)
    assert not turn.can_bank(250, 3)  # dicenow's 300 minimum
    assert turn.can_bank(300, 3)


def test_table_round_trips_and_bad_arrays_are_refused(rules: RuleSet, table: WinTable) -> None:
    arrays = table.to_arrays()
    again = WinTable.from_arrays(rules, arrays)
    assert np.array_equal(again.table, table.table)
    assert again.start_chance(Side(0), Side(0)) == table.start_chance(Side(0), Side(0))
    with pytest.raises(WinTableDataError, match="fit"):
        WinTable.from_arrays(find_preset("dicenow"), arrays)
    broken = dict(arrays, table=arrays["table"][:, :, :, :, :-1])
    with pytest.raises(WinTableDataError):
        WinTable.from_arrays(rules, broken)
    with pytest.raises(WinTableDataError, match="incomplete"):
        WinTable.from_arrays(rules, {"table": arrays["table"]})


def test_final_round_endings_the_solve_does_not_model_are_refused() -> None:
    """Club's final round is solved (tests/strategy/test_win_round.py); with a penalty not."""
    with pytest.raises(WinSolveError, match="final round does not handle a zilch penalty"):
        solve_win(find_preset("club").with_house_rules({"zilch_penalty": "500"}))


def test_win_bot_on_a_final_turn_rolls_until_ahead(rules: RuleSet, table: WinTable) -> None:
    bot = make_bot("win", rules, win=table)
    view = TurnView((1, 2, 2, 3, 4, 6), total=0, score=500, opponent=1000, final=True)
    assert bot.decide_view(view).to_json() == {"keep": [1], "then": "roll"}
    ahead = TurnView((1, 1, 1, 3, 4, 6), total=0, score=500, opponent=1000, final=True)
    assert bot.decide_view(ahead).to_json() == {"keep": [1, 1, 1], "then": "bank"}


def test_win_bot_plays_whole_games_through_the_engine(rules: RuleSet, table: WinTable) -> None:
    bot = make_bot("win", rules, win=table)
    other = make_bot("dicenow", rules)
    result = play_duel(rules, [bot, other], 60, 11)
    assert result.games == 60 and sum(result.wins) == pytest.approx(60)


def test_self_play_matches_the_solved_first_player_chance(rules: RuleSet, table: WinTable) -> None:
    """A small version of the benchmark's 20,000-game check (can fail by chance, ~1 in 300)."""
    games = 1500
    bots = [make_bot("win", rules, win=table), make_bot("win", rules, win=table)]
    result = play_duel(rules, bots, games, 2026)
    rate = result.first_player_wins / games
    first = table.start_chance(Side(0), Side(0))
    assert abs(rate - first) < 3 * (first * (1 - first) / games) ** 0.5


def test_twinson_rules_solve_with_tie_breaks_and_entry() -> None:
    rules = find_preset("twinson-5000").with_house_rules(SMALL)
    solved = WinTable.of(solve_win(rules))
    assert 0.3 < solved.tiebreak < 0.7
    off = solved.start_chance(Side(0, on_board=False), Side(0, on_board=False))
    assert 0.5 < off < 0.7
    turn = solved.turn(Side(0, on_board=False), Side(0, on_board=False))
    assert not turn.can_bank(450, 2) and turn.can_bank(500, 2)
    assert not turn.can_bank(600, 0)  # hot dice must be rolled under twinson


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_win_chance_verb_json(cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["win-chance", "--rule", "target=1000", "--cache-dir", str(cache_dir), "--json"]
    code, out, _ = run([*base, "--score", "0", "--opponent", "0"], capsys)
    assert code == 0
    document = json.loads(out)
    assert 0.5 < document["win"] < 0.7 and document["turn_start"] == pytest.approx(
        document["win"], abs=2e-3
    )
    code, out, _ = run(
        [*base, "--score", "600", "--opponent", "700", "--turn-total", "350", "--dice-left", "2"],
        capsys,
    )
    document = json.loads(out)
    assert code == 0 and document["bank"] is not None
    assert document["win"] == max(document["bank"], document["roll"])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--score", "25", "--opponent", "0"], "--score is a multiple of 50"),
        (["--score", "1000", "--opponent", "0"], "has reached the target"),
        (["--score", "0", "--opponent", "0", "--streak", "-1"], "--streak must be at least 0"),
        (["--score", "0", "--opponent", "0", "--turn-total", "300"], "together"),
        (["--score", "0", "--opponent", "0", "--turn-total", "0", "--dice-left", "3"], "first"),
        (["--score", "0", "--opponent", "0", "--turn-total", "50", "--dice-left", "9"], "1 to 6"),
    ],
)
def test_win_chance_verb_refuses_bad_input(
    cache_dir: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    code, _, err = run(
        ["win-chance", "--rule", "target=1000", "--cache-dir", str(cache_dir), *extra], capsys
    )
    assert code == 1 and message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("verb", "who"),
    [
        (["win-chance", "--score", "0", "--opponent", "0", "--json"], "Solving"),
        (["decide", "--bot", "win", "--roll", "1", "5", "2", "2", "3", "6"], "The win player: "),
    ],
)
def test_a_verb_says_when_it_must_solve_the_win_table_first(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    rules: RuleSet,
    small_win_solve: object,
    verb: list[str],
    who: str,
) -> None:
    solved: list[RuleSet] = []

    def solve_win(asked: RuleSet) -> object:  # the session's one solve, counted
        solved.append(asked)
        return small_win_solve

    monkeypatch.setattr("server.solver_cache.solve_win", solve_win)
    argv = [*verb, "--rule", "target=1000", "--cache-dir", str(tmp_path)]
    code, out, err = run(argv, capsys)
    assert code == 0 and out and solved == [rules]
    assert err.startswith(who) and "solving the win table of dicenow first" in err.lower()
    assert str(tmp_path) in err and err.count("\n") == 1
    code, again, err = run(argv, capsys)  # kept: the second call says nothing and solves nothing
    assert code == 0 and err == "" and solved == [rules]
    assert _timeless(again) == _timeless(out)


def _timeless(out: str) -> object:
    """A verb's answer without the time it took (win-chance's JSON ``seconds``)."""
    if not out.startswith("{"):
        return out
    return {key: value for key, value in json.loads(out).items() if key != "seconds"}


def test_decide_with_the_win_bot(cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        [
            "decide",
            "--rule",
            "target=1000",
            "--cache-dir",
            str(cache_dir),
            "--bot",
            "win",
            "--roll",
            "1",
            "2",
            "2",
            "3",
            "4",
            "6",
            "--score",
            "500",
            "--opponent",
            "1000",
            "--final",
            "--json",
        ],
        capsys,
    )
    assert code == 0 and json.loads(out) == {"keep": [1], "then": "roll"}


def test_game_state_gives_the_opponent_to_the_bot(rules: RuleSet, table: WinTable) -> None:
    game = Game(rules, ["Ann", "Ben"])
    game.roll([2, 3, 4, 6, 6, 2])  # Ann zilches
    game.roll([1, 5, 2, 3, 4, 4])
    bot = make_bot("win", rules, win=table)
    decision = bot.decide(game.state, "Ben")
    assert decision.keep in ((1,), (1, 5), (5,))


def test_display_document_for_two_players(rules: RuleSet, cache_dir: Path) -> None:
    from server.win_service import WinTables

    wins = WinTables(cache_dir)
    game = Game(rules, ["Ann", "Ben"])
    start = wins.document(game)
    assert start is not None and start["current"] == "Ann"
    assert start["players"]["Ann"] == pytest.approx(1 - start["players"]["Ben"], abs=1e-4)
    assert start["players"]["Ann"] > 0.5 and start["history"]["chances"] == [
        start["players"]["Ann"]
    ]
    game.roll([1, 1, 1, 5, 2, 3])
    rolled = wins.document(game)
    assert rolled is not None and rolled["players"]["Ann"] > start["players"]["Ann"]
    game.keep([1, 1, 1, 5])
    kept = wins.document(game)
    assert kept is not None and kept["advice"].startswith("bank: ")
    assert "% to win; roll: " in kept["advice"]
    game.bank()
    after = wins.document(game)
    assert after is not None and after["current"] == "Ben"
    assert len(after["history"]["chances"]) == 2
    # Three players: an estimate is asked for (tests/server/test_win_estimates.py plays it
    # out), and none is shown before it comes back. Rules with no table yet: nothing.
    three = wins.document(Game(rules, ["Ann", "Ben", "Cat"]))
    wins.close()
    assert three is not None and three["method"] == "simulated" and three["players"] == {}
    assert wins.document(Game(find_preset("greedy"), ["Ann", "Ben"])) is None


def test_the_table_never_solves_a_win_player_on_its_thread(rules: RuleSet) -> None:
    from server.controller import Controller
    from zilch.strategy import UnknownBot

    make = Controller._make_bot
    holder = type("Holder", (), {"_win": None, "_solution": None})()
    with pytest.raises(UnknownBot, match="not solved yet"):
        make(holder, "win", rules)  # type: ignore[arg-type]


def test_solving_in_the_background_skips_what_is_there(rules: RuleSet, cache_dir: Path) -> None:
    from server.win_service import WinTables

    wins = WinTables(cache_dir)
    wins.start(rules)  # already on disk: no process
    # A final round with a zilch penalty: not solved, no process.
    wins.start(find_preset("club").with_house_rules({"zilch_penalty": "500"}))
    assert wins._processes == []
    wins.close()


def test_batched_games_are_the_games_each_bot_plays_alone(rules: RuleSet, table: WinTable) -> None:
    """Games played side by side (win turns solved in batches) against each played alone."""
    import random

    from zilch.strategy.duel import game_seed, play_game, play_games_batched

    def seats(index: int) -> list[tuple[str, Bot]]:
        win = make_bot("win", rules, win=table)
        other = make_bot("dicenow" if index % 2 else "win", rules, win=table)
        return [("Ann", win), ("Ben", other)]

    games = 10
    together = play_games_batched(rules, [seats(i) for i in range(games)], 77, batch=4)
    for index, game in enumerate(together):
        alone = play_game(rules, seats(index), random.Random(game_seed(77, index)))
        assert game.state == alone.state


def test_game_steps_stop_only_before_turns_a_win_player_has_not_solved(
    rules: RuleSet, table: WinTable
) -> None:
    """The one game loop yields a win player's unsolved turns, each once, and nothing else."""
    import random

    from zilch.strategy.duel import game_steps

    plain = [("Ann", make_bot("dicenow", rules)), ("Ben", make_bot("dicenow", rules))]
    with pytest.raises(StopIteration):
        next(game_steps(rules, plain, random.Random(3)))  # no win player: nothing to solve
    win = WinBot(rules, table, keep=4096)
    steps = game_steps(rules, [("Ann", win), ("Ben", make_bot("dicenow", rules))], random.Random(3))
    asked: list[object] = []
    try:
        while True:
            bot, key = next(steps)
            assert bot is win and key not in asked
            asked.append(key)
            bot.prepare([key])
    except StopIteration as stop:
        final = stop.value.state
    assert final.finished and asked  # Ann played turns, each solved once, ahead of deciding


def test_turns_in_a_batch_decide_as_one_turn_alone(rules: RuleSet, table: WinTable) -> None:
    import random

    picker = random.Random(4)
    views = [
        TurnView(
            tuple(picker.randint(1, 6) for _ in range(picker.randint(1, 6))),
            total=50 * picker.randrange(0, 12),
            score=50 * picker.randrange(-6, 20),
            opponent=50 * picker.randrange(-6, 20),
            streak=picker.randrange(3),
            opponent_streak=picker.randrange(3),
            final=picker.random() < 0.15,
        )
        for _ in range(400)
    ]
    views = [v for v in views if legal_set_asides(v.roll, rules)]
    batched = WinBot(rules, table, keep=len(views))
    batched.prepare([WinBot.key_of(v) for v in views])
    for view in views:
        alone = WinBot(rules, table)
        assert batched.decide_view(view) == alone.decide_view(view)
        assert batched.turn(view).roll_chance(0, 6) == pytest.approx(
            alone.turn(view).roll_chance(0, 6), abs=1e-12
        )
