"""CPU time to fit a dice profile, and to read a tower frame with and without one.

python benchmarks/tower_profile.py                       # setup 0 at 640x480
python benchmarks/tower_profile.py --seed 3 --size 1296x972 --frames 60

One tower of the ``setup`` style is calibrated; its teaching throws (flat, labelled from
the truth and cut where the reader finds each die, as ``vision-bench --setups`` does) give
up to 1,200 examples. The profile is fitted from 120, 600 and 1,200 of them (the service's
cap is 600) and the CPU seconds of each fit are printed; then ``--frames`` rolls are read
calibrated, each without and with the profile of 120 examples, and the median CPU ms of
each is printed. OpenCV runs on one thread; set ``OPENBLAS_NUM_THREADS=1`` for numpy's
BLAS too, as on a Pi core shared with the service (the CPU time of a multi-threaded BLAS
counts every thread).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import cv2

from vision.profile import fit_profile
from vision.reader import read_dice
from vision.render import resolve_style
from vision.setups import COCKED_EVERY, TEACH_SEEDS, make_setup
from vision.teach import LabelledDie, frame_examples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", default="640x480")
    parser.add_argument("--frames", type=int, default=60)
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))
    cv2.setNumThreads(1)
    setup = make_setup(args.seed, (w, h), resolve_style("setup"))
    if setup is None:
        raise SystemExit(f"setup {args.seed} does not calibrate at {w}x{h}; pick another seed")
    examples = []
    throw = 0
    while len(examples) < 1200 and throw < 400:
        frame, truth = setup.roll(TEACH_SEEDS + throw, 0)
        dice = tuple(LabelledDie(int(d["value"]), tuple(d["box"])) for d in truth["dice"])
        examples += frame_examples(frame, dice, setup.calibration)
        throw += 1
    fits = {}
    for n in (120, 600, 1200):
        start = time.process_time()
        profile = fit_profile(examples[:n], setup.calibration)
        fits[str(n)] = round(time.process_time() - start, 2)
    profile = fit_profile(examples[:120], setup.calibration)
    plain, taught = [], []
    for number in range(1, args.frames + 1):
        frame, _ = setup.roll(number, 1 if number % COCKED_EVERY == 0 else 0)
        for out, p in ((plain, None), (taught, profile)):
            start = time.process_time()
            read_dice(frame, setup.calibration, expected=6, profile=p)
            out.append((time.process_time() - start) * 1000.0)
    print(
        json.dumps(
            {
                "seed": args.seed,
                "size": [w, h],
                "fit_cpu_s": fits,
                "frames": args.frames,
                "read_cpu_ms_median": round(statistics.median(plain), 2),
                "read_with_profile_cpu_ms_median": round(statistics.median(taught), 2),
            }
        )
    )


if __name__ == "__main__":
    main()
