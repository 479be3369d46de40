"""The pip count alone on labelled photos, on the dice the shipped detector finds.

python benchmarks/photo_pips.py ../shared/data/dice-photos/nell-byler FOLDER ...
python benchmarks/photo_pips.py FOLDER --upright  # on the detector's upright box, as before

Every photo of each folder is read (the pip count is no learned model). Each die the detector
finds and matches to a label is counted as the reader without a calibration counts a doubted
die (``vision.learned.detected_count``: on the die's outline traced against the floor, else
on its box), or with ``--upright`` on the detector's upright box alone. Prints, per folder,
the dice counted right, those with no pip found, and the dice the count is sure of (0.5 or
more, and 0.9 or more) with how many of them are right.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.bench import load_folder, match
from vision.detect import DETECTED, load_detector
from vision.learned import detected_count
from vision.pips import confidence, count_pips
from vision.reading import Die
from vision.segment import square_region


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", type=Path, nargs="+", help="labelled folders (labels.jsonl)")
    parser.add_argument("--upright", action="store_true", help="count on the upright box")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    detector = load_detector()
    if detector is None:
        parser.error("no detector is installed")
    for folder in args.folders:
        counted: list[tuple[bool, int, float]] = []  # right, value counted, confidence
        for path, labels in load_folder(folder):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                parser.error(f"{path} is missing or not an image")
            found = [d for d in detector.detect(image) if d.score >= DETECTED]
            dice = [Die(value=1, center=d.centre, box=d.box, confidence=1.0) for d in found]
            for i, j in match(dice, labels):
                d = found[i]
                if args.upright:
                    count = count_pips(image, square_region(d.centre, d.side), d.side)
                else:
                    count = detected_count(image, d)
                counted.append((count.value == labels[j].value, count.value, confidence(count)))
        right = np.array([c[0] for c in counted], bool)
        conf = np.array([c[2] for c in counted], float)
        report = {
            "folder": folder.name,
            "counted_on": "upright box" if args.upright else "outline",
            "dice": len(counted),
            "right": int(right.sum()),
            "no_pip": sum(c[1] == 0 for c in counted),
        }
        for level in (0.5, 0.9):
            sure = conf >= level
            report[f"sure_{level}"] = int(sure.sum())
            report[f"sure_{level}_right"] = int((sure & right).sum())
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
