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
import sys
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np
import training  # the tools' shared parts: a script's own folder is on sys.path
from training import Item, Schedule

from vision.detect import DETECTOR_FILE, OUTPUTS
from vision.render import DIE_COLORS, HARD, TOWER, RenderStyle, random_scene
from vision.render.style import (
    ALL_DIE_COLORS,
    ALL_PIP_COLORS,
    LEAST_PIP_CONTRAST,
    MIN_PIP_CONTRAST,
)

FIRST_SEED = 700_000  # rendered training scenes; the bench uses seeds from 0
#: The name of ``--finishes``' recipe where its frames are kept (a face-example cache): a new
#: recipe renders other frames, so it gets a new name. 2: every body and pip colour, metal
#: dice, and pips of a close grey but another hue, beside the marbled, translucent and
#: glinting dice of the first. 3: translucent dice showing their hidden faces' pips, dull
#: coloured pips, a ring light's arc, swirled bodies, the lamp's glossy spot, and touching
#: dice turned against each other (a neighbour's pips in the face reader's crop), beside the
#: second's. 4: the third's, with a gritty floor (concrete, terrazzo, dust) under two scenes
#: in five, whose specks a face reader must call "no face". 5: the fourth's scenes with the
#: touching dice squared up against each other, never turned (the same draws otherwise). 6:
#: the fourth's scenes with no translucent die showing its hidden faces' pips. 7: the fourth's
#: scenes with the gritty floor under three scenes in twenty (the same draw, a lower bar).
FinishForm = Literal[2, 3, 4, 5, 6, 7]
FINISH_FORMS: tuple[FinishForm, ...] = get_args(FinishForm)  # the option's choices
LATEST_FORM: FinishForm = 3  # the second is the one measured with a source left out


#: The forms of the wide domain (``--wide``, rendered by ``train_single.wide_items``): 1, the
#: one the shipped detector was trained on; 2, the first with gritty floors (concrete,
#: terrazzo, dust) under a third of its scenes.
WideForm = Literal[1, 2]
WIDE_FORMS: tuple[WideForm, ...] = get_args(WideForm)


def finishes_name(form: FinishForm) -> str:
    """The name a form of ``--finishes`` keeps its rendered examples under."""
    return f"finishes{form}"


FINISHES = finishes_name(LATEST_FORM)
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


def rendered_style(
    rng: np.random.Generator,
    finishes: bool = False,
    form: FinishForm = LATEST_FORM,
    cocked_scale: float = 1.0,
) -> RenderStyle:
    """A random style between the tower's and beyond the hard one's.

    ``finishes`` adds marbled, translucent and metal dice and glints, every body and pip
    colour, and pips of a close grey but another hue such as red on black, translucent dice
    that show their hidden faces' pips, dull coloured pips, a ring light's arc, swirled bodies,
    glossy sets and touching dice turned against each other (``FINISHES``). ``form`` 2 draws
    the second form's finishes only, frame for frame as before the third was added; 4 lays
    a gritty floor under two scenes in five, the third's scenes otherwise; 5 draws the
    fourth's scenes with no touching die turned against its neighbour; 6 the fourth's
    with no translucent die showing its hidden faces' pips; 7 the fourth's with the gritty
    floor under three scenes in twenty, the other scenes' floors matte.
    ``cocked_scale`` multiplies each style's chance of a cocked die (the same scenes drawn
    otherwise, with more or fewer dice leaning).
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
        cocked=float(rng.choice([0.0, 0.05, 0.15])) * cocked_scale,
    )
    if not finishes:
        return style
    second = dataclasses.replace(
        style,
        marbled=float(rng.uniform(0.0, 0.3)),
        translucent=float(rng.uniform(0.0, 0.2 if form == 2 else 0.3)),
        glints=float(rng.uniform(0.0, 0.4)),
        die_colors=tuple(ALL_DIE_COLORS),
        pip_colors=tuple(ALL_PIP_COLORS),
        pip_contrast=float(rng.choice([MIN_PIP_CONTRAST, LEAST_PIP_CONTRAST])),
        metallic=float(rng.uniform(0.0, 0.25)),
    )
    if form == 2:
        return second
    third = dataclasses.replace(
        second,
        show_through=float(rng.uniform(0.5, 1.0)),
        dull_pips=float(rng.uniform(0.0, 0.4)),
        ring_glare=float(rng.uniform(0.0, 0.4)),
        swirl=float(rng.uniform(0.0, 0.3)),
        highlight=float(rng.uniform(0.0, 0.4)),
        glossy=float(rng.uniform(0.0, 0.3)),
        # touching dice more often, half the styles turning them against each other
        touching=float(rng.uniform(0.4, 0.9)),
        touch_turn=float(rng.uniform(0.0, 45.0)) * float(rng.random() < 0.5),
    )
    if form == 3:
        return third
    floor = rng.random()  # the fourth's floor draw: grit below 0.4 (the seventh: below 0.15)
    fourth = dataclasses.replace(third, floor_kinds=("grit",) if floor < 0.4 else ("matte",))
    if form == 4:
        return fourth
    if form == 5:
        return dataclasses.replace(fourth, touch_turn=0.0)
    if form == 6:
        return dataclasses.replace(fourth, show_through=0.0)
    return dataclasses.replace(fourth, floor_kinds=("grit",) if floor < 0.15 else ("matte",))


def add_form_argument(parser: argparse.ArgumentParser) -> None:
    """``--finishes-form N``: which form of ``--finishes`` to render (default the latest)."""
    parser.add_argument(
        "--finishes-form",
        type=int,
        choices=FINISH_FORMS,
        default=LATEST_FORM,
        help=f"form of --finishes to render (default {LATEST_FORM}; 2: the shipped face "
        "reader's; 4: the third with gritty floors; 5: the fourth without turned neighbours; "
        "6: the fourth without hidden pips showing through; 7: the fourth with fewer "
        "gritty floors)",
    )


def rendered_items(
    n: int,
    finishes: bool = False,
    first_seed: int = FIRST_SEED,
    form: FinishForm = LATEST_FORM,
    cocked_scale: float = 1.0,
) -> list[Item]:
    """``n`` rendered frames with random styles, die sizes and numbers of dice."""
    items = []
    for seed in range(first_seed, first_seed + n):
        rng = np.random.default_rng(seed)
        style = rendered_style(rng, finishes, form, cocked_scale)
        die_mm = float(rng.uniform(9.0, 26.0))
        n_dice = int(rng.integers(0, 13))
        try:
            frame, truth = random_scene(seed, n_dice, style=style, die_mm=die_mm)
        except ValueError:  # the dice did not fit the tray: fewer
            frame, truth = random_scene(seed, min(n_dice, 6), style=style, die_mm=die_mm)
        items.append(training.rendered_item(frame, truth))
    return items


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


def export(net: Any, used: list[str], args: argparse.Namespace, steps: int) -> None:
    training.export_grid(net, args.out)
    info = {
        "model": "dice detector, fully convolutional, one cell per 8 pixels",
        "outputs": "centre score, x offset, y offset, log side / 8, logits of cocked, 1..6",
        "trained_by": "tools/train_detector.py",
        "arguments": {k: str(v) for k, v in vars(args).items()},
        "steps": steps,
        "trained_on_photos": sorted(used),
    }
    args.out.with_suffix(".json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")


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
        "--finishes",
        action="store_true",
        help="also render marbled, translucent, glinting and metal dice of every colour",
    )
    add_form_argument(parser)
    parser.add_argument(
        "--wide",
        action="store_true",
        help="render the single-stage reader's wide domain instead (piles of 10-40 dice, "
        "oblique views, stretched pixels, clutter; tools/train_single.py)",
    )
    parser.add_argument(
        "--wide-form",
        type=int,
        choices=WIDE_FORMS,
        default=1,
        help="form of --wide to render (default 1, the shipped detector's; 2 adds gritty "
        "floors: concrete, terrazzo, dust)",
    )
    parser.add_argument("--cache", type=Path, help="keep the wide domain's frames here")
    parser.add_argument(
        "--photo-share", type=float, default=0.6, help="share of crops taken from photos"
    )
    training.add_look_arguments(parser)
    parser.add_argument(
        "--checkpoint-minutes",
        type=float,
        default=15.0,
        help="export the model this often as it trains, and read the held-out photos",
    )
    parser.add_argument(
        "--leave-out",
        action="append",
        default=[],
        metavar="FOLDER",
        help="train without this labelled folder's photos (leave one source out)",
    )
    parser.add_argument(
        "--unsized",
        action="append",
        default=[],
        metavar="FOLDER",
        help="learn this labelled folder's dice centres, not their sizes (boxes of whole dice "
        "seen from above, wider than a top face)",
    )
    args = parser.parse_args(argv)
    if args.wide and args.finishes:
        parser.error("--wide renders its own finishes; leave out --finishes")
    if args.wide_form != 1 and not args.wide:
        parser.error(f"--wide-form {args.wide_form} needs --wide")
    training.check_look_arguments(parser, args)
    rng = training.start_torch("train_detector", args.seed)
    import torch

    photos, used = training.photo_items(args.photos, tuple(args.leave_out), tuple(args.unsized))
    print(f"{len(used)} training photos; rendering {args.rendered} frames", file=sys.stderr)
    if args.wide:
        import train_single  # imports this script: only when asked

        rendered = train_single.cached_wide_items(args.rendered, args.cache, args.wide_form)
    else:
        rendered = rendered_items(args.rendered, args.finishes, form=args.finishes_form)
    pools, weights = training.crop_pools(rendered, photos, args.photo_share)
    net = build_net(args.width, batch_norm=args.init is None)
    if args.init is not None:
        training.load_exported(net, args.init)
    optimiser = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    looks = training.Looks.from_args(args)

    def loss_step() -> tuple[torch.Tensor, dict[str, float]]:
        x, t = training.batch_of(pools, weights, args.batch, rng, looks)
        x = training.random_convolution(x, args.randconv, rng)
        return training.loss_of(net(x), t)

    def checkpoint(step: int) -> None:
        export(net, used, args, step)
        print(training.evaluate(net, args.photos), file=sys.stderr, flush=True)

    schedule = Schedule(args.minutes, args.lr, checkpoint_minutes=args.checkpoint_minutes)
    step = training.train_for(net, optimiser, schedule, loss_step, checkpoint)
    export(net, used, args, step)
    print(f"{step} steps; {training.evaluate(net, args.photos)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
