"""Strategy verbs: solve, decide, duel."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from server.commands import (
    Subparsers,
    add_rule_arguments,
    print_json,
    rules_from_args,
    win_table,
)
from server.errors import UserError
from server.solver_cache import CACHE_FOLDER, SolverCache, WinTableCache
from zilch import InvalidDice, RuleSet
from zilch.strategy import BOTS, Bot, Solution, TurnView, UnknownBot, make_bot
from zilch.strategy.model import has_entry_status
from zilch.strategy.view import InvalidSituation
from zilch.strategy.winchance import Side
from zilch.strategy.winround import place_of
from zilch.strategy.winsolve import check_solvable


def register(sub: Subparsers) -> None:
    p = sub.add_parser("solve", help="strategy that maximises long-run points per turn")
    add_rule_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    _add_cache_argument(p)
    p.set_defaults(func=run_solve)

    p = sub.add_parser("decide", help="what a computer player does with a roll")
    add_rule_arguments(p)
    p.add_argument("--bot", required=True, help="dicenow, optimal or win")
    p.add_argument("--roll", nargs="+", required=True, metavar="D", help="die values 1-6")
    p.add_argument("--turn-total", type=int, default=0, metavar="T")
    p.add_argument("--score", type=int, default=0, metavar="S")
    p.add_argument("--opponent", type=int, default=0, metavar="O")
    p.add_argument("--streak", type=int, default=0, metavar="K")
    p.add_argument("--final", action="store_true", help="this is the bot's final turn")
    p.add_argument(
        "--opponent-streak", type=int, default=0, metavar="K", help="the opponent's zilch streak"
    )
    p.add_argument(
        "--off-board",
        action="store_true",
        help="the bot has not banked the entry minimum yet (presets with one)",
    )
    _add_round_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    _add_cache_argument(p)
    p.set_defaults(func=run_decide)

    p = sub.add_parser("win-chance", help="chance to win a two-player game when both play to win")
    add_rule_arguments(p)
    p.add_argument(
        "--score", type=int, required=True, metavar="S", help="score of the player to act"
    )
    p.add_argument("--opponent", type=int, required=True, metavar="O", help="the other's score")
    p.add_argument("--streak", type=int, default=0, metavar="K")
    p.add_argument("--opponent-streak", type=int, default=0, metavar="K")
    p.add_argument("--turn-total", type=int, metavar="T", help="with --dice-left: mid-turn")
    p.add_argument("--dice-left", type=int, metavar="N", help="dice to roll next (6: all six)")
    p.add_argument("--off-board", action="store_true", help="the player to act is not on board")
    p.add_argument(
        "--opponent-off-board", action="store_true", help="the other player is not on board"
    )
    p.add_argument(
        "--final", action="store_true", help="the final round (rules ending with one, e.g. club)"
    )
    _add_round_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    _add_cache_argument(p)
    p.set_defaults(func=run_win_chance)

    p = sub.add_parser("duel", help="bot-against-bot games with win rates")
    add_rule_arguments(p)
    p.add_argument("--bots", required=True, help="two bots, e.g. optimal,dicenow")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    _add_cache_argument(p)
    p.set_defaults(func=run_duel)


def _add_round_arguments(parser: argparse.ArgumentParser) -> None:
    """Where a turn falls in a game that ends with a final round (club); ignored otherwise."""
    parser.add_argument(
        "--closes",
        action="store_true",
        help="final-round rules: the player to act plays second in each round (default: first)",
    )
    parser.add_argument(
        "--round",
        type=int,
        metavar="N",
        help="final-round rules: the round being played (default: one whose scores are "
        "announced at its end, e.g. round 2 under club); --final for the final round",
    )


def _final_round_statuses(rules: RuleSet, args: argparse.Namespace) -> tuple[bool, bool]:
    """Both players' on-board statuses: under a final round with an entry minimum a
    player is on board exactly when the score is above 0."""
    if rules.ending != "final_round" or not has_entry_status(rules):
        return not args.off_board, not getattr(args, "opponent_off_board", False)
    if getattr(args, "opponent_off_board", False) and args.opponent > 0:
        raise UserError(
            f"--opponent-off-board with --opponent {args.opponent:,}: under {rules.name} a "
            "player with points is on board"
        )
    if args.off_board and args.score > 0:
        raise UserError(
            f"--off-board with --score {args.score:,}: under {rules.name} a player with "
            "points is on board"
        )
    return args.score > 0, args.opponent > 0


def _round_number(args: argparse.Namespace) -> int:
    if args.round is None:
        return 0
    return _check_number("--round", args.round, least=1)


def _add_cache_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="solver cache folder (default: the state directory's solver/ folder)",
    )


def _cache_dir(args: argparse.Namespace) -> Path:
    if getattr(args, "cache_dir", None):
        return Path(args.cache_dir)
    from server.config import load_config

    return load_config().state_dir / CACHE_FOLDER


def _cache(args: argparse.Namespace) -> SolverCache:
    return SolverCache(_cache_dir(args))


def _win_cache(args: argparse.Namespace) -> WinTableCache:
    return WinTableCache(_cache_dir(args))


def bot_for(name: str, rules: RuleSet, args: argparse.Namespace) -> Bot:
    """A computer player, reading the solver and win-table caches it needs."""
    if name == "optimal":
        return make_bot(name, rules, _cache(args).solution)
    if name == "win":
        check_solvable(rules)
        if rules.players_max < 2:
            raise UserError("the win player needs a two-player game")
        cache = _win_cache(args)
        return make_bot(name, rules, win=lambda rules: win_table(cache, rules, "The win player: "))
    return make_bot(name, rules)


def run_solve(args: argparse.Namespace) -> int:
    """Solve the rules (or read the cache) and print points per turn and thresholds."""
    rules = rules_from_args(args)
    started = time.perf_counter()
    solution, cached = _cache(args).get(rules)
    summary = solution.summary()
    summary["cached"] = cached
    summary["seconds"] = round(time.perf_counter() - started, 3)
    if args.json:
        print_json(summary)
    else:
        print(_solve_text(solution, cached))
    return 0


def _solve_text(solution: Solution, cached: bool) -> str:
    lines = [
        f"{solution.rules.name}: {solution.points_per_turn:.3f} points per turn"
        + (" (from the cache)" if cached else ""),
        "bank from this turn total on (dice left; 6 = free roll; - = always roll):",
        "  status      streak       1      2      3      4      5      6",
    ]
    for row in solution.thresholds():
        cells = "".join(
            f"{'-' if v is None else format(v, ','):>7}" for v in row["bank_at"].values()
        )
        lines.append(f"  {row['status']:<10}  {row['streak']:>6}{cells}")
    lines.extend(f"note: {note}" for note in solution.notes)
    return "\n".join(lines)


def _bot_name(name: str) -> str:
    if name not in BOTS:
        raise UnknownBot(f"unknown bot {name!r}; choose one of {', '.join(BOTS)}")
    return name


def _check_number(name: str, value: int, *, least: int | None = 0) -> int:
    if least is not None and value < least:
        raise UserError(f"{name} must be at least {least}, not {value}")
    return value


def run_decide(args: argparse.Namespace) -> int:
    """Print what the bot keeps from the roll and whether it then rolls or banks."""
    rules = rules_from_args(args)
    name = _bot_name(args.bot)
    if rules.ending == "instant":
        _check_instant(rules, args)
    dice = []
    for word in args.roll:
        if not word.strip().isdigit():
            raise InvalidDice(f"die value {word!r} is not a number; die values are 1 to 6")
        dice.append(int(word))
    on_board, opponent_on_board = not args.off_board, True
    if name == "win":  # the win table knows a club player's status from the score
        on_board, opponent_on_board = _final_round_statuses(rules, args)
    view = TurnView.checked(
        dice,
        total=_check_number("--turn-total", args.turn_total),
        score=args.score,
        opponent=args.opponent,
        streak=_check_number("--streak", args.streak),
        on_board=on_board,
        final=args.final,
        opponent_streak=_check_number("--opponent-streak", args.opponent_streak),
        opponent_on_board=opponent_on_board,
        closes=args.closes,
        round=_round_number(args),
    )
    bot = bot_for(name, rules, args)
    decision = bot.decide_view(view)
    if args.json:
        print_json(decision.to_json())
    else:
        kept = " ".join(map(str, decision.keep)) or "the nothing bonus"
        print(f"{name} keeps {kept} and then {decision.then}s")
    return 0


def run_win_chance(args: argparse.Namespace) -> int:
    """Print the chance that the player about to act wins (two players, both playing to win)."""
    rules = rules_from_args(args)
    check_solvable(rules)
    unit = 50
    for flag, value in (("--score", args.score), ("--opponent", args.opponent)):
        if value % unit:
            raise InvalidSituation(f"{flag} is a multiple of {unit} (got {value})")
    final_round = rules.ending == "final_round"
    if rules.ending == "instant":
        _check_instant(rules, args)
    if args.final and not final_round:
        raise UserError(
            f"--final is for rules that end with a final round (club); under {rules.name} "
            "give the player who reached the target as --opponent"
        )
    if args.score >= rules.target and not final_round:
        raise InvalidSituation(
            f"--score {args.score:,} has reached the target {rules.target:,}: the game is "
            "decided on the other player's final turn (give that player as --score)"
        )
    streak = _check_number("--streak", args.streak)
    other_streak = _check_number("--opponent-streak", args.opponent_streak)
    mid_turn = args.turn_total is not None or args.dice_left is not None
    if mid_turn and (args.turn_total is None or args.dice_left is None):
        raise UserError("give --turn-total and --dice-left together (or neither: a turn start)")
    total = _check_number("--turn-total", args.turn_total or 0)
    if total % unit:
        raise InvalidSituation(f"--turn-total is a multiple of {unit} (got {total})")
    dice = 6 if args.dice_left is None else args.dice_left
    if not 1 <= dice <= 6:
        raise UserError(f"--dice-left is 1 to 6 (got {dice})")
    if total == 0 and dice != 6:
        raise UserError("a turn total of 0 means the turn's first roll: --dice-left 6")
    on_board, opponent_on_board = _final_round_statuses(rules, args)
    place = place_of(rules, _round_number(args), args.closes, args.final) if final_round else None
    me = Side(args.score, streak, on_board)
    other = Side(args.opponent, other_streak, opponent_on_board)
    table = win_table(_win_cache(args), rules)
    started = time.perf_counter()
    turn = table.turn(me, other, args.final, place)
    left = 0 if (dice == 6 and total > 0) else dice
    roll = turn.roll_chance(total, dice)
    bank = turn.bank_chance(total) if turn.can_bank(total, left) else None
    best = roll if bank is None else max(roll, bank)
    document: dict[str, Any] = {
        "win": round(best, 6),
        "roll": round(roll, 6),
        "bank": None if bank is None else round(bank, 6),
        "best": "roll" if bank is None or roll > bank else "bank",
        "preset": rules.name,
        "score": args.score,
        "opponent": args.opponent,
        "streak": streak,
        "opponent_streak": other_streak,
        "turn_total": total,
        "dice_left": dice,
        **({"closes": args.closes, "round": place.kind} if place is not None else {}),
        "turn_start": table.start_chance(me, other, place) if not mid_turn else None,
        "seconds": round(time.perf_counter() - started, 4),
        "notes": list(table.notes),
    }
    if document["turn_start"] is not None:
        document["turn_start"] = round(document["turn_start"], 6)
    if args.json:
        print_json(document)
        return 0
    where = "at the start of the turn" if not mid_turn else f"at {total:,} with {dice} to roll"
    line = f"{best:.1%} to win {where} ({args.score:,} against {args.opponent:,})"
    if bank is not None:
        line += f": bank {bank:.1%}, roll {roll:.1%}"
    print(line)
    return 0


def _check_instant(rules: RuleSet, args: argparse.Namespace) -> None:
    """Under ``ending=instant`` the first bank at the target wins: no final turn, no turn after."""
    if args.final:
        raise UserError(
            f"--final: under {rules.name} with ending=instant there is no final turn "
            f"(the first bank that reaches {rules.target:,} wins)"
        )
    for flag, value in (("--score", args.score), ("--opponent", args.opponent)):
        if value >= rules.target:
            raise InvalidSituation(
                f"{flag} {value:,} has reached the target {rules.target:,}: under "
                "ending=instant that bank won the game (give scores below it)"
            )


def run_duel(args: argparse.Namespace) -> int:
    """Play bot against bot, alternating who starts, and print win rates with 95% intervals."""
    from zilch.strategy.duel import play_duel

    rules = rules_from_args(args)
    names = [n.strip() for n in args.bots.split(",")]
    if len(names) != 2 or not all(names):
        raise UserError(f"--bots {args.bots!r} must name two bots, e.g. --bots optimal,dicenow")
    for name in names:
        _bot_name(name)
    games = _check_number("--games", args.games, least=1)
    bots = [bot_for(n, rules, args) for n in names]
    progress = None if args.quiet or games < 200 else _ProgressBar(games)
    result = play_duel(rules, bots, games, args.seed, progress=progress)
    if progress:
        progress.close()
    if args.json:
        print_json(result.to_json())
    else:
        print(_duel_text(result.to_json()))
    return 0


def _duel_text(result: dict[str, Any]) -> str:
    lines = [f"{result['games']} games, {result['preset']}, seed {result['seed']}:"]
    for side in result["bots"]:
        low, high = side["ci95"]
        lines.append(
            f"  {side['name']:<9} wins {side['wins']:>6} ({side['win_rate']:.1%}, "
            f"95% CI {low:.1%}-{high:.1%}), average score {side['average_score']:,.0f}"
        )
    if result["ties"]:
        lines.append(f"  shared wins: {result['ties']}")
    return "\n".join(lines)


class _ProgressBar:
    """A one-line progress bar on stderr."""

    WIDTH = 30

    def __init__(self, total: int) -> None:
        self.total = total
        self.shown = -1

    def __call__(self, done: int) -> None:
        percent = done * 100 // self.total
        if percent == self.shown:
            return
        self.shown = percent
        filled = self.WIDTH * done // self.total
        bar = "#" * filled + "." * (self.WIDTH - filled)
        sys.stderr.write(f"\rduel [{bar}] {done}/{self.total} games")
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")
        sys.stderr.flush()
