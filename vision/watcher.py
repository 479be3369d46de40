"""The tower's eyes in one object: :class:`DiceWatcher` settles and reads the tray.

The table controller asks two things of vision: have the dice stopped moving
(``settle(frame)``, one frame at a time, so the controller answers commands
between frames), and what do they show (``read(frame, expected)``, with the
tower's calibration). :class:`CalibrationFile` is the calibration the
calibration page saves, reloaded when the file changes, with a fallback (the
simulator's own calibration) while there is none; ``save`` is the one place
a calibration file is written.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np

from vision.calibration import Calibration, CalibrationError, load_calibration
from vision.profile import DiceProfile, ProfileError
from vision.reader import read_dice
from vision.reading import Reading
from vision.settle import SettleDetector

log = logging.getLogger(__name__)


class CalibrationFile:
    """The calibration file, reloaded when the calibration page saves a new one.

    Without a (usable) file, ``fallback`` (the simulator's own calibration) or None.
    """

    def __init__(self, path: Path, fallback: Calibration | None = None) -> None:
        self.path = Path(path)
        self.fallback = fallback
        self._mtime: float | None = None
        self._value: Calibration | None = None

    def get(self) -> Calibration | None:
        """The calibration in the file (reloaded after a change), else the fallback."""
        try:
            mtime = self.path.stat().st_mtime
        except OSError:
            self._mtime, self._value = None, None
            return self.fallback
        if mtime != self._mtime:
            self._mtime = mtime
            try:
                self._value = load_calibration(self.path)
            except (CalibrationError, OSError, ValueError) as exc:
                log.warning("ignoring calibration %s: %s", self.path, exc)
                self._value = None
        return self._value if self._value is not None else self.fallback

    def save(self, calibration: Calibration) -> Path:
        """Write ``calibration`` as the tower's calibration file; the next read uses it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        calibration.save(self.path)
        return self.path


class DiceWatcher:
    """Watches the tray for the table: settle frame by frame, then read the dice."""

    def __init__(
        self,
        calibration: CalibrationFile,
        detector: Callable[[], SettleDetector] = SettleDetector,
        profile: Callable[[], DiceProfile | None] = lambda: None,
    ) -> None:
        self.calibration = calibration
        self.profile = profile  # the tower's taught dice set, when it has one
        self._new_detector = detector
        self._detector: SettleDetector | None = None

    def start(self) -> None:
        """Forget earlier frames: a new shake begins."""
        self._detector = self._new_detector()

    @property
    def settling(self) -> bool:
        """Whether frames are being watched for a shake's dice to stop."""
        return self._detector is not None

    def settle(self, frame: np.ndarray) -> bool:
        """Feed one frame; true once the dice have stopped moving."""
        if self._detector is None:
            self.start()
        assert self._detector is not None
        return self._detector.update(frame)

    @property
    def motion(self) -> float:
        """Share of the picture that changed between the last two frames (1 before two)."""
        return 1.0 if self._detector is None else float(self._detector.motion)

    def stop(self) -> None:
        """Stop watching (the dice were read, or the shake failed)."""
        self._detector = None

    def read(self, frame: np.ndarray, expected: int | None = None) -> Reading:
        """The dice in ``frame`` with the tower's calibration and dice profile; ``expected``
        dice should be there. A profile that does not fit the frame is set aside (logged)."""
        calibration = self.calibration.get()
        profile = self.profile()
        if profile is not None:
            try:
                return read_dice(frame, calibration, expected=expected, profile=profile)
            except ProfileError as exc:
                log.warning("reading without the dice profile: %s", exc)
        return read_dice(frame, calibration, expected=expected)


__all__ = ["CalibrationFile", "DiceWatcher"]
