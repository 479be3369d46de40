"""Rendered piles of small dice in a large frame, read without a calibration, with and without
the detector's closer look.

python benchmarks/learned_piles.py --frames 40 --size 1280x960
python benchmarks/learned_piles.py --frames 40 --size 1920x1440 --detector D.onnx --faces F.onnx

Each frame is a pile of 10 to 40 dice of 7 to 14 mm in a style of the wide domain that the
single-stage reader and ``train_detector.py --wide`` render (tools/train_single.py), from
seed 670000 (the training frames' seeds start at 600000 and the wide recipe renders 3,000).
Each frame is read both ways, one after the other, so both meet the same load, and scored as
``vision-bench`` scores rendered frames (``vision.bench.score_sample``): a die hidden under
another is not labelled, and a frame with a cocked or hidden die must not be ok. Per way it
prints the bench's row.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from vision.bench import LabelledDie, Sample, Score, score_sample
from vision.calibration import Calibration
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
        self, image: np.ndarray, found: object, threshold: float = 0.2
    ) -> list[Detection] | None:
        return None


def pile_samples(n: int, size: tuple[int, int]) -> Iterator[Sample]:
    """The bench's piles, one at a time, as samples (the renderer's truth as labels)."""
    for seed in range(FIRST_SEED, FIRST_SEED + n):
        rng = np.random.default_rng(seed)
        style = train_single.wide_style(rng)
        die_mm = float(rng.uniform(7.0, 14.0))
        try:
            frame, truth = random_pile(
                seed, int(rng.integers(10, 41)), style=style, die_mm=die_mm, size=size
            )
        except (ValueError, RenderError):
            continue
        labels = tuple(
            LabelledDie(int(d["value"]), (d["center"][0], d["center"][1]), truth["die_px"])
            for d in truth["dice"]
            if not d["occluded"]
        )
        cocked = any(d["cocked"] or d["occluded"] for d in truth["dice"])
        yield Sample(f"seed {seed}", frame, labels, None, None, cocked)


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
    scores = {way: Score(f"piles {args.size}, {way} look") for way in ways}
    for sample in pile_samples(args.frames, (width, height)):
        for way, detector in ways.items():

            def reader(
                frame: np.ndarray, _: Calibration | None, want: int | None, d: Detector = detector
            ) -> Reading:
                return read_learned(frame, d, want, faces=faces)

            score_sample(scores[way], sample, reader)
    for score in scores.values():
        print(json.dumps(score.to_json()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
