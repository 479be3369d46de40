"""Teaching a dice profile from labelled frames (the development photos' label format).

A labels file holds one JSON object a line, ``{"image": PATH, "dice": [{"value": 1-6,
"box": [x0, y0, x1, y1]}, ...]}``, image paths relative to the labels file. Every line and
image is checked before anything is learned; :class:`LabelsError` names the line and what
would be right. Each labelled die is cut where the reader itself finds it (the reader's
die nearest the label's centre, within half a die), so the profile learns the crops it will
be shown; a die the reader misses is cut at its label.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.bench import LabelledDie as BenchDie
from vision.bench import match
from vision.calibration import Calibration
from vision.profile import (
    DiceProfile,
    ProfileError,
    TeachingExample,
    die_side,
    example_from_frame,
    fit_profile,
)
from vision.reader import read_dice

MAX_LINES = 10000


class LabelsError(ProfileError):
    """A labels file that cannot be taught from; the message names the line and problem."""


@dataclass(frozen=True)
class LabelledDie:
    """One labelled die: its value and box in pixels."""

    value: int
    box: tuple[float, float, float, float]

    @property
    def centre(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2.0, (self.box[1] + self.box[3]) / 2.0)

    @property
    def side(self) -> float:
        return max(self.box[2] - self.box[0], self.box[3] - self.box[1])


@dataclass(frozen=True)
class LabelledFrame:
    """One labelled image: its file and its dice."""

    image: Path
    dice: tuple[LabelledDie, ...]


def _die(entry: Any, where: str) -> LabelledDie:
    if not isinstance(entry, dict) or "value" not in entry or "box" not in entry:
        raise LabelsError(f'{where}: a die must be {{"value": 1-6, "box": [x0, y0, x1, y1]}}')
    value = entry["value"]
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise LabelsError(f"{where}: value {value!r} must be a whole number 1-6")
    box = entry["box"]
    if (
        not isinstance(box, list)
        or len(box) != 4
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in box)
        or not all(math.isfinite(v) for v in box)
    ):
        raise LabelsError(f"{where}: box {box!r} must be four numbers [x0, y0, x1, y1]")
    x0, y0, x1, y1 = (float(v) for v in box)
    if not (x1 > x0 and y1 > y0):
        raise LabelsError(f"{where}: box {box!r} must have x1 > x0 and y1 > y0")
    return LabelledDie(value, (x0, y0, x1, y1))


def read_labels(path: str | Path) -> list[LabelledFrame]:
    """The frames of a labels file; ``LabelsError`` for a missing file, a line that is not
    JSON or not a label, a value outside 1-6 or a malformed box."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LabelsError(f"labels file {p} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelsError(f"labels file {p} cannot be read: {exc}") from None
    frames = []
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise LabelsError(f"labels file {p} has {len(lines)} lines; at most {MAX_LINES}")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{p} line {number}"
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LabelsError(f"{where} is not JSON: {exc.msg}") from None
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("image"), str)
            or not isinstance(entry.get("dice"), list)
        ):
            raise LabelsError(f'{where}: expected {{"image": PATH, "dice": [...]}}')
        dice = tuple(_die(d, f"{where} die {k + 1}") for k, d in enumerate(entry["dice"]))
        frames.append(LabelledFrame(p.parent / entry["image"], dice))
    if not frames:
        raise LabelsError(f"labels file {p} holds no labelled images")
    return frames


def load_frame(frame: LabelledFrame, number: int, calibration: Calibration | None) -> np.ndarray:
    """The image of a labelled frame, checked against its boxes and the calibration."""
    path = frame.image
    data = np.fromfile(path, np.uint8) if path.is_file() else None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data is not None and data.size else None
    if image is None:
        what = "is not a readable image" if path.is_file() else "does not exist"
        raise LabelsError(f"labelled image {number} ({path}) {what}")
    h, w = image.shape[:2]
    for k, die in enumerate(frame.dice, start=1):
        x0, y0, x1, y1 = die.box
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
            raise LabelsError(
                f"labelled image {number} ({path}) die {k}: box {list(die.box)} is off the "
                f"{w}x{h} image"
            )
    if calibration is not None and (w, h) != calibration.frame_size:
        cw, ch = calibration.frame_size
        raise LabelsError(
            f"labelled image {number} ({path}) is {w}x{h} px but the calibration is for "
            f"{cw}x{ch} px"
        )
    return np.asarray(image)


def frame_examples(
    image: np.ndarray, dice: tuple[LabelledDie, ...], calibration: Calibration | None
) -> list[TeachingExample]:
    """Teaching examples of the labelled dice of one frame, cut where the reader finds them."""
    reading = read_dice(image, calibration)
    truth = [BenchDie(d.value, d.centre, d.side) for d in dice]
    where = {j: i for i, j in match(reading.dice, truth)}
    examples = []
    for j, label in enumerate(dice):
        if j in where:
            die = reading.dice[where[j]]
            centre, side = die.center, die_side(die, calibration)
        else:
            centre = label.centre
            side = calibration.die_side if calibration is not None else label.side
        examples.append(example_from_frame(image, centre, side, label.value))
    return examples


@dataclass(frozen=True)
class Taught:
    """What ``teach`` learned: the profile, and from how many images and dice."""

    profile: DiceProfile
    images: int
    dice: int

    def to_json(self) -> dict[str, Any]:
        p = self.profile
        return {
            "images": self.images,
            "dice": self.dice,
            "counts": {str(v + 1): n for v, n in enumerate(p.counts)},
            "cv_accuracy": round(p.cv_accuracy, 4),
            "frame_size": None if p.frame_size is None else list(p.frame_size),
            "calibration": p.calibration,
        }


def teach(labels: str | Path, calibration: Calibration | None = None) -> Taught:
    """Learn a profile from a labels file (every line and image checked first)."""
    frames = read_labels(labels)
    images = [load_frame(f, n, calibration) for n, f in enumerate(frames, start=1)]
    examples: list[TeachingExample] = []
    for frame, image in zip(frames, images, strict=True):
        examples += frame_examples(image, frame.dice, calibration)
    sizes = {(im.shape[1], im.shape[0]) for im in images}
    size = next(iter(sizes)) if len(sizes) == 1 else None
    return Taught(fit_profile(examples, calibration, size), len(frames), len(examples))
