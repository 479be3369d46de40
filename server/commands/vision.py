"""Vision verbs: read, calibrate, vision-bench."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from server.commands import Subparsers, print_json
from server.errors import UserError

if TYPE_CHECKING:
    from vision import Calibration, Reading
    from vision.detect import SingleStage


def register(sub: Subparsers) -> None:
    p = sub.add_parser("read", help="read the dice in images")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--calibration", metavar="FILE", help="calibration file")
    p.add_argument("--expected", type=int, metavar="N", help="dice that should be in each image")
    p.add_argument("--annotate", metavar="DIR", help="also write annotated copies into DIR")
    p.add_argument("--profile", metavar="FILE", help="dice profile made by teach")
    p.add_argument("--json", action="store_true", help="print JSON, one object per image")
    p.set_defaults(func=run_read)

    p = sub.add_parser("teach", help="learn a dice set from labelled frames")
    p.add_argument("labels", metavar="LABELS.jsonl", help="labels, image paths relative to it")
    p.add_argument("--out", required=True, metavar="PROFILE", help="profile file to write")
    p.add_argument(
        "--calibration", metavar="FILE", help="the calibration the frames were taken with"
    )
    p.add_argument("--json", action="store_true", help="print what was learned as JSON")
    p.set_defaults(func=run_teach)

    p = sub.add_parser("calibrate", help="make a calibration file for the camera")
    p.add_argument(
        "--source",
        required=True,
        help="EMPTY.jpg,DICE.jpg (two image files), sim (the renderer), usb or picamera2",
    )
    p.add_argument("--device", default="0", help="USB camera index or path (--source usb)")
    p.add_argument("--out", required=True, metavar="FILE")
    p.add_argument("--expected", type=int, default=6, metavar="N", help="dice in the dice frame")
    p.add_argument("--seed", type=int, default=0, help="scene seed for --source sim")
    p.add_argument("--json", action="store_true", help="print the quality report as JSON")
    p.set_defaults(func=run_calibrate)

    p = sub.add_parser("vision-bench", help="measure the dice reader")
    p.add_argument("folders", nargs="*", metavar="FOLDER", help="folders with labels.jsonl")
    p.add_argument("--synthetic", type=int, default=0, metavar="N", help="rendered frames")
    p.add_argument("--style", help="renderer style for --synthetic (tower) and --setups (setup)")
    p.add_argument(
        "--setups", type=int, default=0, metavar="N", help="tower setups, each calibrated once"
    )
    p.add_argument("--rolls", type=int, default=30, metavar="R", help="rolls per setup")
    p.add_argument("--size", default="640x480", metavar="WxH", help="frame size for --setups")
    p.add_argument("--first-seed", type=int, default=0, metavar="S", help="first setup's seed")
    p.add_argument(
        "--teach",
        type=int,
        default=20,
        metavar="K",
        help="rolls taught before each setup's rolls are read again with a profile (0: none)",
    )
    p.add_argument(
        "--uncalibrated", action="store_true", help="read rendered frames without calibration"
    )
    p.add_argument("--failures", type=int, default=0, metavar="K", help="list K failures per set")
    p.add_argument("--profile", metavar="FILE", help="read the labelled folders with this profile")
    p.add_argument(
        "--single",
        metavar="MODEL",
        help="read frames without a calibration with this single-stage model (train_single.py)",
    )
    p.add_argument(
        "--all-images",
        action="store_true",
        help="also score the photos the shipped models were trained on",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run_bench)


def load_image(path: str) -> np.ndarray:
    """Read an image file as BGR; ``UserError`` names a missing, undecodable or huge file."""
    from vision.imagefile import ImageFileError, load_image_file

    try:
        return load_image_file(path)
    except ImageFileError as exc:
        raise UserError(str(exc)) from None


def check_image(path: str) -> None:
    """Refuse a missing file, one that is not an image, or one over the pixel limit.

    Only the header is looked at: the frame is decoded when its turn comes.
    """
    from vision.imagefile import ImageFileError, checked_size, read_file

    try:
        checked_size(read_file(path), path)
    except ImageFileError as exc:
        raise UserError(str(exc)) from None


def run_read(args: argparse.Namespace) -> int:
    """Read the images one at a time: decode one, read it, print it, drop it.

    Every file is checked first (it exists, its header names an image within the pixel
    limit), so a wrong path or a huge image stops the command before anything is printed.
    """
    from vision import annotate, load_calibration, read_dice
    from vision.profile import load_profile

    cv2.setNumThreads(1)  # as vision-bench: one core per frame, the figures quoted in docs
    calibration = load_calibration(args.calibration) if args.calibration else None
    profile = load_profile(args.profile, calibration) if args.profile else None
    for path in args.images:
        check_image(path)
    out_dir = Path(args.annotate) if args.annotate else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    for path in args.images:
        frame = load_image(path)
        reading = read_dice(frame, calibration, expected=args.expected, profile=profile)
        if out_dir is not None:
            cv2.imwrite(str(out_dir / (Path(path).stem + ".png")), annotate(frame, reading))
        del frame
        if args.json:
            print_json({"image": path, **reading.to_json()})
        else:
            values = " ".join(str(v) for v in reading.values) or "-"
            status = "ok" if reading.ok else f"NOT OK: {reading.reason}"
            print(f"{path}: {values} ({status})")
        sys.stdout.flush()
    return 0


def run_teach(args: argparse.Namespace) -> int:
    """Learn a dice profile from a labels file and write it."""
    from vision import load_calibration
    from vision.teach import teach

    cv2.setNumThreads(1)
    calibration = load_calibration(args.calibration) if args.calibration else None
    taught = teach(args.labels, calibration)
    taught.profile.save(args.out)
    if args.json:
        print_json({"out": args.out, **taught.to_json()})
    else:
        counts = ", ".join(f"{v + 1}: {n}" for v, n in enumerate(taught.profile.counts))
        print(
            f"taught {taught.dice} dice from {taught.images} images ({counts}); "
            f"{taught.profile.cv_accuracy:.1%} right on held-back examples -> {args.out}"
        )
    return 0


def _sim_frames(seed: int, expected: int) -> tuple[np.ndarray, np.ndarray]:
    from vision.render import random_scene, render_tray

    empty, _ = render_tray([], seed=seed, frame=1)
    dice, _ = random_scene(seed, expected, cocked=0, frame=2)
    return empty, dice


CAMERAS = ("usb", "picamera2")
WARM_UP_FRAMES = 10  # let exposure and white balance settle before a frame is kept


def _camera_frames(kind: str, device: str, expected: int) -> tuple[np.ndarray, np.ndarray]:
    """Ask for an empty tray, then for the dice, and grab a frame of each from the camera."""
    from vision.sources import SharedCamera, open_source

    dev: int | str = int(device) if device.isdigit() else device
    with SharedCamera(open_source(kind, device=dev)) as camera:
        for _ in range(WARM_UP_FRAMES):
            camera.read()
        camera.lock_exposure()
        input("Empty the tray, then press Enter: ")
        empty = camera.read()
        input(f"Put {expected} dice flat in the tray, pips up, then press Enter: ")
        dice = camera.read()
    return empty, dice


def run_calibrate(args: argparse.Namespace) -> int:
    """Calibrate from two image files or the renderer and write the calibration file."""
    from vision import calibrate

    if args.source == "sim":
        empty, dice = _sim_frames(args.seed, args.expected)
    elif args.source in CAMERAS:
        empty, dice = _camera_frames(args.source, args.device, args.expected)
    else:
        parts = [p.strip() for p in args.source.split(",")]
        if len(parts) != 2 or not all(parts):
            raise UserError(
                f"--source {args.source!r} is not EMPTY,DICE (two image files), sim, "
                "usb or picamera2"
            )
        empty, dice = load_image(parts[0]), load_image(parts[1])
    cal, report = calibrate(empty, dice, expected=args.expected)
    cal.save(args.out)
    if args.json:
        print_json({"out": args.out, **report})
    else:
        print(f"{report['text']} -> {args.out}")
    return 0 if report["ok"] else 1


def run_bench(args: argparse.Namespace) -> int:
    """Run the bench over labelled folders and rendered frames; print the table."""
    from vision import bench

    if not args.folders and args.synthetic <= 0 and args.setups <= 0:
        raise UserError("give labelled folders, --synthetic N and/or --setups N (N > 0)")
    if args.setups:
        return _bench_setups(args)
    if args.synthetic < 0:
        raise UserError(f"--synthetic {args.synthetic}: use a number of frames >= 0")
    cv2.setNumThreads(1)
    from vision.models import photos_seen

    skip = frozenset() if args.all_images else photos_seen()
    single = _single_model(args.single) if args.single else None
    if single is not None and not args.all_images:
        skip |= photos_seen(single.path.with_suffix(".json"))
    plans = [(Path(f).name, bench.held_out_items(f, skip), f) for f in args.folders]
    scores = []
    from vision import read_dice

    reader: bench.Reader = read_dice
    if args.profile:
        from vision import load_profile

        profile = load_profile(args.profile)

        def taught(frame: np.ndarray, cal: Calibration | None, expected: int | None) -> Reading:
            return read_dice(frame, cal, expected, profile=profile)

        reader = taught
    if single is not None:
        if args.profile:
            raise UserError("--single and --profile: give one of them")
        from vision.learned import read_single
        from vision.reading import check_frame

        def single_stage(frame: np.ndarray, cal: Calibration | None, want: int | None) -> Reading:
            if cal is not None:
                return read_dice(frame, cal, want)
            return read_single(check_frame(frame), single, want)

        reader = single_stage

    for name, items, folder in plans:
        label = name if len(items) == len(bench.load_folder(folder)) else f"{name} (held out)"
        label += " + profile" if args.profile else ""
        samples = bench.folder_samples(folder, skip)
        scores.append(bench.run(samples, label, len(items), reader=reader))
    if args.synthetic:
        style = args.style or "tower"
        samples = bench.synthetic_samples(args.synthetic, style, calibrated=not args.uncalibrated)
        name = f"rendered/{style}" + (" (auto)" if args.uncalibrated else "")
        scores.append(bench.run(samples, name, args.synthetic, reader=reader))
    if args.json:
        print_json([s.to_json() for s in scores])
    else:
        print(bench.format_table(scores))
    for s in scores:
        for line in s.failures[: args.failures]:
            print(f"  {s.name}: {line}", file=sys.stderr)
    return 0


def _single_model(path: str) -> SingleStage:
    """The single-stage model named by ``--single``, checked (one-line error otherwise)."""
    from vision.detect import SingleStage

    try:
        return SingleStage(Path(path))
    except ValueError as exc:
        raise UserError(f"--single: {exc}") from None


def frame_size(text: str) -> tuple[int, int]:
    """``WxH`` as (width, height); ``UserError`` for anything else or a size out of range."""
    w, sep, h = text.lower().partition("x")
    if not (sep and w.isdigit() and h.isdigit() and 32 <= int(w) <= 8192 and 32 <= int(h) <= 8192):
        raise UserError(f"--size {text!r}: use WIDTHxHEIGHT, e.g. 640x480 or 1296x972")
    return int(w), int(h)


def _bench_setups(args: argparse.Namespace) -> int:
    """Tower setups: each calibrated once, its rolls read without and with a taught profile."""
    from vision import bench, setups

    if args.setups < 0 or args.rolls < 1 or args.teach < 0 or args.first_seed < 0:
        raise UserError(
            "--setups, --rolls and --teach must be positive (--teach and --first-seed may be 0)"
        )
    size = frame_size(args.size)
    style = bench.bench_style(args.style or "setup")
    cv2.setNumThreads(1)
    scores = setups.run_setups(
        args.setups,
        args.rolls,
        size,
        style,
        teach=args.teach,
        first_seed=args.first_seed,
        progress=lambda done, total: bench.progress(done, total, "setups"),
    )
    if not scores[0].setups:
        raise UserError(f"no tower setup could be calibrated at {size[0]}x{size[1]} px")
    if args.json:
        print_json([s.to_json() for s in scores])
    else:
        print(setups.format_setups(scores))
    for s in scores:
        for line in s.failures[: args.failures]:
            print(f"  {s.name}: {line}", file=sys.stderr)
    return 0
