"""The reader without a calibration under each face-reading rule, frame by frame in turn.

python benchmarks/learned_levers.py                       # held-out photos, rendered frames
python benchmarks/learned_levers.py --rules four,adaptive --frames 50
python benchmarks/learned_levers.py --faces F.onnx --detector D.onnx  # other models (int8)

Each frame is read once per rule (``four``: every die in four quarter turns; ``adaptive``:
the other three turns only where the first is unsure or another opinion differs; ``one``:
one turn) one after the other, so every rule meets the same load on a shared machine. The
sets are the held-out photos of nell-byler and matteop65 (as ``vision-bench`` leaves out the
photos the models saw) and ``--frames`` rendered frames of the tower and hard styles without
a calibration (the bench's seeds). Per set and rule it prints right %, dice wrong at 0.5 or
more, the median CPU ms per frame and the share of dice read in four turns.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import get_args

import cv2
import numpy as np

from vision.bench import Sample, Score, folder_samples, score_sample, synthetic_samples
from vision.calibration import Calibration
from vision.detect import DETECTOR_FILE, FACES_FILE, Detector, FaceReader, TurnRule
from vision.models import photos_seen
from vision.reader import read_detected
from vision.reading import Reading, check_frame

PHOTOS = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "dice-photos"


class CountingFaces(FaceReader):
    """A face reader that keeps how many quarter turns it read of each die."""

    turns: list[int]

    def read(
        self,
        image: np.ndarray,
        dice: Sequence[tuple[tuple[float, float], float]],
        hints: Sequence[Collection[int]],
        rule: TurnRule = "adaptive",
    ) -> tuple[np.ndarray, np.ndarray]:
        probs, turns = super().read(image, dice, hints, rule)
        self.turns += turns.tolist()
        return probs, turns


def sets(photos: Path, frames: int, skip: frozenset[str]) -> Iterator[tuple[str, list[Sample]]]:
    """(name, samples) of each set measured."""
    for folder in ("nell-byler", "matteop65"):
        yield f"{folder} held out", list(folder_samples(photos / folder, skip))
    for style in ("tower", "hard"):
        yield f"{style}, no calibration", list(synthetic_samples(frames, style, calibrated=False))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=PHOTOS)
    parser.add_argument("--frames", type=int, default=100, help="rendered frames per style")
    parser.add_argument("--rules", default="four,adaptive,one")
    parser.add_argument("--faces", type=Path, default=FACES_FILE)
    parser.add_argument("--detector", type=Path, default=DETECTOR_FILE)
    args = parser.parse_args(argv)
    chosen = [r.strip() for r in args.rules.split(",")]
    known = get_args(TurnRule)
    if any(r not in known for r in chosen):
        parser.error(f"--rules {args.rules!r}: give some of {', '.join(known)}, comma-separated")
    rules: list[TurnRule] = [r for r in known if r in chosen]
    if args.frames < 1:
        parser.error(f"--frames {args.frames}: give a number of frames, 1 or more")
    cv2.setNumThreads(1)
    try:
        detector = Detector(args.detector)
        faces = {r: CountingFaces(args.faces) for r in rules}
    except ValueError as exc:
        parser.error(str(exc))
    skip = photos_seen(args.faces.with_suffix(".json"), args.detector.with_suffix(".json"))
    for name, samples in sets(args.photos, args.frames, skip):
        scores = {r: Score(f"{name}, {r}") for r in rules}
        for r in rules:
            faces[r].turns = []
        for sample in samples:
            for r in rules:

                def reader(
                    frame: np.ndarray,
                    _cal: Calibration | None,
                    want: int | None,
                    rule: TurnRule = r,
                ) -> Reading:
                    image = check_frame(frame)
                    found = detector.detect(image)
                    return read_detected(image, found, want, faces=faces[rule], turns=rule)

                score_sample(scores[r], sample, reader)
        for r in rules:
            row = scores[r].to_json()
            turns = faces[r].turns
            row["four_turn_share"] = round(sum(t > 1 for t in turns) / max(1, len(turns)), 3)
            row["cpu_ms_median"] = round(statistics.median(scores[r].cpu_ms), 1)
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
