"""Rendered piles of small dice in a large frame, read without a calibration, with and without
the detector's closer look.

python benchmarks/learned_piles.py --frames 40 --size 1280x960
python benchmarks/learned_piles.py --frames 40 --size 1920x1440 --detector D.onnx --faces F.onnx

Each frame is a pile of 10 to 40 dice of 7 to 14 mm in a style of the wide domain that the
single-stage reader and ``train_detector.py --wide`` render (tools/train_single.py), from
seed 670000 (the training frames' seeds start at 600000 and the wide recipe renders 3,000).
Each frame is read both ways, one after the other, so both meet the same load. Per way it
prints dice right, recall, false dice (reported where no die lies), dice wrong at 0.9 or
more, and the median CPU ms per frame.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.detect import DETECTOR_FILE, FACES_FILE, Detection, Detector, FaceReader
from vision.learned import read_learned
from vision.reading import Reading
from vision.render import RenderError, random_pile

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import train_single  # a tool: its folder is on the path above

FIRST_SEED = 670_000


class Plain(Detector):
    """The detector without its closer look."""

    def detect_closer(
        self, image: np.ndarray, found: Any, threshold: float = 0.2
    ) -> list[Detection] | None:
        return None


def score(reading: Reading, truth: dict[str, Any]) -> tuple[int, int, int, int, int]:
    """Labelled dice, found, right, wrong at 0.9 or more, and false dice."""
    px = truth["die_px"]
    used: set[int] = set()
    labelled = found = right = sure_wrong = 0
    for d in truth["dice"]:
        if d["cocked"] or d["occluded"]:
            continue
        labelled += 1
        gaps = [
            (float(np.hypot(r.center[0] - d["center"][0], r.center[1] - d["center"][1])), i)
            for i, r in enumerate(reading.dice)
            if i not in used
        ]
        near = [g for g in gaps if g[0] < px / 2]
        if not near:
            continue
        i = min(near)[1]
        used.add(i)
        found += 1
        die = reading.dice[i]
        right += die.value == d["value"]
        sure_wrong += die.value != d["value"] and die.confidence >= 0.9
    false = sum(
        1
        for i, r in enumerate(reading.dice)
        if i not in used
        and not any(
            np.hypot(r.center[0] - d["center"][0], r.center[1] - d["center"][1]) < px / 2
            for d in truth["dice"]
        )
    )
    return labelled, found, right, sure_wrong, false


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=40)
    parser.add_argument("--size", default="1280x960", help="frame size, WIDTHxHEIGHT")
    parser.add_argument("--detector", type=Path, default=DETECTOR_FILE)
    parser.add_argument("--faces", type=Path, default=FACES_FILE)
    args = parser.parse_args(argv)
    try:
        width, height = (int(v) for v in args.size.split("x"))
    except ValueError:
        parser.error(f"--size is {args.size!r}; expected WIDTHxHEIGHT, such as 1280x960")
    cv2.setNumThreads(1)
    try:
        ways = {"closer": Detector(args.detector), "plain": Plain(args.detector)}
        faces = FaceReader(args.faces)
    except ValueError as exc:
        parser.error(str(exc))
    totals = {way: np.zeros(5, np.int64) for way in ways}
    cpu: dict[str, list[float]] = {way: [] for way in ways}
    for seed in range(FIRST_SEED, FIRST_SEED + args.frames):
        rng = np.random.default_rng(seed)
        style = train_single.wide_style(rng)
        die_mm = float(rng.uniform(7.0, 14.0))
        try:
            frame, truth = random_pile(
                seed, int(rng.integers(10, 41)), style=style, die_mm=die_mm, size=(width, height)
            )
        except (ValueError, RenderError):
            continue
        for way, detector in ways.items():
            start = time.process_time()
            reading = read_learned(frame, detector, None, faces=faces)
            cpu[way].append(1000 * (time.process_time() - start))
            totals[way] += score(reading, truth)
    for way, (labelled, found, right, sure_wrong, false) in totals.items():
        row = {
            "way": way,
            "size": args.size,
            "frames": len(cpu[way]),
            "dice": int(labelled),
            "right": round(right / max(labelled, 1), 4),
            "recall": round(found / max(labelled, 1), 4),
            "false_dice": int(false),
            "wrong_at_0.9": int(sure_wrong),
            "cpu_ms_median": round(statistics.median(cpu[way]), 1) if cpu[way] else None,
        }
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
