"""Calibration: what the camera sees of the empty tray and how big the dice are.

Made once from an empty-tray frame (tray region, background model) and a frame with the dice
(die size, pip contrast); saved as a versioned JSON file next to the service's state.
"""

from __future__ import annotations

import base64
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.files import write_atomically
from vision.imagefile import ImageFileError, check_pixels, checked_size
from vision.segment import MAX_SHADOW_FLOOR, SHADOW_FLOOR, weighted_lab, working_scale

VERSION = 1


class CalibrationError(ValueError):
    """A calibration file or frame that cannot be used; the message names the file or problem."""


@dataclass(frozen=True)
class Calibration:
    """The tray as this camera sees it: size, tray outline, empty background, die size."""

    frame_size: tuple[int, int]  # width, height in pixels
    tray: tuple[tuple[int, int], ...]  # outline of the tray floor, full-resolution pixels
    background_png: bytes  # the empty tray at the working scale, PNG bytes
    die_side: float  # pixels
    pip_contrast: float
    version: int = VERSION
    lamp: tuple[float, float] | None = None  # where the lamp's reflection lies on a flat
    # die's top face, from the face's centre in sides along the frame's axes (None: not seen)
    lamp_spread: float | None = None  # how far a die's reflection may lie from ``lamp``
    # (sides), from the spread of the reflections on the calibration's flat dice: a die's
    # place under the lamp and camera moves its spot (None: not measured)
    shadow_floor: float | None = None  # dice darker than this share of the floor's
    # lightness are dice, not shadows (None: segment.SHADOW_FLOOR); raised for grey dice
    # whose bodies are as hueless against the floor as a shadow
    flat_excess: float | None = None  # the largest side-face area (square sides) beside the
    # calibration's flat dice (vision.lean): small where the camera is far above them
    # what is worked out from the fields (the decoded background, the tray's mask and box):
    # each calibration its own, so that one made by ``replace`` with another tray (or frame
    # size, or background) never finds the first one's
    _cache: dict[str, np.ndarray] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    @property
    def scale(self) -> int:
        """The segmentation downscale for this frame size."""
        return working_scale((self.frame_size[1], self.frame_size[0]))

    @property
    def background(self) -> np.ndarray:
        """The empty tray, BGR at the working scale."""
        if "background" not in self._cache:
            image = cv2.imdecode(np.frombuffer(self.background_png, np.uint8), cv2.IMREAD_COLOR)
            if image is None:
                raise CalibrationError("background_png is not a PNG image")
            self._cache["background"] = np.asarray(image)
        return self._cache["background"]

    @property
    def full_background(self) -> np.ndarray:
        """The empty tray at the frame's full size (BGR, :attr:`background` enlarged)."""
        if "full_background" not in self._cache:
            w, h = self.frame_size
            self._cache["full_background"] = cv2.resize(
                self.background, (w, h), interpolation=cv2.INTER_LINEAR
            )
        return self._cache["full_background"]

    @property
    def full_background_lab(self) -> np.ndarray:
        """The 8-bit Lab of :attr:`full_background`: the colour conversion is made pixel by
        pixel, so a crop of it is the conversion of the crop."""
        if "full_background_lab" not in self._cache:
            self._cache["full_background_lab"] = cv2.cvtColor(
                self.full_background, cv2.COLOR_BGR2LAB
            )
        return self._cache["full_background_lab"]

    @property
    def full_background_weighted_lab(self) -> np.ndarray:
        """:func:`vision.segment.weighted_lab` of :attr:`full_background_lab` (float32, a
        look-up pixel by pixel: a crop of it is the weighted Lab of the crop)."""
        if "full_background_weighted_lab" not in self._cache:
            self._cache["full_background_weighted_lab"] = weighted_lab(self.full_background_lab)
        return self._cache["full_background_weighted_lab"]

    @property
    def shadows(self) -> float:
        """The shadow floor the dice of this tray are segmented with."""
        return SHADOW_FLOOR if self.shadow_floor is None else self.shadow_floor

    @property
    def tray_mask(self) -> np.ndarray:
        """The tray floor as a 0/255 mask at the working scale."""
        if "tray" not in self._cache:
            s = self.scale
            w, h = self.frame_size
            mask = np.zeros((h // s, w // s), np.uint8)
            points = (np.array(self.tray, np.float32) / s).astype(np.int32)
            cv2.fillPoly(mask, [points], 255)
            self._cache["tray"] = mask
        return self._cache["tray"]

    @property
    def tray_box(self) -> np.ndarray | None:
        """The tray outline's box, ``[left, top, right, bottom]`` in full-resolution pixels
        (None for an outline of under three points), worked out once."""
        if "tray_box" not in self._cache:
            points = np.array(self.tray, np.float64).reshape(-1, 2)
            self._cache["tray_box"] = (
                np.concatenate([points.min(axis=0), points.max(axis=0)])
                if len(points) >= 3
                else np.zeros(0)
            )
        box = self._cache["tray_box"]
        return box if box.size else None

    def check_frame_size(self, frame: np.ndarray) -> None:
        """Raise ``CalibrationError`` for a frame of another size than the calibration's."""
        h, w = frame.shape[:2]
        if (w, h) != self.frame_size:
            cw, ch = self.frame_size
            raise CalibrationError(
                f"frame is {w}x{h} px but the calibration was made at {cw}x{ch} px; "
                "calibrate again at this size"
            )

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the file format)."""
        return {
            "version": self.version,
            "frame_size": list(self.frame_size),
            "tray": [list(p) for p in self.tray],
            "background_png": base64.b64encode(self.background_png).decode("ascii"),
            "die_side": round(self.die_side, 2),
            "pip_contrast": round(self.pip_contrast, 3),
            **({} if self.lamp is None else {"lamp": [round(v, 3) for v in self.lamp]}),
            **({} if self.lamp_spread is None else {"lamp_spread": round(self.lamp_spread, 4)}),
            **({} if self.shadow_floor is None else {"shadow_floor": round(self.shadow_floor, 3)}),
            **({} if self.flat_excess is None else {"flat_excess": round(self.flat_excess, 4)}),
        }

    @classmethod
    def from_json(cls, data: Any) -> Calibration:
        """Rebuild from :meth:`to_json`; raises ``CalibrationError`` naming a bad field."""
        if not isinstance(data, dict):
            raise CalibrationError("expected a JSON object")
        if data.get("version") != VERSION:
            raise CalibrationError(f"version is {data.get('version')!r}; this reader needs 1")
        try:
            w, h = (int(v) for v in data["frame_size"])
            tray = tuple((int(x), int(y)) for x, y in data["tray"])
            png = base64.b64decode(data["background_png"], validate=True)
            die_side = float(data["die_side"])
            contrast = float(data["pip_contrast"])
        except KeyError as exc:
            raise CalibrationError(f"field {exc.args[0]!r} is missing") from None
        except (TypeError, ValueError) as exc:
            raise CalibrationError(f"a field has the wrong type ({exc})") from None
        if w < 32 or h < 32 or len(tray) < 3:
            raise CalibrationError("frame_size must be at least 32x32 and tray at least 3 points")
        try:  # both sizes checked before anything is decoded or allocated
            check_pixels(w, h, "frame_size")
            checked_size(png, "background_png")
        except ImageFileError as exc:
            raise CalibrationError(str(exc)) from None
        if not (math.isfinite(die_side) and 4.0 <= die_side <= max(w, h)):
            raise CalibrationError(f"die_side {die_side} is not a plausible die size in pixels")
        lamp = _lamp(data.get("lamp"))
        lamp_spread = data.get("lamp_spread")
        if lamp_spread is not None and not (
            lamp is not None
            and isinstance(lamp_spread, int | float)
            and not isinstance(lamp_spread, bool)
            and 0.0 <= lamp_spread <= 1.0
        ):
            raise CalibrationError(
                f"lamp_spread {lamp_spread!r} must be a number from 0 to 1 (die sides) beside "
                "a lamp, or absent"
            )
        shadow_floor = data.get("shadow_floor")
        if shadow_floor is not None and not (
            isinstance(shadow_floor, int | float)
            and not isinstance(shadow_floor, bool)
            and SHADOW_FLOOR <= shadow_floor <= MAX_SHADOW_FLOOR
        ):
            raise CalibrationError(
                f"shadow_floor {shadow_floor!r} must be a number from {SHADOW_FLOOR} to "
                f"{MAX_SHADOW_FLOOR} or absent"
            )
        flat_excess = data.get("flat_excess")
        if flat_excess is not None and not (
            isinstance(flat_excess, int | float)
            and not isinstance(flat_excess, bool)
            and 0.0 <= flat_excess <= 1.0
        ):
            raise CalibrationError(
                f"flat_excess {flat_excess!r} must be a number from 0 to 1 (square die sides) "
                "or absent"
            )
        cal = cls(
            (w, h),
            tray,
            png,
            die_side,
            contrast,
            lamp=lamp,
            lamp_spread=None if lamp_spread is None else float(lamp_spread),
            shadow_floor=None if shadow_floor is None else float(shadow_floor),
            flat_excess=None if flat_excess is None else float(flat_excess),
        )
        s = cal.scale
        if cal.background.shape[:2] != (h // s, w // s):
            raise CalibrationError("background_png is not an image of the expected size")
        return cal

    def save(self, path: str | Path) -> None:
        """Write the calibration as JSON to ``path``, atomically (:mod:`vision.files`)."""
        write_atomically(path, json.dumps(self.to_json()) + "\n")


def _lamp(raw: Any) -> tuple[float, float] | None:
    """The ``lamp`` field: absent (None) or [dx, dy] in die sides, each within -1..1."""
    if raw is None:
        return None
    ok = (
        isinstance(raw, list)
        and len(raw) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw)
        and all(math.isfinite(v) and abs(v) <= 1.0 for v in raw)
    )
    if not ok:
        raise CalibrationError(f"lamp {raw!r} must be [dx, dy] in die sides (each -1..1)")
    return float(raw[0]), float(raw[1])


def load_calibration(path: str | Path) -> Calibration:
    """Read a calibration file; ``CalibrationError`` names the file and what is wrong."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CalibrationError(f"calibration file {p} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CalibrationError(f"calibration file {p} cannot be read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(f"calibration file {p} is not valid JSON: {exc}") from None
    except RecursionError:
        raise CalibrationError(
            f"calibration file {p} nests arrays or objects too deeply (a calibration nests 3)"
        ) from None
    try:
        return Calibration.from_json(data)
    except CalibrationError as exc:
        raise CalibrationError(f"calibration file {p}: {exc}") from None


def find_tray(small: np.ndarray) -> np.ndarray | None:
    """Outline (working-scale pixels) of the plain floor around the frame's centre, if any."""
    h, w = small.shape[:2]
    blurred = cv2.GaussianBlur(small, (5, 5), 0)
    mask = np.zeros((h + 2, w + 2), np.uint8)
    edges = cv2.Canny(cv2.cvtColor(blurred, cv2.COLOR_BGR2GRAY), 10, 30)
    mask[1:-1, 1:-1] = cv2.dilate(edges, np.ones((3, 3), np.uint8)) // 255  # walls stop the fill
    flags = 4 | cv2.FLOODFILL_MASK_ONLY | (255 << 8)  # floating range: follows uneven light
    # the fill starts at the middle third's most typical pixel that is not on an edge: the
    # frame's nearest colour to that median may lie on a wall or the rim outside the tray
    y0, x0 = h // 3, w // 3
    middle = blurred[y0 : 2 * h // 3, x0 : 2 * w // 3].astype(np.int32)
    centre = np.median(middle.reshape(-1, 3), axis=0)
    seed_d = np.abs(middle - centre.astype(np.int32)).sum(axis=2)
    seed_d[mask[1 + y0 : 1 + 2 * h // 3, 1 + x0 : 1 + 2 * w // 3] > 0] = np.iinfo(np.int32).max
    sy, sx = np.unravel_index(int(np.argmin(seed_d)), seed_d.shape)
    cv2.floodFill(blurred, mask, (int(x0 + sx), int(y0 + sy)), 0, (3, 3, 3), (3, 3, 3), flags)
    floor = (mask[1:-1, 1:-1] == 255).astype(np.uint8) * 255
    contours, _ = cv2.findContours(floor, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    largest = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(largest)
    hull_area = cv2.contourArea(hull)
    # a floor is a large convex patch; anything else (a leak past the walls, a fill stopped
    # by a stain) is not trusted and the whole frame is used instead
    if not 0.3 * h * w <= hull_area <= 0.95 * h * w:
        return None
    if cv2.contourArea(largest) < 0.85 * hull_area:
        return None
    wider = cv2.dilate(_polygon_mask(hull.reshape(-1, 2), (h, w)), np.ones((5, 5), np.uint8))
    return _outer_hull(wider)


def grown_outline(outline: np.ndarray, by: float, shape: tuple[int, int]) -> np.ndarray:
    """The convex outline ``by`` pixels wider all round, kept inside a frame of ``shape``."""
    r = max(1, round(by))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    return _outer_hull(cv2.dilate(_polygon_mask(outline, shape), disc))


def _outer_hull(mask: np.ndarray) -> np.ndarray:
    """The convex hull of a 0/255 mask's largest region, as (x, y) points."""
    found, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return cv2.convexHull(max(found, key=cv2.contourArea)).reshape(-1, 2)


def _polygon_mask(points: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [points.astype(np.int32)], 255)
    return mask
