"""Leave one source out: train the learned reader without a photo source, then read that source.

For each labelled folder named (default: every one under ``--photos``), the face reader (and
with ``--detector`` the detector too; with ``--single`` the single-stage reader alone) is
trained on the rendered frames and the other folders' training splits only, and the reader
without a calibration, with those models, then reads
every photo of the folder left out: none of them was seen, so the figure says how the reader
does on a dice set, surface and camera it never met. This is the figure to choose models by.

    # the full run (a benchmark: about 2 x --minutes per source, more with --detector)
    nice -n 10 .venv/bin/python tools/leave_one_out.py --photos ../shared/data/dice-photos \\
        --minutes 30 --work /tmp/loso
    # read the left-out sources again with models trained before
    .venv/bin/python tools/leave_one_out.py --photos ../shared/data/dice-photos \\
        --work /tmp/loso --read-only

Models go to ``WORK/faces-without-SOURCE.onnx`` (and ``detector-without-SOURCE.onnx``, or
``single-without-SOURCE.onnx``); extra arguments after ``--`` go to the training tools
(``-- --crop 32 --finishes``; ``-- --cache FOLDER`` lets the face readers of every source
share their rendered frames; with ``--single``, ``-- --width 64``). Training needs
PyTorch and ``onnx``, reading only OpenCV.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from vision.bench import Sample, Score, format_table, labelled_folders, load_folder, run
from vision.calibration import Calibration
from vision.detect import Detector, FaceReader, SingleStage, load_detector
from vision.learned import read_detected, read_single
from vision.reading import Reading


def single_path(work: Path, source: str) -> Path:
    """Where the single-stage reader trained without ``source`` is written."""
    return work / f"single-without-{source}.onnx"


def model_paths(work: Path, source: str) -> tuple[Path, Path]:
    """Where the face reader and the detector trained without ``source`` are written."""
    return work / f"faces-without-{source}.onnx", work / f"detector-without-{source}.onnx"


def trained_on(model: Path) -> list[str]:
    """The photos a model's JSON says it was trained on."""
    info = json.loads(model.with_suffix(".json").read_text(encoding="utf-8"))
    return list(info.get("trained_on_photos", []))


def all_photos(folder: Path) -> Iterator[Sample]:
    """Every labelled photo of a folder, both splits: the left-out source is all unseen."""
    for path, labels in load_folder(folder):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is not None:
            yield Sample(f"{folder.name}/{path.name}", image, labels)


def read_source(folder: Path, faces: FaceReader, detector: Detector, limit: int = 0) -> Score:
    """The reader without a calibration, with these models, over a left-out folder."""

    def reader(frame: np.ndarray, _cal: Calibration | None, want: int | None) -> Reading:
        return read_detected(frame, detector.detect(frame), want, faces=faces)

    n = len(load_folder(folder))
    samples = all_photos(folder)
    if limit:
        n = min(n, limit)
        samples = (s for k, s in enumerate(all_photos(folder)) if k < limit)
    return run(samples, f"{folder.name} (left out)", n, reader)


def read_source_single(folder: Path, model: SingleStage, limit: int = 0) -> Score:
    """The single-stage reader, checked by the pips, over a left-out folder."""

    def reader(frame: np.ndarray, _cal: Calibration | None, want: int | None) -> Reading:
        return read_single(frame, model, want)

    n = len(load_folder(folder)) if not limit else min(limit, len(load_folder(folder)))
    samples = (s for k, s in enumerate(all_photos(folder)) if not limit or k < limit)
    return run(samples, f"{folder.name} (left out, single-stage)", n, reader)


def train_single(source: str, args: argparse.Namespace, extra: list[str]) -> Path:
    """Train the single-stage reader without ``source``; returns its file."""
    import train_single as tool

    out = single_path(args.work, source)
    argv = ["--photos", str(args.photos), "--leave-out", source, "--minutes", str(args.minutes)]
    if args.rendered is not None:
        argv += ["--rendered", str(args.rendered)]
    if tool.main([*argv, "--out", str(out), *extra]):
        raise SystemExit(f"training the single-stage reader without {source} failed")
    return out


def run_single(source: str, folder: Path, args: argparse.Namespace, extra: list[str]) -> Score:
    """Leave ``source`` out of the single-stage reader (trained now, or before with
    ``--read-only``) and read all of it."""
    path = single_path(args.work, source)
    if args.read_only and not path.is_file():
        raise SystemExit(f"{path} does not exist: train it first (without --read-only)")
    if not args.read_only:
        path = train_single(source, args, extra)
    seen = [p for p in trained_on(path) if p.startswith(f"{source}/")]
    if seen:
        raise SystemExit(f"{path} was trained on {len(seen)} photos of {source}")
    try:
        model = SingleStage(path)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    return read_source_single(folder, model, args.limit)


def train(source: str, args: argparse.Namespace, extra: list[str]) -> tuple[Path, Path | None]:
    """Train the models without ``source``; returns the face reader and the detector used."""
    import train_detector
    import train_faces

    faces, detector = model_paths(args.work, source)
    common = ["--photos", str(args.photos), "--leave-out", source, "--minutes", str(args.minutes)]
    if args.rendered is not None:
        common += ["--rendered", str(args.rendered)]
    if args.detector:
        code = train_detector.main([*common, "--out", str(detector), *extra])
        if code:
            raise SystemExit(f"training the detector without {source} failed")
    face_args = [*common, "--out", str(faces), *extra]
    if args.detector:
        face_args += ["--detector", str(detector)]
    if train_faces.main(face_args):
        raise SystemExit(f"training the face reader without {source} failed")
    return faces, detector if args.detector else None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, required=True, help="folder of labelled folders")
    parser.add_argument("--source", action="append", default=[], help="folder to leave out")
    parser.add_argument("--work", type=Path, required=True, help="folder for the models")
    parser.add_argument("--minutes", type=float, default=30.0, help="training time per model")
    parser.add_argument("--rendered", type=int, help="rendered frames per model")
    parser.add_argument("--detector", action="store_true", help="also train the detector")
    parser.add_argument(
        "--single", action="store_true", help="train and read the single-stage reader instead"
    )
    parser.add_argument("--read-only", action="store_true", help="read with models trained before")
    parser.add_argument("--limit", type=int, default=0, help="read at most this many photos")
    parser.add_argument("--json", action="store_true", help="print JSON rows")
    args = parser.parse_args(argv)
    folders = {f.name: f for f in labelled_folders(args.photos)}
    sources = args.source or sorted(folders)
    unknown = [s for s in sources if s not in folders]
    if unknown:
        parser.error(f"--source {unknown[0]!r} is not a labelled folder of {args.photos}")
    args.work.mkdir(parents=True, exist_ok=True)
    cv2.setNumThreads(1)
    scores = []
    for source in sources:
        if args.single:
            scores.append(run_single(source, folders[source], args, extra))
            continue
        faces_path, detector_path = model_paths(args.work, source)
        if args.read_only:
            if not faces_path.is_file():
                parser.error(f"{faces_path} does not exist: train it first (without --read-only)")
            used_detector = detector_path if detector_path.is_file() else None
        else:
            faces_path, used_detector = train(source, args, extra)
        seen = [p for p in trained_on(faces_path) if p.startswith(f"{source}/")]
        if seen:
            raise SystemExit(f"{faces_path} was trained on {len(seen)} photos of {source}")
        detector = Detector(used_detector) if used_detector else load_detector()
        if detector is None:
            raise SystemExit("no detector: train one (tools/train_detector.py) or pass --detector")
        scores.append(read_source(folders[source], FaceReader(faces_path), detector, args.limit))
    if args.json:
        print(json.dumps([s.to_json() for s in scores]))
    else:
        print(format_table(scores))
    return 0


if __name__ == "__main__":
    sys.exit(main())
