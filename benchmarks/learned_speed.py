"""Time the reader without a calibration on each model runtime, frame by frame in turn.

python benchmarks/learned_speed.py                 # 50 rendered 640x480 tower frames
python benchmarks/learned_speed.py --frames 100 --style hard
python benchmarks/learned_speed.py --single vision/models/dice_single.onnx  # single-stage

Each frame is read by ONNX Runtime and by OpenCV's dnn module one after the other, so both
meet the same load on a shared machine; medians of this process's CPU time and of wall time
per frame are printed, with the split between detector, face reader and the rest. With
``--single MODEL`` the single-stage reader (its network, then the pip count of each die) is
timed instead, the same way.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import cv2

from vision.detect import Detector, FaceReader, Runtime, SingleStage, prepare
from vision.reader import read_detected, read_single
from vision.render import random_scene


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=50)
    parser.add_argument("--style", default="tower")
    parser.add_argument("--single", type=Path, help="time this single-stage model instead")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    runtimes: tuple[Runtime, ...] = ("onnxruntime", "opencv")
    if args.single is not None:
        return time_single(args.single, args.frames, args.style, runtimes)
    models = {r: (Detector(runtime=r), FaceReader(runtime=r)) for r in runtimes}
    times: dict[str, dict[str, list[float]]] = {
        r: {"cpu": [], "wall": [], "detector": [], "faces": []} for r in runtimes
    }
    for seed in range(args.frames):
        frame, _ = random_scene(seed, 6, style=args.style)
        for r in runtimes:
            detector, faces = models[r]
            wall, cpu = time.perf_counter(), time.process_time()
            found = detector.detect(frame)
            after_detector = time.process_time()
            kept = [(d.centre, d.side) for d in found if d.score >= 0.3]
            faces.probabilities(frame, kept)
            after_faces = time.process_time()
            read_detected(frame, found, 6, faces=faces)  # the whole reading, faces again
            times[r]["cpu"].append(time.process_time() - cpu - (after_faces - after_detector))
            times[r]["wall"].append(time.perf_counter() - wall)
            times[r]["detector"].append(after_detector - cpu)
            times[r]["faces"].append(after_faces - after_detector)
    report = {
        r: {f"{k}_ms": round(1000 * statistics.median(v), 1) for k, v in t.items()}
        for r, t in times.items()
    }
    print(json.dumps({"frames": args.frames, "style": args.style, **report}))
    return 0


def time_single(path: Path, frames: int, style: str, runtimes: tuple[Runtime, ...]) -> int:
    """Median CPU and wall time of a whole single-stage reading per frame, per runtime."""
    models = {r: SingleStage(path, runtime=r) for r in runtimes}
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
