"""Train the face reader shipped in ``vision/models/`` (see vision/detect.py).

The face reader looks at one die at a time, in a small crop centred where the detector put
the die and sized by the detector's die side, and says which face is on top, or that the
crop shows no readable face (a cocked die, the floor, clutter the detector took for a die).
Its samples are the shipped detector's own findings, so it learns from the crops it will
see: on rendered frames (every style knob, seeds from 800000) and on the development photos'
training split (the same split as tools/train_detector.py). Detections that match no die
are its examples of "no face". Like the detector it needs PyTorch and ``onnx`` to train
(``pip install -e '.[train]'``) and only OpenCV to run.

    .venv/bin/python tools/train_faces.py --photos ../shared/data/dice-photos --minutes 30

``--cache FOLDER`` keeps the rendered frames and the detector's findings on them (about
2 GB for the 2,000 frames): rendering and detecting them takes minutes, and every run with
the same frames and detector (the two runs of leave-one-source-out, say) shares them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import train_detector  # the sibling scripts: a script's own folder is on sys.path
import training
from training import Item, Schedule

from vision.bench import LabelledDie, match
from vision.detect import (
    CLASSES,
    CROP_RULE,
    FACES_FILE,
    Detector,
    crop_side_ok,
    crops_blob,
    die_crop,
    load_detector,
)
from vision.reading import Die

FIRST_SEED = 800_000
#: the class of a finding that matches no labelled die (the floor, a speck, clutter): "no face"
#: in the exported model, a class of its own while training with ``--split-no-face``
NO_DIE = CLASSES
#: frames, and per crop: its frame, (centre x, centre y, side), its class
Examples = tuple[list[np.ndarray], np.ndarray, np.ndarray, np.ndarray]


def examples(items: list[Item], detector: Detector) -> Examples:
    """(frame index, centre x, centre y, side) of every crop to learn from, and its class.

    The detector's findings matched to a labelled die take the label's class (0 for a cocked
    die); the others are ``NO_DIE``. Labelled dice the detector missed are taken at their
    labelled centre, with the label's side or the frame's typical one.
    """
    frames: list[np.ndarray] = []
    rows: list[tuple[int, float, float, float]] = []
    classes: list[int] = []
    for k, item in enumerate(items):
        frames.append(item.image)
        found = detector.detect(item.image, 0.25)
        dice = [Die(1, d.centre, d.box, d.score) for d in found]
        labels = [label_of(row, item.side) for row in item.dice]
        pairs = match(dice, labels)
        matched = {i for i, _ in pairs}
        seen = {j for _, j in pairs}
        for i, j in pairs:
            d = found[i]
            rows.append((k, d.centre[0], d.centre[1], d.side))
            classes.append(labels[j].value)
        for i, d in enumerate(found):
            if i not in matched:
                rows.append((k, d.centre[0], d.centre[1], d.side))
                classes.append(NO_DIE)
        for j, label in enumerate(labels):
            if j not in seen:
                rows.append((k, label.center[0], label.center[1], label.size))
                classes.append(label.value)
        if k % 500 == 0:
            print(f"  {k} of {len(items)} frames", file=sys.stderr, flush=True)
    table = np.array(rows, np.float32).reshape(-1, 4)
    return frames, table[:, 0].astype(int), table[:, 1:], np.array(classes, np.int64)


def cache_path(
    cache: Path,
    n: int,
    finishes: bool,
    detector_file: Path,
    form: train_detector.FinishForm = train_detector.LATEST_FORM,
    cocked_scale: float = 1.0,
) -> Path:
    """Where the rendered examples of these frames and a detector (by its file's bytes) are
    kept."""
    key = hashlib.sha256(detector_file.read_bytes()).hexdigest()[:12]
    recipe = f"-{train_detector.finishes_name(form)}" if finishes else ""
    if cocked_scale != 1.0:
        recipe += f"-cocked{cocked_scale:g}"
    # "-nodie": findings of no labelled die are kept as NO_DIE (earlier caches held them as 0)
    return cache / f"faces-{FIRST_SEED}-{n}{recipe}-{key}-nodie.npz"


def rendered_examples(
    n: int,
    finishes: bool,
    detector: Detector,
    cache: Path | None,
    form: train_detector.FinishForm = train_detector.LATEST_FORM,
    cocked_scale: float = 1.0,
) -> Examples:
    """:func:`examples` of ``n`` rendered frames, read from (or kept in) ``cache`` when given."""

    def render() -> list[Item]:
        return train_detector.rendered_items(n, finishes, FIRST_SEED, form, cocked_scale)

    if cache is None:
        return examples(render(), detector)
    path = cache_path(cache, n, finishes, detector.path, form, cocked_scale)
    if path.is_file():
        try:
            with np.load(path) as data:
                index, geometry, classes = data["index"], data["geometry"], data["classes"]
                frames = [data[f"frame{k}"] for k in range(int(data["frames"]))]
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            raise SystemExit(
                f"{path} is not a face-example cache ({exc}); delete it and run again"
            ) from None
        good = (
            len(frames) == n
            and index.shape == classes.shape == (len(geometry),)
            and (len(classes) == 0 or 0 <= classes.min() <= classes.max() <= NO_DIE)
            and geometry.shape[1:] == (3,)
            and (len(index) == 0 or 0 <= index.min() <= index.max() < n)
            and all(f.ndim == 3 and f.shape[2] == 3 and f.dtype == np.uint8 for f in frames)
        )
        if not good:
            raise SystemExit(
                f"{path} holds examples of other frames than {n} rendered ones; "
                "delete it and run again"
            )
        print(f"{len(classes)} rendered crops from {path}", file=sys.stderr)
        return frames, index.astype(int), geometry, classes.astype(np.int64)
    frames, index, geometry, classes = examples(render(), detector)
    cache.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.stem + ".part.npz")
    arrays: dict[str, Any] = {f"frame{k}": f for k, f in enumerate(frames)}
    arrays |= {"frames": len(frames), "index": index, "geometry": geometry, "classes": classes}
    np.savez(part, **arrays)
    part.replace(path)
    return frames, index, geometry, classes


def label_of(row: np.ndarray, typical: float) -> LabelledDie:
    """A training row (x, y, side or NaN, class) as a label, with ``typical`` for no side."""
    side = float(row[2]) if not math.isnan(row[2]) else typical
    return LabelledDie(int(row[3]), (float(row[0]), float(row[1])), side)


SIDE_JITTER = 0.08  # the spread of a crop's scale, in log units (--side-jitter)


def crop_batch(
    frames: list[np.ndarray],
    index: np.ndarray,
    geometry: np.ndarray,
    picks: np.ndarray,
    rng: np.random.Generator,
    px: int,
    looks: training.Looks = training.PLAIN,
    side_jitter: float = SIDE_JITTER,
) -> np.ndarray:
    """Crops for the examples ``picks``, each moved, scaled and turned a little at random.

    Each crop also takes the other looks ``looks`` gives it (another hue, no colour, light
    and dark turned over). Each crop's side is the found side times exp(N(0,
    ``side_jitter``)).
    """
    crops = []
    for p in picks:
        x, y, side = geometry[p]
        x += rng.normal(0, 0.05) * side
        y += rng.normal(0, 0.05) * side
        side *= math.exp(rng.normal(0, side_jitter))
        crop = die_crop(frames[index[p]], (x, y), side, float(rng.uniform(0, 360)), px)
        if rng.random() < 0.5:
            crop = crop[:, ::-1]
        crop = looks.apply(crop, rng)
        crops.append(training.recolour(np.ascontiguousarray(crop), rng))
    return crops_blob(crops)


def face_loss(no_face_weight: float = 1.0, classes: int = CLASSES) -> Any:
    """The face reader's loss: cross entropy over no face and the six faces (and with
    ``classes`` CLASSES + 1, no die apart), lightly smoothed, with "no face" (a cocked die, the
    floor, clutter) weighing ``no_face_weight`` times a face, so that a recipe rich in faces
    still learns to call a leaning die none."""
    import torch
    from torch import nn

    weight = torch.ones(classes)
    weight[0] = no_face_weight
    weight[CLASSES:] = no_face_weight
    return nn.CrossEntropyLoss(weight=weight, label_smoothing=0.05)


def join_no_face(net: Any) -> Any:
    """A net of CLASSES + 1 outputs (``NO_DIE`` apart) as one of CLASSES: the log-sum of its
    "no face" and "no die" logits as "no face", so the softmax of the output gives "no face"
    the two classes' probability together and each face its own, as a reader of CLASSES does."""
    import torch
    from torch import nn

    class Joined(nn.Module):
        def __init__(self, inner: nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            logits = self.inner(x)
            none = torch.logsumexp(logits[:, [0, NO_DIE]], dim=1, keepdim=True)
            return torch.cat([none, logits[:, 1:NO_DIE]], dim=1)

    return Joined(net)


#: a crop's own contrast floor for ``normalise``, in the variance of the [-0.5, 0.5] input
#: (a standard deviation of 0.03, about 8 grey levels): a bare floor's noise stays noise
CROP_EPS = 1e-3


def build_net(
    px: int,
    widths: tuple[int, ...],
    batch_norm: bool = True,
    normalise: bool = False,
    classes: int = CLASSES,
    mixstyle: float = 0.0,
) -> Any:
    """Three stages of two convolutions each, then one layer over the (px/8)^2 map.

    Without ``batch_norm``: the shape of an exported model, for fine-tuning it. With
    ``normalise`` each crop's channels are first brought to mean 0 and variance 1 of their
    own (an instance normalisation without weights, exported with the model), so that dull
    pips on a dark or coloured body reach the first layer as strongly as black pips on white.
    With ``mixstyle`` above 0, that share of the training batches has its looks mixed after
    the first and the second stage (:func:`training.mix_style`; nothing of it is exported).
    """
    from torch import nn

    def conv(c_in: int, c_out: int) -> list[Any]:
        layer = nn.Conv2d(c_in, c_out, 3, padding=1, bias=not batch_norm)
        if not batch_norm:
            return [layer, nn.ReLU(inplace=True)]
        return [layer, nn.BatchNorm2d(c_out), nn.ReLU(inplace=True)]

    def stage(c_in: int, c_out: int) -> list[Any]:
        return [*conv(c_in, c_out), *conv(c_out, c_out), nn.MaxPool2d(2)]

    def mixing() -> list[Any]:
        return [training.mix_style(mixstyle)] if mixstyle > 0 else []

    first = [nn.InstanceNorm2d(3, eps=CROP_EPS, affine=False)] if normalise else []
    return nn.Sequential(
        *first,
        *stage(3, widths[0]),
        *mixing(),
        *stage(widths[0], widths[1]),
        *mixing(),
        *stage(widths[1], widths[2]),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(widths[2] * (px // 8) ** 2, classes),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, required=True, help="folder of labelled folders")
    parser.add_argument("--rendered", type=int, default=2000, help="rendered frames")
    parser.add_argument("--minutes", type=float, default=30.0, help="training time")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--crop", type=int, default=48, help="crop side in pixels (multiple of 8)")
    parser.add_argument(
        "--widths", default="24,48,96", help="channels of the three stages, comma-separated"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=FACES_FILE)
    parser.add_argument("--init", type=Path, help="fine-tune this exported model")
    parser.add_argument("--lr", type=float, default=2e-3, help="first learning rate")
    parser.add_argument(
        "--finishes",
        action="store_true",
        help="also render marbled, translucent, glinting and metal dice of every colour",
    )
    train_detector.add_form_argument(parser)
    training.add_look_arguments(parser)
    parser.add_argument(
        "--side-jitter",
        type=float,
        default=SIDE_JITTER,
        help="spread of each crop's scale in log units: a detector that sizes dice by another "
        "rule (a whole die's box, not its top face) gives crops of another scale",
    )
    parser.add_argument(
        "--cocked-scale",
        type=float,
        default=1.0,
        help="times the rendered styles' chance of a cocked die (more examples of 'no face' "
        "that are dice)",
    )
    parser.add_argument(
        "--no-face-weight",
        type=float,
        default=1.0,
        help="weight of the 'no face' class in the loss, against 1 for each face",
    )
    parser.add_argument(
        "--split-no-face",
        action="store_true",
        help="learn a finding of no die (the floor, a speck) apart from a cocked die; the "
        "exported model joins the two as 'no face'",
    )
    parser.add_argument(
        "--mixstyle",
        type=float,
        default=0.0,
        help="share of the training batches whose looks are mixed after the first two stages "
        "(MixStyle; 0 to 1)",
    )
    parser.add_argument(
        "--normalise",
        action="store_true",
        help="bring each crop's channels to its own mean and contrast inside the model",
    )
    parser.add_argument(
        "--leave-out",
        action="append",
        default=[],
        metavar="FOLDER",
        help="train without this labelled folder's photos (leave one source out)",
    )
    parser.add_argument(
        "--detector", type=Path, help="the detector whose findings are the crops (default: shipped)"
    )
    parser.add_argument(
        "--cache", type=Path, help="folder to keep the rendered frames and their crops in"
    )
    args = parser.parse_args(argv)
    training.check_look_arguments(parser, args)
    if not 0.0 <= args.side_jitter <= 0.5:
        parser.error(f"--side-jitter is {args.side_jitter}; expected 0 to 0.5")
    if not 0.0 <= args.cocked_scale <= 5.0:
        parser.error(f"--cocked-scale is {args.cocked_scale}; expected 0 to 5")
    if not 0.0 < args.no_face_weight <= 10.0:
        parser.error(
            f"--no-face-weight is {args.no_face_weight}; expected a weight above 0, at most 10"
        )
    if not 0.0 <= args.mixstyle <= 1.0:
        parser.error(f"--mixstyle is {args.mixstyle}; expected a share of the batches from 0 to 1")
    if args.split_no_face and args.init is not None:
        parser.error("--split-no-face trains a new net; it cannot fine-tune --init's")
    if not crop_side_ok(args.crop):
        parser.error(f"--crop is {args.crop}; expected {CROP_RULE}")
    try:
        widths = tuple(int(w) for w in args.widths.split(","))
    except ValueError:
        widths = ()
    if len(widths) != 3 or min(widths) < 1:
        parser.error(f"--widths is {args.widths!r}; expected three positive counts like 24,48,96")
    rng = training.start_torch("train_faces", args.seed)
    import torch

    detector = Detector(args.detector) if args.detector else load_detector()
    if detector is None:
        raise SystemExit("train the detector first: tools/train_detector.py")
    photos, used = training.photo_items(args.photos, tuple(args.leave_out))
    print(f"{len(used)} photos, {args.rendered} rendered frames", file=sys.stderr)
    frames, index, geometry, classes = examples(photos, detector)
    # other scenes than the detector's
    more = rendered_examples(
        args.rendered, args.finishes, detector, args.cache, args.finishes_form, args.cocked_scale
    )
    frames = frames + more[0]
    index = np.concatenate([index, more[1] + len(photos)])
    geometry = np.concatenate([geometry, more[2]])
    classes = np.concatenate([classes, more[3]])
    outputs = CLASSES + 1 if args.split_no_face else CLASSES
    if not args.split_no_face:
        classes[classes == NO_DIE] = 0  # one "no face" for a cocked die and a finding of none
    from_photo = index < len(photos)
    print(
        f"{len(classes)} crops ({from_photo.sum()} from photos), per class "
        f"{np.bincount(classes, minlength=outputs).tolist()}",
        file=sys.stderr,
    )
    # photos and renders in equal shares, whatever their numbers
    n_photo, n_rendered = max(int(from_photo.sum()), 1), max(int((~from_photo).sum()), 1)
    weights = np.where(from_photo, 0.5 / n_photo, 0.5 / n_rendered)
    weights /= weights.sum()
    net = build_net(
        args.crop,
        widths,
        batch_norm=args.init is None,
        normalise=args.normalise,
        classes=outputs,
        mixstyle=args.mixstyle,
    )
    if args.init is not None:
        training.load_exported(net, args.init)
    optimiser = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    loss_fn = face_loss(args.no_face_weight, outputs)

    looks = training.Looks.from_args(args)

    def loss_step() -> tuple[torch.Tensor, dict[str, float]]:
        picks = rng.choice(len(classes), size=args.batch, p=weights)
        x = torch.from_numpy(
            crop_batch(frames, index, geometry, picks, rng, args.crop, looks, args.side_jitter)
        )
        x = training.random_convolution(x, args.randconv, rng)
        loss = loss_fn(net(x), torch.from_numpy(classes[picks]))
        return loss, {"loss": float(loss.detach())}

    schedule = Schedule(args.minutes, args.lr, log_every=200)
    step = training.train_for(net, optimiser, schedule, loss_step)
    shape = (1, 3, args.crop, args.crop)
    axes = {"crops": {0: "dice"}, "logits": {0: "dice"}}
    exported = join_no_face(net) if args.split_no_face else net
    training.export_onnx(exported, args.out, shape, ("crops", "logits"), axes)
    info = {
        "model": f"die face reader, {args.crop} px crops, classes: no face, 1..6",
        "crop_px": args.crop,
        "trained_by": "tools/train_faces.py",
        "arguments": {k: str(v) for k, v in vars(args).items()},
        "steps": step,
        "trained_on_photos": sorted(used),
    }
    args.out.with_suffix(".json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    print(f"{step} steps; wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
