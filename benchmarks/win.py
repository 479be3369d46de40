"""Two-player win-probability figures: solve time and memory, table size, lookups, duels.

Each part is a subcommand; every figure it prints is measured, on this machine:

.venv/bin/python benchmarks/win.py solve --preset dicenow --out /tmp/win  # time, peak memory
.venv/bin/python benchmarks/win.py lookup --preset dicenow --cache /tmp/win  # within-turn ms
.venv/bin/python benchmarks/win.py agree --cache /tmp/win           # table vs exact turns
.venv/bin/python benchmarks/win.py firsts --cache /tmp/win          # 0-0 chance, every preset
.venv/bin/python benchmarks/win.py duel --preset dicenow --bots win,win --games 20000 \\
    --cache /tmp/win                                                   # self-play check
.venv/bin/python benchmarks/win.py loop                              # numpy vs a Python loop
.venv/bin/python benchmarks/win.py farkle-approx --rule ending=instant ...  # domsleee's approx

Run long parts under ``nice -n 10`` with ``OMP_NUM_THREADS=1`` (one core).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from server.solver_cache import SolverCache, WinTableCache
from zilch import PRESETS, RuleSet, find_preset
from zilch.strategy import make_bot
from zilch.strategy.bots import WinBot
from zilch.strategy.duel import play_duel
from zilch.strategy.model import has_entry_status, roll_table
from zilch.strategy.winchance import Side, WinTable
from zilch.strategy.winround import Place
from zilch.strategy.winsolve import (
    FloatArray,
    InstantSolver,
    IntArray,
    Options,
    check_solvable,
    layout_of,
    solve_win,
    turn_values,
)


def _rules(name: str, house: list[str]) -> RuleSet:
    rules = find_preset(name)
    pairs = dict(item.split("=", 1) for item in house)
    return rules.with_house_rules(pairs) if pairs else rules


def _side(rules: RuleSet, score: int, streak: int = 0) -> Side:
    """A player at ``score``; under a final round (club) on board exactly above 0."""
    if rules.ending == "final_round":
        return Side(score, 0, score > 0 or rules.entry_needed(False) == rules.entry_needed(True))
    return Side(score, streak)


def _seats(rules: RuleSet) -> list[Place | None]:
    """Both seats of a round whose end is announced under a final round, else no place."""
    if rules.ending == "final_round":
        return [Place(False, "announced"), Place(True, "announced")]
    return [None]


def run_solve(args: argparse.Namespace) -> dict[str, Any]:
    """Solve once: wall and CPU seconds, peak resident memory, passes, table size on disk."""
    rules = _rules(args.preset, args.rule)
    wall, cpu = time.perf_counter(), time.process_time()
    solved = solve_win(
        rules, nodes=args.nodes, coarse=args.coarse, floor=args.floor, margin=args.margin
    )
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    table = WinTable.of(solved)
    cache = WinTableCache(Path(args.out))
    cache._store(rules, table)  # the service's own writer
    path = cache.path_for(rules)
    return {
        "preset": rules.name,
        "house_rules": rules.house_rules,
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "passes": solved.passes,
        "changes": [float(f"{c:.3g}") for c in solved.changes],
        "nodes": args.nodes,
        "coarse": args.coarse,
        "table_shape": list(table.table.shape),
        "file": str(path),
        "file_kb": round(path.stat().st_size / 1024, 1),
        "first_player": table.summary()["first_player"],
    }


def run_lookup(args: argparse.Namespace) -> dict[str, Any]:
    """Median time to solve one turn's within-turn chances from the table."""
    rules = _rules(args.preset, args.rule)
    table = WinTableCache(Path(args.cache)).table(rules)
    picker = random.Random(7)
    times, cpu = [], []
    for _ in range(args.repeats):
        me = _side(rules, 50 * picker.randrange(0, rules.target // 50), picker.randrange(3))
        other = _side(rules, 50 * picker.randrange(0, rules.target // 50), picker.randrange(3))
        place = picker.choice(_seats(rules)) if rules.ending == "final_round" else None
        start, used = time.perf_counter(), time.process_time()
        table.turn(me, other, place=place)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - used)
    return {
        "preset": rules.name,
        "repeats": args.repeats,
        "median_ms": round(1000 * statistics.median(times), 2),
        "max_ms": round(1000 * max(times), 2),
        "median_cpu_ms": round(1000 * statistics.median(cpu), 2),
    }


def run_agree(args: argparse.Namespace) -> dict[str, Any]:
    """The turn-start table against each turn solved exactly from it, on a grid of scores."""
    rules = _rules(args.preset, args.rule)
    table, _ = WinTableCache(Path(args.cache)).get(rules)
    lay = table.layout
    every = max(1, lay.scores // args.points)
    differences = []
    for place in _seats(rules):
        for x in range(0, lay.scores, every):
            for y in range(0, lay.scores, every):
                me = _side(rules, lay.floor + x * lay.unit)
                other = _side(rules, lay.floor + y * lay.unit)
                exact = table.turn(me, other, place=place).roll_chance(0, 6)
                differences.append(table.start_chance(me, other, place) - exact)
    gaps = np.array(differences)
    zero = _side(rules, 0)
    start = table.start_chance(zero, zero, _seats(rules)[0])
    return {
        "preset": rules.name,
        "house_rules": rules.house_rules,
        "nodes": table.nodes,
        "states": len(differences),
        "mean_gap": round(float(gaps.mean()), 6),
        "worst_gap": round(float(np.abs(gaps).max()), 6),
        "start_table": round(start, 6),
        "start_exact": round(table.turn(zero, zero, place=_seats(rules)[0]).roll_chance(0, 6), 6),
    }


def run_firsts(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The first player's chance at 0-0 under every preset the solve handles."""
    rows = []
    cache = WinTableCache(Path(args.cache))
    for name in PRESETS:
        rules = find_preset(name)
        try:
            check_solvable(rules)
        except ValueError as error:
            rows.append({"preset": name, "solved": False, "why": str(error)})
            continue
        start = time.process_time()
        table, cached = cache.get(rules)
        summary = table.summary()
        summary["cpu_s"] = round(time.process_time() - start, 1)
        summary["cached"] = cached
        rows.append(summary)
    return rows


def run_duel(args: argparse.Namespace) -> dict[str, Any]:
    """A duel through the real engine; with two ``win`` players, the first player's rate too."""
    rules = _rules(args.preset, args.rule)
    names = args.bots.split(",")
    wins = WinTableCache(Path(args.cache))
    points = SolverCache(Path(args.cache))
    bots = [
        WinBot(rules, wins.table(rules), keep=args.keep)
        if n == "win"
        else make_bot(n, rules, points.solution, wins.table)
        for n in names
    ]
    start, cpu = time.perf_counter(), time.process_time()
    result = play_duel(rules, bots, args.games, args.seed, batch=args.batch)
    document = result.to_json()
    document["seconds"] = round(time.perf_counter() - start, 1)
    document["cpu_s"] = round(time.process_time() - cpu, 1)
    document["batch"] = args.batch
    rate = result.first_player_wins / result.games
    spread = 1.96 * math.sqrt(rate * (1 - rate) / result.games)
    document["first_player_rate"] = round(rate, 5)
    document["first_player_ci95"] = [round(rate - spread, 5), round(rate + spread, 5)]
    if names == ["win", "win"]:
        first = wins.table(rules).summary()["first_player"]
        document["solved_first_player"] = first
        document["z_score"] = round(
            (rate - first) / math.sqrt(first * (1 - first) / result.games), 2
        )
    return document


def run_loop(args: argparse.Namespace) -> dict[str, Any]:
    """The turn sweep vectorised with numpy against the same sweep as plain Python loops."""
    rules = find_preset("dicenow")
    table = roll_table(rules)
    options = Options.of(table)
    columns, steps = args.columns, args.steps
    picker = np.random.default_rng(3)
    bank = np.sort(picker.random((columns, steps)), axis=1)
    zilch = picker.random(columns) * 0.5
    start = time.perf_counter()
    roll, _ = turn_values(options, bank, zilch, np.full(columns, 6), False)
    vectorised = time.perf_counter() - start
    start = time.perf_counter()
    check = [_loop_turn(table, list(bank[c]), float(zilch[c]), 6) for c in range(columns)]
    looped = time.perf_counter() - start
    difference = max(abs(check[c] - roll[c, 0, 6]) for c in range(columns))
    return {
        "columns": columns,
        "steps": steps,
        "numpy_s": round(vectorised, 3),
        "python_loop_s": round(looped, 3),
        "speed_up": round(looped / vectorised, 1),
        "max_difference": difference,
    }


def _loop_turn(table: Any, bank: list[float], zilch: float, bank_from: int) -> float:
    """One turn solved with plain Python loops (the reference for :func:`run_loop`)."""
    steps = len(bank)
    unit = table.unit
    after = [[bank[-1]] * 7 for _ in range(steps + table.max_points // unit + 1)]
    first = 0.0
    for t in range(steps - 1, -1, -1):
        rolls = [0.0] * 7
        for n in range(1, 7):
            dice = table.dice[n]
            value = dice.zilch_chance * zilch
            for profile in dice.profiles:
                value += profile.chance * max(
                    after[t + points // unit][n - used or 6] for used, points in profile.options
                )
            rolls[n] = value
        for n in range(1, 7):
            after[t][n] = max(rolls[n], bank[t]) if t >= bank_from else rolls[n]
        first = rolls[6]
    return first


class _FarkleApprox(InstantSolver):
    """domsleee/farkle's approximate model (its ``is_approx``): a farkle adds 50 points
    to the farkler's score, which breaks the zilch cycle; 50 more reaching the target
    wins. Not a rule of the game: a comparison with the published solver's first
    version."""

    def zilch_target(
        self, a: IntArray, b: IntArray, i: int, j: IntArray, x: IntArray, y: IntArray
    ) -> FloatArray:
        """The opponent's value after the mover's farkle: 50 more for the mover."""
        up = x + 1
        value = self.table[b, a, j, i, y, np.minimum(up, self.layout.scores - 1)]
        return np.asarray(np.where(up >= self.layout.scores, 0.0, value))


def run_farkle_approx(args: argparse.Namespace) -> dict[str, Any]:
    """The first player's 0-0 chance under domsleee/farkle's approximate farkle model."""
    rules = _rules(args.preset, args.rule)
    if rules.ending != "instant" or rules.zilch_penalty or has_entry_status(rules):
        raise SystemExit(
            "farkle-approx: give --rule ending=instant --rule zilch_penalty=0 "
            "and no entry minimum (domsleee/farkle's rules)"
        )
    wall, cpu = time.perf_counter(), time.process_time()
    solver = _FarkleApprox(rules, layout_of(rules), args.nodes, 1e-6, 40, args.coarse, 1e-3)
    solved = solver.run()
    return {
        "preset": rules.name,
        "house_rules": rules.house_rules,
        "model": "a farkle adds 50 to the farkler's score (domsleee/farkle is_approx)",
        "nodes": args.nodes,
        "wall_s": round(time.perf_counter() - wall, 1),
        "cpu_s": round(time.process_time() - cpu, 1),
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "passes": solved.passes,
        "first_player": round(float(solved.table[0, 0, 0, 0, 0, 0]), 6),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="part", required=True)
    p = sub.add_parser("solve")
    p.add_argument("--preset", default="dicenow")
    p.add_argument("--rule", action="append", default=[])
    p.add_argument("--nodes", type=int, default=24)
    p.add_argument("--coarse", type=int, default=6)
    p.add_argument("--floor", type=int, default=-2000)
    p.add_argument("--margin", type=int, default=5000)
    p.add_argument("--out", required=True)
    p = sub.add_parser("lookup")
    p.add_argument("--preset", default="dicenow")
    p.add_argument("--rule", action="append", default=[])
    p.add_argument("--cache", required=True)
    p.add_argument("--repeats", type=int, default=200)
    p = sub.add_parser("agree")
    p.add_argument("--preset", default="dicenow")
    p.add_argument("--rule", action="append", default=[])
    p.add_argument("--cache", required=True)
    p.add_argument("--points", type=int, default=12, help="scores per side on the grid")
    p = sub.add_parser("firsts")
    p.add_argument("--cache", required=True)
    p = sub.add_parser("duel")
    p.add_argument("--preset", default="dicenow")
    p.add_argument("--rule", action="append", default=[])
    p.add_argument("--bots", default="win,win")
    p.add_argument("--games", type=int, default=20000)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--batch", type=int, default=256, help="games side by side (0: one at a time)")
    p.add_argument("--keep", type=int, default=4096, help="solved turns each win player keeps")
    p.add_argument("--cache", required=True)
    p = sub.add_parser("farkle-approx")
    p.add_argument("--preset", default="dicenow")
    p.add_argument("--rule", action="append", default=[])
    p.add_argument("--nodes", type=int, default=24)
    p.add_argument("--coarse", type=int, default=6)
    p = sub.add_parser("loop")
    p.add_argument("--columns", type=int, default=20)
    p.add_argument("--steps", type=int, default=120)
    args = parser.parse_args(argv)
    parts = {
        "solve": run_solve,
        "lookup": run_lookup,
        "agree": run_agree,
        "firsts": run_firsts,
        "duel": run_duel,
        "loop": run_loop,
        "farkle-approx": run_farkle_approx,
    }
    result = parts[args.part](args)
    print(json.dumps(result, indent=1))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
