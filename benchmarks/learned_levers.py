"""The reader without a calibration under each face-reading and detector-pass rule, frame by
frame in turn.

python benchmarks/learned_levers.py                       # held-out photos, rendered frames
python benchmarks/learned_levers.py --rules four,adaptive --frames 50
python benchmarks/learned_levers.py --faces F.onnx --detector D.onnx  # other models (int8)
python benchmarks/learned_levers.py --rules adaptive --passes full,384,320  # coarse to fine
python benchmarks/learned_levers.py --rules adaptive --passes 384 --pips doubted,every

Each frame is read once per rule (``four``: every die in four quarter turns; ``adaptive``:
the other three turns only where the first is unsure or another opinion differs; ``one``:
one turn) one after the other, so every rule meets the same load on a shared machine. The
sets are the held-out photos of nell-byler and matteop65 (as ``vision-bench`` leaves out the
photos the models saw) and ``--frames`` rendered frames of the tower and hard styles without
a calibration (the bench's seeds). ``--passes`` names the detector's passes: ``full`` looks at
the full working side only, a number N first looks at N pixels and again at the full side only
where that look is not trusted or its reading is not ok (``vision.learned.read_learned``; the
shipped reader's is ``COARSE_SIDE``). ``--pips`` names whose pips are counted: ``doubted``
(the shipped rule: the dice whose face the face reader and the detector do not agree on) or
``every`` (every die's, the rule before). Per set and rule it prints right %, dice wrong at 0.5
or more, dice wrong at 0.9 or more in an ok reading, the median CPU ms per frame, the share of
dice read in four turns and the share of frames the full side looked at.
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

from vision.bench import Sample, Score, folder_samples, match, score_sample, synthetic_samples
from vision.calibration import Calibration
from vision.detect import (
    COARSE_SIDE,
    DETECTOR_FILE,
    FACES_FILE,
    WORK_SIDE,
    Detection,
    Detector,
    FaceReader,
    TurnRule,
)
from vision.learned import PipRule, read_learned
from vision.models import photos_seen
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


class CountingDetector(Detector):
    """A detector that counts its looks at the full working side."""

    full_looks = 0

    def detect(
        self,
        image: np.ndarray,
        threshold: float = 0.2,
        work_side: int = WORK_SIDE,
        enlarge: bool = False,
    ) -> list[Detection]:
        self.full_looks += 1
        return super().detect(image, threshold, work_side, enlarge)


def parse_passes(text: str) -> list[int | None]:
    """``full`` (None) or coarse sides from 64 to below WORK_SIDE, comma-separated."""
    out: list[int | None] = []
    for part in (p.strip() for p in text.split(",")):
        if part == "full":
            out.append(None)
        elif part.isdigit() and 64 <= int(part) < WORK_SIDE:
            out.append(int(part))
        else:
            raise ValueError(
                f"--passes {text!r}: give full or coarse sides 64..{WORK_SIDE - 1} "
                f"(the shipped one is {COARSE_SIDE}), comma-separated"
            )
    return out


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
    parser.add_argument("--passes", default="full", help="full and/or coarse sides, e.g. full,384")
    parser.add_argument("--pips", default="doubted", help="doubted and/or every")
    parser.add_argument("--faces", type=Path, default=FACES_FILE)
    parser.add_argument("--detector", type=Path, default=DETECTOR_FILE)
    args = parser.parse_args(argv)
    chosen = [r.strip() for r in args.rules.split(",")]
    known = get_args(TurnRule)
    if any(r not in known for r in chosen):
        parser.error(f"--rules {args.rules!r}: give some of {', '.join(known)}, comma-separated")
    rules: list[TurnRule] = [r for r in known if r in chosen]
    try:
        passes = parse_passes(args.passes)
    except ValueError as exc:
        parser.error(str(exc))
    pip_rules: list[PipRule] = [p for p in get_args(PipRule) if p in args.pips.split(",")]
    if not pip_rules or len(pip_rules) != len(args.pips.split(",")):
        parser.error(f"--pips {args.pips!r}: give doubted and/or every, comma-separated")
    if args.frames < 1:
        parser.error(f"--frames {args.frames}: give a number of frames, 1 or more")
    cv2.setNumThreads(1)
    try:
        combos = [(r, p, q) for r in rules for p in passes for q in pip_rules]
        detectors = {c: CountingDetector(args.detector) for c in combos}
        faces = {c: CountingFaces(args.faces) for c in combos}
    except ValueError as exc:
        parser.error(str(exc))
    skip = photos_seen(args.faces.with_suffix(".json"), args.detector.with_suffix(".json"))
    for name, samples in sets(args.photos, args.frames, skip):
        scores = {c: Score(f"{name}, {c[0]}, {c[1] or 'full'}, pips {c[2]}") for c in combos}
        sure_wrong = dict.fromkeys(combos, 0)
        for c in combos:
            faces[c].turns = []
            detectors[c].full_looks = 0
        for sample in samples:
            for c in combos:
                read: list[Reading] = []

                def reader(
                    frame: np.ndarray,
                    _cal: Calibration | None,
                    want: int | None,
                    combo: tuple[TurnRule, int | None, PipRule] = c,
                    store: list[Reading] = read,
                ) -> Reading:
                    rule, coarse, pips = combo
                    reading = read_learned(
                        check_frame(frame),
                        detectors[combo],
                        want,
                        faces=faces[combo],
                        turns=rule,
                        coarse_side=coarse,
                        pips=pips,
                    )
                    store.append(reading)
                    return reading

                score_sample(scores[c], sample, reader)
                sure_wrong[c] += _sure_wrong(read[0], sample)
        for c in combos:
            row = scores[c].to_json()
            turns = faces[c].turns
            row["four_turn_share"] = round(sum(t > 1 for t in turns) / max(1, len(turns)), 3)
            row["full_look_share"] = round(detectors[c].full_looks / max(1, len(samples)), 3)
            row["cpu_ms_median"] = round(statistics.median(scores[c].cpu_ms), 1)
            row["wrong_sure_in_ok"] = sure_wrong[c]
            print(json.dumps(row), flush=True)
    return 0


def _sure_wrong(reading: Reading, sample: Sample) -> int:
    """Dice of an ok reading read wrong at 0.9 or more (the issue's "confidently wrong")."""
    if not reading.ok:
        return 0
    pairs = match(reading.dice, sample.labels)
    return sum(
        reading.dice[i].value != sample.labels[j].value and reading.dice[i].confidence >= 0.9
        for i, j in pairs
    )


if __name__ == "__main__":
    sys.exit(main())
