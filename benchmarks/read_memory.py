"""Peak memory and time of ``zilch-tower read`` over many frames, as a user runs it.

python benchmarks/read_memory.py                  # 99 rendered 640x480 frames, no calibration
python benchmarks/read_memory.py --frames 20 --size 1920x1080

The frames are rendered (hard style) into a temporary folder, then one
``zilch-tower read --json`` process reads them all; its peak resident memory
(``ru_maxrss`` of the child) and its wall time, start-up and model loading included,
are printed (``vision-bench`` gives the time per frame). ``read`` decodes one
image, reads it, prints it and drops it, so the peak should not grow with the
number of frames.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import cv2

from vision.render import random_scene


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=99)
    parser.add_argument("--size", default="640x480", help="WIDTHxHEIGHT of the frames")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for seed in range(args.frames):
            frame, _ = random_scene(seed, 6, size=(width, height), style="hard")
            path = Path(tmp) / f"frame{seed:03d}.jpg"
            cv2.imwrite(str(path), frame)
            paths.append(str(path))
        command = [str(Path(sys.executable).with_name("zilch-tower")), "read", "--json", *paths]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
    if done.returncode != 0:
        print(done.stderr.strip(), file=sys.stderr)
        return 1
    lines = done.stdout.strip().splitlines()
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    report = {
        "frames": len(lines),
        "size": [width, height],
        "peak_mb": round(peak_mb, 1),
        "seconds": round(seconds, 1),
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
