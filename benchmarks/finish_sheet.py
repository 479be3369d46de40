"""A contact sheet of rendered dice in the training recipe's ``--finishes`` styles, to look at.

python benchmarks/finish_sheet.py --out /tmp/finishes3.png                  # the recipe's own
python benchmarks/finish_sheet.py --out /tmp/ghosts.png --knob show_through  # one knob at 1

Each tile is one die of a rendered training frame (``tools/train_detector.py``'s
``rendered_style(rng, finishes=True)`` for seeds from ``--first``), cut 1.3 sides wide as the
face reader's crop is, scaled to 96 px, its true value in the corner. ``--knob NAME`` turns
that finish knob to 1 (with ``translucent`` at 1 for ``show_through``, which needs it) on a
light floor, so one finish can be looked at alone.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.render import RenderError, random_scene

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import train_detector  # a tool: its folder is on the path above

TILE = 96
KNOBS = ("show_through", "dull_pips", "ring_glare", "swirl")


def tiles(first: int, frames: int, knob: str | None, per_frame: int = 6) -> list[np.ndarray]:
    """Die crops of ``frames`` rendered training frames."""
    out = []
    for seed in range(first, first + frames):
        rng = np.random.default_rng(seed)
        style = train_detector.rendered_style(rng, finishes=True)
        if knob is not None:
            extra = {"translucent": 1.0, "marbled": 0.0} if knob == "show_through" else {}
            style = dataclasses.replace(
                style, floor_colors=((226, 228, 230),), **{knob: 1.0}, **extra
            )
        die_mm = float(rng.uniform(14.0, 26.0))
        try:
            frame, truth = random_scene(seed, 8, style=style, die_mm=die_mm)
        except ValueError:  # the dice did not fit the tray: fewer
            frame, truth = random_scene(seed, 4, style=style, die_mm=die_mm)
        for die in truth["dice"][:per_frame]:
            (x, y), (x0, y0, x1, y1) = die["center"], die["box"]
            half = max(x1 - x0, y1 - y0) * 0.65
            crop = frame[
                max(0, int(y - half)) : int(y + half), max(0, int(x - half)) : int(x + half)
            ]
            if min(crop.shape[:2]) < 8:
                continue
            tile = cv2.resize(crop, (TILE, TILE), interpolation=cv2.INTER_CUBIC)
            cv2.putText(
                tile, str(die["value"]), (2, 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 255, 0)
            )
            out.append(tile)
    return out


def sheet(parts: list[np.ndarray], columns: int = 8) -> np.ndarray:
    parts = parts + [np.zeros((TILE, TILE, 3), np.uint8)] * (-len(parts) % columns)
    return np.vstack([np.hstack(parts[i : i + columns]) for i in range(0, len(parts), columns)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="the sheet, a PNG file")
    parser.add_argument("--first", type=int, default=train_detector.FIRST_SEED)
    parser.add_argument("--frames", type=int, default=12)
    parser.add_argument("--knob", choices=KNOBS, help="turn this finish to 1 to see it alone")
    args = parser.parse_args()
    if not 1 <= args.frames <= 200 or args.first < 0:
        parser.error("--frames takes 1..200 frames and --first a seed >= 0")
    try:
        parts = tiles(args.first, args.frames, args.knob)
    except RenderError as exc:
        raise SystemExit(f"finish_sheet: {exc}") from None
    if not parts or not cv2.imwrite(str(args.out), sheet(parts[:96])):
        raise SystemExit(f"finish_sheet: could not write {args.out} (a .png path in a folder)")
    print(f"{min(len(parts), 96)} dice written to {args.out}")


if __name__ == "__main__":
    main()
