"""Strategy figures: solve time per preset, the published optimum, thresholds, a duel.

.venv/bin/python benchmarks/strategy.py                  # everything, duel of 10,000 games
.venv/bin/python benchmarks/strategy.py --games 2000 --repeats 3
.venv/bin/python benchmarks/strategy.py --no-duel --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from zilch import PRESETS, find_preset
from zilch.strategy import make_bot, solve
from zilch.strategy.model import forget_roll_tables

BUSCHE_PLAYR = 620.855


def time_solves(name: str, repeats: int) -> dict[str, Any]:
    """Seconds for a first solve (roll tables included) and the median of later solves."""
    rules = find_preset(name)
    forget_roll_tables()
    start = time.perf_counter()
    solution = solve(rules)
    cold = time.perf_counter() - start
    warm = []
    for _ in range(repeats):
        start = time.perf_counter()
        solve(rules)
        warm.append(time.perf_counter() - start)
    return {
        "preset": name,
        "points_per_turn": round(solution.points_per_turn, 6),
        "first_solve_s": round(cold, 3),
        "median_solve_s": round(statistics.median(warm), 3),
        "thresholds": solution.thresholds(),
        "notes": list(solution.notes),
    }


def run_duel(games: int, seed: int) -> dict[str, Any]:
    """``optimal`` against ``dicenow`` under the dicenow preset, alternating who starts."""
    from zilch.strategy.duel import play_duel

    rules = find_preset("dicenow")
    bots = [make_bot("optimal", rules), make_bot("dicenow", rules)]

    def progress(done: int) -> None:
        if done % max(1, games // 20) == 0:
            print(f"\r  duel {done}/{games}", end="", file=sys.stderr, flush=True)

    start = time.perf_counter()
    result = play_duel(rules, bots, games, seed, progress=progress)
    print(file=sys.stderr)
    figures = result.to_json()
    figures["seconds"] = round(time.perf_counter() - start, 1)
    return figures


def print_report(solves: list[dict[str, Any]], duel: dict[str, Any] | None) -> None:
    """The figures as text."""
    print("solve time per preset (seconds; first includes the roll tables):")
    for row in solves:
        print(
            f"  {row['preset']:<14} first {row['first_solve_s']:6.3f}  "
            f"median {row['median_solve_s']:6.3f}  points/turn {row['points_per_turn']:9.3f}"
        )
    playr = next(r for r in solves if r["preset"] == "playr")
    verdict = "reproduced" if round(playr["points_per_turn"], 3) == BUSCHE_PLAYR else "DIFFERS"
    print(
        f"playr: {playr['points_per_turn']:.3f} points per turn "
        f"(published {BUSCHE_PLAYR}; {verdict})"
    )
    for row in solves:
        print(f"bank thresholds, {row['preset']} (dice left 1..5, 6 = free roll; - never banks):")
        for line in row["thresholds"]:
            cells = "".join(
                f"{'-' if v is None else format(v, ','):>8}" for v in line["bank_at"].values()
            )
            print(f"  {line['status']:<9} streak {line['streak']}{cells}")
    if duel:
        print(f"duel, {duel['games']} games of {duel['preset']} ({duel['seconds']} s):")
        for side in duel["bots"]:
            low, high = side["ci95"]
            print(
                f"  {side['name']:<8} win rate {side['win_rate']:.4f} "
                f"(95% CI {low:.4f}-{high:.4f}), average score {side['average_score']:,.0f}"
            )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed solves per preset")
    parser.add_argument("--games", type=int, default=10000, help="duel games (>= 1)")
    parser.add_argument("--seed", type=int, default=2010, help="duel seed")
    parser.add_argument("--no-duel", action="store_true", help="skip the duel")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.games < 1:
        parser.error("--repeats and --games must be at least 1")
    solves = [time_solves(name, args.repeats) for name in PRESETS]
    duel = None if args.no_duel else run_duel(args.games, args.seed)
    if args.json:
        print(json.dumps({"solves": solves, "duel": duel}))
    else:
        print_report(solves, duel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
