"""Fixtures for the dice reader tests: rendered scenes with their calibrations."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import cv2
import numpy as np
import pytest

from vision.calibration import Calibration
from vision.detect import (
    COARSE_SIDE,
    DETECTOR_FILE,
    FACES_FILE,
    WORK_SIDE,
    Detection,
    Detector,
    load_detector,
)
from vision.reading import Die, Reading
from vision.render import random_scene

DATA = Path(__file__).resolve().parent.parent / "data" / "vision"
TOOLS = Path(__file__).resolve().parents[2] / "tools"
BENCHMARKS = TOOLS.parent / "benchmarks"


def load_tool(name: str) -> ModuleType:
    """The script ``tools/<name>.py`` as a module. The tools are not a package: each imports
    its siblings by name, as it does when run, so their folder goes on ``sys.path``."""
    if str(TOOLS) not in sys.path:
        sys.path.append(str(TOOLS))
    return importlib.import_module(name)


def load_bench(name: str) -> ModuleType:
    """The script ``benchmarks/<name>.py`` as a module of its own (run from its file)."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shipped_copies(folder: Path) -> tuple[Path, Path]:
    """The shipped face reader (with its description) and detector copied into ``folder``,
    as a training tool writes candidates elsewhere: ``(faces, detector)``."""
    faces, detector = folder / "faces.onnx", folder / "detector.onnx"
    faces.write_bytes(FACES_FILE.read_bytes())
    faces.with_suffix(".json").write_bytes(FACES_FILE.with_suffix(".json").read_bytes())
    detector.write_bytes(DETECTOR_FILE.read_bytes())
    return faces, detector


def refuses_broken_model(
    main: Callable[[list[str]], int],
    argv: list[str],
    broken: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``main(argv)``, whose arguments name ``broken`` (written here, not a network), exits
    with the command-line error code and a last line naming that file and what it is not."""
    broken.write_bytes(b"not a network")
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert str(broken) in line and "not a readable ONNX model" in line


Test = TypeVar("Test", bound=Callable[..., object])

#: PyTorch and onnx, which only the training tools need (``pip install -e '.[train]'``)
CAN_TRAIN = all(importlib.util.find_spec(m) is not None for m in ("torch", "onnx"))


def trains(test: Test) -> Test:
    """Mark a test that runs a training tool: slow, skipped without PyTorch and onnx, and
    quiet about the legacy ONNX exporter the tools use (its DeprecationWarning)."""
    skip = pytest.mark.skipif(
        not CAN_TRAIN, reason="training needs PyTorch and onnx (pip install -e '.[train]')"
    )
    quiet = pytest.mark.filterwarnings("ignore::DeprecationWarning")
    marked: Test = pytest.mark.slow(skip(quiet(test)))
    return marked


def labelled_folder(folder: Path, seeds: Iterable[int], dice: int = 4) -> Path:
    """A labelled folder laid out as the development photos are: one rendered tower frame of
    ``dice`` upright dice per seed (``p0.png``, ``p1.png``, ...) and ``labels.jsonl``."""
    folder.mkdir(parents=True)
    lines = []
    for i, seed in enumerate(seeds):
        frame, truth = random_scene(seed, dice, style="tower", cocked=0)
        cv2.imwrite(str(folder / f"p{i}.png"), frame)
        boxes = [{"value": d["value"], "box": d["box"]} for d in truth["dice"]]
        lines.append(json.dumps({"image": f"p{i}.png", "dice": boxes}))
    (folder / "labels.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def true_values(truth: dict[str, Any]) -> tuple[int, ...]:
    """The values a rendered frame's dice truly show, sorted as a reading's values are."""
    return tuple(sorted(int(d["value"]) for d in truth["dice"]))


def flat_roll(seed: int, number: int, size: tuple[int, int]) -> tuple[Reading, tuple[int, ...]]:
    """Flat roll ``number`` of tower setup ``seed`` at ``size``, read as the tower reads it
    without a profile, and the values it truly shows, sorted."""
    from vision.reader import read_dice
    from vision.render import resolve_style
    from vision.setups import make_setup

    setup = make_setup(seed, size, resolve_style("setup"))
    assert setup is not None
    frame, truth = setup.roll(number, 0)
    return read_dice(frame, setup.calibration, expected=6), true_values(truth)


def cocked_roll(
    seed: int, number: int, size: tuple[int, int]
) -> tuple[Reading, dict[str, Any], float]:
    """Roll ``number`` of tower setup ``seed`` at ``size`` with a cocked die, read as the
    tower reads it without a profile; its truth and the calibrated die side."""
    from vision.reader import read_dice
    from vision.render import resolve_style
    from vision.setups import make_setup

    setup = make_setup(seed, size, resolve_style("setup"))
    assert setup is not None
    frame, truth = setup.roll(number, 1)
    reading = read_dice(frame, setup.calibration, expected=6)
    return reading, truth, setup.calibration.die_side


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


class LookingDetector(Detector):
    """The shipped detector, keeping the working side of every full (or closer) look it
    takes and counting its coarse looks."""

    def __init__(self) -> None:
        assert load_detector() is not None, "the shipped detector is missing"
        super().__init__()
        self.sides: list[int] = []
        self.coarse = 0

    @property
    def full(self) -> int:
        """Looks taken at a full working side (or closer)."""
        return len(self.sides)

    def detect(
        self,
        image: np.ndarray,
        threshold: float = 0.2,
        work_side: int = WORK_SIDE,
        enlarge: bool = False,
    ) -> list[Detection]:
        self.sides.append(work_side)
        return super().detect(image, threshold, work_side, enlarge)

    def detect_coarse(
        self, image: np.ndarray, threshold: float = 0.2, side: int = COARSE_SIDE
    ) -> list[Detection] | None:
        self.coarse += 1
        return super().detect_coarse(image, threshold, side)
