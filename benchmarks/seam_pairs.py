"""The seams between touching dice on tower setups: how far apart their top faces lie and
how much of the pips' colour their seam bears (vision.seam), for flat rolls and for rolls
with a cocked die.

python benchmarks/seam_pairs.py --first-seed 200 --setups 12 --rolls 30 --size 640x480

Each roll of each setup (calibrated as ``vision-bench --setups`` calibrates it) is read; for
every two dice of touching groups whose pips were counted and whose faces lie within
``SEAM_REACH`` sides, the seam is measured (:func:`vision.seam.seam_between`). Printed:
the flat rolls' pairs with sure counts (0.5 or more) and no floor in the seam's middle, their
distance at the 50th, 99th, 99.9th percentile and the largest, the farthest of them with
their marks, and every pair the rule would judge a side face in flat and in cocked rolls;
``--json`` prints each pair instead.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics

import cv2
import numpy as np

import vision.reader as reader
from vision.pips import confidence
from vision.render import resolve_style
from vision.seam import SEAM_FLOOR, SEAM_REACH, seam_between
from vision.setups import COCKED_EVERY, make_setup


def pairs(first: int, setups: int, rolls: int, size: tuple[int, int]) -> list[dict]:
    """Every touching pair's seam, with its roll and whether that roll holds a cocked die."""
    seen = []
    judged = reader._die

    def kept(found, side, *args, **kwargs):  # the dice as the reader judged them
        seen.append(found)
        return judged(found, side, *args, **kwargs)

    reader._die = kept
    out = []
    try:
        for seed in range(first, first + setups):
            setup = make_setup(seed, size, resolve_style("setup"))
            if setup is None:  # no calibration: the bench skips it too
                continue
            side = setup.calibration.die_side
            for number in range(1, rolls + 1):
                cocked = number % COCKED_EVERY == 0
                frame, _ = setup.roll(number, 1 if cocked else 0)
                seen.clear()
                reading = reader.read_dice(frame, setup.calibration, expected=6)
                dice = [f for f in seen if f.region.merged > 1 and f.count.pips]
                for i, a in enumerate(dice):
                    for b in dice[i + 1 :]:
                        gap = math.dist(a.centre, b.centre) / side
                        if gap > SEAM_REACH + 0.5:
                            continue
                        seam = seam_between(frame, setup.calibration, a.count, b.count)
                        if seam.apart >= SEAM_REACH:
                            continue
                        out.append(
                            {
                                "seed": seed,
                                "roll": number,
                                "cocked": cocked,
                                "ok": reading.ok,
                                "sure": min(confidence(a.count), confidence(b.count)) >= 0.5,
                                "apart": round(seam.apart, 4),
                                "turned": round(seam.turned, 1),
                                "floor": round(seam.floor, 3),
                                "marks": round(seam.marks, 5),
                                "side_face": seam.side_face,
                            }
                        )
    finally:
        reader._die = judged
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first-seed", type=int, default=200)
    parser.add_argument("--setups", type=int, default=12)
    parser.add_argument("--rolls", type=int, default=30)
    parser.add_argument("--size", default="640x480")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    w, h = (int(v) for v in args.size.lower().split("x"))
    found = pairs(args.first_seed, args.setups, args.rolls, (w, h))
    if args.json:
        print(json.dumps(found))
        return
    fires = [p for p in found if p["side_face"]]
    flat = [p for p in found if not p["cocked"] and p["sure"] and p["floor"] <= SEAM_FLOOR]
    print(f"{len(found)} touching pairs; flat rolls' sure pairs with no floor between: {len(flat)}")
    if flat:
        apart = np.array([p["apart"] for p in flat])
        pct = np.percentile(apart, [50, 99, 99.9, 100]).round(3).tolist()
        print(f"  sides apart, 50th/99th/99.9th percentile and largest: {pct}")
        far = sorted(flat, key=lambda p: p["apart"])[-5:]
        print("  farthest:", [(p["seed"], p["roll"], p["apart"], p["marks"]) for p in far])
        print(f"  median marks: {statistics.median(p['marks'] for p in flat):.4f}")
    for kind, cocked in (("flat", False), ("cocked", True)):
        got = [
            (p["seed"], p["roll"], p["apart"], p["marks"], p["ok"])
            for p in fires
            if p["cocked"] == cocked
        ]
        print(f"  a side face in the seam, {kind} rolls ({len(got)}):", got)


if __name__ == "__main__":
    main()
