"""Leaning dice without a calibration: how many frames with a cocked die the learned reader
catches (its reading not ok), and how many flat frames it still reads ok.

python benchmarks/leaning.py                                  # the shipped models, 400 seeds
python benchmarks/leaning.py --faces F.onnx --detector D.onnx --frames 100

Two sets, each of ``--frames`` seeds from ``--first-seed``, read by
``vision.learned.read_learned`` as ``read`` does without a calibration:

- ``tower, one cocked die``: the tower's style with one die of six leaning on a neighbour or
  the wall (``random_scene(seed, 6, style="tower", cocked=1)``); a frame is caught when its
  reading is not ok.
- ``hard``: the bench's hard frames (``vision-bench --synthetic N --style hard
  --uncalibrated``); frames with a leaning die, frames with a die only partly hidden under
  another's side (the bench counts both as cocked) and flat frames are counted apart: a
  leaning die in an ok reading is a wrong turn scored, a hidden corner mostly is not.

One JSON row per set. Which model is better at leaning dice is a difference of a few frames
in hundreds: compare models on the same seeds, and on more than a hundred.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

from vision.detect import DETECTOR_FILE, FACES_FILE, Detector, FaceReader
from vision.learned import read_learned
from vision.reading import check_frame
from vision.render import random_scene


def tower_row(detector: Detector, faces: FaceReader, first: int, n: int) -> dict[str, object]:
    """Tower frames with one cocked die each: how many are caught."""
    caught = 0
    for seed in range(first, first + n):
        frame, _ = random_scene(seed, 6, style="tower", cocked=1)
        caught += not read_learned(check_frame(frame), detector, 6, faces=faces).ok
    return {"set": "tower, one cocked die", "frames": n, "caught": caught}


def hard_row(detector: Detector, faces: FaceReader, first: int, n: int) -> dict[str, object]:
    """The bench's hard frames: leaning, partly hidden and flat frames counted apart."""
    counts = dict.fromkeys(("leaning", "leaning_passed", "hidden_only", "hidden_passed"), 0)
    flat = flat_ok = 0
    for seed in range(first, first + n):
        frame, truth = random_scene(seed, 6, style="hard")
        ok = read_learned(check_frame(frame), detector, 6, faces=faces).ok
        if any(d["cocked"] for d in truth["dice"]):
            counts["leaning"] += 1
            counts["leaning_passed"] += ok
        elif any(d["occluded"] for d in truth["dice"]):
            counts["hidden_only"] += 1
            counts["hidden_passed"] += ok
        else:
            flat += 1
            flat_ok += ok
    return {"set": "hard", "frames": n, **counts, "flat": flat, "flat_ok": flat_ok}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faces", type=Path, default=FACES_FILE, help="the face reader")
    parser.add_argument("--detector", type=Path, default=DETECTOR_FILE, help="the detector")
    parser.add_argument("--frames", type=int, default=400, help="seeds per set")
    parser.add_argument("--first-seed", type=int, default=0, help="the first seed of each set")
    args = parser.parse_args(argv)
    if args.frames < 1:
        parser.error(f"--frames {args.frames}: give a number of frames, 1 or more")
    if args.first_seed < 0:
        parser.error(f"--first-seed {args.first_seed}: give a seed, 0 or more")
    try:
        faces = FaceReader(args.faces)
        detector = Detector(args.detector)
    except ValueError as exc:
        parser.error(str(exc))
    cv2.setNumThreads(1)
    model = {"faces": str(args.faces), "detector": str(args.detector)}
    for row in (
        tower_row(detector, faces, args.first_seed, args.frames),
        hard_row(detector, faces, args.first_seed, args.frames),
    ):
        print(json.dumps({**row, **model}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
