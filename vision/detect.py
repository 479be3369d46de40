"""A small learned die detector: die centres, sizes and values from a whole frame at once.

A fully convolutional network (``vision/models/dice_detector.onnx``, trained by
``tools/train_detector.py`` from rendered frames and the development photos' training split)
looks at the frame once and answers on a grid of one cell per ``STRIDE`` pixels: how likely a
die's centre lies in the cell, where in the cell, how large the die is, and which face it
shows (or that it is cocked). ONNX Runtime (or, where it is not installed, OpenCV's ``dnn``
module) runs it on one CPU core; nothing is fetched at run time. The reader uses it for
frames without a calibration, where finding the dice by colour alone fails on small dice,
crowds and clutter.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal, TypeGuard

import cv2
import numpy as np

from vision.models import MODEL_DIR

STRIDE = 8  # pixels per output cell
CLASSES = 7  # 0: a cocked or hidden die (no top face to read); 1..6: the face on top
OUTPUTS = 4 + CLASSES  # centre score, x and y offset in the cell, log die side, classes
WORK_SIDE = 640  # frames are read with their long side at most this many pixels
DETECTED = 0.3  # the centre score from which the reader reports a die
DETECTOR_FILE = MODEL_DIR / "dice_detector.onnx"
DETECTOR_INFO = MODEL_DIR / "dice_detector.json"
FACES_FILE = MODEL_DIR / "dice_faces.onnx"
FACES_INFO = MODEL_DIR / "dice_faces.json"
SINGLE_FILE = MODEL_DIR / "dice_single.onnx"  # the single-stage reader (tools/train_single.py)
SINGLE_KIND = "single-stage dice reader"  # how its JSON description's "model" begins
CROP_PX = 32  # side of the face reader's crop when its JSON does not give one
CROP_RULE = "a multiple of 8 from 8 to 256"  # what a crop side may be (three 2x poolings)
CROP_EXTENT = 1.3  # the crop's side over the die's
TURNS = 4  # quarter turns of each crop the face reader reads
SURE_TURN = 0.9  # a first quarter turn this sure of a face that the other opinions share is
# the die's reading: its other three turns are not read (see FaceReader.read)
TurnRule = Literal["adaptive", "four", "one"]  # which quarter turns FaceReader.read reads
COARSE_SIDE = 384  # the working side of the first, cheaper look (Detector.detect_coarse)
COARSE_LEAST_SIDE = 16.0  # the smallest die side the detector was trained on (training's
# MIN_SIDE): a coarse look that finds a die smaller than this cannot be trusted to see all
HALF_SEEN = 0.15  # a centre score from which a coarse look half sees a die it did not report
CLOSER_BELOW = 24.0  # dice whose median side at the working side is under this many pixels
# (1.5 times the smallest trained on) are looked at again closer: crowded dice that small
# are missed where the frame is brought to the working side (Detector.detect_closer)
CLOSER_SIDE = 32.0  # the median die side, in pixels, that a closer look brings them to
CLOSER_MOST = 1600  # the largest working side of a closer look


@dataclass(frozen=True)
class Detection:
    """One die the detector found, in the frame's pixels."""

    centre: tuple[float, float]
    side: float  # die side in pixels
    score: float  # how sure it is that a die is there (0..1)
    probs: np.ndarray  # probabilities of cocked, 1, 2, ..., 6

    @property
    def value(self) -> int:
        """The most likely face (0 for a cocked die)."""
        return int(np.argmax(self.probs))

    @property
    def box(self) -> tuple[int, int, int, int]:
        """The die's square box (x0, y0, x1, y1), integer pixels."""
        x, y = self.centre
        h = self.side / 2.0
        return (round(x - h), round(y - h), round(x + h), round(y + h))


def prepare(
    image: np.ndarray, work_side: int = WORK_SIDE, enlarge: bool = False
) -> tuple[np.ndarray, float]:
    """The network's input blob for a BGR frame (1, 3, H, W), and the scale applied.

    The long side is brought to at most ``work_side`` pixels (``enlarge``: to exactly that
    many, a smaller frame enlarged) and both sides are padded (by repeating the edge) to a
    multiple of ``STRIDE``.
    """
    h, w = image.shape[:2]
    scale = work_side / max(h, w)
    if not enlarge:
        scale = min(1.0, scale)
    if scale != 1.0:
        size = (round(w * scale), round(h * scale))
        how = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
        image = cv2.resize(image, size, interpolation=how)
    h2, w2 = image.shape[:2]
    pad_y, pad_x = -h2 % STRIDE, -w2 % STRIDE
    if pad_y or pad_x:
        image = cv2.copyMakeBorder(image, 0, pad_y, 0, pad_x, cv2.BORDER_REPLICATE)
    blob = image.astype(np.float32).transpose(2, 0, 1)[None] / 255.0 - 0.5
    return np.ascontiguousarray(blob), scale


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(x, -30.0, 30.0))))


def decode(
    out: np.ndarray,
    scale: float = 1.0,
    threshold: float = 0.2,
    shape: tuple[int, int] | None = None,
) -> list[Detection]:
    """Detections from the network's raw output (1, OUTPUTS, H/STRIDE, W/STRIDE).

    A cell is a die's centre when its score is a local maximum above ``threshold``; of two
    centres closer than 0.6 of a die the surer one stays. ``shape`` (height, width) of the
    frame drops centres that fall on the padding.
    """
    if out.ndim != 4 or out.shape[0] != 1 or out.shape[1] != OUTPUTS:
        raise ValueError(f"detector output has shape {out.shape}; expected (1, {OUTPUTS}, H, W)")
    maps = out[0]
    heat = _sigmoid(maps[0]).astype(np.float32)
    peaks = (heat >= threshold) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    found: list[Detection] = []
    for i, j in zip(*np.nonzero(peaks), strict=True):
        x = (j + 0.5 + float(maps[1, i, j])) * STRIDE / scale
        y = (i + 0.5 + float(maps[2, i, j])) * STRIDE / scale
        if shape is not None and not (0 <= x < shape[1] and 0 <= y < shape[0]):
            continue
        side = float(np.exp(np.clip(maps[3, i, j], -1.0, 4.0))) * STRIDE / scale
        logits = maps[4:, i, j].astype(np.float64)
        probs = np.exp(logits - logits.max())
        found.append(Detection((x, y), side, float(heat[i, j]), probs / probs.sum()))
    found.sort(key=lambda d: -d.score)
    kept: list[Detection] = []
    for d in found:
        if all(_apart(d, k) for k in kept):
            kept.append(d)
    return kept


def _apart(a: Detection, b: Detection) -> bool:
    """Whether two centres are far enough apart to be two dice."""
    gap = np.hypot(a.centre[0] - b.centre[0], a.centre[1] - b.centre[1])
    return bool(gap >= 0.6 * max(a.side, b.side))


Runtime = Literal["onnxruntime", "opencv"]


def default_runtime() -> Runtime:
    """ONNX Runtime where it is installed (about 1.7 times faster on one core here), else
    OpenCV's dnn module; both give the same answers to within 1e-5."""
    return "onnxruntime" if importlib.util.find_spec("onnxruntime") is not None else "opencv"


class _Network:
    """An ONNX network run by ONNX Runtime or OpenCV's dnn module, on one thread; one
    forward pass at a time."""

    def __init__(self, path: Path, runtime: Runtime | None = None) -> None:
        if not path.is_file():
            raise ValueError(f"model file {path} does not exist")
        self.runtime: Runtime = runtime or default_runtime()
        self._lock = threading.Lock()
        self.path = path
        if self.runtime == "onnxruntime":
            self._session = _ort_session(path)
            self._input = self._session.get_inputs()[0].name
            return
        try:
            self._net = cv2.dnn.readNetFromONNX(str(path))
        except cv2.error:
            raise ValueError(
                f"{path} is not a readable ONNX model (OpenCV cannot parse it); "
                "reinstall the package or retrain it"
            ) from None

    def _probe(self, shape: tuple[int, ...], what: str) -> np.ndarray:
        """Run the network once on zeros; a model that fails or answers oddly is refused."""
        try:
            out = self.raw(np.zeros(shape, np.float32))
        except Exception:  # cv2.error, or one of ONNX Runtime's own types
            side = "x".join(str(v) for v in shape)
            raise ValueError(f"{self.path} does not run on a {side} input; not {what}") from None
        if not np.isfinite(out).all():
            raise ValueError(f"{self.path} answers with numbers that are not finite")
        return out

    def raw(self, blob: np.ndarray) -> np.ndarray:
        """The network's output for an input blob."""
        with self._lock:
            if self.runtime == "onnxruntime":
                out = self._session.run(None, {self._input: blob})[0]
            else:
                self._net.setInput(blob)
                out = self._net.forward()
        return np.asarray(out, np.float32)


def _ort_session(path: Path) -> Any:
    """An ONNX Runtime session on one thread (the reader's frames take one core each)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    # every graph rewrite, the blocked (NCHWc) convolution layout included: on one core here
    # the detector ran in 47 ms against 66-70 ms with the basic or extended rewrites only
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # errors only: the model's own warnings are not the user's
    try:
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception:
        raise ValueError(
            f"{path} is not a readable ONNX model (ONNX Runtime cannot load it); "
            "reinstall the package or retrain it"
        ) from None


class Detector(_Network):
    """The shipped detector; :func:`prepare` makes its input."""

    def __init__(self, path: Path = DETECTOR_FILE, runtime: Runtime | None = None) -> None:
        super().__init__(path, runtime)
        out = self._probe((1, 3, 64, 64), "a dice detector")
        want = (1, OUTPUTS, 64 // STRIDE, 64 // STRIDE)
        if out.shape != want:
            raise ValueError(
                f"{path} answers a 64 x 64 frame with shape {out.shape}, not a dice "
                f"detector's {want}"
            )

    def detect(
        self,
        image: np.ndarray,
        threshold: float = 0.2,
        work_side: int = WORK_SIDE,
        enlarge: bool = False,
    ) -> list[Detection]:
        """The dice in a checked BGR frame, surest first, looked for at ``work_side``
        (``enlarge``: a smaller frame enlarged to it; see :func:`prepare`)."""
        blob, scale = prepare(image, work_side, enlarge)
        return decode(self.raw(blob), scale, threshold, image.shape[:2])

    def detect_coarse(
        self, image: np.ndarray, threshold: float = 0.2, side: int = COARSE_SIDE
    ) -> list[Detection] | None:
        """The dice of a checked BGR frame looked for at the smaller working ``side``, or
        None where that look cannot be trusted to have found them all and the full side
        (:meth:`detect`) must look: a frame no larger than ``side`` (the look would be the
        same), no die found, a die smaller at ``side`` than the detector was trained on
        (``COARSE_LEAST_SIDE``), or a centre half seen (score from ``HALF_SEEN`` up to
        ``DETECTED``) apart from the dice found, which may be a die too small or too
        crowded to resolve there.
        """
        if max(image.shape[:2]) <= side or side >= WORK_SIDE:
            return None
        blob, scale = prepare(image, side)
        found = decode(self.raw(blob), scale, min(threshold, HALF_SEEN), image.shape[:2])
        dice = [d for d in found if d.score >= DETECTED]
        if not dice or min(d.side for d in dice) * scale < COARSE_LEAST_SIDE:
            return None
        if any(d.score < DETECTED for d in found):  # decode keeps them apart already
            return None
        return [d for d in found if d.score >= threshold]

    def detect_closer(
        self, image: np.ndarray, found: Sequence[Detection], threshold: float = 0.2
    ) -> list[Detection] | None:
        """The dice of a checked BGR frame looked for again closer, or None where the dice
        ``found`` at the working side are large enough there (a median side of
        ``CLOSER_BELOW`` pixels or more) or nothing was found.

        The closer look's working side brings that median to ``CLOSER_SIDE`` pixels (at
        most ``CLOSER_MOST``), with the frame's own pixels where it has them and enlarged
        where it has not; its findings replace ``found``.
        """
        dice = [d.side for d in found if d.score >= DETECTED]
        if not dice:
            return None
        seen = min(max(image.shape[:2]), WORK_SIDE)  # the working long side of ``found``
        small = float(np.median(dice)) * seen / max(image.shape[:2])
        if small >= CLOSER_BELOW:
            return None
        side = min(CLOSER_MOST, round(seen * CLOSER_SIDE / max(small, 1.0)))
        return self.detect(image, threshold, work_side=side, enlarge=True)


class SingleStage(Detector):
    """A single-stage reader: the detector's grid, whose face classes are the reading itself
    (no face reader reads crops after it). Its JSON description must stand beside it."""

    def __init__(self, path: Path = SINGLE_FILE, runtime: Runtime | None = None) -> None:
        if not path.is_file():
            raise ValueError(f"model file {path} does not exist")
        info = path.with_suffix(".json")
        try:
            kind = json.loads(info.read_text(encoding="utf-8")).get("model", "")
        except (OSError, ValueError, AttributeError) as exc:
            raise ValueError(
                f"{info} is not a single-stage reader's JSON description ({exc}); "
                "retrain it with tools/train_single.py"
            ) from None
        if not (isinstance(kind, str) and kind.startswith(SINGLE_KIND)):
            raise ValueError(
                f"{info} describes {kind!r}, not a {SINGLE_KIND}; "
                "retrain it with tools/train_single.py"
            )
        super().__init__(path, runtime)


def crop_smoothing(side: float, px: int = CROP_PX) -> float:
    """The Gaussian sigma (pixels) with which :func:`die_crop` smooths the image before
    shrinking a die ``side`` pixels wide to a ``px`` crop; 0 when it does not."""
    scale = px / (CROP_EXTENT * max(side, 1.0))
    return 0.45 / scale if scale < 0.7 else 0.0  # shrinking a lot: as an area average would


def die_crop(
    image: np.ndarray,
    centre: tuple[float, float],
    side: float,
    angle: float = 0.0,
    px: int = CROP_PX,
    smoothed: bool = False,
) -> np.ndarray:
    """The die around ``centre``, ``CROP_EXTENT`` sides wide, as a ``px`` square BGR crop.

    ``angle`` (degrees) turns the crop about the centre (training turns faces every way).
    ``smoothed``: the image is smoothed already, as :func:`crop_smoothing` says.
    """
    scale = px / (CROP_EXTENT * max(side, 1.0))
    warp = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), angle, scale)
    warp[:, 2] += np.array([px / 2.0 - centre[0], px / 2.0 - centre[1]])
    sigma = crop_smoothing(side, px)
    if sigma and not smoothed:
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    return cv2.warpAffine(
        image, warp, (px, px), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def crops_blob(crops: list[np.ndarray]) -> np.ndarray:
    """The face reader's input (N, 3, side, side) for square BGR crops."""
    x = np.stack(crops).astype(np.float32).transpose(0, 3, 1, 2) / 255.0 - 0.5
    return np.ascontiguousarray(x)


class FaceReader(_Network):
    """The shipped face classifier: the face on top of a die crop, or none (class 0).

    The side of the crops it reads is ``crop_px`` in the JSON file beside the model.
    """

    def __init__(self, path: Path = FACES_FILE, runtime: Runtime | None = None) -> None:
        super().__init__(path, runtime)
        self.crop_px = _crop_px(path.with_suffix(".json"))
        if not path.with_suffix(".json").is_file():
            return  # an older model without its description: read at CROP_PX, unprobed
        out = self._probe((1, 3, self.crop_px, self.crop_px), "a face reader")
        if out.shape != (1, CLASSES):
            raise ValueError(
                f"{path} answers a {self.crop_px} px crop with shape {out.shape}, not a face "
                f"reader's (1, {CLASSES}); is crop_px in its JSON right?"
            )

    def probabilities(
        self,
        image: np.ndarray,
        dice: list[tuple[tuple[float, float], float]],
        turns: int = TURNS,
    ) -> np.ndarray:
        """Probabilities (N, CLASSES) of no face, 1, ..., 6 for dice given as (centre, side).

        Each die is read in four quarter turns (a face's value does not change with them)
        and the four answers are combined by their geometric mean.
        """
        if not dice:
            return np.zeros((0, CLASSES), np.float64)
        crops = []
        for c, s in dice:
            crop = die_crop(image, c, s, px=self.crop_px)
            crops += [np.ascontiguousarray(np.rot90(crop, k * 4 // turns)) for k in range(turns)]
        return _geometric_mean(self._log_probs(crops).reshape(-1, turns, CLASSES))

    def read(
        self,
        image: np.ndarray,
        dice: Sequence[tuple[tuple[float, float], float]],
        hints: Sequence[Collection[int]],
        rule: TurnRule = "adaptive",
    ) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities (N, CLASSES) of no face, 1, ..., 6, and how many quarter turns of
        each die were read (N,).

        ``hints`` holds, per die, the faces other opinions read it as (the detector's own
        guess, the pip count). ``"adaptive"`` reads every die's crop once, and the other three
        quarter turns of a die only when that first turn is not a face at ``SURE_TURN`` or
        more or a hint reads another face; their geometric mean is then its reading, as
        :meth:`probabilities` gives it. ``"four"`` reads every turn of every die, ``"one"``
        the first alone.
        """
        if len(hints) != len(dice):
            raise ValueError(f"{len(hints)} hints for {len(dice)} dice; expected one per die")
        if not dice:
            return np.zeros((0, CLASSES), np.float64), np.zeros(0, np.int64)
        crops = [die_crop(image, c, s, px=self.crop_px) for c, s in dice]
        logp = self._log_probs(crops)[:, None, :]  # (N, 1, CLASSES): the first turn
        first = np.exp(logp[:, 0])
        top = first.argmax(axis=1)
        if rule == "one":
            redo = np.zeros(len(dice), bool)
        elif rule == "four":
            redo = np.ones(len(dice), bool)
        else:
            sure = (top > 0) & (first.max(axis=1) >= SURE_TURN)
            agreed = np.array(
                [all(h == t for h in hint) for hint, t in zip(hints, top, strict=True)]
            )
            redo = ~(sure & agreed)
        return self._turned(crops, logp, redo), np.where(redo, TURNS, 1)

    def no_face(
        self,
        image: np.ndarray,
        dice: Sequence[tuple[tuple[float, float], float]],
        doubt_from: float,
    ) -> np.ndarray:
        """The probability (N,) that each die shows no face: its first quarter turn's, and
        where that is ``doubt_from`` or more, the four turns' geometric mean, as
        :meth:`probabilities` gives it. For a caller that asks only whether a die shows a
        face at some level above ``doubt_from``: a die whose first turn sees a face plainly
        costs one crop, whatever value it reads."""
        if not dice:
            return np.zeros(0, np.float64)
        crops = [die_crop(image, c, s, px=self.crop_px) for c, s in dice]
        logp = self._log_probs(crops)[:, None, :]
        redo = np.exp(logp[:, 0, 0]) >= doubt_from
        return self._turned(crops, logp, redo)[:, 0]

    def _turned(self, crops: list[np.ndarray], logp: np.ndarray, redo: np.ndarray) -> np.ndarray:
        """Probabilities (N, CLASSES) of crops whose first quarter turn's log probabilities
        are ``logp`` (N, 1, CLASSES): the first turn's, or where ``redo``, the geometric mean
        of all four turns."""
        first = np.exp(logp[:, 0])
        probs: np.ndarray = first / first.sum(axis=1, keepdims=True)
        if redo.any():
            which = np.flatnonzero(redo)
            turned = [np.ascontiguousarray(np.rot90(crops[i], k)) for i in which for k in (1, 2, 3)]
            rest = self._log_probs(turned).reshape(-1, TURNS - 1, CLASSES)
            probs[which] = _geometric_mean(np.concatenate([logp[which], rest], axis=1))
        return probs

    def _log_probs(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """Log probabilities (N, CLASSES) of each crop, all crops in one forward pass."""
        logits = self.raw(crops_blob(list(crops))).astype(np.float64)
        logp = logits - logits.max(axis=1, keepdims=True)
        return np.asarray(logp - np.log(np.exp(logp).sum(axis=1, keepdims=True)))


def _geometric_mean(logp: np.ndarray) -> np.ndarray:
    """Probabilities (N, CLASSES) from log probabilities (N, VIEWS, CLASSES) of several views
    of each die: their normalised geometric mean."""
    mean = logp.mean(axis=1)
    e = np.exp(mean - mean.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def _crop_px(info: Path) -> int:
    """The crop side a face reader was trained on, from its JSON (CROP_PX when not given)."""
    if not info.is_file():
        return CROP_PX
    try:
        px = json.loads(info.read_text(encoding="utf-8")).get("crop_px", CROP_PX)
    except (OSError, ValueError, AttributeError) as exc:
        raise ValueError(f"{info} is not a face reader's JSON description: {exc}") from None
    if not crop_side_ok(px):
        raise ValueError(f"{info}: crop_px is {px!r}; expected {CROP_RULE}")
    return px


def crop_side_ok(px: object) -> TypeGuard[int]:
    """Whether ``px`` can be the side of a face reader's crops (``CROP_RULE``)."""
    return isinstance(px, int) and not isinstance(px, bool) and 8 <= px <= 256 and px % 8 == 0


@cache
def load_face_reader(path: Path = FACES_FILE) -> FaceReader | None:
    """The shipped face reader, or None when it is absent."""
    if not path.is_file():
        return None
    return FaceReader(path)


@cache
def load_single(path: Path = SINGLE_FILE) -> SingleStage | None:
    """The shipped single-stage reader, or None when it is absent (the two-stage reader then
    reads frames without a calibration)."""
    if not path.is_file():
        return None
    return SingleStage(path)


@cache
def load_detector(path: Path = DETECTOR_FILE) -> Detector | None:
    """The shipped detector, or None when it is absent (the reader then finds dice by colour)."""
    if not path.is_file():
        return None
    return Detector(path)
