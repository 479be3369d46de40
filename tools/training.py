"""What the training tools share: training frames, crops and their augmentation, the grid
targets and loss of the detector and the single-stage reader, ONNX export and the loop.

Used by tools/train_detector.py, tools/train_faces.py and tools/train_single.py (a script's
own folder is on ``sys.path``, so they import this module by its name). Only the functions
that build or train a net import PyTorch, so the rest runs where it is not installed.

The grid (one cell per 8 pixels; a centre heatmap, offsets, log size and the face) follows
CenterNet (Zhou, Wang and Krähenbühl, "Objects as Points", 2019) as the detector's and the
single-stage reader's docstrings say.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

if TYPE_CHECKING:
    import torch

from vision.bench import labelled_folders, match, photo_split
from vision.detect import STRIDE, decode, prepare
from vision.reading import Die

CROP = 256  # training crops of the grid networks are CROP x CROP pixels
MIN_SIDE, MAX_SIDE = 16.0, 84.0  # die sides (pixels) the crops are scaled to
#: shares of the photo crops: nell-byler's square photos, then every other source's
PHOTO_SHARES = (0.58, 0.42)
BOX_TO_SIDE = 0.7  # a top face's side over the box of a whole die seen from above, turned
# (a detector that learned sizes only from rendered top faces gives nell-byler's dice 0.62)


@dataclasses.dataclass
class Item:
    """A training frame: image and dice as rows of (x, y, side or NaN, class)."""

    image: np.ndarray
    dice: np.ndarray  # (N, 4) float32
    side: float  # typical die side, pixels, for choosing a scale


def start_torch(tool: str, seed: int) -> np.random.Generator:
    """Import PyTorch for ``tool`` (a clear exit where it is missing), keep it and OpenCV on
    one thread (a shared machine: start the tool under nice), seed it; a seeded generator."""
    try:
        import torch
    except ImportError:
        raise SystemExit(f"{tool} needs PyTorch and onnx: pip install -e '.[train]'") from None
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    torch.manual_seed(seed)
    return np.random.default_rng(seed)


def photo_items(
    root: Path, leave_out: tuple[str, ...] = (), unsized: tuple[str, ...] = ()
) -> tuple[list[Item], list[str]]:
    """The training split of every labelled folder under ``root`` but those in ``leave_out``.

    The boxes of a folder in ``unsized`` give its dice's centres, not their sizes (boxes that
    hold a whole die as a camera sees it, its sides and a turned square's corners, are wider
    than its top face, the size rendered dice teach); its frames are scaled by
    ``BOX_TO_SIDE`` times their median box.
    """
    items: list[Item] = []
    used: list[str] = []
    folders = labelled_folders(root)
    for option, names in (("--leave-out", leave_out), ("--unsized", unsized)):
        unknown = set(names) - {f.name for f in folders}
        if unknown:
            raise SystemExit(f"{option} {sorted(unknown)}: no such labelled folder in {root}")
    for folder in folders:
        if folder.name in leave_out:
            continue
        whole_die = folder.name != "matteop65"  # its boxes cover the pips, not the die
        sized = whole_die and folder.name not in unsized
        folder_items: list[tuple[np.ndarray, np.ndarray, float]] = []  # and the median box
        pip_boxes: list[float] = []
        for name, image, labels in photo_split(folder):
            rows = np.array(
                [
                    (d.center[0], d.center[1], d.size if sized else math.nan, d.value)
                    for d in labels
                ],
                np.float32,
            ).reshape(-1, 4)
            pip_boxes += [d.size for d in labels if d.value >= 4]
            box = float(np.median([d.size for d in labels])) if labels else math.nan
            folder_items.append((image, rows, box))
            used.append(name)
        # a face's pips span about 0.6 of the die: the die size where the boxes cover pips
        typical = float(np.median(pip_boxes)) / 0.6 if pip_boxes else 40.0
        for image, rows, box in folder_items:
            side = typical
            if whole_die and len(rows):
                side = box * (1.0 if sized else BOX_TO_SIDE)
            items.append(Item(image, rows, side))
    return items, used


def rendered_item(frame: np.ndarray, truth: dict[str, Any]) -> Item:
    """A rendered frame and its ground truth as a training frame: each die's mean side, and
    class 0 for a cocked or hidden die."""
    rows = []
    for d in truth["dice"]:
        corners = np.array(d["corners"], np.float32)
        side = float(np.mean(np.hypot(*(corners - np.roll(corners, 1, axis=0)).T)))
        value = 0 if d["cocked"] or d["occluded"] else int(d["value"])
        rows.append((d["center"][0], d["center"][1], side, value))
    return Item(frame, np.array(rows, np.float32).reshape(-1, 4), float(truth["die_px"]))


def crop_pools(
    rendered: list[Item], photos: list[Item], photo_share: float
) -> tuple[list[list[Item]], list[float]]:
    """The pools crops are drawn from (rendered frames, nell-byler's square photos, the other
    photos; empty ones left out) and each pool's chance: ``photo_share`` for the photos, split
    by ``PHOTO_SHARES``. A source left out takes its share with it: the chances of the pools
    that stay keep their ratios."""
    nell = [i for i in photos if i.image.shape[0] == i.image.shape[1]]
    others = [i for i in photos if i.image.shape[0] != i.image.shape[1]]
    share = photo_share if rendered else 1.0
    chances = (1.0 - share, share * PHOTO_SHARES[0], share * PHOTO_SHARES[1])
    kept = [(p, w) for p, w in zip((rendered, nell, others), chances, strict=True) if p]
    if not kept or sum(w for _, w in kept) <= 0:
        raise SystemExit("no training frames: render some (--rendered) or give labelled photos")
    total = sum(w for _, w in kept)
    return [p for p, _ in kept], [w / total for _, w in kept]


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


def rehue(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The crop with every hue turned by one random angle and its saturation scaled.

    The photos show a few dozen dice; turning their hues gives the same bodies, pips, finishes
    and lighting in colours no photo has (a teal marbled die from a green one, and so on).
    """
    hsv = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2HSV)
    h = (hsv[:, :, 0].astype(np.int16) + int(rng.integers(0, 180))) % 180
    s = hsv[:, :, 1].astype(np.float32) * rng.uniform(0.6, 1.4)
    hsv[:, :, 0] = h.astype(np.uint8)
    hsv[:, :, 1] = np.clip(s, 0, 255).astype(np.uint8)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)


RANDCONV_SIDES = (1, 3, 5)  # kernel sides of the random convolutions (--randconv)


def greyed(crop: np.ndarray) -> np.ndarray:
    """The crop without its colours: each pixel's grey level in all three channels.

    Random greyscale, as SimCLR's augmentations have it (Chen, Kornblith, Norouzi and
    Hinton, "A Simple Framework for Contrastive Learning of Visual Representations", 2020):
    a share of crops whose faces must be read from light and dark alone.
    """
    grey = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2GRAY)
    return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)


def inverted(crop: np.ndarray) -> np.ndarray:
    """The crop's light and dark turned over (AutoAugment's "Invert", Cubuk et al. 2019): a
    light die with dark pips from a photo becomes a dark die with light pips, with the
    photo's own grain, blur and finish."""
    return np.ascontiguousarray(255 - crop)


@dataclasses.dataclass(frozen=True)
class Looks:
    """The chances that a training crop is shown in another look before the net sees it:
    another hue (:func:`rehue`), no colour (:func:`greyed`), light and dark turned over
    (:func:`inverted`). The random convolution (``randconv``) works on the batch after."""

    hue: float = 0.0
    grey: float = 0.0
    invert: float = 0.0

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Looks:
        return cls(hue=args.hue, grey=args.grey, invert=args.invert)

    def apply(self, crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``crop`` in the looks its draws give it; a chance of 0 draws nothing, so a recipe
        without a look meets the same random numbers as before the look existed."""
        if self.hue and rng.random() < self.hue:
            crop = rehue(crop, rng)
        if self.grey and rng.random() < self.grey:
            crop = greyed(crop)
        if self.invert and rng.random() < self.invert:
            crop = inverted(crop)
        return crop


PLAIN = Looks()  # every crop in its own look

#: the look options: each a chance that a crop takes that look (see Looks, random_convolution)
LOOK_OPTIONS = (
    ("hue", "takes another hue"),
    ("grey", "loses its colours"),
    ("invert", "has its light and dark turned over"),
    ("randconv", "is seen through a random convolution"),
)


def add_look_arguments(parser: argparse.ArgumentParser) -> None:
    """``--hue P``, ``--grey P``, ``--invert P`` and ``--randconv P``: the shares of the
    crops shown in each look (:class:`Looks`, :func:`random_convolution`)."""
    for name, what in LOOK_OPTIONS:
        parser.add_argument(
            f"--{name}", type=float, default=0.0, help=f"chance that a crop {what} (0 to 1)"
        )


def check_look_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exit with a one-line error when a look option is no chance."""
    for name, _ in LOOK_OPTIONS:
        chance = getattr(args, name)
        if not 0.0 <= chance <= 1.0:
            parser.error(f"--{name} is {chance}; expected a chance from 0 to 1")


def random_convolution(x: Any, chance: float, rng: np.random.Generator) -> Any:
    """The batch ``x`` (N, 3, px, px) with a share ``chance`` of its crops seen through a
    random convolution: a kernel of a random side from RANDCONV_SIDES and random weights
    (a side of 1 mixes the colours, larger ones also change the texture), its output brought
    to the crop's own mean and spread, then mixed with the crop in a random proportion.

    This is the mixing form of RandConv (Xu, Liu, Yang and Niethammer, "Robust and
    Generalizable Visual Representation Learning via Random Convolutions", ICLR 2021): what
    survives a random filter is shape, so the net learns the dice's and pips' shapes rather
    than the colours and finishes of the dice it was shown.
    """
    import torch

    picks = np.flatnonzero(rng.random(len(x)) < chance)
    if not len(picks):
        return x
    out = x.clone()
    for i in picks:
        side = int(rng.choice(RANDCONV_SIDES))
        weights = rng.normal(0.0, 1.0 / math.sqrt(3 * side * side), (3, 3, side, side))
        crop = x[i : i + 1]
        seen = torch.nn.functional.conv2d(
            crop, torch.from_numpy(weights.astype(np.float32)), padding=side // 2
        )
        seen = (seen - seen.mean()) / (seen.std() + 1e-6) * crop.std() + crop.mean()
        mix = float(rng.uniform())
        out[i] = mix * crop[0] + (1.0 - mix) * seen[0]
    return out


#: the Beta distribution's parameter for the weights a mixed batch's statistics are drawn
#: with (--mixstyle): at 0.1 most weights lie near 0 or 1, so a crop mostly keeps its own
#: look or takes another's, and seldom an even blend
MIXSTYLE_ALPHA = 0.1


def mix_style(chance: float) -> Any:
    """A layer without weights that, while training, gives a share ``chance`` of the batches
    it sees another look: every crop's channels keep their pattern (brought to mean 0 and
    spread 1 over the crop) and take a mean and spread mixed from their own and those of
    another crop of the batch, in a proportion drawn for each crop from Beta(MIXSTYLE_ALPHA,
    MIXSTYLE_ALPHA). In evaluation it passes its input on, so an exported net has no trace
    of it and its weights load into a net without it.

    This is MixStyle (Zhou, Yang, Qiao and Xiang, "Domain Generalization with MixStyle", ICLR
    2021): a feature map's channel statistics carry the look of a picture (its light,
    camera and finish), so mixing them between photos and rendered frames in the first
    stages makes up looks neither source had, and the net learns what stays: the pips.
    Its draws come from PyTorch's generator, which :func:`start_torch` seeds.
    """
    import torch
    from torch import nn

    class MixStyle(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.chance = chance
            self.beta = torch.distributions.Beta(MIXSTYLE_ALPHA, MIXSTYLE_ALPHA)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if not self.training or len(x) < 2 or float(torch.rand(())) >= self.chance:
                return x
            mean = x.mean(dim=(2, 3), keepdim=True).detach()
            spread = (x.var(dim=(2, 3), keepdim=True) + 1e-6).sqrt().detach()
            pattern = (x - mean) / spread
            weight = self.beta.sample((len(x), 1, 1, 1)).to(x.dtype)
            other = torch.randperm(len(x))
            mixed_mean = weight * mean + (1 - weight) * mean[other]
            mixed_spread = weight * spread + (1 - weight) * spread[other]
            return pattern * mixed_spread + mixed_mean

        def extra_repr(self) -> str:
            return f"chance={self.chance}"

    return MixStyle()


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


def batch_of(
    items: list[list[Item]],
    weights: list[float],
    n: int,
    rng: np.random.Generator,
    looks: Looks = PLAIN,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """``n`` crops drawn from the pools ``items`` by ``weights``, and their grid targets;
    each crop in the other looks ``looks`` gives it."""
    import torch

    images, heat, reg, cls = [], [], [], []
    for _ in range(n):
        pool = items[int(rng.choice(len(items), p=weights))]
        crop, dice = sample(pool[int(rng.integers(len(pool)))], rng)
        blob, _ = prepare(looks.apply(crop, rng))
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


def evaluate(net: Any, root: Path) -> str:
    """Accuracy of a grid net's own faces on the held-out photos (the bench measures the
    reader, with its checks)."""
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


def export_onnx(
    net: Any,
    out: Path,
    shape: tuple[int, ...],
    names: tuple[str, str],
    axes: dict[str, dict[int, str]],
) -> None:
    """The net as ONNX at ``out``, taking a zero input of ``shape`` to trace it, in evaluation
    mode (so its normalisation is folded into its convolutions): input and output ``names``,
    and the dynamic ``axes`` of each."""
    import torch

    net.eval()
    torch.onnx.export(
        net,
        (torch.zeros(*shape),),
        str(out),
        input_names=[names[0]],
        output_names=[names[1]],
        dynamic_axes=axes,
        opset_version=13,
        dynamo=False,
    )
    net.train()


def export_grid(net: Any, out: Path) -> None:
    """A grid net (the detector or the single-stage reader) as ONNX: a frame of any size in,
    a grid of one cell per 8 pixels out."""
    axes = {"frame": {2: "height", 3: "width"}, "grid": {2: "rows", 3: "columns"}}
    export_onnx(net, out, (1, 3, 480, 640), ("frame", "grid"), axes)


@dataclasses.dataclass(frozen=True)
class Schedule:
    """How long and how fast to train: ``lr`` at first, after ``warm_up`` steps of a linear
    rise, then a cosine decay to 2% of it over ``minutes``; mean losses are logged every
    ``log_every`` steps and ``checkpoint`` is called every ``checkpoint_minutes``."""

    minutes: float
    lr: float
    warm_up: int = 0
    log_every: int = 100
    checkpoint_minutes: float = 15.0

    def rate(self, step: int, elapsed: float) -> float:
        """The learning rate at ``step`` (counted from 0), ``elapsed`` seconds in."""
        warm = min(1.0, (step + 1) / self.warm_up) if self.warm_up else 1.0
        cosine = 0.5 * (1 + math.cos(math.pi * min(1.0, elapsed / (self.minutes * 60))))
        return self.lr * warm * (0.02 + 0.98 * cosine)


def train_for(
    net: Any,
    optimiser: Any,
    schedule: Schedule,
    loss_step: Callable[[], tuple[torch.Tensor, dict[str, float]]],
    checkpoint: Callable[[int], None] | None = None,
) -> int:
    """Train until ``schedule.minutes`` have passed: each step sets the learning rate, takes
    ``loss_step()`` (a batch's loss and its named parts), steps the optimiser and adds up
    the parts for the log on standard error. The number of steps taken."""
    start = time.monotonic()
    budget = schedule.minutes * 60
    step, totals = 0, {}
    saved_at = start
    net.train()
    while (elapsed := time.monotonic() - start) < budget:
        for g in optimiser.param_groups:
            g["lr"] = schedule.rate(step, elapsed)
        loss, parts = loss_step()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        step += 1
        for k, v in parts.items():
            totals[k] = totals.get(k, 0.0) + v
        if step % schedule.log_every == 0:
            mean = " ".join(f"{k} {v / schedule.log_every:.3f}" for k, v in totals.items())
            print(f"step {step} ({elapsed / 60:.1f} min): {mean}", file=sys.stderr, flush=True)
            totals = {}
        if (
            checkpoint is not None
            and time.monotonic() - saved_at >= schedule.checkpoint_minutes * 60
        ):
            checkpoint(step)
            saved_at = time.monotonic()
    return step
