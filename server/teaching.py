"""The tower's teaching examples and its dice profile, kept in the state directory.

Every die a person confirmed or corrected (at the table, or in the calibration
page's teach step) becomes a teaching example: its crop and its true value.
:class:`Teacher` keeps them in one file beside the calibration (capped, the
oldest dropped first), fits the dice profile from them (:meth:`Teacher.refit`
is the one place the service fits a profile) and hands the profile to the
reader. The controller refits between turns, never while dice are being read.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vision import Calibration, Reading
from vision.profile import (
    MAX_EXAMPLES,
    DiceProfile,
    ProfileError,
    ProfileOutdated,
    TeachingExample,
    calibration_id,
    examples_from_reading,
    fit_profile,
    keep_newest,
    load_examples,
    load_profile,
    save_examples,
)
from zilch.scoring import FACES

log = logging.getLogger(__name__)

EXAMPLES_NAME = "teaching-examples.json"
PROFILE_NAME = "dice-profile.json"
SeenRoll = tuple[np.ndarray, Reading]  # a roll's frame and what the tower read in it
EXAMPLES_CAP = 600  # 100 rolls of six dice; fitting this many took 14 s on a shared laptop core


def pair_values(read: Sequence[int], said: Sequence[int]) -> list[int | None]:
    """The true value of each read die from what a person said the dice show.

    ``said`` lists the values in the order of the read dice when the person
    corrected die by die; it may also be in any order ("the dice are 1 2 5").
    In order, it is taken as given when that changes as few dice as any
    matching would. Otherwise the dice read as a value that was said keep it,
    and the rest get the values left over only when those are all the same
    (which die showed which of two different values is not known: None).
    """
    if len(read) != len(said):
        raise ValueError(f"{len(said)} values said for {len(read)} dice read")
    fewest = len(read) - sum((Counter(read) & Counter(said)).values())
    if sum(r != s for r, s in zip(read, said, strict=True)) == fewest:
        return list(said)
    left = Counter(said)
    paired: list[int | None] = []
    for value in read:
        if left[value] > 0:
            left[value] -= 1
            paired.append(value)
        else:
            paired.append(None)
    rest = set(left.elements())
    if len(rest) == 1:
        only = rest.pop()
        paired = [only if v is None else v for v in paired]
    return paired


def said_reading(reading: Mapping[str, Any] | None, said: Sequence[int]) -> dict[str, Any]:
    """The reading as JSON after a person said the dice show ``said``: what the table shows.

    Each die read keeps its place and takes the value said for it (a die
    whose value changed is marked ``"corrected": true``); when the tower saw
    another number of dice, the dice said replace them, without places.
    """
    dice = [dict(d) for d in (reading or {}).get("dice", [])]
    if len(dice) != len(said):
        plain = [{"value": int(v), "confidence": 1.0, "corrected": True} for v in said]
        return {"dice": plain, "ok": True, "reason": ""}
    paired = pair_values([int(d["value"]) for d in dice], said)
    left = Counter(said) - Counter(v for v in paired if v is not None)
    rest = iter(sorted(left.elements()))
    for die, value in zip(dice, paired, strict=True):
        true = next(rest) if value is None else value
        if true != die["value"]:
            die["value"], die["corrected"] = true, True
    return {**dict(reading or {}), "dice": dice, "ok": True, "reason": ""}


class Teacher:
    """The teaching examples and the profile fitted from them, in ``directory``.

    ``calibration()`` is the tower's calibration now: a profile is fitted for
    it and used only while it is the same. Thread-safe.
    """

    def __init__(
        self,
        directory: Path,
        calibration: Callable[[], Calibration | None],
        cap: int = EXAMPLES_CAP,
    ) -> None:
        if not 1 <= cap <= MAX_EXAMPLES:
            raise ValueError(f"teaching examples cap {cap} must be 1 to {MAX_EXAMPLES}")
        self.directory = Path(directory)
        self.examples_path = self.directory / EXAMPLES_NAME
        self.profile_path = self.directory / PROFILE_NAME
        self.calibration = calibration
        self.cap = cap
        self._lock = threading.RLock()
        self._examples: list[TeachingExample] | None = None  # loaded on first use
        self._pending = 0  # examples added since the last fit
        self._outdated = False  # the saved profile was fitted by another reader
        self._profile: DiceProfile | None = None
        self._profile_key: tuple[float, str | None] | None = None  # file time, calibration
        self._generation = 0  # bumped when a new dice set replaces the examples

    # -- examples -----------------------------------------------------------

    def examples(self) -> list[TeachingExample]:
        """The examples kept, oldest first (an unreadable file counts as none, and says so)."""
        with self._lock:
            if self._examples is None:
                self._examples = []
                if self.examples_path.exists():
                    try:
                        self._examples = load_examples(self.examples_path)[-self.cap :]
                    except ProfileError as exc:
                        log.warning("starting a new set of teaching examples: %s", exc)
            return list(self._examples)

    @property
    def pending(self) -> int:
        """Examples added since the profile was last fitted."""
        return self._pending

    def needs_fit(self) -> bool:
        """Whether a refit would change the profile: examples were added since the last fit,
        or the saved profile was fitted by another version of the reader (its kept examples
        fit it again, with this reader's features)."""
        return self._pending > 0 or (self._outdated and bool(self.examples()))

    def add(self, examples: Sequence[TeachingExample]) -> int:
        """Keep these examples too (the oldest go beyond the cap); how many are kept now.

        The file is written before the examples count: a failed write raises
        ``OSError`` and leaves the examples as they were.
        """
        if not examples:
            return len(self.examples())
        with self._lock:
            kept = keep_newest(self.examples(), examples, self.cap)
            self.directory.mkdir(parents=True, exist_ok=True)
            save_examples(self.examples_path, kept)
            self._examples = kept
            self._pending += len(examples)
            return len(kept)

    def add_from_reading(
        self, frame: np.ndarray, reading: Reading, said: Sequence[int]
    ) -> list[int | None]:
        """Teach the dice of ``reading`` (read in ``frame``) as a person said they show.

        Returns the value taught for each die (None where it is not known
        which die showed which value). Raises ``ValueError`` if ``said`` has
        another number of dice than the reading.
        """
        paired = pair_values([die.value for die in reading.dice], said)
        known = [(die, v) for die, v in zip(reading.dice, paired, strict=True) if v is not None]
        if known:
            partial = Reading(tuple(die for die, _ in known), reading.ok, reading.reason)
            values = [v for _, v in known]
            self.add(examples_from_reading(frame, partial, values, self.calibration()))
        return paired

    def replace_all(self, examples: Sequence[TeachingExample]) -> DiceProfile:
        """A new dice set: these examples replace the kept ones, and the profile is fitted now.

        Raises ``ProfileError`` (too few examples, one value only) with nothing changed.
        """
        with self._lock:
            listed = list(examples)[-self.cap :]
            profile = self._fit(listed)
            self.directory.mkdir(parents=True, exist_ok=True)
            save_examples(self.examples_path, listed)
            self._save(profile)
            self._examples = listed
            self._pending = 0
            self._outdated = False
            self._generation += 1
            return profile

    # -- the profile --------------------------------------------------------

    def refit(self) -> DiceProfile | None:
        """Fit the profile from every kept example and save it; None while too few are kept.

        The one place the service fits a profile. The fit runs outside the lock
        (examples may be added meanwhile; they count for the next fit); a dice
        set taught anew meanwhile wins over this fit.
        """
        with self._lock:
            examples = self.examples()
            self._pending = 0
            generation = self._generation
        try:
            profile = self._fit(examples)
        except ProfileError as exc:
            log.info("no dice profile yet: %s", exc)
            self._outdated = False  # until examples are added, a refit would fail alike
            return None
        with self._lock:
            if generation != self._generation:
                return None
            self._save(profile)
            self._outdated = False
        return profile

    def profile(self) -> DiceProfile | None:
        """The profile to read with: the saved one once it was taught every value 1-6.

        A profile gives the values it never saw probability 0, so it would be sure that
        a die showing one of them shows another, and no such die would ever be read:
        one correction of a roll without a 3 or a 4 would stop every later 3 and 4.
        """
        profile = self.saved_profile()
        if profile is None or len(profile.taught) < len(FACES):
            return None
        return profile

    def saved_profile(self) -> DiceProfile | None:
        """The saved profile if it fits the calibration now, else None (reloaded on change)."""
        calibration = self.calibration()
        try:
            mtime = self.profile_path.stat().st_mtime
        except OSError:
            return None
        with self._lock:
            key = (mtime, calibration_id(calibration))
            if key != self._profile_key:
                self._profile_key = key
                try:
                    self._profile = load_profile(self.profile_path, calibration)
                except ProfileOutdated as exc:
                    log.warning(
                        "reading without the dice profile until it is fitted again: %s", exc
                    )
                    self._profile = None
                    self._outdated = True
                except ProfileError as exc:
                    log.warning("reading without the dice profile: %s", exc)
                    self._profile = None
            return self._profile

    def summary(self) -> dict[str, object]:
        """What the tower has learned, for the pages: examples kept and the profile's figures."""
        profile = self.saved_profile()
        return {
            "examples": len(self.examples()),
            "cap": self.cap,
            "profile": None
            if profile is None
            else {
                "counts": list(profile.counts),
                "cv_accuracy": round(profile.cv_accuracy, 4),
                # values no taught die showed: until there are none it is kept, not read with
                "untaught": [face for face in FACES if face not in profile.taught],
            },
        }

    def _fit(self, examples: Sequence[TeachingExample]) -> DiceProfile:
        calibration = self.calibration()
        size = None if calibration is None else calibration.frame_size
        return fit_profile(examples, calibration, size)

    def _save(self, profile: DiceProfile) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        profile.save(self.profile_path)
        self._profile_key = None  # reload (and check) on the next read


class Lessons:
    """What the table controller teaches the tower, called on the controller's thread.

    It remembers the frame and reading of the last roll read; when a person
    says what that roll's dice show (a correction, or dice entered after the
    last reshake) their crops become teaching examples. Once a turn ends and
    before the next roll is read, a refit starts on a thread of its own at a
    lower priority (a fit of hundreds of dice takes seconds, too long to hold
    the table); the profile file is replaced whole, and the reader picks the
    new one up at its next read, so no read sees the profile change. Teaching
    never stops the game: a failure is logged and the table plays on.
    """

    def __init__(self, teacher: Teacher | None = None) -> None:
        self.teacher = teacher
        self._seen: SeenRoll | None = None
        self._turn_over = False  # a turn ended and no roll was read since
        self._fitting: threading.Thread | None = None

    def seen(self, frame: np.ndarray | None, reading: Reading) -> None:
        """The tower read this roll (sure or not) in ``frame``."""
        self._seen = None if frame is None else (frame, reading)
        self._turn_over = False

    def last_seen(self) -> SeenRoll | None:
        """The frame and reading of the last roll read (None before one, or without a frame)."""
        return self._seen

    def said(self, read: Sequence[int], values: Sequence[int]) -> int:
        """A person said the roll read as ``read`` shows ``values`` (in the reading's order
        when corrected die by die); returns how many dice were taught."""
        if self.teacher is None or self._seen is None:
            return 0
        frame, reading = self._seen
        if sorted(d.value for d in reading.dice) != sorted(read) or len(values) != len(read):
            return 0  # the frame in hand is not of that roll
        try:
            taught = self.teacher.add_from_reading(frame, reading, values)
        except (OSError, ValueError) as exc:  # ProfileError is a ValueError
            log.warning("could not keep the corrected dice as teaching examples: %s", exc)
            return 0
        return sum(v is not None for v in taught)

    def turn_ended(self) -> None:
        """A turn is over: until the next roll is read, the profile may be refitted."""
        self._turn_over = True

    def between_turns(self) -> bool:
        """After a turn ended and before the next roll is read: start a refit if examples
        were added (one at a time); whether one started."""
        teacher = self.teacher
        if not self._turn_over or teacher is None or not teacher.needs_fit():
            return False
        if self._fitting is not None and self._fitting.is_alive():
            return False
        self._fitting = threading.Thread(
            target=self._refit, args=(teacher,), name="profile-refit", daemon=True
        )
        self._fitting.start()
        return True

    def wait(self, timeout: float = 60.0) -> bool:
        """Wait for a refit in progress (tests); whether none is running any more."""
        fitting = self._fitting
        if fitting is not None:
            fitting.join(timeout)
        return fitting is None or not fitting.is_alive()

    @staticmethod
    def _refit(teacher: Teacher) -> None:
        # this thread only (Linux); elsewhere, or when not allowed, at the service's priority
        with contextlib.suppress(AttributeError, OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        try:
            teacher.refit()
        except (OSError, ValueError) as exc:
            log.warning("could not refit the dice profile: %s", exc)


__all__ = [
    "EXAMPLES_CAP",
    "EXAMPLES_NAME",
    "PROFILE_NAME",
    "Lessons",
    "Teacher",
    "pair_values",
    "said_reading",
]
