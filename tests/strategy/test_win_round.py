"""The win solve of a game ending with a final round (club): a plain solve, the engine.

The plain game-graph solve (``win_round_brute``) runs at a target of 500 (a rule set
built directly; the house rule starts at 1,000) so it takes seconds; the command
line is tried at a target of 1,000.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import numpy as np
import pytest
from win_round_brute import BruteRound

from server.cli import main
from server.solver_cache import WinTableCache
from zilch import Game, RuleSet, find_preset
from zilch.strategy import make_bot
from zilch.strategy.duel import play_duel, play_game, seat_name
from zilch.strategy.view import InvalidSituation, view_of
from zilch.strategy.winchance import Side, WinTable, WinTableDataError
from zilch.strategy.winround import Place, place_of, turns_left
from zilch.strategy.winsolve import WinSolveError, check_solvable, solve_win

TINY = 500
CAP = 4000  # the plain solve's score cap: far enough that it barely matters below the target


def side(score: int) -> Side:
    """A club player: on board exactly when the score is above 0."""
    return Side(score, on_board=score > 0)


@pytest.fixture(scope="module")
def rules() -> RuleSet:
    return dataclasses.replace(find_preset("club"), target=TINY)


@pytest.fixture(scope="module")
def table(rules: RuleSet) -> WinTable:
    return WinTable.of(solve_win(rules))


@pytest.fixture(scope="module")
def brute(rules: RuleSet) -> BruteRound:
    return BruteRound(rules, CAP)


def test_solve_matches_the_plain_game_graph(table: WinTable, brute: BruteRound) -> None:
    assert table.summary()["first_player"] == pytest.approx(
        brute.value[("quiet", 0, 0, 0)], abs=1e-4
    )
    gaps = []
    for kind in ("announced", "final"):
        for seat in (0, 1):
            for opener in range(0, TINY, 50):
                for closer in range(0, TINY, 50):
                    me, other = (opener, closer) if seat == 0 else (closer, opener)
                    solved = table.start_chance(side(me), side(other), Place(seat == 1, kind))
                    gaps.append(solved - brute.value[(kind, seat, opener, closer)])
    for opener in range(0, TINY, 50):
        solved = table.start_chance(side(0), side(opener), Place(True, "quiet"))
        gaps.append(solved - brute.value[("quiet", 1, opener, 0)])
    assert max(abs(g) for g in gaps) < 5e-4
    assert abs(float(np.mean(gaps))) < 1e-4


def test_scores_past_the_target_are_played_out(table: WinTable, brute: BruteRound) -> None:
    """Past the target nothing is folded into a win: the certain end is solved exactly."""
    for opener, closer, kind, seat in (
        (700, 300, "announced", 1),  # the opener banked past the target: the closer replies
        (600, 650, "final", 0),
        (550, 550, "final", 1),  # level: a zilch shares the win
        (900, 0, "quiet", 1),  # round 1: round 2 and the final round still to come
    ):
        me, other = (opener, closer) if seat == 0 else (closer, opener)
        solved = table.start_chance(side(me), side(other), Place(seat == 1, kind))
        assert solved == pytest.approx(brute.value[(kind, seat, opener, closer)], abs=5e-4)
    # The closer's last turn from level: bank anything or share the win.
    level = table.turn(side(550), side(550), place=Place(True, "final"))
    assert level.bank_chance(0) == 0.5 and level.bank_chance(50) == 1.0
    assert 0.95 < level.roll_chance(0, 6) < 1.0


def test_turn_starts_agree_with_the_turn_solved_exactly(table: WinTable) -> None:
    for me, other, place in (
        (side(0), side(0), table.opening_place()),
        (side(0), side(400), Place(True, "quiet")),
        (side(200), side(450), Place(False, "announced")),
        (side(450), side(200), Place(True, "announced")),
        (side(300), side(800), Place(False, "final")),
        (side(300), side(800), Place(True, "announced")),
    ):
        start = table.start_chance(me, other, place)
        assert table.turn(me, other, place=place).roll_chance(0, 6) == pytest.approx(
            start, abs=5e-4
        )


def test_engine_phases_are_the_solve_places(rules: RuleSet, table: WinTable) -> None:
    """Games through the engine: each turn start maps to a place the solve agrees with.

    A certain end of ``k`` turns is exactly ``k`` more turn starts before the game is
    over; an uncertain one never ends the game; the final round is the engine's.
    """
    picker = random.Random(18)
    bots = {"Ann": make_bot("win", rules, win=table), "Ben": make_bot("dicenow", rules)}
    for _ in range(40):
        game = Game(rules, ["Ben", "Ann"])  # alphabetical: Ann opens
        starts: list[tuple[Place, int | None]] = []
        last = 0
        while not game.state.finished:
            state = game.state
            me = state.current or ""
            if state.turn_number != last and state.phase == "roll" and not state.turn.rolls:
                last = state.turn_number
                view = view_of(state, me)
                place = place_of(rules, view.round, view.closes, view.final)
                assert view.closes == (me == "Ben") and view.final == state.final_round
                assert (place.kind == "quiet") == (state.round == 1)
                assert 0.0 <= table.start_chance(side(view.score), side(view.opponent), place) <= 1
                starts.append((place, turns_left(place, rules.target, view.score, view.opponent)))
            if state.phase == "keep":
                decision = bots[me].decide(state, me)
                game.keep(list(decision.keep))
                if decision.then == "bank" and game.bank_refusal() is None:
                    game.bank()
                continue
            then = bots[me].decide(state, me).then if state.turn.rolls else "roll"
            if then == "bank" and game.bank_refusal() is None:
                game.bank()
            else:
                game.roll([picker.randint(1, 6) for _ in range(state.turn.dice_left)])
        for at, (_, left) in enumerate(starts):
            to_go = len(starts) - at
            assert (left is None and to_go > 2) or left == to_go
        assert starts[-1][0] == Place(True, "final") and starts[-2][0] == Place(False, "final")


def test_win_bot_plays_club_games_of_three(rules: RuleSet, table: WinTable) -> None:
    """With three players the bot plays against the best other score and never stops."""
    seats = [("Ann", make_bot("dicenow", rules)), ("Ben", make_bot("win", rules, win=table))]
    seats.append(("Cy", make_bot("dicenow", rules)))
    for seed in range(6):
        game = play_game(rules, seats, random.Random(seed))
        assert game.state.finished


def test_self_play_matches_the_solved_opener_chance(rules: RuleSet, table: WinTable) -> None:
    """The opener's win rate of ``win`` against itself (can fail by chance, ~1 in 300)."""
    games = 2000
    bots = [make_bot("win", rules, win=table), make_bot("win", rules, win=table)]
    result = play_duel(rules, bots, games, 2027, batch=256)
    rate = result.first_player_wins / games
    first = table.summary()["first_player"]
    assert abs(rate - first) < 3 * (first * (1 - first) / games) ** 0.5
    assert result.ties > 0  # equal totals share the win


def test_duels_seat_bots_in_order_under_alphabetical_order(rules: RuleSet) -> None:
    names = [seat_name(rules, 0, "win B"), seat_name(rules, 1, "win A")]
    assert Game(rules, names).state.current == "1 win B"  # the bot meant to open opens
    assert seat_name(find_preset("dicenow"), 0, "win B") == "win B"
    bots = [make_bot("dicenow", rules), make_bot("dicenow", rules)]
    result = play_duel(rules, bots, 40, 3)
    assert result.games == 40 and sum(result.wins) == pytest.approx(40)


def test_situations_that_cannot_happen_are_refused(table: WinTable) -> None:
    with pytest.raises(InvalidSituation, match="at 0 against 0"):
        table.start_chance(side(0), side(500), Place(False, "quiet"))
    with pytest.raises(InvalidSituation, match="not played yet"):
        table.turn(side(600), side(500), place=Place(True, "quiet"))
    with pytest.raises(InvalidSituation, match="on board exactly when"):
        table.start_chance(Side(0), side(0))
    with pytest.raises(InvalidSituation, match="multiple of 50"):
        table.start_chance(side(-50), side(0))


def test_unsolved_final_round_rules_are_refused() -> None:
    club = find_preset("club")
    check_solvable(club)
    for house, message in (
        ({"zilch_penalty": "500"}, "zilch penalty"),
        ({"announce_from": "3"}, "round 3"),
        ({"tie": "tiebreak_turns"}, "tie=tiebreak_turns"),
    ):
        with pytest.raises(WinSolveError, match=message):
            solve_win(club.with_house_rules(house))


def test_table_round_trips_and_bad_round_arrays_are_refused(
    rules: RuleSet, table: WinTable
) -> None:
    arrays = table.to_arrays()
    again = WinTable.from_arrays(rules, arrays)
    assert again.summary() == table.summary()
    assert np.array_equal(again.round_end.sure, table.round_end.sure)  # type: ignore[union-attr]
    with pytest.raises(WinTableDataError, match="incomplete"):
        WinTable.from_arrays(rules, {k: v for k, v in arrays.items() if k != "sure"})
    with pytest.raises(WinTableDataError, match="do not fit"):
        WinTable.from_arrays(rules, {**arrays, "sure": arrays["sure"][:3]})
    with pytest.raises(WinTableDataError, match="not chances"):
        WinTable.from_arrays(rules, {**arrays, "first": arrays["first"] + 2})


# -- the command line and the service, at a target of 1,000 ------------------------------

SMALL = ["--preset", "club", "--rule", "target=1000"]


@pytest.fixture(scope="module")
def club_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("solver")
    rules = find_preset("club").with_house_rules({"target": "1000"})
    WinTableCache(folder)._store(rules, WinTable.of(solve_win(rules)))
    return folder


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_win_chance_verb_under_club(club_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["win-chance", *SMALL, "--cache-dir", str(club_cache), "--json"]
    code, out, _ = run([*base, "--score", "0", "--opponent", "0", "--round", "1"], capsys)
    opening = json.loads(out)
    assert code == 0 and 0.4 < opening["win"] < 0.5 and opening["round"] == "quiet"
    code, out, _ = run([*base, "--score", "0", "--opponent", "0"], capsys)
    announced = json.loads(out)
    assert announced["round"] == "announced" and announced["closes"] is False
    code, out, _ = run([*base, "--score", "0", "--opponent", "0", "--closes"], capsys)
    assert json.loads(out)["win"] > 0.5  # the closer of a round has the last word
    # Past the target the round still closes: the closer 300 behind with the opener's
    # final turn still to come, and the same closer on the last turn of the game.
    code, out, _ = run([*base, "--score", "900", "--opponent", "1200", "--closes"], capsys)
    replies = json.loads(out)
    code, out, _ = run(
        [*base, "--score", "900", "--opponent", "1200", "--closes", "--final"], capsys
    )
    last = json.loads(out)
    assert code == 0 and 0 < replies["win"] < last["win"] < 1
    code, out, _ = run(
        [
            *base,
            *["--score", "900", "--opponent", "1200", "--final", "--closes", "--turn-total", "350"],
            "--dice-left",
            "3",
        ],
        capsys,
    )
    mid = json.loads(out)
    assert mid["bank"] == 1.0 and mid["win"] == 1.0 and mid["best"] == "bank"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--score", "0", "--opponent", "600", "--round", "1"], "at 0 against 0"),
        (["--score", "600", "--opponent", "0", "--round", "1", "--closes"], "not played yet"),
        (["--score", "600", "--opponent", "0", "--off-board"], "is on board"),
        (["--score", "0", "--opponent", "0", "--round", "0"], "--round must be at least 1"),
    ],
)
def test_win_chance_verb_refuses_impossible_club_turns(
    club_cache: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    code, _, err = run(["win-chance", *SMALL, "--cache-dir", str(club_cache), *extra], capsys)
    assert code == 1 and message in err and len(err.strip().splitlines()) == 1


def test_final_flag_is_for_final_round_rules(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(
        ["win-chance", "--score", "0", "--opponent", "0", "--final", "--cache-dir", str(tmp_path)],
        capsys,
    )
    assert code == 1 and "--final is for rules that end with a final round" in err


def test_decide_and_duel_with_the_win_bot_under_club(
    club_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    decide = ["decide", *SMALL, "--cache-dir", str(club_cache), "--bot", "win", "--json"]
    roll = ["--roll", "1", "2", "3", "4", "6", "6", "--turn-total", "300"]
    behind = ["--score", "900", "--opponent", "1200", "--final"]
    # Closing the final round, the 1 puts it 100 ahead: the game is won by banking.
    code, out, _ = run([*decide, *roll, *behind, "--closes"], capsys)
    assert code == 0 and json.loads(out) == {"keep": [1], "then": "bank"}
    # Opening it, 100 ahead is nearly always caught by the closer: it rolls on.
    code, out, _ = run([*decide, *roll, *behind], capsys)
    assert code == 0 and json.loads(out) == {"keep": [1], "then": "roll"}
    duel = ["duel", *SMALL, "--cache-dir", str(club_cache), "--bots", "win,optimal"]
    code, out, _ = run([*duel, "--games", "20", "--json"], capsys)
    assert code == 0 and json.loads(out)["games"] == 20


def test_display_shows_the_chance_under_club(club_cache: Path) -> None:
    from server.win_service import WinTables

    rules = find_preset("club").with_house_rules({"target": "1000"})
    wins = WinTables(club_cache)
    assert wins.available(rules) is not None  # the club's final round is no longer refused
    game = Game(rules, ["Ben", "Ann"])
    start = wins.document(game)
    table = wins.available(rules)
    assert start is not None and table is not None and start["current"] == "Ann"
    assert start["players"]["Ann"] == pytest.approx(table.summary()["first_player"], abs=1e-3)
    game.roll([1, 1, 1, 5, 2, 3])
    game.keep([1, 1, 1, 5])
    game.bank()  # Ann 1,050 in round 1: no announcement after round 1
    closer = wins.document(game)
    assert closer is not None and closer["current"] == "Ben"
    assert closer["players"]["Ben"] == pytest.approx(
        table.start_chance(side(0), side(1050), Place(True, "quiet")), abs=1e-3
    )
