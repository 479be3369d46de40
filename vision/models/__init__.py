"""The shipped vision models (package data) and the development photos they were trained on.

Each model has a JSON file beside it that lists, under ``trained_on_photos``, the photos
(``folder/file``) it saw; the tools in ``tools/`` train on every photo that is not
:func:`held_out`.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

MODEL_DIR = Path(__file__).resolve().parent


def held_out(name: str) -> bool:
    """Whether the photo ``folder/file`` is in the quarter no model is ever trained on."""
    return zlib.crc32(name.encode()) % 4 == 0


def photos_seen(*infos: Path) -> frozenset[str]:
    """The photos the models described by the JSON files ``infos`` were trained on
    (all the shipped models when none is named)."""
    names: set[str] = set()
    for info in infos or tuple(sorted(MODEL_DIR.glob("*.json"))):
        if info.is_file():
            names.update(json.loads(info.read_text(encoding="utf-8")).get("trained_on_photos", []))
    return frozenset(names)
