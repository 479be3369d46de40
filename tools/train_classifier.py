"""Train the dice classifier shipped in ``vision/models/`` (numpy only, reproducible).

Samples are the reader's own candidate dice, matched by centre to the ground truth, so the
model learns from the crops it will see: rendered frames (tower and hard styles, seeds far
from the bench's), the flat rolls of rendered tower setups (``--setups``: one dice set,
floor, light and camera each, calibrated as the tower is) and the development photos'
training split. A quarter of each photo folder (by a hash of the file name) is held out;
the model's file lists the photos it was trained on, and ``zilch-tower vision-bench``
leaves those out.

    .venv/bin/python tools/train_classifier.py --photos ../shared/data/dice-photos
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.bench import LabelledDie, labelled_folders, match, photo_split, scene_calibration
from vision.calibration import Calibration
from vision.classify import MODEL_FILE, MODEL_INFO, PATCH, DiceClassifier, face_patch
from vision.reader import locate
from vision.reading import Die
from vision.render import random_scene

FIRST_SEED = 500_000  # rendered training scenes; the bench uses seeds from 0
SETUP_SEED = 600_000  # tower setups to train on (the bench's setups use seeds under 100,000)
HELD_SETUP_SEED = 700_000  # tower setups that only measure the model
SETUP_ROLLS = 20  # flat rolls read from each training setup
HELD_SETUPS = 20  # held-out setups the model's file reports its accuracy on


def samples_from(
    frame: np.ndarray, calibration: Calibration | None, truth: list[LabelledDie]
) -> tuple[list[np.ndarray], list[int]]:
    """Patches of the reader's candidates that match a labelled die, with the labels."""
    found, side = locate(frame, calibration)
    if side is None or not found:
        return [], []
    boxes = [Die(1, f.centre, f.region.box, 1.0) for f in found]
    patches, values = [], []
    for i, j in match(boxes, truth):
        patches.append(face_patch(frame, found[i].centre, side))
        values.append(truth[j].value)
    return patches, values


def rendered(n: int) -> tuple[list[np.ndarray], list[int]]:
    """Samples from ``n`` rendered frames, half tower style, half hard."""
    patches: list[np.ndarray] = []
    values: list[int] = []
    for k in range(n):
        seed, style = FIRST_SEED + k, ("tower", "hard")[k % 2]
        frame, truth = random_scene(seed, 6, style=style)
        labels = [
            LabelledDie(int(d["value"]), (d["center"][0], d["center"][1]), truth["die_px"])
            for d in truth["dice"]
            if not (d["cocked"] or d["occluded"])
        ]
        cal = scene_calibration(seed, style) if k % 4 < 2 else None  # also uncalibrated
        p, v = samples_from(frame, cal, labels)
        patches += p
        values += v
    return patches, values


def setups(n: int, first: int = SETUP_SEED) -> tuple[list[np.ndarray], list[int]]:
    """Samples from the flat rolls of ``n`` tower setups (one floor, light, camera and dice
    set each, calibrated as the tower is), half at 640x480 and half at 1296x972: the
    candidates the calibrated reader asks the classifier about."""
    from vision.render import resolve_style
    from vision.setups import SIZES, make_setup

    style = resolve_style("setup")
    patches: list[np.ndarray] = []
    values: list[int] = []
    seed, made = first, 0
    while made < n:
        setup = make_setup(seed, SIZES[made % 2], style)
        seed += 1
        if setup is None:
            continue
        made += 1
        for number in range(1, SETUP_ROLLS + 1):
            frame, truth = setup.roll(number, 0)
            labels = [
                LabelledDie(int(d["value"]), (d["center"][0], d["center"][1]), truth["die_px"])
                for d in truth["dice"]
            ]
            p, v = samples_from(frame, setup.calibration, labels)
            patches += p
            values += v
    return patches, values


def photos(root: Path) -> tuple[list[np.ndarray], list[int], list[str]]:
    """Samples from the training split of every labelled folder under ``root``."""
    patches: list[np.ndarray] = []
    values: list[int] = []
    used: list[str] = []
    for folder in labelled_folders(root):
        for name, frame, labels in photo_split(folder):
            p, v = samples_from(frame, None, list(labels))
            patches += p
            values += v
            used.append(name)
    return patches, values, used


def dihedral(x: np.ndarray) -> np.ndarray:
    """The 8 rotations and mirror images of each patch (a face's value survives them all)."""
    out = []
    for k in range(4):
        r = np.rot90(x, k, axes=(1, 2))
        out += [r, r[:, :, ::-1]]
    return np.concatenate(out)


def train(x: np.ndarray, y: np.ndarray, hidden: int, epochs: int, seed: int) -> DiceClassifier:
    """Fit the perceptron with Adam on softmax cross-entropy and a little weight decay."""
    rng = np.random.default_rng(seed)
    n_in = x.shape[1]
    params = {
        "w1": rng.normal(0, np.sqrt(2.0 / n_in), (n_in, hidden)).astype(np.float32),
        "b1": np.zeros(hidden, np.float32),
        "w2": rng.normal(0, np.sqrt(1.0 / hidden), (hidden, 6)).astype(np.float32),
        "b2": np.zeros(6, np.float32),
    }
    moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in params.items()}
    step, lr, decay, batch = 0, 2e-3, 1e-4, 128
    onehot = np.eye(6, dtype=np.float32)[y]
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        for start in range(0, len(x), batch):
            idx = order[start : start + batch]
            xb, tb = x[idx], onehot[idx]
            h_pre = xb @ params["w1"] + params["b1"]
            h = np.maximum(h_pre, 0.0)
            z = h @ params["w2"] + params["b2"]
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            dz = (p - tb) / len(idx)
            dh = (dz @ params["w2"].T) * (h_pre > 0)
            grads = {
                "w2": h.T @ dz + decay * params["w2"],
                "b2": dz.sum(axis=0),
                "w1": xb.T @ dh + decay * params["w1"],
                "b1": dh.sum(axis=0),
            }
            step += 1
            for k, g in grads.items():
                m, v = moments[k]
                m[:] = 0.9 * m + 0.1 * g
                v[:] = 0.999 * v + 0.001 * g * g
                mh, vh = m / (1 - 0.9**step), v / (1 - 0.999**step)
                params[k] -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        if epoch == epochs * 2 // 3:
            lr /= 4
    return DiceClassifier(**params)


def evaluate_photos(model: DiceClassifier, root: Path) -> dict[str, float]:
    """The classifier's own accuracy on the held-out photos' matched candidates."""
    result = {}
    for folder in labelled_folders(root):
        right = total = 0
        for _, frame, labels in photo_split(folder, held=True):
            p, v = samples_from(frame, None, list(labels))
            if p:
                guess = model.probabilities(np.stack(p)).argmax(axis=1) + 1
                right += int((guess == np.array(v)).sum())
                total += len(v)
        result[folder.name] = round(right / max(total, 1), 4)
    return result


def evaluate_setups(model: DiceClassifier, n: int) -> float:
    """The classifier's own accuracy on the flat rolls of ``n`` tower setups it never saw."""
    patches, values = setups(n, HELD_SETUP_SEED)
    guess = model.probabilities(np.stack(patches)).argmax(axis=1) + 1
    return round(float((guess == np.array(values)).mean()), 4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, help="folder of labelled photo folders")
    parser.add_argument("--frames", type=int, default=600, help="rendered training frames")
    parser.add_argument(
        "--setups", type=int, default=150, help=f"tower setups ({SETUP_ROLLS} flat rolls each)"
    )
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    patches, values = rendered(args.frames)
    print(f"rendered: {len(values)} dice", file=sys.stderr)
    if args.setups > 0:
        p, v = setups(args.setups)
        patches, values = patches + p, values + v
        print(f"setups: {len(v)} dice", file=sys.stderr)
    used: list[str] = []
    if args.photos is not None:
        p, v, used = photos(args.photos)
        patches, values = patches + p, values + v
        print(f"photos: {len(v)} dice from {len(used)} images", file=sys.stderr)
    x = dihedral(np.stack(patches)).reshape(-1, PATCH * PATCH)
    y = np.tile(np.array(values) - 1, 8)
    model = train(x, y, args.hidden, args.epochs, args.seed)
    MODEL_FILE.parent.mkdir(parents=True, exist_ok=True)
    model.save(MODEL_FILE)
    report = evaluate_photos(model, args.photos) if args.photos is not None else {}
    if args.setups > 0:
        report["tower setups"] = evaluate_setups(model, HELD_SETUPS)
    info = {
        "patch": PATCH,
        "hidden": args.hidden,
        "epochs": args.epochs,
        "seed": args.seed,
        "rendered_frames": args.frames,
        "setups": args.setups,
        "setup_rolls": SETUP_ROLLS if args.setups > 0 else 0,
        "samples": len(values),
        "held_out_accuracy": report,
        "trained_on_photos": used,
    }
    MODEL_INFO.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in info.items() if k != "trained_on_photos"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
