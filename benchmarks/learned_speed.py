"""Time the reader without a calibration on each model runtime, frame by frame in turn.

python benchmarks/learned_speed.py                 # 50 rendered 640x480 tower frames
python benchmarks/learned_speed.py --frames 100 --style hard
python benchmarks/learned_speed.py --single vision/models/dice_single.onnx  # single-stage
python benchmarks/learned_speed.py --faces FACES.onnx [--detector DETECTOR.onnx]  # candidates

Each frame is read by ONNX Runtime and by OpenCV's dnn module one after the other, so both
meet the same load on a shared machine; medians of this process's CPU time and of wall time
per whole reading are printed (the shipped coarse-to-fine reading, ``read_learned``; with
``--full`` the detector's full side only), and of the CPU time of its parts (the detector at
its full side and at ``COARSE_SIDE``, face reader under ``--turns``, by default adaptive, and
the pip counts of the dice whose face the face reader and the detector do not agree on), each
timed again on its own. With
``--single MODEL`` the single-stage reader (its network, then the pip count of each die) is
timed instead, the same way. ``--faces`` and ``--detector`` time a candidate face reader
or detector (a training tool's output) in place of the shipped one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import get_args

import cv2

from vision.detect import (
    COARSE_SIDE,
    DETECTED,
    DETECTOR_FILE,
    FACES_FILE,
    Detector,
    FaceReader,
    Runtime,
    SingleStage,
    TurnRule,
    prepare,
)
from vision.learned import agreed, detected_count, face_hints, read_learned, read_single
from vision.render import random_scene


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=50)
    parser.add_argument("--style", default="tower")
    parser.add_argument("--single", type=Path, help="time this single-stage model instead")
    parser.add_argument(
        "--turns", choices=get_args(TurnRule), default="adaptive", help="the face reader's turns"
    )
    parser.add_argument("--full", action="store_true", help="the detector's full side only")
    parser.add_argument("--faces", type=Path, help="time this face reader instead")
    parser.add_argument("--detector", type=Path, help="time this detector instead")
    args = parser.parse_args(argv)
    if args.single is not None and (args.faces or args.detector):
        parser.error("--single times the single-stage reader; --faces and --detector go without it")
    cv2.setNumThreads(1)
    runtimes: tuple[Runtime, ...] = ("onnxruntime", "opencv")
    try:
        if args.single is not None:
            singles = {r: SingleStage(args.single, runtime=r) for r in runtimes}
            return time_single(singles, args.frames, args.style)
        models = {
            r: (
                Detector(args.detector or DETECTOR_FILE, r),
                FaceReader(args.faces or FACES_FILE, r),
            )
            for r in runtimes
        }
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    times: dict[str, dict[str, list[float]]] = {
        r: {"cpu": [], "wall": [], "detector": [], "coarse": [], "pips": [], "faces": []}
        for r in runtimes
    }
    for seed in range(args.frames):
        frame, _ = random_scene(seed, 6, style=args.style)
        for r in runtimes:
            detector, faces = models[r]
            wall, cpu = time.perf_counter(), time.process_time()
            coarse = None if args.full else COARSE_SIDE
            read_learned(frame, detector, 6, faces=faces, turns=args.turns, coarse_side=coarse)
            times[r]["cpu"].append(time.process_time() - cpu)
            times[r]["wall"].append(time.perf_counter() - wall)
            # the parts of the same reading, one by one
            start = time.process_time()
            found = [d for d in detector.detect(frame) if d.score >= DETECTED]
            after_detector = time.process_time()
            hints = [face_hints(d) for d in found]
            probs, _ = faces.read(frame, [(d.centre, d.side) for d in found], hints, args.turns)
            after_faces = time.process_time()
            for d, p in zip(found, probs, strict=True):
                if not agreed(d, p):  # the pips are counted where the networks do not agree
                    detected_count(frame, d)
            after_pips = time.process_time()
            detector.detect(frame, work_side=COARSE_SIDE)
            times[r]["coarse"].append(time.process_time() - after_pips)
            times[r]["detector"].append(after_detector - start)
            times[r]["faces"].append(after_faces - after_detector)
            times[r]["pips"].append(after_pips - after_faces)
    report = {
        r: {f"{k}_ms": round(1000 * statistics.median(v), 1) for k, v in t.items()}
        for r, t in times.items()
    }
    rule = "full" if args.full else f"coarse {COARSE_SIDE}"
    detector, faces = models[runtimes[0]]
    named = {"faces": str(faces.path), "detector": str(detector.path)}
    head = {"frames": args.frames, "style": args.style, "looks": rule, **named}
    print(json.dumps({**head, **report}))
    return 0


def time_single(models: dict[Runtime, SingleStage], frames: int, style: str) -> int:
    """Median CPU and wall time of a whole single-stage reading per frame, per runtime."""
    runtimes = tuple(models)
    path = models[runtimes[0]].path
    times: dict[str, dict[str, list[float]]] = {
        r: {"cpu": [], "wall": [], "network": []} for r in runtimes
    }
    for seed in range(frames):
        frame, _ = random_scene(seed, 6, style=style)
        for r in runtimes:
            wall, cpu = time.perf_counter(), time.process_time()
            models[r].raw(prepare(frame)[0])
            network = time.process_time() - cpu
            wall, cpu = time.perf_counter(), time.process_time()
            read_single(frame, models[r], 6)
            times[r]["cpu"].append(time.process_time() - cpu)
            times[r]["wall"].append(time.perf_counter() - wall)
            times[r]["network"].append(network)
    report = {
        r: {f"{k}_ms": round(1000 * statistics.median(v), 1) for k, v in t.items()}
        for r, t in times.items()
    }
    print(json.dumps({"frames": frames, "style": style, "model": str(path), **report}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
