"""Time the tray renderer, or write one rendered frame to look at.

python benchmarks/render.py                 # medians for the tower and hard styles
python benchmarks/render.py --out frame.png --seed 3 --style hard --cocked 1
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence

import cv2

from vision.render import STYLES, RenderError, random_scene, render_tray


def bench(style: str, frames: int, size: tuple[int, int]) -> dict[str, float]:
    """Milliseconds per frame for new random scenes and for a known scene drawn again.

    Wall-clock and CPU time of this process (CPU time hides other programs'
    load on a shared machine); OpenCV runs on one thread, as the tower does.
    """
    times: dict[str, list[float]] = {k: [] for k in ("new", "new_cpu", "same", "same_cpu")}
    for seed in range(frames):
        wall, cpu = time.perf_counter(), time.process_time()
        _, truth = random_scene(seed, 6, size=size, style=style)
        times["new"].append((time.perf_counter() - wall) * 1000)
        times["new_cpu"].append((time.process_time() - cpu) * 1000)
        wall, cpu = time.perf_counter(), time.process_time()
        render_tray(truth["tray"], size=size, seed=seed, style=style, frame=1)
        times["same"].append((time.perf_counter() - wall) * 1000)
        times["same_cpu"].append((time.process_time() - cpu) * 1000)
    return {f"{key}_median_ms": statistics.median(values) for key, values in times.items()}


def main(argv: Sequence[str] | None = None) -> int:
    """Print render-time medians per style, or write one frame with ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=300, help="frames per style to time")
    parser.add_argument("--size", default="640x480", help="WIDTHxHEIGHT")
    parser.add_argument("--out", help="write one frame to this image file instead of timing")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dice", type=int, default=6)
    parser.add_argument("--cocked", type=int, default=None)
    parser.add_argument("--style", default="tower", choices=sorted(STYLES))
    args = parser.parse_args(argv)
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size {args.size!r}: use WIDTHxHEIGHT, e.g. 640x480")
    if args.frames < 10:
        parser.error("--frames: time at least 10 frames")
    cv2.setNumThreads(1)
    try:
        if args.out is None:
            for name in ("tower", "hard"):
                numbers = bench(name, args.frames, (width, height))
                print(name, " ".join(f"{k}={v:.2f}" for k, v in numbers.items()))
            return 0
        frame, truth = random_scene(
            args.seed, args.dice, size=(width, height), style=args.style, cocked=args.cocked
        )
    except RenderError as error:
        parser.exit(1, f"error: {error}\n")
    if not cv2.imwrite(args.out, frame):
        parser.exit(1, f"error: cannot write {args.out}\n")
    print(args.out, [(d["value"], d["cocked"]) for d in truth["dice"]])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
