"""Read a fixed set of rendered frames and write every reading in full, or compare with a
file written by other code: a change meant only to speed the reader must leave each value,
confidence, box, verdict and reason as it was.

python benchmarks/reader_identity.py --out before.json            # with the old code
python benchmarks/reader_identity.py --against before.json        # with the new code

The set: tower setups (the ``setup`` style, calibrated once, a third of the rolls with a
leaning die) at 640x480 and 1296x972, each roll read without and with a dice profile
taught from 20 rolls, then calibrated frames of the plain ``tower`` style (``vision-bench
--synthetic``). Each calibration and profile is made by the code under test as well, and a
fingerprint of each is compared too. ``--learned N`` adds the reader without a calibration
(the learned detector and face reader): the first N plain tower frames read without their
calibration, and every photo of the labelled folders given with ``--photos`` (each read by
``read_dice``, then again looking at the full side only and counting every die's pips).
Confidences and centres are compared to ``--tolerance`` (default 1e-9); everything else
exactly. ``--cache DIR`` keeps the rendered frames as PNG (rendering is not under test and
takes as long as the reading).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.bench import load_folder
from vision.calibrate import calibrate
from vision.calibration import Calibration, CalibrationError
from vision.detect import load_detector
from vision.imagefile import load_image_file
from vision.learned import read_detected, read_learned
from vision.profile import fit_profile
from vision.reader import read_dice
from vision.reading import Reading
from vision.render import random_scene, random_tray, render_tray, resolve_style
from vision.setups import COCKED_EVERY, TEACH_SEEDS
from vision.teach import LabelledDie, frame_examples

Frame = np.ndarray


class Frames:
    """Rendered frames, kept as lossless PNG in ``folder`` when one is given."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)

    def get(self, key: str, make: Callable[[], tuple[Frame, dict[str, Any]]]) -> tuple[Frame, Any]:
        if self.folder is None:
            return make()
        png, meta = self.folder / f"{key}.png", self.folder / f"{key}.json"
        if png.is_file() and meta.is_file():
            image = cv2.imread(str(png), cv2.IMREAD_COLOR)
            try:
                truth = json.loads(meta.read_text())
            except ValueError:
                truth = None
            if image is None or truth is None:
                raise SystemExit(f"{png} or {meta.name} is damaged; empty the cache folder")
            return np.asarray(image), truth
        frame, truth = make()
        # the meta file last, each whole or not at all: a run stopped midway leaves no half
        part = png.with_name(png.stem + ".part.png")
        cv2.imwrite(str(part), frame)
        part.replace(png)
        text = json.dumps(truth, default=_plain)
        part = meta.with_suffix(".part")
        part.write_text(text)
        part.replace(meta)
        return frame, json.loads(text)


def _plain(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")


def reading_record(reading: Reading) -> dict[str, Any]:
    """A reading with every number at full precision."""
    return {
        "ok": reading.ok,
        "reason": reading.reason,
        "dice": [
            {
                "value": d.value,
                "center": [float(d.center[0]), float(d.center[1])],
                "box": [int(v) for v in d.box],
                "confidence": float(d.confidence),
            }
            for d in reading.dice
        ],
    }


def fingerprint(data: object) -> str:
    """A short digest of a calibration's or profile's JSON."""
    text = json.dumps(data, sort_keys=True, default=_plain)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _calibrated(
    frames: Frames, key: str, render: Callable[[list[Any], int], tuple[Frame, Any]], seed: int
) -> Calibration | None:
    empty, _ = frames.get(f"{key}-empty", partial(render, [], 100001))
    flat, _ = frames.get(f"{key}-flat", partial(render, random_tray(seed + 7919), 100002))
    try:
        cal, report = calibrate(empty, flat)
    except CalibrationError:
        return None
    return cal if report["dice_found"] == 6 else None


def setup_records(
    frames: Frames, seeds: list[int], size: tuple[int, int], rolls: int, teach: int
) -> list[dict[str, Any]]:
    """Readings of ``rolls`` rolls of each tower setup, without and with a profile."""
    style = resolve_style("setup")
    out: list[dict[str, Any]] = []
    for seed in seeds:
        key = f"setup{seed}-{size[0]}x{size[1]}"

        def render(tray: list[Any], number: int, seed: int = seed) -> tuple[Frame, Any]:
            return render_tray(tray, size=size, seed=seed, style=style, frame=number)

        def roll(number: int, cocked: int, seed: int = seed) -> tuple[Frame, Any]:
            tray = random_tray(seed * 10007 + number, 6, cocked=cocked, touching=style.touching)
            return render(tray, number)

        cal = _calibrated(frames, key, render, seed)
        if cal is None:
            out.append({"case": key, "calibration": None})
            continue
        examples = []
        for k in range(teach):
            frame, truth = frames.get(f"{key}-teach{k}", partial(roll, TEACH_SEEDS + k, 0))
            dice = tuple(LabelledDie(int(d["value"]), tuple(d["box"])) for d in truth["dice"])
            examples += frame_examples(frame, dice, cal)
        profile = fit_profile(examples, cal)
        out.append(
            {
                "case": key,
                "calibration": fingerprint(cal.to_json()),
                "profile": fingerprint(profile.to_json()),
            }
        )
        for number in range(1, rolls + 1):
            cocked = 1 if number % COCKED_EVERY == 0 else 0
            frame, _ = frames.get(f"{key}-roll{number}", partial(roll, number, cocked))
            for name, p in (("plain", None), ("profile", profile)):
                reading = read_dice(frame, cal, expected=6, profile=p)
                out.append({"case": f"{key} roll {number} {name}", **reading_record(reading)})
    return out


def tower_records(frames: Frames, count: int) -> list[dict[str, Any]]:
    """Readings of ``count`` calibrated frames of the plain tower style, as the bench reads."""
    style = resolve_style("tower")
    out: list[dict[str, Any]] = []
    for seed in range(count):
        key = f"tower{seed}"

        def render(tray: list[Any], number: int, seed: int = seed) -> tuple[Frame, Any]:
            return render_tray(tray, seed=seed, style=style, frame=number)

        # as vision.bench.scene_calibration calibrates each scene
        empty, _ = frames.get(f"{key}-empty", partial(render, [], 1))
        flat, _ = frames.get(f"{key}-flat", partial(render, random_tray(seed + 7919), 2))
        frame, _ = frames.get(key, partial(random_scene, seed, 6, style=style))
        try:
            cal: Calibration | None = calibrate(empty, flat)[0]
        except CalibrationError:
            cal = None
        reading = read_dice(frame, cal, expected=6)
        fp = None if cal is None else fingerprint(cal.to_json())
        out.append({"case": key, "calibration": fp, **reading_record(reading)})
    return out


def learned_records(frames: Frames, count: int, folders: list[Path]) -> list[dict[str, Any]]:
    """Readings without a calibration: ``count`` tower frames and the photos of ``folders``,
    each by ``read_dice`` as the service reads, by the full look only, and counting every
    die's pips (the two rules kept to measure against)."""
    detector = load_detector()
    if detector is None:
        raise SystemExit("--learned needs the shipped detector (vision/models/dice_detector.onnx)")
    style = resolve_style("tower")

    def tower(seed: int) -> Frame:
        frame, _ = frames.get(f"tower{seed}", partial(random_scene, seed, 6, style=style))
        return frame

    images: list[tuple[str, Callable[[], Frame]]] = [
        (f"tower{seed}", partial(tower, seed)) for seed in range(count)
    ]
    for folder in folders:
        images += [
            (f"{folder.name}/{path.name}", partial(load_image_file, path))
            for path, _ in load_folder(folder)
        ]
    out: list[dict[str, Any]] = []
    for key, load in images:
        frame = load()
        rules = (
            ("dispatch", read_dice(frame)),
            ("full", read_learned(frame, detector, None, coarse_side=None)),
            ("every", read_detected(frame, detector.detect(frame), None, pips="every")),
        )
        for name, reading in rules:
            out.append({"case": f"{key} uncalibrated {name}", **reading_record(reading)})
    return out


def differences(old: Any, new: Any, tolerance: float, where: str = "") -> list[str]:
    """Where two records differ (floats beyond ``tolerance``, anything else at all)."""
    if isinstance(old, dict) and isinstance(new, dict):
        if old.keys() != new.keys():
            return [f"{where}: keys {sorted(old)} != {sorted(new)}"]
        return [d for k in old for d in differences(old[k], new[k], tolerance, f"{where}.{k}")]
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            return [f"{where}: {len(old)} items != {len(new)}"]
        return [
            d
            for i, (a, b) in enumerate(zip(old, new, strict=True))
            for d in differences(a, b, tolerance, f"{where}[{i}]")
        ]
    if isinstance(old, float) and isinstance(new, float):
        return [] if abs(old - new) <= tolerance else [f"{where}: {old!r} != {new!r}"]
    return [] if old == new and type(old) is type(new) else [f"{where}: {old!r} != {new!r}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the readings here")
    parser.add_argument("--against", type=Path, help="compare with readings written before")
    parser.add_argument("--cache", type=Path, help="keep the rendered frames in this folder")
    parser.add_argument("--seeds", default="0,1,2,3004", help="setup seeds, comma-separated")
    parser.add_argument("--sizes", default="640x480,1296x972")
    parser.add_argument("--rolls", type=int, default=30)
    parser.add_argument("--teach", type=int, default=20)
    parser.add_argument("--tower", type=int, default=200, help="plain tower frames")
    parser.add_argument("--tolerance", type=float, default=1e-9)
    parser.add_argument(
        "--learned", type=int, default=0, help="tower frames read without a calibration"
    )
    parser.add_argument(
        "--photos",
        default="",
        help="labelled photo folders read without a calibration, comma-separated",
    )
    args = parser.parse_args()
    if args.out is None and args.against is None:
        parser.error("give --out FILE, --against FILE or both")
    try:
        seeds = [int(s) for s in args.seeds.split(",") if s]
        sizes = [tuple(int(v) for v in s.lower().split("x")) for s in args.sizes.split(",") if s]
    except ValueError:
        parser.error("--seeds takes whole numbers (0,1,2) and --sizes WxH sizes (640x480)")
    if any(len(s) != 2 for s in sizes):
        parser.error("--sizes takes WxH sizes, e.g. 640x480,1296x972")
    cv2.setNumThreads(1)
    frames = Frames(args.cache)
    records: list[dict[str, Any]] = []
    for w, h in sizes:
        records += setup_records(frames, seeds, (w, h), args.rolls, args.teach)
    records += tower_records(frames, args.tower)
    folders = [Path(f) for f in args.photos.split(",") if f]
    if args.learned or folders:
        records += learned_records(frames, args.learned, folders)
    if args.out is not None:
        args.out.write_text(json.dumps(records, indent=0))
    readings = sum(1 for r in records if "ok" in r)
    if args.against is None:
        print(f"{readings} readings written to {args.out}")
        return
    before = json.loads(args.against.read_text())
    found = differences(before, json.loads(json.dumps(records)), args.tolerance)
    for line in found[:40]:
        print(line)
    print(f"{readings} readings compared: {len(found)} differences")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
