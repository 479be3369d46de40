"""The reader without a calibration on labelled photos, die by die: what it gets wrong, where.

python benchmarks/learned_photos.py ../shared/data/dice-photos/nell-byler  # shipped reader
python benchmarks/learned_photos.py FOLDER --single MODEL.onnx  # a single-stage one
python benchmarks/learned_photos.py FOLDER --single MODEL.onnx --all-images  # a left-out source
python benchmarks/learned_photos.py FOLDER --faces FACES.onnx --all-images  # a left-out face reader
python benchmarks/learned_photos.py FOLDER --faces FACES.onnx --all-images --pips every

Photos the models were trained on are left out (their JSON files list them) unless
``--all-images`` is given (for a source the models never saw, as leave-one-source-out
trains them: ``tools/leave_one_out.py`` writes ``WORK/faces-without-SOURCE.onnx`` for
``--faces`` and, with its ``--detector``, ``detector-without-SOURCE.onnx`` for
``--detector``). Beside ``vision-bench``'s figures it counts the confidently wrong dice as
the issue defines them (a wrong value at confidence 0.9 or more in an ``ok`` reading) and
splits the labelled dice by kind: the body's colour (white or ivory, black, grey, or the hue
of a coloured body, from the median of the labelled box's middle) and its size in pixels; and
counts the wrong dice by true value and value read ("5 as 6", "2 as missed").
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import get_args

import cv2
import numpy as np

from vision.bench import LabelledDie, load_folder, match
from vision.detect import FACES_FILE, Detector, FaceReader, SingleStage, TurnRule, load_detector
from vision.learned import PipRule, read_detected, read_single
from vision.models import photos_seen
from vision.reader import read_dice
from vision.reading import Reading, check_frame

SURE = 0.9
HUES = ((10, "red"), (25, "orange"), (35, "yellow"), (85, "green"), (130, "blue"), (160, "purple"))


def die_kind(image: np.ndarray, die: LabelledDie) -> str:
    """The body colour of a labelled die, from the middle half of its box."""
    x, y = die.center
    h = max(2.0, die.size / 4.0)
    patch = image[int(y - h) : int(y + h) + 1, int(x - h) : int(x + h) + 1]
    if patch.size == 0:
        return "unknown"
    hsv = cv2.cvtColor(patch, cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(np.float64)
    hue, sat, val = np.median(hsv, axis=0)
    if sat < 60:
        return "white/ivory" if val > 150 else "black" if val < 70 else "grey"
    return next((name for top, name in HUES if hue < top), "red")


def size_kind(die: LabelledDie) -> str:
    return "<30 px" if die.size < 30 else "30-45 px" if die.size < 45 else ">=45 px"


def model_name(single: Path | None, faces: Path | None, detector: Path | None) -> str:
    """The models read with, as the report names them."""
    if single is not None:
        return str(single)
    if faces is None and detector is None:
        return "shipped"
    return f"faces {faces or 'shipped'}, detector {detector or 'shipped'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a labelled folder (labels.jsonl)")
    parser.add_argument("--single", type=Path, help="read with this single-stage model")
    parser.add_argument("--faces", type=Path, help="read with this face reader (two-stage)")
    parser.add_argument("--detector", type=Path, help="find the dice with this detector")
    parser.add_argument("--all-images", action="store_true", help="every photo of the folder")
    parser.add_argument("--failures", type=int, default=0, help="list this many wrong dice")
    parser.add_argument(
        "--turns",
        choices=get_args(TurnRule),
        default="adaptive",
        help="the face reader's turns (with --faces, --detector)",
    )
    parser.add_argument(
        "--pips",
        choices=get_args(PipRule),
        default="doubted",
        help="whose pips are counted (with --faces, --detector): the dice the networks do not "
        "agree on, or every die as before",
    )
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    if args.single is not None:
        try:
            model = SingleStage(args.single)
        except ValueError as exc:
            parser.error(str(exc))
        skip = photos_seen(args.single.with_suffix(".json"))

        def reader(frame: np.ndarray, want: int) -> Reading:
            return read_single(check_frame(frame), model, want)
    elif args.faces is not None or args.detector is not None:
        try:
            faces = FaceReader(args.faces or FACES_FILE)
            detector = Detector(args.detector) if args.detector else load_detector()
        except ValueError as exc:
            parser.error(str(exc))
        if detector is None:
            parser.error("no detector is installed: pass --detector MODEL.onnx")
        infos = [faces.path.with_suffix(".json"), detector.path.with_suffix(".json")]
        skip = photos_seen(*infos)

        def reader(frame: np.ndarray, want: int) -> Reading:
            image = check_frame(frame)
            found = detector.detect(image)
            return read_detected(image, found, want, faces=faces, turns=args.turns, pips=args.pips)
    else:
        skip = photos_seen()

        def reader(frame: np.ndarray, want: int) -> Reading:
            return read_dice(frame, expected=want)

    if args.all_images:
        skip = frozenset()
    totals: Counter[str] = Counter()
    kinds: dict[str, Counter[str]] = {}
    confusions: Counter[str] = Counter()
    failures: list[str] = []
    for path, labels in load_folder(args.folder):
        if f"{args.folder.name}/{path.name}" in skip:
            continue
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            parser.error(f"{path} is missing or not an image")
        reading = reader(image, len(labels))
        totals["frames"] += 1
        totals["ok_frames"] += reading.ok
        totals["dice"] += len(labels)
        pairs = match(reading.dice, labels)
        totals["false_dice"] += len(reading.dice) - len(pairs)
        found = {j: reading.dice[i] for i, j in pairs}
        for j, label in enumerate(labels):
            kind = [die_kind(image, label), size_kind(label)]
            die = found.get(j)
            right = die is not None and die.value == label.value
            totals["found"] += die is not None
            totals["right"] += right
            sure_wrong = die is not None and not right and die.confidence >= SURE and reading.ok
            totals["sure_wrong_in_ok"] += sure_wrong
            totals["wrong_over_half"] += die is not None and not right and die.confidence >= 0.5
            for k in kind:
                kinds.setdefault(k, Counter())["dice"] += 1
                kinds[k]["right"] += right
            if not right:
                confusions[f"{label.value} as {'missed' if die is None else die.value}"] += 1
                what = "missed" if die is None else f"read {die.value} at {die.confidence:.2f}"
                failures.append(
                    f"{path.name} {label.value} at ({label.center[0]:.0f}, {label.center[1]:.0f})"
                    f" {kind[0]}, {kind[1]}: {what}{' (ok reading)' if reading.ok else ''}"
                )
    n = max(1, totals["dice"])
    report = {
        "folder": args.folder.name,
        "model": model_name(args.single, args.faces, args.detector),
        **totals,
        "accuracy": round(totals["right"] / n, 4),
        "recall": round(totals["found"] / n, 4),
        "sure_wrong_in_ok_share": round(totals["sure_wrong_in_ok"] / n, 4),
        "by_kind": {
            k: f"{c['right']}/{c['dice']} ({100 * c['right'] / c['dice']:.1f}%)"
            for k, c in sorted(kinds.items())
        },
        "confusions": dict(confusions.most_common()),
    }
    print(json.dumps(report))
    for line in failures[: args.failures]:
        print(f"  {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
