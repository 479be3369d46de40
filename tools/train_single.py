"""Train the single-stage dice reader shipped in ``vision/models/`` (see vision/detect.py).

One small fully convolutional network finds every die and reads its top face in one pass,
as CenterNet does for objects (Zhou, Wang and Krähenbühl, "Objects as Points", 2019): on a
grid of one cell per 8 pixels it answers the chance that a die's centre lies in the cell (a
Gaussian peak at each centre, trained with CenterNet's focal loss), the centre's offset in
the cell and the die's log size (L1 near the centre, as FCOS, Tian et al. 2019, regresses
near an object's centre), and the face on top or that the die is cocked (cross-entropy near
the centre). Its layers are depthwise-separable (a 3 x 3 depthwise convolution, then a 1 x 1
one: MobileNet, Howard et al. 2017) with residual connections where the shape allows
(MobileNetV2, Sandler et al. 2018), and dilated at the coarsest scale so that a cell sees a
whole die and its neighbours (Yu and Koltun, 2016). The output has the shape of the two-stage
reader's detector, so the same decoding serves both; the reader checks its face with the
pip count, as it checks the two-stage reader's.

Samples: rendered frames from the widened renderer (wood, cloth, felt, printed and glossy
floors, clutter at the edges, oblique views to 45 degrees, stretched pixels, piles of 10 to
40 dice, every body and pip colour, marbled, translucent, metallic, engraved and big-one
dice, JPEG, motion blur, glare, hard shadows; seeds from 600000) and the development
photos' training split (the same split as tools/train_detector.py; the model's JSON lists
the photos it saw). Crops, targets, loss and loop are the detector's (tools/training.py).

    nice -n 5 .venv/bin/python tools/train_single.py --photos ../shared/data/dice-photos \\
        --minutes 40

Needs PyTorch and ``onnx`` (``pip install -e '.[train]'``); runs on one thread.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import train_detector  # the sibling scripts: a script's own folder is on sys.path
import training
from train_detector import WIDE_FORMS, WideForm
from training import Item, Schedule

from vision.detect import OUTPUTS, SINGLE_FILE
from vision.render import (
    DIE_COLORS,
    HARD,
    PIP_COLORS,
    TOWER,
    RenderError,
    RenderStyle,
    random_pile,
    random_scene,
)
from vision.render.style import FLOOR_KINDS

FIRST_SEED = 600_000  # rendered training scenes; the bench uses seeds from 0
FLOORS = (*train_detector.FLOORS, (30, 30, 90), (180, 200, 210), (20, 60, 20), (160, 60, 40))


def wide_style(rng: np.random.Generator, form: WideForm = 1) -> RenderStyle:
    """A random style of the renderer's wide domain, from a tower's to far beyond the hard one."""
    if form not in WIDE_FORMS:
        raise ValueError(f"wide form {form}; use one of {WIDE_FORMS}")
    base = HARD if rng.random() < 0.6 else TOWER
    floors = tuple(FLOORS[int(i)] for i in rng.choice(len(FLOORS), 2, replace=False))
    first_kinds = tuple(k for k in FLOOR_KINDS if k != "grit")  # the first form's draw, kept
    kinds = tuple(str(k) for k in rng.choice(first_kinds, 2))
    if form == 2 and rng.random() < 0.35:
        kinds = ("grit", kinds[1])
    pips = tuple(PIP_COLORS) if rng.random() < 0.5 else tuple(sorted(PIP_COLORS))
    return dataclasses.replace(
        base,
        name="wide",
        floor_colors=floors,
        floor_kinds=kinds,
        die_colors=tuple(DIE_COLORS),
        pip_colors=pips,
        mixed_colors=bool(rng.random() < 0.6),
        size_jitter=float(rng.uniform(0.0, 0.2)),
        corner_radius=float(rng.uniform(0.05, 0.35)),
        perspective=float(rng.uniform(0.0, 0.08)),
        camera_height_mm=float(rng.choice([0.0, 0.0, 250.0, 350.0, 600.0, 1000.0])),
        camera_tilt_deg=float(rng.choice([0.0, 0.0, rng.uniform(5.0, 45.0)])),
        pixel_aspect=float(rng.choice([1.0, 1.0, rng.uniform(0.8, 1.25)])),
        shadow=float(rng.uniform(0.1, 0.8)),
        light_gradient=float(rng.uniform(0.0, 0.5)),
        vignette=float(rng.uniform(0.0, 0.5)),
        glare=float(rng.uniform(0.0, 0.6)),
        floor_texture=float(rng.uniform(1.0, 14.0)),
        noise=float(rng.uniform(1.0, 10.0)),
        blur_px=float(rng.uniform(0.3, 1.6)),
        motion_blur_px=float(rng.choice([0.0, 0.0, rng.uniform(1.0, 6.0)])),
        jpeg_quality=int(rng.choice([0, 40, 60, 80, 92])),
        touching=float(rng.uniform(0.1, 0.6)),
        cocked=float(rng.choice([0.0, 0.05, 0.12])),
        clutter=float(rng.choice([0.0, 0.2, 0.5])),
        marbled=float(rng.uniform(0.0, 0.25)),
        translucent=float(rng.uniform(0.0, 0.2)),
        glints=float(rng.uniform(0.0, 0.3)),
        highlight=float(rng.uniform(0.0, 0.5)),
        glossy=float(rng.uniform(0.0, 0.3)),
        metallic=float(rng.uniform(0.0, 0.1)),
        engraved=float(rng.uniform(0.0, 0.3)),
        big_one=float(rng.uniform(0.0, 0.3)),
    )


def wide_items(n: int, first_seed: int = FIRST_SEED, form: WideForm = 1) -> list[Item]:
    """``n`` rendered frames of the wide domain's ``form``: a quarter of them piles of 10 to
    40 dice."""
    items = []
    for k in range(n):
        seed = first_seed + k
        rng = np.random.default_rng(seed)
        style = wide_style(rng, form)
        pile = rng.random() < 0.25
        die_mm = float(rng.uniform(7.0, 14.0) if pile else rng.uniform(9.0, 26.0))
        n_dice = int(rng.integers(10, 41) if pile else rng.integers(0, 13))
        try:
            if pile:
                frame, truth = random_pile(seed, n_dice, style=style, die_mm=die_mm)
            else:
                frame, truth = random_scene(seed, n_dice, style=style, die_mm=die_mm)
        except (ValueError, RenderError):  # the dice did not fit the tray: fewer
            frame, truth = random_scene(seed, min(n_dice, 6), style=style, die_mm=die_mm)
        items.append(training.rendered_item(frame, truth))
    return items


def cached_wide_items(n: int, cache: Path | None, form: WideForm = 1) -> list[Item]:
    """:func:`wide_items`, kept in (and read back from) ``cache`` when given: rendering
    takes minutes, and the runs of one recipe share their frames. Each form has its own
    file (the first keeps its name from before there were two)."""
    if cache is None:
        return wide_items(n, form=form)
    name = "wide" if form == 1 else f"wide{form}"
    path = cache / f"{name}-{FIRST_SEED}-{n}.npz"
    if path.is_file():
        with np.load(path) as data:
            return [
                Item(data[f"image{k}"], data[f"dice{k}"], float(data["sides"][k])) for k in range(n)
            ]
    items = wide_items(n, form=form)
    cache.mkdir(parents=True, exist_ok=True)
    arrays = {f"image{k}": i.image for k, i in enumerate(items)}
    arrays |= {f"dice{k}": i.dice for k, i in enumerate(items)}
    part = path.with_suffix(".part.npz")
    np.savez(part, sides=np.array([i.side for i in items]), **arrays)
    part.replace(path)
    return items


def build_net(width: int = 64, stem: int = 16, blocks: int = 4) -> Any:
    """Depthwise-separable layers to one cell per 8 pixels, then ``blocks`` dilated residual
    blocks (dilations 1, 2, 4, 8, ...) and a 1 x 1 head of ``OUTPUTS`` channels."""
    import torch
    from torch import nn

    def separable(c_in: int, c_out: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
        return nn.Sequential(
            nn.Conv2d(c_in, c_in, 3, stride, dilation, dilation, groups=c_in, bias=False),
            nn.BatchNorm2d(c_in),
            nn.ReLU(inplace=True),
            nn.Conv2d(c_in, c_out, 1, bias=False),
            nn.BatchNorm2d(c_out),
            nn.ReLU(inplace=True),
        )

    class Residual(nn.Module):
        def __init__(self, body: nn.Module) -> None:
            super().__init__()
            self.body = body

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + self.body(x)

    mid = 2 * stem
    layers: list[nn.Module] = [
        nn.Conv2d(3, stem, 3, 2, 1, bias=False),
        nn.BatchNorm2d(stem),
        nn.ReLU(inplace=True),
        separable(stem, mid, 2),
        Residual(separable(mid, mid)),
        separable(mid, width, 2),
    ]
    layers += [Residual(separable(width, width, 1, 2 ** (k % 4))) for k in range(blocks)]
    layers += [nn.Conv2d(width, width, 1), nn.ReLU(inplace=True), nn.Conv2d(width, OUTPUTS, 1)]
    net = nn.Sequential(*layers)
    head = net[-1]
    with torch.no_grad():
        head.bias.zero_()
        head.bias[0] = -4.0  # few cells hold a die's centre
    return net


def export(net: Any, out: Path, info: dict[str, Any]) -> None:
    """The net as ONNX (normalisation folded into the convolutions) and its JSON beside it."""
    training.export_grid(net, out)
    out.with_suffix(".json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")


def load_init(net: Any, path: Path, probe: Any) -> int:
    """Start ``net`` from ``path``: a checkpoint (``.pt``, saved by this tool) or an exported
    model (``.onnx``) of the same layers; the training steps it had, or 0 when unknown.

    An export has its normalisation folded into its convolutions; each normalisation layer
    here is set from the statistics of ``probe`` (a batch of frames) so that the net answers
    as the export does on it, and the two are compared there.
    """
    import torch
    from torch import nn

    if not path.is_file():
        raise SystemExit(f"--init {path}: no such file; expected a .pt checkpoint or .onnx model")
    if path.suffix == ".pt":
        try:
            saved = torch.load(path, map_location="cpu", weights_only=True)
            net.load_state_dict(saved["state_dict"])
        except Exception as exc:  # torch raises unpickling, key and shape errors alike
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise SystemExit(f"--init {path}: not a checkpoint of this net ({first})") from None
        return int(saved.get("steps", 0))
    if path.suffix != ".onnx":
        raise SystemExit(f"--init {path}: expected a .pt checkpoint or an .onnx model")
    import onnx
    from onnx import numpy_helper

    try:
        model = onnx.load(str(path))
    except Exception as exc:  # onnx raises its own decode errors
        raise SystemExit(f"--init {path}: not an ONNX model ({type(exc).__name__})") from None
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    nodes = [n for n in model.graph.node if n.op_type == "Conv"]
    modules = list(net.modules())
    convs = [m for m in modules if isinstance(m, nn.Conv2d)]
    if len(nodes) != len(convs):
        raise SystemExit(
            f"--init {path}: the model has {len(nodes)} convolutions; this net has {len(convs)}"
        )
    folded: dict[nn.Module, torch.Tensor] = {}  # normalisation layer -> the bias folded into it
    with torch.no_grad():
        for node, conv in zip(nodes, convs, strict=True):
            if len(node.input) < 3 or node.input[1] not in weights or node.input[2] not in weights:
                raise SystemExit(f"--init {path}: convolution {node.name} has no weights")
            w, b = (torch.from_numpy(weights[name].copy()) for name in node.input[1:3])
            if w.shape != conv.weight.shape:
                raise SystemExit(
                    f"--init {path}: convolution {node.name} is {tuple(w.shape)};"
                    f" this net's is {tuple(conv.weight.shape)}"
                )
            conv.weight.copy_(w)
            if conv.bias is not None:
                conv.bias.copy_(b)
                continue
            after = modules[modules.index(conv) + 1]
            if not isinstance(after, nn.BatchNorm2d):
                raise SystemExit(f"--init {path}: this net's layers do not match the model's")
            folded[after] = b

    def match_batch(layer: nn.Module, inputs: tuple[torch.Tensor, ...]) -> None:
        x = inputs[0]
        mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3), unbiased=False)
        layer.running_mean.copy_(mean)
        layer.running_var.copy_(var)
        layer.weight.copy_(torch.sqrt(var + layer.eps))
        layer.bias.copy_(mean + folded[layer])

    hooks = [layer.register_forward_pre_hook(match_batch) for layer in folded]
    with torch.no_grad():
        net.train()
        net(probe)
    for hook in hooks:
        hook.remove()
    net.eval()
    with torch.no_grad():
        ours = net(probe).numpy()
    net.train()
    theirs = cv2.dnn.readNetFromONNX(str(path))
    theirs.setInput(probe.numpy())
    gap = float(np.abs(theirs.forward() - ours).max())
    if not gap < 1e-2:
        raise SystemExit(f"--init {path}: this net answers {gap:.3g} away from the model")
    try:
        info = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        return int(info.get("steps", 0))
    except (OSError, ValueError, AttributeError, TypeError):
        return 0


def save_checkpoint(net: Any, path: Path, info: dict[str, Any], step: int) -> None:
    """The net's weights and statistics (``.pt``) and its export (``.onnx``, JSON beside)."""
    import torch

    part = path.with_suffix(".part.pt")
    torch.save({"state_dict": net.state_dict(), "steps": step}, part)
    part.replace(path.with_suffix(".pt"))
    export(net, path.with_suffix(".onnx"), {**info, "steps": step})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, required=True, help="folder of labelled folders")
    parser.add_argument("--rendered", type=int, default=800, help="rendered frames")
    parser.add_argument("--minutes", type=float, default=40.0, help="training time")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--width", type=int, default=64, help="channels at one cell per 8 px")
    parser.add_argument("--stem", type=int, default=16, help="channels of the first layer")
    parser.add_argument("--blocks", type=int, default=4, help="dilated residual blocks")
    parser.add_argument("--lr", type=float, default=3e-3, help="first learning rate")
    parser.add_argument("--out", type=Path, default=SINGLE_FILE)
    parser.add_argument("--cache", type=Path, help="folder to keep the rendered frames in")
    parser.add_argument(
        "--init", type=Path, help="start from this checkpoint (.pt) or export (.onnx) of the net"
    )
    parser.add_argument(
        "--face-weight", type=float, default=1.0, help="weight of the face loss against the rest"
    )
    parser.add_argument(
        "--checkpoint-minutes",
        type=float,
        default=15.0,
        help="save OUT-STEP.pt and .onnx this often, and read the held-out photos",
    )
    parser.add_argument(
        "--photo-share", type=float, default=0.5, help="share of crops taken from photos"
    )
    parser.add_argument(
        "--leave-out",
        action="append",
        default=[],
        metavar="FOLDER",
        help="train without this labelled folder's photos (leave one source out)",
    )
    parser.add_argument(
        "--export-only", action="store_true", help="export the untrained net (to time it)"
    )
    args = parser.parse_args(argv)
    if not 0.0 < args.face_weight <= 100.0:
        parser.error(f"--face-weight is {args.face_weight}; expected a weight above 0, up to 100")
    if not args.checkpoint_minutes > 0.0:
        parser.error(f"--checkpoint-minutes is {args.checkpoint_minutes}; expected above 0")
    rng = training.start_torch("train_single", args.seed)
    import torch

    # channels last: depthwise convolutions train about 1.5 times faster on a CPU
    net = build_net(args.width, args.stem, args.blocks).to(memory_format=torch.channels_last)
    info: dict[str, Any] = {
        "model": "single-stage dice reader, fully convolutional, one cell per 8 pixels",
        "outputs": "centre score, x offset, y offset, log side / 8, logits of cocked, 1..6",
        "trained_by": "tools/train_single.py",
        "arguments": {k: str(v) for k, v in vars(args).items()},
        "steps": 0,
        "trained_on_photos": [],
    }
    if args.export_only:
        export(net, args.out, info)
        return 0
    photos, used = training.photo_items(args.photos, tuple(args.leave_out))
    info["trained_on_photos"] = sorted(used)
    print(f"{len(used)} training photos; rendering {args.rendered} frames", file=sys.stderr)
    rendered = cached_wide_items(args.rendered, args.cache)
    pools, weights = training.crop_pools(rendered, photos, args.photo_share)
    first = 0
    if args.init is not None:
        probe, _ = training.batch_of(pools, weights, 32, np.random.default_rng(args.seed))
        first = load_init(net, args.init, probe.contiguous(memory_format=torch.channels_last))
        print(f"started from {args.init} ({first} steps)", file=sys.stderr, flush=True)
    info["init"] = {"model": str(args.init), "steps": first} if args.init else None
    optimiser = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)

    def loss_step() -> tuple[torch.Tensor, dict[str, float]]:
        x, t = training.batch_of(pools, weights, args.batch, rng)
        out = net(x.contiguous(memory_format=torch.channels_last))
        return training.loss_of(out, t, args.face_weight)

    def checkpoint(step: int) -> None:
        mark = args.out.with_name(f"{args.out.stem}-{first + step}.onnx")
        save_checkpoint(net, mark, info, first + step)
        held = training.evaluate(net, args.photos)
        print(f"checkpoint {mark} ({first + step} steps); {held}", file=sys.stderr, flush=True)

    schedule = Schedule(args.minutes, args.lr, 100, checkpoint_minutes=args.checkpoint_minutes)
    step = training.train_for(net, optimiser, schedule, loss_step, checkpoint)
    save_checkpoint(net, args.out, info, first + step)
    held = training.evaluate(net, args.photos)
    print(f"{step} steps ({first + step} in all); {held}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
