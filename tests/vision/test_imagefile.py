"""Image files from outside: the size from the header, one pixel limit, one-line refusals."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.imagefile import (
    MAX_PIXELS,
    ImageFileError,
    check_pixels,
    decode_image,
    image_size,
    load_image_file,
)


def png_header(width: int, height: int) -> bytes:
    """The start of a PNG that says it is ``width`` x ``height`` (no pixel data)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return (
        b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))
    )


@pytest.mark.parametrize("ext", [".jpg", ".png", ".bmp", ".webp"])
def test_the_header_gives_the_size(ext: str) -> None:
    image = np.zeros((37, 53, 3), np.uint8)
    ok, data = cv2.imencode(ext, image)
    assert ok and image_size(data.tobytes()) == (53, 37)


def test_a_jpeg_with_a_large_exif_block_still_gives_its_size() -> None:
    _, data = cv2.imencode(".jpg", np.zeros((20, 30, 3), np.uint8))
    raw = data.tobytes()
    app1 = b"\xff\xe1" + struct.pack(">H", 60_002) + b"Exif\x00\x00" + b"\x00" * 59_994
    assert image_size(raw[:2] + app1 + raw[2:]) == (30, 20)


def test_an_image_over_the_limit_is_refused_before_decoding(tmp_path: Path) -> None:
    path = tmp_path / "huge.png"
    path.write_bytes(png_header(10_000, 9_000))
    with pytest.raises(ImageFileError) as exc:
        load_image_file(path)
    text = str(exc.value)
    assert text == (
        f"image {path} is 10000 x 9000 pixels (90.0 MP); "
        f"the limit is {MAX_PIXELS / 1e6:g} MP: scale it down first"
    )


def test_the_limit_can_be_lower_for_a_caller() -> None:
    _, data = cv2.imencode(".png", np.zeros((100, 100, 3), np.uint8))
    assert decode_image(data.tobytes(), "small.png", max_pixels=10_000).shape == (100, 100, 3)
    with pytest.raises(ImageFileError, match=r"small.png is 100 x 100 pixels .* limit is 0.0099"):
        decode_image(data.tobytes(), "small.png", max_pixels=9_900)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "not a readable image"),
        (b"GIF89a", "not a readable image"),
        (b"\xff\xd8\xff\xe0 cut short", "not a readable image"),
        (png_header(0, 10), "says it is 0 x 10 pixels"),
        (png_header(40, 30) + b"no pixels", "not a readable image"),
    ],
)
def test_not_an_image_is_one_line(data: bytes, words: str) -> None:
    with pytest.raises(ImageFileError) as exc:
        decode_image(data, "x.png")
    assert words in str(exc.value) and "\n" not in str(exc.value)


def test_check_pixels_alone() -> None:
    check_pixels(8000, 6000, "ok.jpg")
    with pytest.raises(ImageFileError, match=r"ok\.jpg is 8000 x 7000"):
        check_pixels(8000, 7000, "ok.jpg")


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ImageFileError, match=f"image {tmp_path / 'no.jpg'} does not exist"):
        load_image_file(tmp_path / "no.jpg")
