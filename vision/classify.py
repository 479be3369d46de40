"""A small learned check of a die's value: a two-layer perceptron over the face's contrast map.

It runs on numpy alone, from weights shipped in ``vision/models/`` (trained by
``tools/train_classifier.py``). The reader uses it as a second opinion on the pip count:
agreement raises the confidence, disagreement lowers it (the tower shakes again).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.models import MODEL_DIR
from vision.segment import to_lab

PATCH = 24  # patch side in pixels
MODEL_FILE = MODEL_DIR / "dice_mlp.npz"
MODEL_INFO = MODEL_DIR / "dice_mlp.json"


def face_patch(frame: np.ndarray, centre: tuple[float, float], side: float) -> np.ndarray:
    """The die around ``centre`` as a PATCH x PATCH map of colour distance from its body.

    Distance from the body colour makes dark pips on light dice and light pips on dark dice
    look alike, so one model serves every colour.
    """
    half = 0.6 * side
    src = np.array(
        [
            [centre[0] - half, centre[1] - half],
            [centre[0] + half, centre[1] - half],
            [centre[0] - half, centre[1] + half],
        ],
        np.float32,
    )
    dst = np.array([[0, 0], [PATCH, 0], [0, PATCH]], np.float32)
    warp = cv2.getAffineTransform(src, dst)
    crop = cv2.warpAffine(
        frame, warp, (PATCH, PATCH), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )
    lab = to_lab(crop)
    core = lab[PATCH // 4 : 3 * PATCH // 4, PATCH // 4 : 3 * PATCH // 4].reshape(-1, 3)
    body = np.median(core, axis=0)
    dist = np.sqrt(((lab - body) ** 2).sum(axis=2))
    flat = dist.ravel()
    k = int(len(flat) * 0.95)
    scale = float(np.partition(flat, k)[k]) + 1e-3
    patch: np.ndarray = np.clip(dist / scale, 0.0, 1.5).astype(np.float32)
    return patch


@dataclass(frozen=True)
class DiceClassifier:
    """Weights of the perceptron: input (PATCH*PATCH) -> hidden (ReLU) -> 6 values (softmax)."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def probabilities(self, patches: np.ndarray) -> np.ndarray:
        """Probabilities of the values 1..6 for each patch: (N, PATCH, PATCH) -> (N, 6)."""
        x = patches.reshape(len(patches), -1)
        h = np.maximum(x @ self.w1 + self.b1, 0.0)
        z = h @ self.w2 + self.b2
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return np.asarray(e / e.sum(axis=1, keepdims=True))

    def save(self, path: Path = MODEL_FILE) -> None:
        """Write the weights (float32 .npz)."""
        np.savez_compressed(path, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2)


def flush_subnormal(weights: np.ndarray) -> np.ndarray:
    """``weights`` with every subnormal float32 (under 1.2e-38 in size, not zero) set to 0.

    Training leaves most of the first layer's weights subnormal. An x86 core multiplies
    those by microcode assist: the first layer of six patches took 1.16 ms on this
    project's x86 machine, 0.017 ms with them flushed; their part in a sum is under 1e-36."""
    tiny = np.finfo(np.float32).tiny
    out: np.ndarray = np.where(np.abs(weights) < tiny, np.float32(0), weights).astype(np.float32)
    return out


@cache
def load_classifier(path: Path = MODEL_FILE) -> DiceClassifier | None:
    """The shipped model, or None when it is absent (the reader then counts pips alone)."""
    if not path.is_file():
        return None
    with np.load(path) as data:
        arrays = {
            k: flush_subnormal(np.asarray(data[k], np.float32)) for k in ("w1", "b1", "w2", "b2")
        }
    if arrays["w1"].shape[0] != PATCH * PATCH or arrays["w2"].shape[1] != 6:
        raise ValueError(f"{path} is not a dice model for {PATCH}x{PATCH} patches")
    return DiceClassifier(**arrays)
