"""``zilch-tower read`` streams its images: decode one, read it, print it, drop it."""

from __future__ import annotations

import json
import struct
import weakref
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

import server.commands.vision as verbs
import vision
from server.cli import main
from vision.imagefile import MAX_PIXELS
from vision.render import random_scene


@pytest.fixture
def frames(tmp_path: Path) -> list[Path]:
    paths = []
    for seed in range(3):
        path = tmp_path / f"f{seed}.png"
        cv2.imwrite(str(path), random_scene(seed, 6)[0])
        paths.append(path)
    return paths


def test_each_image_is_decoded_read_and_printed_before_the_next(
    frames: list[Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    events: list[str] = []
    alive: list[weakref.ref[np.ndarray]] = []
    load, read = verbs.load_image, vision.read_dice

    def loading(path: str) -> np.ndarray:
        # the frame before this one was dropped, and its answer is already out
        assert all(ref() is None for ref in alive)
        events.append(f"load {Path(path).name} after {capsys.readouterr().out.count(chr(10))}")
        frame = load(path)
        alive.append(weakref.ref(frame))
        return frame

    def reading(frame: np.ndarray, *args: object, **kwargs: object) -> vision.Reading:
        events.append("read")
        return read(frame, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(verbs, "load_image", loading)
    monkeypatch.setattr(vision, "read_dice", reading)
    assert main(["read", "--json", *map(str, frames)]) == 0
    assert events == [
        "load f0.png after 0",
        "read",
        "load f1.png after 1",
        "read",
        "load f2.png after 1",
        "read",
    ]


def test_read_sets_opencv_to_one_thread(frames: list[Path]) -> None:
    cv2.setNumThreads(2)
    assert main(["read", str(frames[0])]) == 0
    assert cv2.getNumThreads() == 1


def test_an_image_over_the_pixel_limit_stops_read_before_any_output(
    frames: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = tmp_path / "huge.png"
    ihdr = b"IHDR" + struct.pack(">IIBBBBB", 12_000, 9_000, 8, 2, 0, 0, 0)
    huge.write_bytes(
        b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + ihdr + struct.pack(">I", zlib.crc32(ihdr))
    )
    assert main(["read", "--json", str(frames[0]), str(huge)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert str(huge) in captured.err and f"limit is {MAX_PIXELS / 1e6:g} MP" in captured.err


def test_read_prints_one_line_per_image_in_order(
    frames: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["read", "--json", *map(str, frames)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [json.loads(line)["image"] for line in lines] == [str(p) for p in frames]
