"""Rules engine figures: scoring tables, exact odds, replay of a long record.

Run: ``.venv/bin/python benchmarks/rules.py [--repeats N] [--json]``.
Each figure is the median wall time over the repeats. Targets (issue 3):
every preset's odds under 1 s in all, a 10,000-action replay under 1 s.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from zilch import PRESETS, Game, find_preset, odds_table, replay, scoring_table
from zilch.scoring import clear_tables

RECORD_ACTIONS = 10_000


def median_seconds(
    work: Callable[[], object], repeats: int, before: Callable[[], object]
) -> tuple[float, float]:
    """Median wall time and median CPU time of ``work`` over ``repeats`` runs.

    ``before`` runs untimed before each run. The CPU time is the process's
    own, so it stays meaningful on a machine shared with other work.
    """
    walls, cpus = [], []
    for _ in range(repeats):
        before()
        wall, cpu = time.perf_counter(), time.process_time()
        work()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def build_all_tables() -> None:
    """Build the scoring table of every preset from nothing."""
    for rules in PRESETS.values():
        scoring_table(rules)


def all_odds() -> None:
    """The odds verb's table for every preset."""
    for rules in PRESETS.values():
        odds_table(rules)


def long_record(actions: int, seed: int = 1) -> dict[str, Any]:
    """A legal dicenow record of exactly ``actions`` actions, from seeded play.

    Sixteen players, a far target, and players who keep the best set-aside
    and bank as soon as the rules allow: many short turns of every kind.
    """
    rules = find_preset("dicenow").with_house_rules({"target": "100000", "players_max": "16"})
    rng = random.Random(seed)
    game = Game(rules, [f"Player {i}" for i in range(1, 17)])
    while len(game.actions) < actions:
        state = game.state
        if state.phase == "keep":
            game.keep(game.set_asides()[0].dice)
        elif state.turn.can_bank:
            game.bank()
        elif state.turn.rolls == 0 and rng.random() < 0.02:
            game.skip()
        else:
            game.roll([rng.randint(1, 6) for _ in range(state.turn.dice_left)])
    return game.record()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="runs per figure (median)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    repeats = max(1, args.repeats)

    def nothing() -> None:
        return None

    figures: dict[str, tuple[float, float]] = {}
    figures["tables_all_presets_cold"] = median_seconds(build_all_tables, repeats, clear_tables)
    figures["odds_all_presets_cold"] = median_seconds(all_odds, repeats, clear_tables)
    build_all_tables()
    figures["odds_all_presets_warm"] = median_seconds(all_odds, repeats, nothing)
    record = long_record(RECORD_ACTIONS)
    replay(record)  # builds the rule set's table once, outside the timing
    figures["replay_10000_actions"] = median_seconds(lambda: replay(record), repeats, nothing)
    if args.json:
        document = {key: {"wall_s": wall, "cpu_s": cpu} for key, (wall, cpu) in figures.items()}
        print(json.dumps({"repeats": repeats, **document}))
        return
    labels = {
        "tables_all_presets_cold": "scoring tables, all presets, cold",
        "odds_all_presets_cold": "odds 1-6 dice, all presets, cold",
        "odds_all_presets_warm": "odds 1-6 dice, all presets, warm",
        "replay_10000_actions": f"replay of a {RECORD_ACTIONS:,}-action record",
    }
    print(f"Rules engine benchmark: medians of {repeats} runs, {len(PRESETS)} presets")
    print(f"  {'':38} {'wall s':>8} {'cpu s':>8}")
    for key, label in labels.items():
        wall, cpu = figures[key]
        print(f"  {label:38} {wall:8.3f} {cpu:8.3f}")


if __name__ == "__main__":
    main()
