"""Where the tray lies in a rendered frame: floor millimetres to pixels, through a camera."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class _Geometry:
    """Where the tray lies in the frame: millimetres to pixels, then a slight perspective."""

    scale: float  # pixels per millimetre
    matrix: NDArray[np.float64]  # 3x3: floor millimetres to frame pixels
    nadir: tuple[float, float] = (0.0, 0.0)  # floor point under the camera, mm
    height: float = 0.0  # camera above the floor, mm; 0: far away (no parallax)

    def to_px(self, points_mm: NDArray[np.float64]) -> NDArray[np.float64]:
        """Map (N, 2) floor millimetres to (N, 2) frame pixels."""
        m = self.matrix
        mapped = points_mm @ m[:, :2].T + m[:, 2]
        return np.asarray(mapped[:, :2] / mapped[:, 2:3])

    def project(self, points: NDArray[np.float64]) -> NDArray[np.float64]:
        """Map (N, 3) millimetres above the floor to frame pixels through the camera."""
        flat = points[:, :2]
        if self.height > 0:  # a point higher up lands farther from the nadir
            nadir = np.asarray(self.nadir)
            flat = nadir + (flat - nadir) * (self.height / (self.height - points[:, 2:3]))
        return self.to_px(flat)

    def sees(self, points: NDArray[np.float64], normals: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Which faces, through (N, 3) ``points`` with outward ``normals``, face the camera."""
        if self.height <= 0:
            return np.asarray(normals[:, 2] > 1e-6)
        eye = np.array([self.nadir[0], self.nadir[1], self.height])
        return np.asarray(np.einsum("ij,ij->i", normals, eye - points) > 1e-6)


def _geometry(
    size: tuple[int, int],
    tray_mm: tuple[float, float],
    perspective: float,
    camera_height: float,
    rng: np.random.Generator,
    view: NDArray[np.float64] | None = None,
) -> _Geometry:
    """Floor to frame: the tray centred and scaled to fill the frame, a slight perspective,
    then ``view`` (an oblique camera, stretched pixels) with the tray fitted again."""
    w, h = size
    scale = min(0.86 * w / tray_mm[0], 0.86 * h / tray_mm[1])
    place = np.array(
        [
            [scale, 0, (w - tray_mm[0] * scale) / 2],
            [0, scale, (h - tray_mm[1] * scale) / 2],
            [0, 0, 1],
        ]
    )
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    moved = corners + rng.uniform(-1, 1, (4, 2)).astype(np.float32) * perspective * min(w, h)
    tilt = cv2.getPerspectiveTransform(corners, moved.astype(np.float32))
    nadir = (tray_mm[0] / 2, tray_mm[1] / 2)
    matrix = np.asarray(tilt.astype(np.float64) @ place)
    if view is not None:
        matrix = view @ matrix
        wall = 0.06 * tray_mm[1]
        x0, y0, x1, y1 = -wall, -wall, tray_mm[0] + wall, tray_mm[1] + wall
        rim = np.array([[x0, y0, 1], [x1, y0, 1], [x1, y1, 1], [x0, y1, 1]])
        seen = rim @ matrix.T
        seen = seen[:, :2] / seen[:, 2:3]
        low, high = seen.min(axis=0), seen.max(axis=0)
        fit = min(0.96 * w / (high[0] - low[0]), 0.96 * h / (high[1] - low[1]))
        shift = np.array([w / 2, h / 2]) - fit * (low + high) / 2
        matrix = np.array([[fit, 0, shift[0]], [0, fit, shift[1]], [0, 0, 1]]) @ matrix
        scale *= fit
    return _Geometry(scale, matrix, nadir, camera_height)
