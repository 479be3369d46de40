"""The result type that flows from the reader to annotation, the bench and the server."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

MIN_FRAME_SIDE = 32


@dataclass(frozen=True)
class Die:
    """One die as read: its top-face value, centre and box in pixels, and a confidence in 0..1."""

    value: int
    center: tuple[float, float]
    box: tuple[int, int, int, int]
    confidence: float

    def to_json(self) -> dict[str, Any]:
        """The design's per-die object (plus the box)."""
        return {
            "value": self.value,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "box": list(self.box),
            "confidence": round(self.confidence, 3),
        }


@dataclass(frozen=True)
class Reading:
    """The dice found in one frame; ``ok`` is false (with a reason) whenever it is unsure."""

    dice: tuple[Die, ...]
    ok: bool
    reason: str = ""

    @property
    def values(self) -> tuple[int, ...]:
        """The dice values, sorted."""
        return tuple(sorted(d.value for d in self.dice))

    def to_json(self) -> dict[str, Any]:
        """The design's ``read`` object without ``image``."""
        return {"dice": [d.to_json() for d in self.dice], "ok": self.ok, "reason": self.reason}


def check_frame(frame: object, name: str = "frame") -> np.ndarray:
    """Return ``frame`` as a BGR uint8 image or raise ``ValueError`` saying what is wrong with it.

    Grey (H x W) and BGRA frames are accepted and converted, since files and cameras give both.
    """
    if not isinstance(frame, np.ndarray):
        raise ValueError(
            f"{name} must be a numpy array (BGR uint8 image), not {type(frame).__name__}"
        )
    if frame.dtype != np.uint8:
        raise ValueError(f"{name} must have dtype uint8 (BGR image), not {frame.dtype}")
    if frame.size == 0:
        raise ValueError(f"{name} is empty (shape {frame.shape}); expected an H x W x 3 image")
    if frame.ndim == 2:
        frame = np.dstack([frame, frame, frame])
    elif frame.ndim != 3 or frame.shape[2] not in (3, 4):
        raise ValueError(f"{name} has shape {frame.shape}; expected H x W x 3 (BGR) or H x W")
    elif frame.shape[2] == 4:
        frame = np.ascontiguousarray(frame[:, :, :3])
    height, width = frame.shape[:2]
    if min(height, width) < MIN_FRAME_SIDE:
        raise ValueError(
            f"{name} is {width}x{height} px, too small to hold dice; "
            f"need at least {MIN_FRAME_SIDE} px on each side"
        )
    return frame
