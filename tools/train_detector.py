"""Train the die detector shipped in ``vision/models/`` (see vision/detect.py).

Training needs PyTorch and the ``onnx`` package, which the product itself does not: install
them beside the project (``pip install -e '.[train]'``; on a machine without a GPU take the CPU
build of torch). The product runs the exported ONNX file through OpenCV alone.

Samples are crops of rendered frames (every die colour, floor, size, camera height, shadows,
glare, noise, blur, JPEG, touching and cocked dice, ground truth from the renderer) and of the
development photos' training split: a quarter of each folder, chosen by a hash of the file
name (the same split as tools/train_classifier.py), is never used, and the model's JSON file
lists the photos it was trained on so that ``zilch-tower vision-bench`` leaves them out.
Everything is seeded; the same command on the same versions gives the same model.

    .venv/bin/python tools/train_detector.py --photos ../shared/data/dice-photos --minutes 60
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

if TYPE_CHECKING:
    import torch

from vision.bench import labelled_folders, match, photo_split
from vision.detect import DETECTOR_FILE, OUTPUTS, STRIDE, decode, prepare
from vision.reading import Die
from vision.render import DIE_COLORS, HARD, TOWER, RenderStyle, random_scene

CROP = 256  # training crops are CROP x CROP pixels
FIRST_SEED = 700_000  # rendered training scenes; the bench uses seeds from 0
MIN_SIDE, MAX_SIDE = 16.0, 84.0  # die sides (pixels) the crops are scaled to
FLOORS = (
    (70, 92, 52),
    (96, 96, 96),
    (60, 60, 150),
    (150, 150, 150),
    (40, 40, 40),
    (226, 228, 230),  # white board
    (120, 165, 200),  # light wood
    (70, 100, 140),  # dark wood
    (200, 180, 160),
)


@dataclasses.dataclass
class Item:
    """A training frame: image and dice as rows of (x, y, side or NaN, class)."""

    image: np.ndarray
    dice: np.ndarray  # (N, 4) float32
    side: float  # typical die side, pixels, for choosing a scale


def photo_items(root: Path, leave_out: tuple[str, ...] = ()) -> tuple[list[Item], list[str]]:
    """The training split of every labelled folder under ``root`` but those in ``leave_out``."""
    items: list[Item] = []
    used: list[str] = []
    folders = labelled_folders(root)
    unknown = set(leave_out) - {f.name for f in folders}
    if unknown:
        raise SystemExit(f"--leave-out {sorted(unknown)}: no such labelled folder in {root}")
    for folder in folders:
        if folder.name in leave_out:
            continue
        whole_die = folder.name != "matteop65"  # its boxes cover the pips, not the die
        folder_items: list[tuple[np.ndarray, np.ndarray]] = []
        pip_boxes: list[float] = []
        for name, image, labels in photo_split(folder):
            rows = np.array(
                [
                    (d.center[0], d.center[1], d.size if whole_die else math.nan, d.value)
                    for d in labels
                ],
                np.float32,
            ).reshape(-1, 4)
            pip_boxes += [d.size for d in labels if d.value >= 4]
            folder_items.append((image, rows))
            used.append(name)
        # a face's pips span about 0.6 of the die: the die size where the boxes cover pips
        typical = float(np.median(pip_boxes)) / 0.6 if pip_boxes else 40.0
        for image, rows in folder_items:
            side = float(np.nanmedian(rows[:, 2])) if whole_die and len(rows) else typical
            items.append(Item(image, rows, side))
    return items, used


def rendered_style(rng: np.random.Generator, finishes: bool = False) -> RenderStyle:
    """A random style between the tower's and beyond the hard one's.

    ``finishes`` adds marbled and translucent dice and glints (the shipped models were
    trained without them).
    """
    base = HARD if rng.random() < 0.5 else TOWER
    colors = tuple(DIE_COLORS)
    style = dataclasses.replace(
        base,
        name="training",
        floor_colors=(FLOORS[int(rng.integers(len(FLOORS)))],),
        die_colors=colors,
        mixed_colors=bool(rng.random() < 0.6),
        size_jitter=float(rng.uniform(0.0, 0.15)),
        camera_height_mm=float(rng.choice([0.0, 0.0, 250.0, 350.0, 600.0])),
        shadow=float(rng.uniform(0.1, 0.7)),
        light_gradient=float(rng.uniform(0.0, 0.4)),
        vignette=float(rng.uniform(0.0, 0.4)),
        glare=float(rng.uniform(0.0, 0.5)),
        noise=float(rng.uniform(1.0, 10.0)),
        blur_px=float(rng.uniform(0.3, 1.6)),
        jpeg_quality=int(rng.choice([0, 50, 70, 90])),
        touching=float(rng.uniform(0.1, 0.6)),
        cocked=float(rng.choice([0.0, 0.05, 0.15])),
    )
    if not finishes:
        return style
    return dataclasses.replace(
        style,
        marbled=float(rng.uniform(0.0, 0.3)),
        translucent=float(rng.uniform(0.0, 0.2)),
        glints=float(rng.uniform(0.0, 0.4)),
    )


def rendered_items(n: int, finishes: bool = False) -> list[Item]:
    """``n`` rendered frames with random styles, die sizes and numbers of dice."""
    items = []
    for k in range(n):
        seed = FIRST_SEED + k
        rng = np.random.default_rng(seed)
        style = rendered_style(rng, finishes)
        die_mm = float(rng.uniform(9.0, 26.0))
        n_dice = int(rng.integers(0, 13))
        try:
            frame, truth = random_scene(seed, n_dice, style=style, die_mm=die_mm)
        except ValueError:  # the dice did not fit the tray: fewer
            frame, truth = random_scene(seed, min(n_dice, 6), style=style, die_mm=die_mm)
        rows = []
        for d in truth["dice"]:
            corners = np.array(d["corners"], np.float32)
            side = float(np.mean(np.hypot(*(corners - np.roll(corners, 1, axis=0)).T)))
            value = 0 if d["cocked"] or d["occluded"] else int(d["value"])
            rows.append((d["center"][0], d["center"][1], side, value))
        dice = np.array(rows, np.float32).reshape(-1, 4)
        items.append(Item(frame, dice, float(truth["die_px"])))
    return items


def sample(item: Item, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A random crop of ``item``: scaled, turned, mirrored and recoloured; and its dice."""
    target = math.exp(rng.uniform(math.log(MIN_SIDE), math.log(MAX_SIDE)))
    s = target / item.side
    h, w = item.image.shape[:2]
    image = cv2.resize(
        item.image,
        (max(8, round(w * s)), max(8, round(h * s))),
        interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
    )
    dice = item.dice.copy()
    dice[:, :3] *= s
    h, w = image.shape[:2]
    if h < CROP or w < CROP:
        py, px = max(0, CROP - h), max(0, CROP - w)
        image = cv2.copyMakeBorder(image, 0, py, 0, px, cv2.BORDER_REFLECT)
        # reflected dice are dice too, but unlabelled: keep the frame's own size instead
        image[h:, :] = np.median(item.image.reshape(-1, 3), axis=0)
        image[:, w:] = np.median(item.image.reshape(-1, 3), axis=0)
        h, w = image.shape[:2]
    y0 = int(rng.integers(0, h - CROP + 1))
    x0 = int(rng.integers(0, w - CROP + 1))
    crop = image[y0 : y0 + CROP, x0 : x0 + CROP].copy()
    dice[:, 0] -= x0
    dice[:, 1] -= y0
    # the value of a face survives rotations and mirror images
    k = int(rng.integers(4))
    for _ in range(k):  # 90 degrees clockwise: (x, y) -> (CROP - y, x)
        crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
        dice[:, 0], dice[:, 1] = CROP - dice[:, 1].copy(), dice[:, 0].copy()
    if rng.random() < 0.5:
        crop = crop[:, ::-1].copy()
        dice[:, 0] = CROP - dice[:, 0]
    crop = recolour(crop, rng)
    return crop, dice


def recolour(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Other lights and other dice: channel order, gains, contrast, blur and noise."""
    if rng.random() < 0.3:
        crop = crop[:, :, rng.permutation(3)]
    x = crop.astype(np.float32)
    x = x * rng.uniform(0.85, 1.15, 3).astype(np.float32)
    mean = x.mean()
    x = (x - mean) * rng.uniform(0.7, 1.3) + mean * rng.uniform(0.7, 1.2)
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.5, 1.3))
    if rng.random() < 0.5:
        x = x + rng.normal(0, rng.uniform(1, 8), x.shape).astype(np.float32)
    return np.clip(x, 0, 255).astype(np.uint8)


def targets(dice: np.ndarray, cells: int) -> dict[str, np.ndarray]:
    """Training targets on the ``cells`` x ``cells`` output grid for the dice of a crop."""
    heat = np.zeros((cells, cells), np.float32)
    reg = np.zeros((4, cells, cells), np.float32)  # dx, dy, log side, size known
    cls = np.full((cells, cells), -1, np.int64)  # -1: no class here
    nearest = np.full((cells, cells), np.inf, np.float32)
    gy, gx = np.mgrid[0:cells, 0:cells].astype(np.float32) + 0.5
    for x, y, side, value in dice:
        cx, cy = x / STRIDE, y / STRIDE
        if not (0 <= cx < cells and 0 <= cy < cells):
            continue
        size = side if not math.isnan(side) else 0.0
        sigma = max(0.5, (size or 40.0) / STRIDE / 6.0)
        d2 = (gx - cx) ** 2 + (gy - cy) ** 2
        heat = np.maximum(heat, np.exp(-d2 / (2 * sigma * sigma)))
        radius = max(1.0, 0.3 * (size or 40.0) / STRIDE)
        near = (d2 <= radius * radius) & (d2 < nearest)
        nearest[near] = d2[near]
        reg[0][near] = cx - gx[near]
        reg[1][near] = cy - gy[near]
        reg[2][near] = math.log(max(size, 1.0) / STRIDE)
        reg[3][near] = 1.0 if size else 0.0
        cls[near] = int(value)
        i, j = int(cy), int(cx)
        heat[i, j] = 1.0
    return {"heat": heat, "reg": reg, "cls": cls}


def build_net(width: int = 48, batch_norm: bool = True) -> Any:
    """Three halvings to one cell per 8 pixels, then dilated layers that see a whole die.

    Without ``batch_norm`` the layers carry biases instead: the shape of an exported model,
    whose normalisation is folded into its convolutions, for fine-tuning it.
    """
    import torch
    from torch import nn

    def block(c_in: int, c_out: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
        conv = nn.Conv2d(
            c_in, c_out, 3, stride, padding=dilation, dilation=dilation, bias=not batch_norm
        )
        if not batch_norm:
            return nn.Sequential(conv, nn.ReLU(inplace=True))
        return nn.Sequential(conv, nn.BatchNorm2d(c_out), nn.ReLU(inplace=True))

    net = nn.Sequential(
        block(3, 16, 2),
        block(16, 32, 2),
        block(32, 32),
        block(32, width, 2),
        block(width, width),
        block(width, width, dilation=2),
        block(width, width, dilation=4),
        block(width, width),
        nn.Conv2d(width, OUTPUTS, 1),
    )
    head = net[-1]
    with torch.no_grad():
        head.bias.zero_()
        head.bias[0] = -4.0  # few cells hold a die's centre
    return net


def load_exported(net: Any, path: Path) -> None:
    """Copy an exported model's weights (normalisation folded in) into a net without it."""
    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn

    model = onnx.load(str(path))
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    nodes = [n for n in model.graph.node if n.op_type in ("Conv", "Gemm")]
    layers = [m for m in net.modules() if isinstance(m, nn.Conv2d | nn.Linear)]
    if len(nodes) != len(layers):
        raise SystemExit(f"{path} has {len(nodes)} weighted layers; this net has {len(layers)}")
    with torch.no_grad():
        for node, layer in zip(nodes, layers, strict=True):
            w, b = (torch.from_numpy(weights[name].copy()) for name in node.input[1:3])
            if w.shape != layer.weight.shape:
                raise SystemExit(f"{path}: layer {node.name} does not fit this net")
            layer.weight.copy_(w)
            layer.bias.copy_(b)


def loss_of(
    out: torch.Tensor, t: dict[str, torch.Tensor], face_weight: float = 1.0
) -> tuple[torch.Tensor, dict[str, float]]:
    """Focal loss on the centre map, L1 on offsets and sizes, cross-entropy on the class
    (weighed by ``face_weight``)."""
    import torch
    from torch import nn

    heat = torch.sigmoid(out[:, 0]).clamp(1e-4, 1 - 1e-4)
    gt = t["heat"]
    pos = gt.eq(1.0).float()
    n = pos.sum().clamp(min=1.0)
    focal = (
        -(
            pos * (1 - heat) ** 2 * torch.log(heat)
            + (1 - pos) * (1 - gt) ** 4 * heat**2 * torch.log(1 - heat)
        ).sum()
        / n
    )
    cls = t["cls"]
    has = cls.ge(0)
    m = has.float()
    reg = t["reg"]
    off = ((out[:, 1:3] - reg[:, 0:2]).abs().sum(1) * m).sum() / m.sum().clamp(min=1.0)
    sized = m * reg[:, 3]
    size = ((out[:, 3] - reg[:, 2]).abs() * sized).sum() / sized.sum().clamp(min=1.0)
    logits = out[:, 4:].permute(0, 2, 3, 1)[has]
    ce = nn.functional.cross_entropy(logits, cls[has]) if len(logits) else out.sum() * 0
    total = focal + off + 0.5 * size + face_weight * ce
    parts = {"heat": focal, "off": off, "size": size, "cls": ce}
    return total, {k: float(v.detach()) for k, v in parts.items()}


def batch_of(
    items: list[list[Item]], weights: list[float], n: int, rng: np.random.Generator
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    import torch

    images, heat, reg, cls = [], [], [], []
    for _ in range(n):
        pool = items[int(rng.choice(len(items), p=weights))]
        crop, dice = sample(pool[int(rng.integers(len(pool)))], rng)
        blob, _ = prepare(crop)
        images.append(blob[0])
        t = targets(dice, CROP // STRIDE)
        heat.append(t["heat"])
        reg.append(t["reg"])
        cls.append(t["cls"])
    return torch.from_numpy(np.stack(images)), {
        "heat": torch.from_numpy(np.stack(heat)),
        "reg": torch.from_numpy(np.stack(reg)),
        "cls": torch.from_numpy(np.stack(cls)),
    }


def evaluate(net: Any, root: Path) -> str:
    """Accuracy of the bare detector on the held-out photos (the bench measures the reader)."""
    import torch

    net.eval()
    parts = []
    for folder in labelled_folders(root):
        labelled = right = found = false = 0
        for _, image, labels in photo_split(folder, held=True):
            blob, scale = prepare(image)
            with torch.no_grad():
                out = net(torch.from_numpy(blob)).numpy()
            dets = [d for d in decode(out, scale, 0.3, image.shape[:2]) if d.value > 0]
            dice = [Die(d.value, d.centre, d.box, d.score) for d in dets]
            pairs = match(dice, list(labels))
            labelled += len(labels)
            found += len(pairs)
            right += sum(dice[i].value == labels[j].value for i, j in pairs)
            false += len(dice) - len(pairs)
        parts.append(
            f"{folder.name}: right {right}/{labelled} ({100 * right / max(labelled, 1):.1f}%),"
            f" found {found}, false {false}"
        )
    net.train()
    return "; ".join(parts)


def export(net: Any, used: list[str], args: argparse.Namespace, steps: int) -> None:
    import torch

    net.eval()
    dummy = torch.zeros(1, 3, 480, 640)
    torch.onnx.export(
        net,
        (dummy,),
        str(args.out),
        input_names=["frame"],
        output_names=["grid"],
        dynamic_axes={"frame": {2: "height", 3: "width"}, "grid": {2: "rows", 3: "columns"}},
        opset_version=13,
        dynamo=False,
    )
    info = {
        "model": "dice detector, fully convolutional, one cell per 8 pixels",
        "outputs": "centre score, x offset, y offset, log side / 8, logits of cocked, 1..6",
        "trained_by": "tools/train_detector.py",
        "arguments": {k: str(v) for k, v in vars(args).items()},
        "steps": steps,
        "trained_on_photos": sorted(used),
    }
    args.out.with_suffix(".json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    net.train()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, required=True, help="folder of labelled folders")
    parser.add_argument("--rendered", type=int, default=3000, help="rendered frames")
    parser.add_argument("--minutes", type=float, default=60.0, help="training time")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--width", type=int, default=48, help="channels of the deep layers")
    parser.add_argument("--out", type=Path, default=DETECTOR_FILE)
    parser.add_argument("--init", type=Path, help="fine-tune this exported model")
    parser.add_argument("--lr", type=float, default=2e-3, help="first learning rate")
    parser.add_argument(
        "--finishes", action="store_true", help="also render marbled, translucent, glinting dice"
    )
    parser.add_argument(
        "--photo-share", type=float, default=0.6, help="share of crops taken from photos"
    )
    parser.add_argument(
        "--leave-out",
        action="append",
        default=[],
        metavar="FOLDER",
        help="train without this labelled folder's photos (leave one source out)",
    )
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        raise SystemExit(
            "train_detector needs PyTorch and onnx: pip install -e '.[train]'"
        ) from None
    torch.set_num_threads(1)  # a shared machine: one core, start it under nice
    cv2.setNumThreads(1)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    photos, used = photo_items(args.photos, tuple(args.leave_out))
    nell = [i for i in photos if i.image.shape[0] == i.image.shape[1]]
    others = [i for i in photos if i.image.shape[0] != i.image.shape[1]]
    print(f"{len(used)} training photos; rendering {args.rendered} frames", file=sys.stderr)
    rendered = rendered_items(args.rendered, args.finishes)
    pools = [p for p in (rendered, nell, others) if p]
    share = args.photo_share
    weights = [1.0 - share, share * 0.58, share * 0.42][: len(pools)]
    weights = [w / sum(weights) for w in weights]
    net = build_net(args.width, batch_norm=args.init is None)
    if args.init is not None:
        load_exported(net, args.init)
    optimiser = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    start = time.monotonic()
    budget = args.minutes * 60
    step, totals = 0, {}
    while (elapsed := time.monotonic() - start) < budget:
        for g in optimiser.param_groups:  # cosine decay over the time budget
            g["lr"] = args.lr * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * elapsed / budget)))
        x, t = batch_of(pools, weights, args.batch, rng)
        loss, parts = loss_of(net(x), t)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        step += 1
        for k, v in parts.items():
            totals[k] = totals.get(k, 0.0) + v
        if step % 100 == 0:
            mean = " ".join(f"{k} {v / 100:.3f}" for k, v in totals.items())
            print(f"step {step} ({elapsed / 60:.1f} min): {mean}", file=sys.stderr, flush=True)
            totals = {}
        if step % 1000 == 0:
            export(net, used, args, step)
            print(evaluate(net, args.photos), file=sys.stderr, flush=True)
    export(net, used, args, step)
    print(f"{step} steps; {evaluate(net, args.photos)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
