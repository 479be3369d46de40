"""Pictures of dice for the pages: the camera's view of one read die, as a data URL.

The calibration page's teach step and the phone's correction panel show a
person the die the tower read, so that the value they tap is that die's.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping, Sequence
from typing import Any

import cv2
import numpy as np

from vision import Calibration, Die, Reading
from vision.profile import die_side, die_window_crop

PICTURE_PX = 64  # the crop is drawn larger on the page; nearest-neighbour keeps its pixels honest


class PictureError(ValueError):
    """A die's picture could not be made (it lies off the frame, or PNG encoding failed)."""


def die_picture(frame: np.ndarray, die: Die, calibration: Calibration | None) -> str:
    """The read ``die``'s crop of ``frame`` as a PNG data URL, ``PICTURE_PX`` square."""
    try:
        crop = die_window_crop(frame, die.center, die_side(die, calibration))
    except ValueError as exc:  # ProfileError: the die is off the frame
        raise PictureError(str(exc)) from None
    big = cv2.resize(crop, (PICTURE_PX, PICTURE_PX), interpolation=cv2.INTER_NEAREST)
    ok, png = cv2.imencode(".png", big)
    if not ok:
        raise PictureError("a die's picture could not be encoded")
    return "data:image/png;base64," + base64.b64encode(png.tobytes()).decode("ascii")


def roll_pictures(
    shown: Sequence[Mapping[str, Any]],
    seen: tuple[np.ndarray, Reading] | None,
    calibration: Calibration | None,
) -> list[str]:
    """A picture of each die of ``shown`` (the state document's reading, in its order).

    Only when ``seen`` is the frame and reading of that very roll: the same
    number of dice at the same places (a correction changes values, never
    places). Otherwise, or when a picture cannot be made, none: a page then
    shows the dice without their pictures.
    """
    if seen is None:
        return []
    frame, reading = seen
    if len(shown) != len(reading.dice):
        return []
    for shown_die, die in zip(shown, reading.dice, strict=True):
        centre = shown_die.get("center")
        if not isinstance(centre, Sequence) or len(centre) != 2:
            return []
        if math.dist((float(centre[0]), float(centre[1])), die.center) > 0.5:
            return []
    try:
        return [die_picture(frame, die, calibration) for die in reading.dice]
    except PictureError:
        return []
