"""Fixtures for the dice reader tests: rendered scenes with their calibrations."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from vision.calibration import Calibration
from vision.reading import Die

DATA = Path(__file__).resolve().parent.parent / "data" / "vision"
TOOLS = Path(__file__).resolve().parents[2] / "tools"


def load_tool(name: str) -> ModuleType:
    """The training script ``tools/<name>.py`` as a module (the tools are not a package)."""
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def nearest(dice: tuple[Die, ...], center: list[float], radius: float) -> Die | None:
    """The read die whose centre is within ``radius`` of ``center``, if any."""
    best = None
    for die in dice:
        d = ((die.center[0] - center[0]) ** 2 + (die.center[1] - center[1]) ** 2) ** 0.5
        if d <= radius and (best is None or d < best[0]):
            best = (d, die)
    return None if best is None else best[1]


@pytest.fixture(scope="session")
def tower_calibration() -> Calibration:
    """A calibration of rendered scene 0 in the tower style."""
    from vision.bench import scene_calibration

    cal = scene_calibration(0, "tower")
    assert cal is not None
    return cal
