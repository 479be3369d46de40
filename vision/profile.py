"""The tower's dice profile: what this tower's own dice look like, learned from a few rolls.

A profile is fitted from *teaching examples* (a crop of one die and the value a person says
it shows) in well under a second, on numpy alone: every crop becomes a feature vector that
does not change when the die turns (the magnitudes of the angular Fourier series of its
colour difference from the die's body, ring by ring, beside the hidden layer of the shipped
perceptron), and a linear discriminant with a shrunk shared covariance (Friedman 1989,
"Regularized discriminant analysis") separates the taught values. Its temperature is set by
five-fold cross-validation over the examples, which also gives the profile's own accuracy.

The reader uses a profile as the second opinion that knows these dice: a die the profile is
sure of and agrees with gets a higher confidence, and a die it is sure is something else is
kept below the threshold (the tower shakes again). It never makes a reading ok on its own.

A profile records the calibration (a fingerprint of the calibration file's content) and the
frame size it was taught for; :func:`load_profile` refuses one made for another.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.classify import PATCH, load_classifier
from vision.detect import CROP_EXTENT, crop_smoothing, die_crop
from vision.files import write_atomically
from vision.kernels import median_of
from vision.reading import Die, Reading, check_frame
from vision.segment import to_lab

VERSION = 1
KIND = "zilch-tower dice profile"
EXAMPLES_KIND = "zilch-tower teaching examples"
CROP_PX = 32  # side of a teaching example's crop, 1.3 die sides wide (detect.CROP_EXTENT)
RINGS = 8  # radii of the polar features
ANGLES = 32  # samples around each ring
HARMONICS = 7  # angular Fourier magnitudes kept per ring (0..6)
SHRINK = 0.5  # share of the shared covariance replaced by its mean variance
AUGMENT = 8  # turned, moved and scaled copies of each example when fitting
MIN_EXAMPLES = 6
MIN_VALUES = 2  # values that must have been taught
MAX_EXAMPLES = 5000
FOLDS = 5


class ProfileError(ValueError):
    """A profile or teaching set that cannot be used; the message names the problem."""


class ProfileOutdated(ProfileError):
    """A profile another version of the reader fitted (another file version, or features
    of another classifier): the examples it was taught from can fit it again."""


def calibration_id(calibration: Calibration | None) -> str | None:
    """A fingerprint of a calibration's content (None without one). Every reading with a
    profile asks for it: the fingerprints of the last few calibrations are kept, by their
    fields' values (a calibration is frozen), and made afresh for any other."""
    if calibration is None:
        return None
    key: tuple[object, ...] | None = tuple(
        getattr(calibration, f.name) for f in fields(calibration) if f.compare
    )
    try:
        known = _CALIBRATION_IDS.get(key)
    except TypeError:  # a field that cannot be hashed: no shortcut
        known, key = None, None
    if known is None:
        known = _fingerprint(calibration)
        if key is not None:
            if len(_CALIBRATION_IDS) >= CALIBRATION_IDS_KEPT:
                _CALIBRATION_IDS.clear()
            _CALIBRATION_IDS[key] = known
    return known


def _fingerprint(calibration: Calibration) -> str:
    text = json.dumps(calibration.to_json(), sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


_CALIBRATION_IDS: dict[tuple[object, ...] | None, str] = {}
CALIBRATION_IDS_KEPT = 16


@dataclass(frozen=True)
class TeachingExample:
    """One die as a person confirmed or corrected it: its crop and its true value."""

    value: int
    crop: np.ndarray  # CROP_PX x CROP_PX x 3, BGR uint8, the die 1.3 sides wide

    def __post_init__(self) -> None:
        if isinstance(self.value, bool) or not isinstance(self.value, int | np.integer):
            raise ProfileError(f"a die's value must be a whole number 1-6, not {self.value!r}")
        if not 1 <= int(self.value) <= 6:
            raise ProfileError(f"a die's value must be 1-6, not {self.value}")
        crop = self.crop
        if not isinstance(crop, np.ndarray) or crop.shape != (CROP_PX, CROP_PX, 3):
            shape = getattr(crop, "shape", type(crop).__name__)
            raise ProfileError(f"an example's crop must be {CROP_PX}x{CROP_PX}x3, not {shape}")
        if crop.dtype != np.uint8:
            raise ProfileError(f"an example's crop must be uint8, not {crop.dtype}")
        object.__setattr__(self, "value", int(self.value))

    def to_json(self) -> dict[str, Any]:
        """``{"value": 1-6, "crop_png": base64}``."""
        ok, png = cv2.imencode(".png", self.crop)
        if not ok:
            raise ProfileError("an example's crop could not be encoded")
        return {"value": self.value, "crop_png": base64.b64encode(png.tobytes()).decode("ascii")}

    @classmethod
    def from_json(cls, data: Any) -> TeachingExample:
        """Rebuild from :meth:`to_json`; ``ProfileError`` names what is wrong."""
        if not isinstance(data, dict) or "value" not in data or "crop_png" not in data:
            raise ProfileError('an example must be {"value": 1-6, "crop_png": base64 PNG}')
        try:
            raw = base64.b64decode(str(data["crop_png"]), validate=True)
        except ValueError:
            raise ProfileError("an example's crop_png is not base64") from None
        crop = cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_COLOR) if raw else None
        if crop is None:
            raise ProfileError("an example's crop_png is not a PNG image")
        return cls(data["value"], np.asarray(crop))


def example_from_frame(
    frame: np.ndarray, centre: tuple[float, float], side: float, value: int
) -> TeachingExample:
    """The teaching example of the die at ``centre`` (``side`` pixels wide) in ``frame``."""
    image = check_frame(frame)
    if not (math.isfinite(side) and side >= 4):
        raise ProfileError(f"a die's side must be at least 4 px, not {side}")
    return TeachingExample(value, die_window_crop(image, centre, side))


def die_window_crop(frame: np.ndarray, centre: tuple[float, float], side: float) -> np.ndarray:
    """The CROP_PX crop of the die at ``centre``, cut from a window around it (a whole
    frame is never blurred or warped for one die)."""
    window, local = _die_window(frame, centre, side)
    return np.ascontiguousarray(die_crop(window, local, side, px=CROP_PX))


def _window_half(side: float) -> int:
    """Half the side of :func:`_die_window`'s window, in pixels."""
    return math.ceil(0.7 * CROP_EXTENT * side) + 2


def _die_window(
    frame: np.ndarray, centre: tuple[float, float], side: float
) -> tuple[np.ndarray, tuple[float, float]]:
    """The square window around the die at ``centre`` that its crop is cut from (edge pixels
    repeated beyond the frame), and the centre in the window's pixels."""
    half = _window_half(side)
    cx, cy = round(centre[0]), round(centre[1])
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = cx - half, cy - half, cx + half + 1, cy + half + 1
    window = frame[max(0, y0) : max(0, min(h, y1)), max(0, x0) : max(0, min(w, x1))]
    if window.size == 0:
        raise ProfileError(f"the die at ({centre[0]:.0f}, {centre[1]:.0f}) is outside the frame")
    pad = ((max(0, -y0), max(0, y1 - h)), (max(0, -x0), max(0, x1 - w)), (0, 0))
    if any(a or b for a, b in pad):
        window = np.pad(window, pad, mode="edge")
    return window, (centre[0] - x0, centre[1] - y0)


def _smoothed_half(side: float) -> int | None:
    """Half the side of the middle of :func:`_die_window`'s window that a crop of a die
    ``side`` pixels wide reads from a smoothed window, with all the pixels their smoothing
    reads (so that this middle, smoothed apart from the rest of the window, beside other
    windows' or with a mirrored border, gives the same pixels where the crop reads them).
    None when the crop smooths nothing, or that middle would not fit in the window.

    The crop reads up to CROP_PX / 2 of its pixels, plus one for the bilinear neighbour,
    from the die's centre, which lies within half a pixel of the window's middle pixel;
    OpenCV's Gaussian kernel for 8-bit images is round(6 sigma + 1) pixels wide, made odd.
    """
    sigma = crop_smoothing(side, CROP_PX)
    if not sigma:
        return None
    reach = (round(sigma * 6 + 1) | 1) // 2  # the kernel's reach beyond its centre
    reads = math.ceil(CROP_EXTENT * max(side, 1.0) / 2.0 + 1.5)
    half = reads + reach + 2  # two pixels more than needed, to be safe
    return half if half < _window_half(side) else None


def die_window_crops(
    frame: np.ndarray, dice: Sequence[tuple[tuple[float, float], float]]
) -> list[np.ndarray]:
    """:func:`die_window_crop` of each (centre, side) of ``dice``, the same bits: the middles
    of the windows of dice of one side (what their crops read, see :func:`_smoothed_half`)
    are smoothed in one call, side by side in one strip, and each crop is cut from its
    window with that smoothed middle in place."""
    out: list[np.ndarray | None] = [None] * len(dice)
    by_side: dict[float, list[int]] = {}
    for i, (_, side) in enumerate(dice):
        by_side.setdefault(float(side), []).append(i)
    for side, chosen in by_side.items():
        half = _smoothed_half(side)
        if half is None:
            for i in chosen:
                out[i] = die_window_crop(frame, dice[i][0], side)
            continue
        cut = [_die_window(frame, dice[i][0], side) for i in chosen]
        trim = _window_half(side) - half
        keep = slice(trim, trim + 2 * half + 1)
        strip = cv2.GaussianBlur(
            np.concatenate([window[keep, keep] for window, _ in cut], axis=1),
            (0, 0),
            crop_smoothing(side, CROP_PX),
        )
        width = 2 * half + 1
        for k, (i, (window, local)) in enumerate(zip(chosen, cut, strict=True)):
            smoothed = np.zeros_like(window)
            smoothed[keep, keep] = strip[:, k * width : (k + 1) * width]
            crop = die_crop(smoothed, local, side, px=CROP_PX, smoothed=True)
            out[i] = np.ascontiguousarray(crop)
    return [crop for crop in out if crop is not None]


def die_side(die: Die, calibration: Calibration | None = None) -> float:
    """The side of a read die in pixels: the calibration's, else the die's box."""
    if calibration is not None:
        return float(calibration.die_side)
    x0, y0, x1, y1 = die.box
    return float(max(4, min(x1 - x0, y1 - y0)))


def examples_from_reading(
    frame: np.ndarray,
    reading: Reading,
    values: Sequence[int],
    calibration: Calibration | None = None,
) -> list[TeachingExample]:
    """Teaching examples of every die of ``reading``, ``values`` giving their true values in
    the order of ``reading.dice`` (what a person confirmed or corrected)."""
    if len(values) != len(reading.dice):
        raise ProfileError(
            f"{len(values)} values given for a reading of {len(reading.dice)} dice; "
            "give one value per die"
        )
    return [
        example_from_frame(frame, die.center, die_side(die, calibration), value)
        for die, value in zip(reading.dice, values, strict=True)
    ]


def _polar_grid() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Bilinear sampling of RINGS x ANGLES points on circles about a crop's centre."""
    c = (CROP_PX - 1) / 2.0
    radii = (np.arange(RINGS) + 0.5) * (CROP_PX / 2.0 - 0.5) / RINGS
    theta = np.arange(ANGLES) * (2 * math.pi / ANGLES)
    x = c + radii[None, :] * np.cos(theta)[:, None]
    y = c + radii[None, :] * np.sin(theta)[:, None]
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    return x0, y0, x - x0, y - y0


_GRID = _polar_grid()


def _polar(maps: np.ndarray) -> np.ndarray:
    """Angular Fourier magnitudes, ring by ring, of (N, CROP_PX, CROP_PX, C) maps: the same
    for a die turned any angle or mirrored. Returns (N, C * RINGS * HARMONICS)."""
    x0, y0, fx, fy = _GRID
    fx, fy = fx[None, :, :, None], fy[None, :, :, None]
    top = maps[:, y0, x0] * (1 - fx) + maps[:, y0, x0 + 1] * fx
    bottom = maps[:, y0 + 1, x0] * (1 - fx) + maps[:, y0 + 1, x0 + 1] * fx
    rings = top * (1 - fy) + bottom * fy  # (N, ANGLES, RINGS, C)
    return _spectrum(rings)


def _spectrum(rings: np.ndarray) -> np.ndarray:
    """The angular Fourier magnitudes of (N, ANGLES, RINGS, C) samples, (N, C * RINGS * 7)."""
    spectrum = np.abs(np.fft.rfft(rings, axis=1))[:, :HARMONICS] / ANGLES
    return np.asarray(spectrum.reshape(len(rings), -1), np.float64)


def _polar_corners() -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
    """:func:`_polar`'s sampling as look-ups: the rows and columns of the four corners of
    every sample, (4, ANGLES, RINGS) each, and the weights as :func:`_polar` makes them,
    (ANGLES, RINGS) each."""
    x0, y0, fx, fy = _GRID
    rows = np.stack([y0, y0, y0 + 1, y0 + 1])
    cols = np.stack([x0, x0 + 1, x0, x0 + 1])
    return rows, cols, (1 - fx, fx, 1 - fy, fy)


_ROWS, _COLS, _WEIGHTS = _polar_corners()


def _rings(corners: np.ndarray) -> np.ndarray:
    """Bilinear samples (N, ANGLES, RINGS) of one map from their four corners (N, 4,
    ANGLES, RINGS): the same products and sums, in the same order, as :func:`_polar`."""
    left, right, up, down = _WEIGHTS
    top = corners[:, 0] * left + corners[:, 1] * right
    bottom = corners[:, 2] * left + corners[:, 3] * right
    out: np.ndarray = top * up + bottom * down
    return out


PATCH_FROM = 30  # the perceptron's patch: the middle 30 px of a crop (1.2 die sides)


def crop_features(crops: Sequence[np.ndarray]) -> np.ndarray:
    """Feature vectors (N, F) of die crops: polar features of the colour difference from the
    die's body (distance, and signed lightness and chroma), and the shipped perceptron's
    hidden layer where it ships. The same bits as :func:`crop_features_checked`, with fewer
    array passes: the crops stay side by side as converted, each colour channel apart (no
    transposed copies), squares are summed channel by channel (as numpy's sum over three
    channels adds them), and each map's polar samples come from one look-up."""
    n = len(crops)
    if n == 0:
        return np.zeros((0, _feature_count()))
    strip = np.ascontiguousarray(np.concatenate(list(crops), axis=1))  # one colour conversion
    converted = to_lab(strip)
    lab = converted.reshape(CROP_PX, n, CROP_PX, 3).transpose(1, 0, 2, 3)
    q = CROP_PX // 4
    body = median_of(lab[:, q:-q, q:-q].reshape(n, -1, 3), 1)
    # each channel's difference from the body, (CROP_PX, N, CROP_PX), as the crops lie
    delta = [
        (plane.reshape(CROP_PX, n, CROP_PX) - body[None, :, c, None]) / 64.0
        for c, plane in enumerate(cv2.split(converted))
    ]
    total = delta[0] * delta[0] + delta[1] * delta[1]
    total += delta[2] * delta[2]
    maps = [np.sqrt(total), *delta]  # distance, then lightness and chroma, as _polar's C
    # the flat index of each crop's corner pixels, (N, 4, ANGLES, RINGS)
    at = (_ROWS[None] * n + np.arange(n)[:, None, None, None]) * CROP_PX + _COLS[None]
    rings = np.stack([_rings(m.reshape(-1)[at]) for m in maps], axis=3)
    features = _spectrum(rings)
    model = load_classifier()
    if model is None:
        return features
    return np.hstack([features, _hidden(strip, n, model.w1, model.b1, fast=True)])


def _squared_sum(delta: np.ndarray) -> np.ndarray:
    """``(delta**2).sum(axis=-1)`` of three channels: the same sums in the same order."""
    squared = delta * delta
    total: np.ndarray = squared[..., 0] + squared[..., 1]
    total += squared[..., 2]
    return total


def _hidden(strip: np.ndarray, n: int, w1: np.ndarray, b1: np.ndarray, fast: bool) -> np.ndarray:
    """The perceptron's hidden layer (N, H) for the crops side by side in ``strip``;
    ``fast``: the patch's colour distance by :func:`_squared_sum` (the same bits)."""
    edge = (CROP_PX - PATCH_FROM) // 2
    middle = strip[edge : CROP_PX - edge].reshape(PATCH_FROM, n, CROP_PX, 3)[:, :, edge:-edge]
    small = cv2.resize(
        np.ascontiguousarray(middle.reshape(PATCH_FROM, n * PATCH_FROM, 3)),
        (n * PATCH, PATCH),
        interpolation=cv2.INTER_AREA,
    )
    plab = to_lab(small).reshape(PATCH, n, PATCH, 3).transpose(1, 0, 2, 3)
    k = PATCH // 4
    pbody = median_of(plab[:, k:-k, k:-k].reshape(n, -1, 3), 1)
    if fast:
        pdist = np.sqrt(_squared_sum(plab - pbody[:, None, None, :])).reshape(n, -1)
    else:
        pdist = np.sqrt(((plab - pbody[:, None, None, :]) ** 2).sum(axis=3)).reshape(n, -1)
    top = np.partition(pdist, int(pdist.shape[1] * 0.95), axis=1)[:, int(pdist.shape[1] * 0.95)]
    x = np.clip(pdist / (top[:, None] + 1e-3), 0.0, 1.5).astype(np.float32)
    hidden = np.maximum(x @ w1 + b1, 0.0)
    return np.asarray(hidden, np.float64)


def crop_features_checked(crops: Sequence[np.ndarray]) -> np.ndarray:
    """:func:`crop_features` computed plainly (what the fast path must equal)."""
    n = len(crops)
    if n == 0:
        return np.zeros((0, _feature_count()))
    strip = np.ascontiguousarray(np.concatenate(list(crops), axis=1))
    lab = to_lab(strip).reshape(CROP_PX, n, CROP_PX, 3).transpose(1, 0, 2, 3)
    q = CROP_PX // 4
    body = median_of(lab[:, q:-q, q:-q].reshape(n, -1, 3), 1)
    delta = (lab - body[:, None, None, :]) / 64.0
    dist = np.sqrt((delta**2).sum(axis=3, keepdims=True))
    features = _polar(np.concatenate([dist, delta], axis=3))
    model = load_classifier()
    if model is None:
        return features
    return np.hstack([features, _hidden(strip, n, model.w1, model.b1, fast=False)])


@cache
def _feature_count() -> int:
    model = load_classifier()
    return 4 * RINGS * HARMONICS + (0 if model is None else int(model.w1.shape[1]))


def _augment(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A copy of ``crop`` turned any angle, moved a little and scaled a little."""
    c = CROP_PX / 2.0
    warp = cv2.getRotationMatrix2D(
        (c, c), float(rng.uniform(0, 360)), float(rng.uniform(0.94, 1.06))
    )
    warp = warp.astype(np.float64) + np.array([[0, 0, 1], [0, 0, 1]]) * rng.uniform(-1, 1, (2, 1))
    return cv2.warpAffine(
        crop, warp, (CROP_PX, CROP_PX), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True))


@dataclass(frozen=True)
class _Discriminant:
    mean: np.ndarray  # (F,) feature centre
    scale: np.ndarray  # (F,) feature spread
    weights: np.ndarray  # (F, 6)
    bias: np.ndarray  # (6,), -inf for values never taught

    def scores(self, features: np.ndarray) -> np.ndarray:
        return np.asarray(((features - self.mean) / self.scale) @ self.weights + self.bias)


@dataclass(frozen=True)
class _Moments:
    """What a linear discriminant needs of some rows of standardised features: per value
    the row count and feature sums, and the rows' Gram matrix (moments add over folds)."""

    counts: np.ndarray  # (6,)
    sums: np.ndarray  # (6, F)
    gram: np.ndarray  # (F, F)

    @classmethod
    def of(cls, x: np.ndarray, values: np.ndarray) -> _Moments:
        onehot = (values[:, None] == np.arange(1, 7)[None, :]).astype(x.dtype)
        return cls(onehot.sum(axis=0), onehot.T @ x, x.T @ x)

    def __sub__(self, other: _Moments) -> _Moments:
        return _Moments(self.counts - other.counts, self.sums - other.sums, self.gram - other.gram)

    def __add__(self, other: _Moments) -> _Moments:
        return _Moments(self.counts + other.counts, self.sums + other.sums, self.gram + other.gram)


def _discriminant(moments: _Moments, mean: np.ndarray, scale: np.ndarray) -> _Discriminant:
    """A shrunk linear discriminant of the values 1..6 from the moments of standardised
    features (closed form: one solve of the shared covariance)."""
    taught = moments.counts > 0
    dims = moments.gram.shape[0]
    means = np.zeros((6, dims))
    means[taught] = moments.sums[taught] / moments.counts[taught, None]
    between = (means.T * moments.counts) @ means  # sum over values of n_v m_v m_v^T
    rows = float(moments.counts.sum())
    cov = (moments.gram - between) / max(1.0, rows - float(taught.sum()))
    cov = (1 - SHRINK) * cov + SHRINK * (np.trace(cov) / dims + 1e-3) * np.eye(dims)
    solved = np.linalg.solve(cov, means.T)  # (F, 6)
    bias = -0.5 * np.einsum("fv,vf->v", solved, means)
    bias[~taught] = -np.inf
    solved[:, ~taught] = 0.0
    return _Discriminant(mean, scale, solved, bias)


TRAINING_ROWS = 4000  # augmented copies are made until about this many rows (at most
# AUGMENT per example, at least MIN_AUGMENT): many examples need fewer copies
MIN_AUGMENT = 2


def copies_per_example(n: int) -> int:
    """How many turned copies of each of ``n`` examples the fit adds."""
    return int(np.clip(TRAINING_ROWS // max(1, n) - 1, MIN_AUGMENT, AUGMENT))


def _training_set(
    examples: Sequence[TeachingExample], seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, values and example index of every example and its augmented copies (the
    example itself first)."""
    rng = np.random.default_rng(seed)
    copies = copies_per_example(len(examples))
    crops, values, owner = [], [], []
    for i, ex in enumerate(examples):
        crops.append(ex.crop)
        crops += [_augment(ex.crop, rng) for _ in range(copies)]
        values += [ex.value] * (copies + 1)
        owner += [i] * (copies + 1)
    return crop_features(crops), np.array(values), np.array(owner)


def _check_examples(examples: Iterable[TeachingExample]) -> list[TeachingExample]:
    listed = list(examples)
    if not all(isinstance(ex, TeachingExample) for ex in listed):
        raise ProfileError("teaching examples must be TeachingExample values")
    if len(listed) < MIN_EXAMPLES:
        raise ProfileError(
            f"{len(listed)} teaching examples; a profile needs at least {MIN_EXAMPLES} dice"
        )
    if len(listed) > MAX_EXAMPLES:
        raise ProfileError(f"{len(listed)} teaching examples; at most {MAX_EXAMPLES} are used")
    if len({ex.value for ex in listed}) < MIN_VALUES:
        raise ProfileError(
            f"the teaching examples show only one value; a profile needs {MIN_VALUES} or more"
        )
    return listed


@dataclass(frozen=True)
class DiceProfile:
    """A fitted profile of one dice set, for one calibration and frame size (or any)."""

    feature_mean: np.ndarray
    feature_scale: np.ndarray
    weights: np.ndarray  # (F, 6)
    bias: np.ndarray  # (6,), -inf for values never taught
    temperature: float
    counts: tuple[int, int, int, int, int, int]  # examples taught per value 1..6
    cv_accuracy: float  # the profile's accuracy on examples held out of its fit
    calibration: str | None = None  # calibration_id of the calibration taught with
    frame_size: tuple[int, int] | None = None  # width, height of the frames taught with
    version: int = VERSION

    @property
    def taught(self) -> tuple[int, ...]:
        """The values the profile has seen."""
        return tuple(v + 1 for v, n in enumerate(self.counts) if n > 0)

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """Probabilities (N, 6) of the values 1..6 for die crops (0 for values never taught)."""
        if len(crops) == 0:
            return np.zeros((0, 6))
        d = _Discriminant(self.feature_mean, self.feature_scale, self.weights, self.bias)
        return _softmax(d.scores(crop_features(crops)) / self.temperature)

    def read(
        self, frame: np.ndarray, dice: Sequence[tuple[tuple[float, float], float]]
    ) -> np.ndarray:
        """Probabilities (N, 6) for dice of ``frame`` given as (centre, side in pixels)."""
        return self.probabilities(die_window_crops(frame, dice))

    def check_for(
        self, calibration: Calibration | None, frame_size: tuple[int, int] | None
    ) -> None:
        """Raise ``ProfileError`` when this profile was taught for another calibration or
        frame size than the reading's (a profile taught without calibration fits any)."""
        if (
            frame_size is not None
            and self.frame_size is not None
            and tuple(frame_size) != self.frame_size
        ):
            w, h = self.frame_size
            raise ProfileError(
                f"the dice profile was taught on {w}x{h} px frames, not "
                f"{frame_size[0]}x{frame_size[1]}; teach the dice again at this size"
            )
        if self.calibration is not None:
            mine = calibration_id(calibration)
            if mine is None:
                raise ProfileError(
                    "the dice profile was taught with a calibration; read with that calibration"
                )
            if mine != self.calibration:
                raise ProfileError(
                    "the dice profile was taught with another calibration; "
                    "teach the dice again after calibrating"
                )

    def to_json(self) -> dict[str, Any]:
        """The file format (JSON)."""
        return {
            "kind": KIND,
            "version": self.version,
            "calibration": self.calibration,
            "frame_size": None if self.frame_size is None else list(self.frame_size),
            "counts": list(self.counts),
            "cv_accuracy": round(self.cv_accuracy, 4),
            "temperature": self.temperature,
            "features": int(self.weights.shape[0]),
            "feature_mean": [float(v) for v in self.feature_mean],
            "feature_scale": [float(v) for v in self.feature_scale],
            "weights": [[float(v) for v in row] for row in self.weights],
            "bias": [None if not math.isfinite(v) else float(v) for v in self.bias],
        }

    @classmethod
    def from_json(cls, data: Any) -> DiceProfile:
        """Rebuild from :meth:`to_json`; ``ProfileError`` names a bad field."""
        if not isinstance(data, dict) or data.get("kind") != KIND:
            raise ProfileError(f'not a dice profile (expected "kind": "{KIND}")')
        if data.get("version") != VERSION:
            raise ProfileOutdated(
                f"version is {data.get('version')!r}; this reader needs {VERSION}"
            )
        try:
            dims = int(data["features"])
            mean = np.array(data["feature_mean"], np.float64)
            scale = np.array(data["feature_scale"], np.float64)
            weights = np.array(data["weights"], np.float64)
            bias = np.array([-np.inf if b is None else b for b in data["bias"]], np.float64)
            temperature = float(data["temperature"])
            counts = tuple(int(n) for n in data["counts"])
            accuracy = float(data["cv_accuracy"])
            cal = data["calibration"]
            size = data["frame_size"]
        except KeyError as exc:
            raise ProfileError(f"field {exc.args[0]!r} is missing") from None
        except (TypeError, ValueError) as exc:
            raise ProfileError(f"a field has the wrong type or shape ({exc})") from None
        expected = _feature_count()
        if dims != expected:
            raise ProfileOutdated(
                f"the profile has {dims} features and this reader makes {expected}; teach again"
            )
        if (
            mean.shape != (dims,)
            or scale.shape != (dims,)
            or weights.shape != (dims, 6)
            or bias.shape != (6,)
            or len(counts) != 6
        ):
            raise ProfileError(
                "feature_mean, feature_scale, weights, bias or counts has the wrong shape"
            )
        finite = [mean, scale, weights, bias[np.isfinite(bias)]]
        if not all(np.isfinite(a).all() for a in finite) or not (scale > 0).all():
            raise ProfileError("the profile holds numbers that are not finite")
        if not (math.isfinite(temperature) and temperature > 0):
            raise ProfileError(f"temperature {temperature} must be a positive number")
        if any(n < 0 for n in counts) or sum(1 for n in counts if n) < MIN_VALUES:
            raise ProfileError(f"counts {list(counts)} must teach at least {MIN_VALUES} values")
        if [n > 0 for n in counts] != list(np.isfinite(bias)):
            raise ProfileError("bias and counts disagree on which values were taught")
        if cal is not None and not (isinstance(cal, str) and len(cal) == 16):
            raise ProfileError(f"calibration {cal!r} must be a fingerprint or null")
        frame_size: tuple[int, int] | None = None
        if size is not None:
            if (
                not isinstance(size, list)
                or len(size) != 2
                or not all(isinstance(v, int) and v >= 32 for v in size)
            ):
                raise ProfileError(f"frame_size {size!r} must be [width, height] or null")
            frame_size = (size[0], size[1])
        c6 = (counts[0], counts[1], counts[2], counts[3], counts[4], counts[5])
        return cls(mean, scale, weights, bias, temperature, c6, accuracy, cal, frame_size)

    def save(self, path: str | Path) -> None:
        """Write the profile to ``path`` at once (a reader never sees half a file)."""
        write_atomically(Path(path), json.dumps(self.to_json()) + "\n")


def fit_profile(
    examples: Iterable[TeachingExample],
    calibration: Calibration | None = None,
    frame_size: tuple[int, int] | None = None,
    seed: int = 0,
) -> DiceProfile:
    """Learn a dice set from teaching examples (numpy only, well under a second for 120 dice).

    ``calibration`` and ``frame_size`` are what the examples were taken with; the profile is
    refused for others. Raises ``ProfileError`` for too few examples or a single value.
    """
    listed = _check_examples(examples)
    if calibration is not None:
        frame_size = calibration.frame_size
    features, values, owner = _training_set(listed, seed)
    mean = features.mean(axis=0)
    scale = features.std(axis=0) + 1e-6
    x = (features - mean) / scale
    folds = np.random.default_rng(seed).permutation(len(listed)) % FOLDS
    row_fold = folds[owner]
    parts = [_Moments.of(x[row_fold == k], values[row_fold == k]) for k in range(FOLDS)]
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    first = np.r_[True, owner[1:] != owner[:-1]]  # each example's own row, not its copies
    held_scores, held_values = [], []
    for k in range(FOLDS):
        train = total - parts[k]
        test = (row_fold == k) & first
        if not test.any() or int((train.counts > 0).sum()) < MIN_VALUES:
            continue
        held_scores.append(_discriminant(train, mean, scale).scores(features[test]))
        held_values.append(values[test])
    model = _discriminant(total, mean, scale)
    temperature, accuracy = _temperature(held_scores, held_values)
    counts = tuple(int((np.array([ex.value for ex in listed]) == v).sum()) for v in range(1, 7))
    return DiceProfile(
        model.mean,
        model.scale,
        model.weights,
        model.bias,
        temperature,
        (counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]),
        accuracy,
        calibration_id(calibration),
        None if frame_size is None else (int(frame_size[0]), int(frame_size[1])),
    )


def _temperature(scores: list[np.ndarray], values: list[np.ndarray]) -> tuple[float, float]:
    """The temperature that best fits the held-out examples' values, and their accuracy."""
    if not scores:
        return 1.0, 0.0
    z = np.vstack(scores)
    truth = np.concatenate(values) - 1
    known = np.isfinite(z[np.arange(len(truth)), truth])
    z, truth = z[known], truth[known]
    if not len(truth):
        return 1.0, 0.0
    accuracy = float((np.argmax(z, axis=1) == truth).mean())
    best, best_loss = 1.0, math.inf
    for t in np.geomspace(0.05, 50.0, 41):
        p = _softmax(z / t)
        loss = float(-np.log(np.clip(p[np.arange(len(truth)), truth], 1e-9, 1.0)).mean())
        if loss < best_loss:
            best, best_loss = float(t), loss
    return best, accuracy


def load_profile(
    path: str | Path,
    calibration: Calibration | None = None,
    frame_size: tuple[int, int] | None = None,
) -> DiceProfile:
    """Read a profile file and check it fits ``calibration`` and ``frame_size``;
    ``ProfileError`` names the file and what is wrong (missing, corrupt, another
    calibration, another frame size)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ProfileError(f"dice profile {p} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(f"dice profile {p} cannot be read: {exc}") from None
    try:
        profile = DiceProfile.from_json(json.loads(text))
        if calibration is not None and frame_size is None:
            frame_size = calibration.frame_size
        profile.check_for(calibration, frame_size)
    except json.JSONDecodeError as exc:
        raise ProfileError(f"dice profile {p} is not valid JSON: {exc}") from None
    except ProfileError as exc:
        raise type(exc)(f"dice profile {p}: {exc}") from None
    return profile


def save_examples(path: str | Path, examples: Iterable[TeachingExample]) -> None:
    """Write teaching examples to ``path`` at once (one JSON document)."""
    data = {"kind": EXAMPLES_KIND, "version": VERSION, "examples": [e.to_json() for e in examples]}
    write_atomically(Path(path), json.dumps(data) + "\n")


def load_examples(path: str | Path) -> list[TeachingExample]:
    """Teaching examples written by :func:`save_examples`; ``ProfileError`` when unusable."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProfileError(f"teaching examples {p} do not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProfileError(f"teaching examples {p} cannot be read: {exc}") from None
    if not isinstance(data, dict) or data.get("kind") != EXAMPLES_KIND:
        raise ProfileError(f'teaching examples {p}: expected "kind": "{EXAMPLES_KIND}"')
    if data.get("version") != VERSION or not isinstance(data.get("examples"), list):
        raise ProfileError(f"teaching examples {p}: expected version {VERSION} and a list")
    try:
        return [TeachingExample.from_json(e) for e in data["examples"]]
    except ProfileError as exc:
        raise ProfileError(f"teaching examples {p}: {exc}") from None


def keep_newest(
    examples: Sequence[TeachingExample], added: Iterable[TeachingExample], cap: int
) -> list[TeachingExample]:
    """``examples`` followed by ``added``, the oldest dropped beyond ``cap``."""
    if cap < 1:
        raise ProfileError(f"cap {cap} must be at least 1")
    joined = [*examples, *added]
    return joined[-cap:]
