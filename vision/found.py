"""A candidate die as the calibrated reader sees it: its region, its pips and its centre."""

from __future__ import annotations

from dataclasses import dataclass

from vision.pips import PipCount
from vision.segment import Region


@dataclass(frozen=True)
class Found:
    """A candidate die: its region, the pips counted on it, and its centre."""

    region: Region
    count: PipCount
    centre: tuple[float, float]
    near_view: float = 0.0  # a flat die with side faces in its region: their reach over the
    # die's distance from the frame's centre (see lean.seen_from_near); 0 otherwise
