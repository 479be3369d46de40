"""Int8 copies of the shipped detector and face reader: their time and agreement beside fp32.

python benchmarks/learned_int8.py --out /tmp/int8      # needs onnx: pip install -e '.[train]'

Static quantization by ONNX Runtime (``onnxruntime.quantization.quantize_static``, weights
int8 per channel, activations uint8), calibrated on rendered training frames (the detector
tool's seeds) and the development photos' training split, never on the held-out photos.
Three variants are written to ``--out`` (QDQ with the full 8-bit range, QDQ with the 7-bit
``reduce_range`` meant for CPUs without VNNI, and QOperator), each with the shipped models'
JSON descriptions beside it, so ``benchmarks/learned_levers.py --faces ... --detector ...``
can read the held-out photos with them. For each variant and runtime it prints the median
CPU ms of one forward pass (detector: a 640 x 480 frame; face reader: the four quarter
turns of a frame's dice) on rendered bench frames, and how far the answers are from fp32's.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from vision.detect import (
    DETECTOR_FILE,
    FACES_FILE,
    Detector,
    FaceReader,
    Runtime,
    crops_blob,
    die_crop,
    prepare,
)
from vision.render import random_scene

PHOTOS = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "dice-photos"


def face_blob(image: np.ndarray, detector: Detector, px: int) -> np.ndarray | None:
    """The four quarter turns of each die the detector finds, as the face reader's input."""
    crops = []
    for d in detector.detect(image):
        if d.score >= 0.3:
            crop = die_crop(image, d.centre, d.side, px=px)
            crops += [np.ascontiguousarray(np.rot90(crop, k)) for k in range(4)]
    return crops_blob(crops) if crops else None


def calibration_images(rendered: int, photos: Path, n_photos: int) -> list[np.ndarray]:
    """Rendered training frames and a sample of the photos' training split."""
    import train_detector
    import training

    images = [item.image for item in train_detector.rendered_items(rendered)]
    items, _ = training.photo_items(photos)
    rng = np.random.default_rng(0)
    picks = rng.choice(len(items), min(n_photos, len(items)), replace=False) if items else ()
    return images + [items[int(i)].image for i in picks]


def quantize(out: Path, images: list[np.ndarray]) -> dict[str, tuple[Path, Path]]:
    """Write the int8 variants of both models; {variant: (detector, face reader)}."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    reference, faces = Detector(DETECTOR_FILE), FaceReader(FACES_FILE)
    frames = [prepare(image)[0] for image in images]
    crops = [
        b for b in (face_blob(image, reference, faces.crop_px) for image in images) if b is not None
    ]

    class Feed(CalibrationDataReader):  # type: ignore[misc]  # onnxruntime ships no types
        def __init__(self, name: str, blobs: list[np.ndarray]) -> None:
            self.rows = iter([{name: b} for b in blobs])

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.rows, None)

    variants = {
        "qdq": (QuantFormat.QDQ, False),
        "qdq-7bit": (QuantFormat.QDQ, True),
        "qoperator": (QuantFormat.QOperator, False),
    }
    written: dict[str, tuple[Path, Path]] = {}
    out.mkdir(parents=True, exist_ok=True)
    for name, (form, reduce) in variants.items():
        paths = []
        for model, feed_name, blobs in (
            (DETECTOR_FILE, "frame", frames),
            (FACES_FILE, "crops", crops),
        ):
            target = out / f"{model.stem}-{name}.onnx"
            quantize_static(
                str(model),
                str(target),
                Feed(feed_name, blobs),
                quant_format=form,
                per_channel=True,
                reduce_range=reduce,
                activation_type=QuantType.QUInt8,
                weight_type=QuantType.QInt8,
            )
            shutil.copy(model.with_suffix(".json"), target.with_suffix(".json"))
            paths.append(target)
        written[name] = (paths[0], paths[1])
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the int8 models")
    parser.add_argument("--photos", type=Path, default=PHOTOS)
    parser.add_argument("--rendered", type=int, default=30, help="rendered calibration frames")
    parser.add_argument("--frames", type=int, default=12, help="rendered frames timed")
    parser.add_argument("--rounds", type=int, default=3, help="times each frame is timed")
    args = parser.parse_args(argv)
    try:
        import onnx  # noqa: F401  (the quantizer needs it; the reader never does)
    except ImportError:
        parser.error("quantizing needs the onnx package: pip install -e '.[train]'")
    cv2.setNumThreads(1)
    written = quantize(args.out, calibration_images(args.rendered, args.photos, 20))
    frames = [random_scene(seed, 6, style="tower")[0] for seed in range(args.frames)]
    reference = Detector()
    px = FaceReader().crop_px
    inputs = {
        "detector": [prepare(f)[0] for f in frames],
        "faces": [b for b in (face_blob(f, reference, px) for f in frames) if b is not None],
    }
    files = {"fp32": (DETECTOR_FILE, FACES_FILE)} | written
    nets: dict[tuple[str, Runtime, str], Detector | FaceReader] = {}
    rows: dict[tuple[str, Runtime], dict[str, object]] = {}
    for name, (det_path, face_path) in files.items():
        for r in ("onnxruntime", "opencv"):
            rows[name, r] = {"variant": name, "runtime": r}
            for part, path in (("detector", det_path), ("faces", face_path)):
                try:
                    kind = Detector if part == "detector" else FaceReader
                    nets[name, r, part] = kind(path, runtime=r)
                except ValueError as exc:
                    rows[name, r][part] = str(exc)
    answers = {key: [net.raw(b) for b in inputs[key[2]]] for key, net in nets.items()}
    times: dict[tuple[str, Runtime, str], list[float]] = {key: [] for key in nets}
    for _ in range(args.rounds):  # every network on each input in turn: the same load for all
        for part, blobs in inputs.items():
            for b in blobs:
                for key, net in nets.items():
                    if key[2] == part:
                        start = time.process_time()
                        net.raw(b)
                        times[key].append(time.process_time() - start)
    for (name, r, part), spent in times.items():
        row = rows[name, r]
        row[f"{part}_ms"] = round(1000.0 * statistics.median(spent), 1)
        base = answers["fp32", r, part]
        mine = answers[name, r, part]
        if part == "detector":
            row["detector_max_gap"] = round(
                max(float(np.abs(a - b).max()) for a, b in zip(mine, base, strict=True)), 3
            )
        else:
            same = np.concatenate(
                [a.argmax(1) == b.argmax(1) for a, b in zip(mine, base, strict=True)]
            )
            row["faces_same_class"] = round(float(same.mean()), 4)
    for row in rows.values():
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
