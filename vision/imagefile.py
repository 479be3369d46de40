"""Image files from outside: their size read from the header, checked, then decoded.

Every path that decodes an image someone handed in (``zilch-tower read``, the
calibration page's uploads, any future one) goes through :func:`decode_image`
(bytes) or :func:`load_image_file` (a path), so that one limit,
:data:`MAX_PIXELS`, refuses an image before it is decoded: a few kilobytes of
compressed data can otherwise ask for gigabytes of pixels. :func:`check_pixels`
is the limit alone, for a size known some other way.
"""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np

MAX_PIXELS = 50_000_000
"""Largest image decoded (a 50 MP phone photo: 150 MB of BGR pixels)."""
FORMATS = "JPEG, PNG, BMP, GIF or WebP"


class ImageFileError(ValueError):
    """An image file that is missing, not an image, or too large; the message names it."""


def check_pixels(width: int, height: int, name: str, max_pixels: int = MAX_PIXELS) -> None:
    """Refuse an image of ``width`` x ``height`` over ``max_pixels`` (or with no pixels)."""
    if width <= 0 or height <= 0:
        raise ImageFileError(f"image {name} says it is {width} x {height} pixels; not an image")
    if width * height > max_pixels:
        raise ImageFileError(
            f"image {name} is {width} x {height} pixels ({width * height / 1e6:.1f} MP); "
            f"the limit is {max_pixels / 1e6:g} MP: scale it down first"
        )


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a JPEG's frame header (the first SOF marker)."""
    i = 2
    while i + 9 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return width, height
        i += 2 + length
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return w, h
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 " and len(data) >= 30:
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    return None


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from an image's header, or None when it is not a known format."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    if data[:2] == b"BM" and len(data) >= 26:
        w, h = struct.unpack("<ii", data[18:26])
        return w, abs(h)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return struct.unpack("<HH", data[6:10])
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_size(data)
    return None


def checked_size(data: bytes, name: str, max_pixels: int = MAX_PIXELS) -> tuple[int, int]:
    """The image's (width, height) from its header, within the limit; else ImageFileError."""
    size = image_size(data)
    if size is None:
        raise ImageFileError(f"image {name} is not a readable image ({FORMATS})")
    check_pixels(size[0], size[1], name, max_pixels)
    return size


def decode_image(data: bytes, name: str, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """A BGR frame from an image file's bytes; its size is checked before decoding."""
    checked_size(data, name, max_pixels)
    frame = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if frame is None:
        raise ImageFileError(f"image {name} is not a readable image ({FORMATS})")
    check_pixels(frame.shape[1], frame.shape[0], name, max_pixels)
    return np.asarray(frame)


def read_file(path: str | Path) -> bytes:
    """An image file's bytes; ImageFileError when it is missing or unreadable."""
    p = Path(path)
    if not p.is_file():
        raise ImageFileError(f"image {path} does not exist")
    try:
        return p.read_bytes()
    except OSError as exc:
        raise ImageFileError(f"image {path} cannot be read: {exc.strerror}") from None


def load_image_file(path: str | Path, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """A BGR frame from an image file, refused with one line when it cannot be one."""
    return decode_image(read_file(path), str(path), max_pixels)
