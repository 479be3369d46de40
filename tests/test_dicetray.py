"""The shared tray geometry: a leaf package, one seeded throw for the simulator and renderer."""

from __future__ import annotations

import ast
import math
import random
import sys
from pathlib import Path

import dicetray
from dicetray import DIE_MM, TRAY_MM, throw
from firmware import SimulatedTower
from vision.render import random_tray


def test_dicetray_imports_only_the_standard_library() -> None:
    source = Path(dicetray.__file__).read_text(encoding="utf-8")
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    assert names <= set(sys.stdlib_module_names), names - set(sys.stdlib_module_names)


def test_one_size_for_the_simulator_and_the_renderer() -> None:
    import firmware
    import vision.render

    assert firmware.TRAY_MM is vision.render.TRAY_MM is TRAY_MM
    assert firmware.DIE_MM == vision.render.DIE_MM == DIE_MM


def test_the_renderer_draws_the_throw_of_the_simulated_tower() -> None:
    rng = random.Random(7)
    values = [rng.randint(1, 6) for _ in range(6)]
    assert random_tray(7, 6, touching=0.3) == throw(rng, values, touch_chance=0.3, cocked=())


def test_the_simulated_tower_throws_through_dicetray() -> None:
    tower = SimulatedTower(seed=4, settle_time_s=0.0, touch_chance=0.0)
    rng = random.Random(4)
    values = [rng.randint(1, 6) for _ in range(6)]
    assert tower.tray() == throw(rng, values, touch_chance=0.0)


def test_a_throw_keeps_dice_apart_and_on_the_floor() -> None:
    for seed in range(20):
        rng = random.Random(seed)
        dice = throw(rng, [1] * 8, touch_chance=0.0, cocked=[True, False])
        assert dice is not None and [d["cocked"] for d in dice[:3]] == [True, False, False]
        for i, a in enumerate(dice):
            assert 0 <= a["x"] <= TRAY_MM[0] and 0 <= a["y"] <= TRAY_MM[1]
            for b in dice[i + 1 :]:
                assert math.hypot(a["x"] - b["x"], a["y"] - b["y"]) > DIE_MM


def test_a_throw_that_does_not_fit_says_none() -> None:
    assert throw(random.Random(0), [1] * 9, touch_chance=0.0, tray_mm=(60.0, 60.0)) is None
