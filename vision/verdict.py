"""The verdict both readers give on a reading: the confidence a die needs, how much an
agreeing second opinion adds, and whether the reading can be trusted (and if not, why).

The calibrated reader (:mod:`vision.reader`) and the reader without a calibration
(:mod:`vision.learned`) judge their dice by these same rules.
"""

from __future__ import annotations

from collections.abc import Callable

from vision.reading import Die
from vision.segment import Region

MIN_CONFIDENCE = 0.5  # a die below this is "unsure": the reading is not ok
AGREE_GAIN = 0.5  # share of the remaining doubt an agreeing classifier removes
PROFILE_SURE = 0.9  # the profile's probability from which it agrees or disagrees
PROFILE_GAIN = 0.8  # share of the remaining doubt an agreeing profile removes


def where(die: Die) -> str:
    """A die's pixel position, in words."""
    return f"at ({die.center[0]:.0f}, {die.center[1]:.0f})"


def judge(
    dice: list[Die],
    unreadable: list[Region],
    tilted: list[Die],
    expected: int | None,
    place: Callable[[Die], str] | None = None,
) -> tuple[bool, str]:
    """Whether the reading can be trusted, and if not, why (the first problem found).
    ``place`` says where a die is in words a person at the tray understands (None: its
    pixel position)."""
    if tilted:
        if place is not None:
            return False, f"the die {place(tilted[0])} is leaning: shake again"
        return False, f"the die {where(tilted[0])} looks tilted or stacked; shake again"
    if unreadable:
        x, y = unreadable[0].center
        return False, f"something at ({x:.0f}, {y:.0f}) looks like dice on top of each other"
    if expected is not None and len(dice) != expected:
        return False, f"found {len(dice)} dice but {expected} should be in the tray"
    if not dice and expected is None:
        return False, "no dice found"
    unsure = [d for d in dice if d.confidence < MIN_CONFIDENCE]
    if unsure:
        d = unsure[0]
        at = where(d) if place is None else place(d)
        return False, (
            f"the die {at} is unclear (looks like a {d.value}, "
            f"confidence {d.confidence:.2f}); shake again"
        )
    return True, ""
