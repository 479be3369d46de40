"""Tower setups for the bench: one scene per setup, calibrated once, many rolls read as the
tower reads them, with and without a dice profile taught from its first rolls.

A *setup* is a rendered tower as it stands between two calibrations: one floor, light,
camera placement and set of dice (fixed by its seed and the style, ``setup`` by default).
It is calibrated once from its empty tray and six flat dice; then every roll is a new throw
in that scene, a third of them with a die leaning on a wall or a neighbour. With teaching,
the setup's first ``teach`` rolls (other throws, never scored) are labelled from the truth,
as a person confirming each die would, cut where the reader finds each die, and a profile
is fitted from them before the scored rolls are read with it.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vision.bench import LabelledDie, match
from vision.calibrate import calibrate
from vision.calibration import Calibration, CalibrationError
from vision.profile import DiceProfile, ProfileError, TeachingExample, fit_profile
from vision.reader import locate_all, read_dice
from vision.render import RenderStyle, random_tray, render_tray, resolve_style
from vision.teach import LabelledDie as TaughtDie
from vision.teach import frame_examples

COCKED_EVERY = 3  # every third roll holds a cocked die
TEACH_SEEDS = 500  # teaching rolls are drawn from other throws than the scored ones
SIZES = ((640, 480), (1296, 972))


@dataclass
class SetupScore:
    """Totals over the rolls of several setups read one way (with or without a profile)."""

    name: str
    setups: int = 0
    flat_rolls: int = 0
    flat_ok: int = 0  # flat rolls whose reading was ok
    flat_dice: int = 0  # labelled dice of flat rolls
    flat_right: int = 0  # ... read with their true value, sure or not
    wrong_accepted: int = 0  # ok readings whose values are not the roll's
    cocked_rolls: int = 0
    cocked_refused: int = 0  # rolls with a cocked die whose reading was not ok
    cocked_scored: int = 0  # cocked dice in rolls that were wrongly ok
    ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    teach_s: list[float] = field(default_factory=list)  # CPU seconds to fit each profile
    failures: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """One row of the setups table."""

        def share(part: int, whole: int) -> float:
            return round(part / whole, 4) if whole else 0.0

        def median(values: list[float]) -> float | None:
            return round(statistics.median(values), 2) if values else None

        return {
            "set": self.name,
            "setups": self.setups,
            "flat_rolls": self.flat_rolls,
            "flat_accepted": share(self.flat_ok, self.flat_rolls),
            "flat_dice": self.flat_dice,
            "flat_right": share(self.flat_right, self.flat_dice),
            "wrong_accepted": self.wrong_accepted,
            "cocked_rolls": self.cocked_rolls,
            "cocked_refused": share(self.cocked_refused, self.cocked_rolls),
            "cocked_scored": self.cocked_scored,
            "ms_median": median(self.ms),
            "cpu_ms_median": median(self.cpu_ms),
            "teach_s_median": median(self.teach_s),
        }


@dataclass(frozen=True)
class Setup:
    """One tower: its seed, frame size, style and calibration."""

    seed: int
    size: tuple[int, int]
    style: RenderStyle
    calibration: Calibration

    def roll(self, number: int, cocked: int) -> tuple[np.ndarray, dict[str, Any]]:
        """Frame and truth of throw ``number`` with ``cocked`` leaning dice."""
        tray = random_tray(
            self.seed * 10007 + number, 6, cocked=cocked, touching=self.style.touching
        )
        return render_tray(tray, size=self.size, seed=self.seed, style=self.style, frame=number)


def make_setup(seed: int, size: tuple[int, int], style: RenderStyle) -> Setup | None:
    """Calibrate the tower of ``seed`` as a person would: empty tray, then six flat dice
    (None when that calibration fails or sees fewer than six dice with pips, as it would be
    made again at a real tower)."""
    empty, _ = render_tray([], size=size, seed=seed, style=style, frame=100001)
    flat, _ = render_tray(random_tray(seed + 7919), size=size, seed=seed, style=style, frame=100002)
    try:
        cal, report = calibrate(empty, flat)
    except CalibrationError:
        return None
    # a blank die (no pip seen: see vision.reader.locate_all) is read, unsure, but gave the
    # calibration nothing to measure; the person calibrates again, as when it is not seen
    _, blank, _ = locate_all(flat, cal)
    return Setup(seed, size, style, cal) if report["dice_found"] == 6 and not blank else None


def teach_setup(setup: Setup, rolls: int) -> tuple[DiceProfile, float]:
    """A profile of the setup's dice from ``rolls`` flat teaching rolls, and the CPU
    seconds its fitting took (cutting the crops is the reader's work and not counted)."""
    examples: list[TeachingExample] = []
    for k in range(rolls):
        frame, truth = setup.roll(TEACH_SEEDS + k, 0)
        dice = tuple(
            TaughtDie(int(d["value"]), (d["box"][0], d["box"][1], d["box"][2], d["box"][3]))
            for d in truth["dice"]
        )
        examples += frame_examples(frame, dice, setup.calibration)
    start = time.process_time()
    profile = fit_profile(examples, setup.calibration)
    return profile, time.process_time() - start


Reader = Callable[[np.ndarray, Calibration, DiceProfile | None], Any]


def _read(frame: np.ndarray, cal: Calibration, profile: DiceProfile | None) -> Any:
    return read_dice(frame, cal, expected=6, profile=profile)


def score_roll(
    score: SetupScore,
    setup: Setup,
    number: int,
    profile: DiceProfile | None,
    reader: Reader = _read,
) -> None:
    """Read roll ``number`` of ``setup`` and add the outcome to ``score``."""
    cocked = 1 if number % COCKED_EVERY == 0 else 0
    frame, truth = setup.roll(number, cocked)
    start, cpu = time.perf_counter(), time.process_time()
    reading = reader(frame, setup.calibration, profile)
    score.ms.append((time.perf_counter() - start) * 1000.0)
    score.cpu_ms.append((time.process_time() - cpu) * 1000.0)
    name = f"setup {setup.seed} roll {number}"
    dice = truth["dice"]
    if any(d["cocked"] for d in dice):
        score.cocked_rolls += 1
        if reading.ok:
            score.cocked_scored += sum(1 for d in dice if d["cocked"])
            score.failures.append(f"{name}: a cocked die was scored ({reading.values})")
        else:
            score.cocked_refused += 1
        return
    values = tuple(sorted(int(d["value"]) for d in dice))
    score.flat_rolls += 1
    score.flat_ok += int(reading.ok)
    if reading.ok and reading.values != values:
        score.wrong_accepted += 1
        score.failures.append(f"{name}: accepted {reading.values}, truth {values}")
    side = setup.calibration.die_side
    labels = [LabelledDie(int(d["value"]), (d["center"][0], d["center"][1]), side) for d in dice]
    pairs = match(reading.dice, labels)
    score.flat_dice += len(labels)
    score.flat_right += sum(1 for i, j in pairs if reading.dice[i].value == labels[j].value)
    if not reading.ok:
        score.failures.append(f"{name}: flat roll refused: {reading.reason}")


def run_setups(
    setups: int,
    rolls: int,
    size: tuple[int, int] = (640, 480),
    style: RenderStyle | str = "setup",
    teach: int = 0,
    first_seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> list[SetupScore]:
    """Score ``rolls`` rolls of each of ``setups`` towers without a profile, and with one
    taught from ``teach`` rolls when ``teach`` > 0 (both rows read the same frames)."""
    the_style = resolve_style(style)
    label = f"{the_style.name} {size[0]}x{size[1]}"
    plain = SetupScore(label)
    taught = SetupScore(f"{label} + profile ({teach} rolls)") if teach > 0 else None
    for n, setup in enumerate(_seeds(first_seed, setups, size, the_style), start=1):
        plain.setups += 1
        profile = None
        if taught is not None:
            try:
                profile, seconds = teach_setup(setup, teach)
                taught.teach_s.append(seconds)
                taught.setups += 1
            except ProfileError as exc:
                taught.failures.append(f"setup {setup.seed}: not taught: {exc}")
        for number in range(1, rolls + 1):
            score_roll(plain, setup, number, None)
            if taught is not None and profile is not None:
                score_roll(taught, setup, number, profile)
        if progress is not None:
            progress(n, setups)
    return [plain] if taught is None else [plain, taught]


def _seeds(first: int, count: int, size: tuple[int, int], style: RenderStyle) -> Iterator[Setup]:
    """``count`` calibrated setups from seed ``first`` on (a seed that fails to calibrate is
    skipped, as a person would calibrate again)."""
    seed, made = first, 0
    while made < count and seed < first + 4 * count + 10:
        setup = make_setup(seed, size, style)
        seed += 1
        if setup is not None:
            made += 1
            yield setup


def format_setups(scores: list[SetupScore]) -> str:
    """The setups table as aligned text."""
    head = (
        f"{'set':<34}{'setups':>7}{'cocked refused':>16}{'flat accepted':>15}"
        f"{'flat right':>12}{'wrong ok':>9}{'ms':>7}{'cpu ms':>8}{'teach s':>8}"
    )
    lines = [head]
    for s in scores:
        row = s.to_json()

        def num(v: float | None) -> str:
            return "-" if v is None else f"{v:.1f}"

        lines.append(
            f"{s.name:<34}{s.setups:>7}"
            f"{f'{s.cocked_refused}/{s.cocked_rolls}':>16}{f'{s.flat_ok}/{s.flat_rolls}':>15}"
            f"{row['flat_right'] * 100:>11.2f}%{s.wrong_accepted:>9}"
            f"{num(row['ms_median']):>7}{num(row['cpu_ms_median']):>8}"
            f"{num(row['teach_s_median']):>8}"
        )
    return "\n".join(lines)
