"""Measure the reader: per-die accuracy, detection recall, false dice, confident-wrong dice, speed.

Labelled folders hold images and ``labels.jsonl`` (one ``{"image", "dice": [{"value", "box"}]}``
per line). A detection matches a label by centre: the nearest unmatched pair whose centres are
within half a die of each other (boxes that cover only the pip pattern still match).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import cv2
import numpy as np

from vision.calibrate import calibrate
from vision.calibration import Calibration, CalibrationError
from vision.models import held_out
from vision.reader import MIN_CONFIDENCE, read_dice
from vision.reading import Die, Reading

if TYPE_CHECKING:
    from vision.render import RenderStyle


class BenchError(ValueError):
    """A folder or label file the bench cannot use."""


@dataclass(frozen=True)
class LabelledDie:
    """One labelled die: value and centre (pixels)."""

    value: int
    center: tuple[float, float]
    size: float


@dataclass(frozen=True)
class Sample:
    """One frame to read and its labels."""

    name: str
    frame: np.ndarray
    labels: tuple[LabelledDie, ...]
    calibration: Calibration | None = None
    expected: int | None = None
    cocked: bool = False  # a die in the frame is cocked: the reading must not be ok


@dataclass
class Score:
    """Running totals for one folder or the synthetic set."""

    name: str
    frames: int = 0
    labelled: int = 0
    detected: int = 0  # labelled dice matched by a detection
    right: int = 0  # matched and read with the right value
    false_dice: int = 0  # detections that match no label
    confident_wrong: int = 0  # matched, wrong value, confidence >= MIN_CONFIDENCE
    unsure: int = 0  # matched dice below MIN_CONFIDENCE
    unsure_right: int = 0  # ... read right all the same
    readings_ok: int = 0  # frames whose reading was ok
    cocked_frames: int = 0  # frames with a cocked die
    cocked_passed: int = 0  # ... whose reading was wrongly ok
    ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)  # this process's CPU time: fair under load
    failures: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The row of the bench table."""
        n = max(self.labelled, 1)
        return {
            "set": self.name,
            "frames": self.frames,
            "dice": self.labelled,
            "accuracy": round(self.right / n, 4),
            "recall": round(self.detected / n, 4),
            "false_dice": self.false_dice,
            "confident_wrong": self.confident_wrong,
            "unsure": self.unsure,
            "sure_accuracy": round(
                1.0 - self.confident_wrong / max(self.detected - self.unsure, 1), 4
            ),
            "unsure_accuracy": round(self.unsure_right / max(self.unsure, 1), 4),
            "ok_frames": self.readings_ok,
            "cocked_frames": self.cocked_frames,
            "cocked_passed": self.cocked_passed,
            "ms_median": round(statistics.median(self.ms), 2) if self.ms else None,
            "cpu_ms_median": round(statistics.median(self.cpu_ms), 2) if self.cpu_ms else None,
        }


def load_folder(folder: str | Path) -> list[tuple[Path, tuple[LabelledDie, ...]]]:
    """The images of a labelled folder with their labels; ``BenchError`` when unusable."""
    root = Path(folder)
    labels = root / "labels.jsonl"
    if not labels.is_file():
        raise BenchError(f"{root} has no labels.jsonl; a bench folder needs one")
    items = []
    for number, line in enumerate(labels.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            dice = tuple(
                LabelledDie(
                    int(d["value"]),
                    ((d["box"][0] + d["box"][2]) / 2.0, (d["box"][1] + d["box"][3]) / 2.0),
                    float(max(d["box"][2] - d["box"][0], d["box"][3] - d["box"][1])),
                )
                for d in entry["dice"]
            )
            items.append((root / str(entry["image"]), dice))
        except (json.JSONDecodeError, KeyError, TypeError, IndexError, ValueError) as exc:
            raise BenchError(f"{labels} line {number} is not a label line: {exc}") from None
    return items


def held_out_items(
    folder: str | Path, skip: frozenset[str] = frozenset()
) -> list[tuple[Path, tuple[LabelledDie, ...]]]:
    """The folder's labelled images except those named (``folder/file``) in ``skip``."""
    name = Path(folder).name
    return [(p, labels) for p, labels in load_folder(folder) if f"{name}/{p.name}" not in skip]


def labelled_folders(root: str | Path) -> list[Path]:
    """The folders under ``root`` that hold a ``labels.jsonl``, by name."""
    return sorted(p for p in Path(root).iterdir() if (p / "labels.jsonl").is_file())


def photo_split(
    folder: str | Path, held: bool = False
) -> Iterator[tuple[str, np.ndarray, tuple[LabelledDie, ...]]]:
    """(``folder/file``, BGR image, labels) of the photos of a labelled folder that models
    learn from, or with ``held`` the quarter they never see; unreadable files are left out."""
    for path, labels in load_folder(folder):
        name = f"{Path(folder).name}/{path.name}"
        if held_out(name) != held:
            continue
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is not None:
            yield name, image, labels


def folder_samples(folder: str | Path, skip: frozenset[str] = frozenset()) -> Iterator[Sample]:
    """Frames and labels of a labelled folder, leaving out the images named in ``skip``."""
    for path, labels in held_out_items(folder, skip):
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise BenchError(f"{path} is missing or not an image")
        yield Sample(path.name, frame, labels)


def match(dice: Iterable[Die], labels: Iterable[LabelledDie]) -> list[tuple[int, int]]:
    """Pairs (detection index, label index), nearest first, centres within half a die."""
    found, truth = list(dice), list(labels)
    pairs = []
    for i, d in enumerate(found):
        side = max(d.box[2] - d.box[0], d.box[3] - d.box[1])
        for j, t in enumerate(truth):
            dist = float(np.hypot(d.center[0] - t.center[0], d.center[1] - t.center[1]))
            if dist <= 0.5 * max(side, t.size):
                pairs.append((dist, i, j))
    used_i: set[int] = set()
    used_j: set[int] = set()
    result = []
    for _, i, j in sorted(pairs):
        if i not in used_i and j not in used_j:
            used_i.add(i)
            used_j.add(j)
            result.append((i, j))
    return result


Reader = Callable[[np.ndarray, Calibration | None, int | None], Reading]


def score_sample(score: Score, sample: Sample, reader: Reader) -> None:
    """Read one sample, time it, and add the outcome to ``score``."""
    start, cpu = time.perf_counter(), time.process_time()
    reading = reader(sample.frame, sample.calibration, sample.expected)
    score.ms.append((time.perf_counter() - start) * 1000.0)
    score.cpu_ms.append((time.process_time() - cpu) * 1000.0)
    score.frames += 1
    if sample.cocked:
        score.cocked_frames += 1
        score.cocked_passed += int(reading.ok)
    score.labelled += len(sample.labels)
    score.readings_ok += int(reading.ok)
    pairs = match(reading.dice, sample.labels)
    score.detected += len(pairs)
    score.false_dice += len(reading.dice) - len(pairs)
    for i, j in pairs:
        die, truth = reading.dice[i], sample.labels[j]
        if die.value == truth.value:
            score.right += 1
        else:
            if die.confidence >= MIN_CONFIDENCE:
                score.confident_wrong += 1
            score.failures.append(
                f"{sample.name}: read {die.value} for {truth.value} at "
                f"({truth.center[0]:.0f}, {truth.center[1]:.0f}) conf {die.confidence:.2f}"
            )
        if die.confidence < MIN_CONFIDENCE:
            score.unsure += 1
            score.unsure_right += int(die.value == truth.value)
    missed = len(sample.labels) - len(pairs)
    if missed:
        score.failures.append(f"{sample.name}: missed {missed} of {len(sample.labels)} dice")


def progress(done: int, total: int, name: str, stream: TextIO | None = None) -> None:
    """A one-line progress bar on ``stream`` (default stderr), redrawn in place."""
    stream = stream or sys.stderr
    width = 30
    filled = int(width * done / max(total, 1))
    stream.write(f"\r{name:<16} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done >= total:
        stream.write("\n")
    stream.flush()


def run(
    samples: Iterable[Sample],
    name: str,
    total: int,
    reader: Reader = read_dice,
    show_progress: bool = True,
) -> Score:
    """Score every sample with ``reader``, drawing progress on stderr."""
    score = Score(name)
    for done, sample in enumerate(samples, start=1):
        score_sample(score, sample, reader)
        if show_progress and (done % 5 == 0 or done == total):
            progress(done, total, name)
    return score


def format_table(scores: list[Score]) -> str:
    """The bench table as aligned text."""
    head = (
        f"{'set':<16}{'frames':>7}{'dice':>7}{'right':>9}{'recall':>8}"
        f"{'false':>7}{'conf-wrong':>11}{'unsure':>8}{'ok frames':>10}{'ms':>8}{'cpu ms':>8}"
    )
    lines = [head]
    for s in scores:
        row = s.to_json()
        ms = "-" if row["ms_median"] is None else f"{row['ms_median']:.1f}"
        cpu = "-" if row["cpu_ms_median"] is None else f"{row['cpu_ms_median']:.1f}"
        lines.append(
            f"{s.name:<16}{s.frames:>7}{s.labelled:>7}{row['accuracy'] * 100:>8.2f}%"
            f"{row['recall'] * 100:>7.1f}%{s.false_dice:>7}{s.confident_wrong:>11}"
            f"{s.unsure:>8}{s.readings_ok:>10}{ms:>8}{cpu:>8}"
        )
    return "\n".join(lines)


def scene_calibration(seed: int, style: RenderStyle | str = "tower") -> Calibration | None:
    """Calibrate a rendered scene as the tower does: its empty tray, then six flat dice."""
    from vision.render import random_tray, render_tray

    empty, _ = render_tray([], seed=seed, style=style, frame=1)
    flat, _ = render_tray(random_tray(seed + 7919), seed=seed, style=style, frame=2)
    try:
        return calibrate(empty, flat)[0]
    except CalibrationError:
        return None


def bench_style(style: RenderStyle | str) -> RenderStyle:
    """A renderer style by name; ``NAME@H`` is that style seen by a camera ``H`` mm above the
    tray floor (side faces visible), e.g. ``tower@250``. ``BenchError`` for anything else."""
    import dataclasses

    from vision.render import STYLES, RenderError, RenderStyle

    if isinstance(style, RenderStyle):
        return style
    name, _, height = str(style).partition("@")
    if name not in STYLES:
        raise BenchError(f"style {style!r}: use one of {', '.join(STYLES)}, optionally @HEIGHT_MM")
    if not height:
        return STYLES[name]
    try:
        return dataclasses.replace(STYLES[name], name=str(style), camera_height_mm=float(height))
    except (ValueError, RenderError) as exc:
        raise BenchError(f"style {style!r}: {exc}") from None


def synthetic_samples(
    n: int, style: RenderStyle | str = "tower", first_seed: int = 0, *, calibrated: bool = True
) -> Iterator[Sample]:
    """Rendered random trays of six dice, each with a calibration of its own scene
    (or none, to measure the reader's automatic mode). The style is checked at once."""
    return _synthetic(n, bench_style(style), first_seed, calibrated)


def _synthetic(n: int, style: RenderStyle, first_seed: int, calibrated: bool) -> Iterator[Sample]:
    from vision.render import random_scene

    for seed in range(first_seed, first_seed + n):
        frame, truth = random_scene(seed, 6, style=style)
        cal = scene_calibration(seed, style) if calibrated else None
        labels = tuple(
            LabelledDie(int(d["value"]), (d["center"][0], d["center"][1]), truth["die_px"])
            for d in truth["dice"]
            if not d["occluded"]
        )
        cocked = any(d["cocked"] or d["occluded"] for d in truth["dice"])
        yield Sample(f"seed {seed}", frame, labels, cal, 6, cocked)
