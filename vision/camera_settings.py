"""Pi camera settings worked out before the camera is touched: mode, frame size, focus, settling.

Pure functions over what picamera2 reports (``sensor_modes``, metadata), so
:class:`~vision.sources.Picamera2Source` stays small and these are tested
on their own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

DEFAULT_LENS_HEIGHT_MM = 262.0
"""The lens's height above the tray floor in the hardware guide (``lens_height``)."""
DIE_TOP_MM = 16.0
"""The dice's top faces, which the camera must see sharp, stand this far above the floor."""
AF_MODE_MANUAL = 0
"""libcamera's ``AfModeManual``: the lens stays at ``LensPosition``."""
AE_STATE_CONVERGED = 2
"""libcamera's ``AeStateConverged`` (0 idle, 1 searching, 2 converged)."""


def _mode_crop(mode: Mapping[str, Any]) -> tuple[int, int]:
    """Width and height of the sensor area a mode reads (its ``crop_limits``)."""
    crop = mode.get("crop_limits")
    if crop is None or len(crop) != 4:
        size = mode["size"]
        return int(size[0]), int(size[1])
    return int(crop[2]), int(crop[3])


def full_field_mode(
    modes: Sequence[Mapping[str, Any]], size: tuple[int, int]
) -> Mapping[str, Any] | None:
    """The smallest sensor mode that reads the whole field and holds ``size``.

    Full-field modes read the widest area of all modes (binned, not cropped).
    Among them the smallest that covers ``size`` in both directions is
    taken, else the largest; ``None`` when the camera lists no modes.
    """
    if not modes:
        return None
    widest = max(_mode_crop(m)[0] * _mode_crop(m)[1] for m in modes)
    full = [m for m in modes if _mode_crop(m)[0] * _mode_crop(m)[1] == widest]
    full.sort(key=lambda m: (int(m["size"][0]) * int(m["size"][1]), -int(m.get("bit_depth", 0))))
    for mode in full:
        if mode["size"][0] >= size[0] and mode["size"][1] >= size[1]:
            return mode
    return full[-1]


def same_aspect_size(size: tuple[int, int], aspect: float) -> tuple[int, int]:
    """The smallest even size of ``aspect`` (width / height) that holds ``size``."""
    width, height = size
    if width / height < aspect:
        width = round(height * aspect)
    else:
        height = round(width / aspect)
    return width + width % 2, height + height % 2


def lens_dioptres(lens_height_mm: float) -> float:
    """``LensPosition`` (dioptres, 1 / metres) that focuses on the dice's top faces."""
    return 1000.0 / (lens_height_mm - DIE_TOP_MM)


def converged(metadata: Mapping[str, Any]) -> bool:
    """libcamera's own word where it gives one: ``AeState`` (or the older ``AeLocked``)."""
    if "AeState" in metadata:
        return bool(metadata["AeState"] == AE_STATE_CONVERGED)
    if "AeLocked" in metadata:
        return metadata["AeLocked"] is True
    return True  # no state reported: the values' stability decides


def stable(readings: Sequence[Mapping[str, Any]], tolerance: float = 0.02) -> bool:
    """Every reading within ``tolerance`` (relative) of the last, in every value."""
    last = readings[-1]
    return all(close_enough(last, other, tolerance) for other in readings[:-1])


def close_enough(a: Mapping[str, Any], b: Mapping[str, Any], tolerance: float = 0.02) -> bool:
    """Two metadata readings differ by at most ``tolerance`` (relative) in every value."""
    for key in a:
        if a[key] is None or b[key] is None:
            return False
        x, y = np.asarray(a[key], dtype=float), np.asarray(b[key], dtype=float)
        if x.shape != y.shape or np.any(np.abs(x - y) > tolerance * np.maximum(np.abs(x), 1e-9)):
            return False
    return True
