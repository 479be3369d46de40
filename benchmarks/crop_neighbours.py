"""How often the face reader's crop of a rendered training die holds another die's pips.

python benchmarks/crop_neighbours.py --frames 300            # the --finishes recipe's frames
python benchmarks/crop_neighbours.py --frames 300 --plain    # the recipe without finishes
python benchmarks/crop_neighbours.py --frames 300 --squared  # the second form's placement

The face reader reads a square ``CROP_EXTENT`` (1.3) die sides wide, centred on the die and
square to the frame (``vision.detect.die_crop`` at read time). For each die of the training
recipe's rendered frames (``tools/train_detector.py``'s ``rendered_items`` seeds and styles)
this counts the pip centres of the other dice' top faces (from their corners in the ground
truth and the pip layout) that fall inside that square, and prints the share of dice whose
crop holds at least one, and the share of dice touching another (centres under 1.2 sides
apart). Side faces' pips are not counted.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

import numpy as np

from vision.detect import CROP_EXTENT
from vision.render import random_scene, top_pip_centres

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import train_detector  # a tool: its folder is on the path above


def pip_centres(die: dict[str, Any]) -> np.ndarray:
    """A rendered die's top-face pip centres in frame pixels (the renderer's own layout)."""
    return top_pip_centres(die["corners"], die["value"])


def crowded_dice(dice: list[dict[str, Any]]) -> list[tuple[bool, bool]]:
    """For each rendered die (its ground truth): whether the face reader's crop of it holds
    another die's top-face pip centre, and whether another die's centre is within 1.2 sides."""
    pips = [pip_centres(d) for d in dice]
    out = []
    for i, die in enumerate(dice):
        c = np.array(die["corners"], np.float64)
        side = float(np.linalg.norm(c[1] - c[0]))
        half, centre = CROP_EXTENT * side / 2, c.mean(axis=0)
        others = [p for j, p in enumerate(pips) if j != i]
        inside = any(bool((np.abs(p - centre) < half).all(axis=1).any()) for p in others)
        near = any(
            float(np.linalg.norm(np.array(d["corners"]).mean(axis=0) - centre)) < 1.2 * side
            for j, d in enumerate(dice)
            if j != i
        )
        out.append((inside, near))
    return out


def measure(frames: int, finishes: bool, squared: bool = False) -> tuple[int, int, int]:
    """Dice seen, dice whose crop holds another die's pip, dice touching another."""
    seen = crowded = touching = 0
    for seed in range(train_detector.FIRST_SEED, train_detector.FIRST_SEED + frames):
        rng = np.random.default_rng(seed)
        style = train_detector.rendered_style(rng, finishes)
        if squared:  # the second form's placement: its touching, dice squared up
            second = train_detector.rendered_style(np.random.default_rng(seed))
            style = dataclasses.replace(style, touching=second.touching, touch_turn=0.0)
        die_mm = float(rng.uniform(9.0, 26.0))
        n_dice = int(rng.integers(0, 13))
        try:
            _, truth = random_scene(seed, n_dice, style=style, die_mm=die_mm)
        except ValueError:  # as rendered_items: the dice did not fit the tray, fewer
            _, truth = random_scene(seed, min(n_dice, 6), style=style, die_mm=die_mm)
        dice = [d for d in truth["dice"] if not d["cocked"] and not d["occluded"]]
        for inside, near in crowded_dice(dice):
            seen, crowded, touching = seen + 1, crowded + inside, touching + near
    return seen, crowded, touching


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--plain", action="store_true", help="the recipe without --finishes")
    parser.add_argument(
        "--squared", action="store_true", help="the second form's touching, dice squared up"
    )
    args = parser.parse_args()
    if not 1 <= args.frames <= 5000:
        parser.error("--frames takes 1..5000 frames")
    seen, crowded, touching = measure(args.frames, not args.plain, args.squared)
    share = 100.0 * crowded / max(seen, 1)
    print(
        f"{seen} dice in {args.frames} frames: {crowded} ({share:.1f}%) with another die's pip "
        f"in the face reader's crop, {touching} ({100.0 * touching / max(seen, 1):.1f}%) touching"
    )


if __name__ == "__main__":
    main()
