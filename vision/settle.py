"""Decide from consecutive frames that the dice have stopped moving.

The tower waits for this after a shake instead of a fixed delay. Each frame is
shrunk to a small grey image (averaging away most sensor noise) and compared
with the one before. The overall change of brightness is divided out first
(the median ratio of the two frames), so a change of exposure or a slow drift
of the light moves nothing; what remains counts as motion where it stands out
from the noise measured in the same comparison. ``still_frames`` quiet comparisons
in a row mean the dice have settled.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.sources import camera_frame


class SettleError(ValueError):
    """Bad settings for a settle detector."""


class SettleDetector:
    """Feed frames with :meth:`update`; it turns true once the dice have stopped.

    ``max_motion`` is the largest share of the (shrunk) frame allowed to change
    between two still frames; a pixel changes when it differs by more than
    ``pixel_level`` grey levels and by more than five times the noise measured
    in that same comparison. ``motion`` holds the last share, for logs.
    """

    def __init__(
        self,
        *,
        still_frames: int = 3,
        max_motion: float = 0.0004,
        pixel_level: float = 6.0,
        width: int = 160,
    ) -> None:
        if isinstance(still_frames, bool) or not isinstance(still_frames, int):
            raise SettleError(f"still_frames={still_frames!r}: use a whole number 1..100")
        if not 1 <= still_frames <= 100:
            raise SettleError(f"still_frames={still_frames}: use 1..100")
        if not 0.0 <= max_motion < 0.5:
            raise SettleError(f"max_motion={max_motion}: use a share of the frame, 0..0.5")
        if not 1.0 <= pixel_level <= 128.0:
            raise SettleError(f"pixel_level={pixel_level}: use 1..128 grey levels")
        if not 16 <= width <= 640:
            raise SettleError(f"width={width}: shrink frames to 16..640 pixels wide")
        self.still_frames = still_frames
        self.max_motion = max_motion
        self.pixel_level = pixel_level
        self.width = width
        self.reset()

    def reset(self) -> None:
        """Forget past frames (call right after a shake)."""
        self._previous: NDArray[np.float32] | None = None
        self.still = 0
        self.motion = 1.0
        self.noise = 0.0
        self.frames = 0

    @property
    def settled(self) -> bool:
        """True once ``still_frames`` quiet comparisons came in a row."""
        return self.still >= self.still_frames

    def _shrink(self, frame: NDArray[np.uint8]) -> NDArray[np.float32]:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
        h, w = grey.shape
        width = min(self.width, w)
        size = (width, max(1, round(h * width / w)))
        return np.asarray(cv2.resize(grey, size, interpolation=cv2.INTER_AREA), np.float32)

    def update(self, frame: Any) -> bool:
        """Take the next frame; true when the dice have been still long enough."""
        small = self._shrink(camera_frame(frame, "settle detector input"))
        previous, self._previous = self._previous, small
        self.frames += 1
        if previous is None or previous.shape != small.shape:
            self.still, self.motion = 0, 1.0
            return False
        lit = previous > 8.0
        gain = float(np.median(small[lit] / previous[lit])) if lit.any() else 1.0
        change = small - gain * previous  # a change of exposure scales every pixel alike
        size = np.abs(change)
        self.noise = 1.4826 * float(np.median(size))
        level = max(self.pixel_level, 5.0 * self.noise)
        self.motion = float(np.count_nonzero(size > level)) / size.size
        self.still = self.still + 1 if self.motion <= self.max_motion else 0
        return self.settled

    def status(self) -> dict[str, Any]:
        """For logs: motion share, noise estimate, quiet frames in a row, settled."""
        return {
            "motion": round(self.motion, 5),
            "noise": round(self.noise, 2),
            "still": self.still,
            "settled": self.settled,
            "frames": self.frames,
        }
