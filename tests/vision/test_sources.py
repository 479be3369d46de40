"""Frame sources: renderer, files, USB capture, picamera2 (faked), the shared camera."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.render import random_tray
from vision.sources import (
    CameraNotFound,
    FileSource,
    FrameSource,
    ImageFileError,
    NoMoreFrames,
    OpenCVSource,
    RendererSource,
    SharedCamera,
    SourceClosed,
    SourceError,
    open_source,
)


def solid(value: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    return np.full((size[1], size[0], 3), value, np.uint8)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Three PNGs named out of order, plus a file that is not an image."""
    for name, value in (("b.png", 20), ("a.png", 10), ("c.jpg", 30)):
        cv2.imwrite(str(tmp_path / name), solid(value))
    (tmp_path / "notes.txt").write_text("not an image")
    return tmp_path


# --- renderer ---------------------------------------------------------------------------------


def test_renderer_source_asks_for_the_tray_at_each_read() -> None:
    trays = [random_tray(1, 6), random_tray(2, 3)]
    asked = []

    def provider() -> list[dict[str, Any]]:
        asked.append(1)
        return trays[min(len(asked) - 1, 1)]

    with RendererSource(provider, size=(320, 240), seed=4) as source:
        assert isinstance(source, FrameSource)
        assert source.size == (320, 240)
        first = source.read()
        second = source.read()
        third = source.read()
    assert len(asked) == 3
    assert source.last_truth is not None and len(source.last_truth["dice"]) == 3
    assert source.last_truth["frame"] == 3
    assert first.shape == (240, 320, 3) and first.dtype == np.uint8
    still = np.abs(second.astype(int) - third.astype(int))
    assert 0 < still.mean() < 6  # same tray: only sensor noise differs
    assert np.abs(first.astype(int) - second.astype(int)).max() > 100  # the dice moved


def test_renderer_source_checks_its_options() -> None:
    with pytest.raises(SourceError, match="tray_provider"):
        RendererSource([], size=(640, 480))  # type: ignore[arg-type]
    with pytest.raises(SourceError, match="frame size"):
        RendererSource(list, size=(0, 480))
    with pytest.raises(SourceError, match="unknown render style"):
        RendererSource(list, style="glossy")


def test_closed_source_refuses_to_read() -> None:
    source = RendererSource(list, size=(64, 48))
    source.close()
    source.close()  # safe twice
    with pytest.raises(SourceClosed, match="closed"):
        source.read()


def test_bad_tray_from_the_provider_is_a_clear_error() -> None:
    source = RendererSource(lambda: [{"value": 9, "x": 1.0, "y": 1.0}])
    with pytest.raises(ValueError, match="value=9"):
        source.read()


# --- files ------------------------------------------------------------------------------------


def test_folder_in_name_order_cycling(folder: Path) -> None:
    source = FileSource(folder)
    assert source.size == (64, 48)
    levels = [int(source.read()[0, 0, 0]) for _ in range(5)]
    assert levels[:2] == [10, 20] and abs(levels[2] - 30) <= 2  # c.jpg is lossy
    assert levels[3:] == [10, 20]  # and round again
    assert source.last_path == folder / "b.png"


def test_folder_stopping_after_the_last(folder: Path) -> None:
    source = FileSource(folder, loop=False)
    for _ in range(3):
        source.read()
    with pytest.raises(NoMoreFrames, match="no more images after 3"):
        source.read()


def test_single_file_gives_fresh_copies(folder: Path) -> None:
    source = FileSource(folder / "a.png")
    frame = source.read()
    frame[:] = 255
    assert int(source.read()[0, 0, 0]) == 10


def test_file_source_resizes_to_a_given_size(folder: Path) -> None:
    frame = FileSource(folder, size=(32, 24)).read()
    assert frame.shape == (24, 32, 3)


def test_grey_image_becomes_bgr(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "grey.png"), np.full((10, 20), 77, np.uint8))
    frame = FileSource(tmp_path / "grey.png").read()
    assert frame.shape == (10, 20, 3)


@pytest.mark.parametrize(
    ("content", "words"),
    [(b"", "the file is empty"), (b"\x89PNG\r\n\x1a\nnot really", "not a readable image")],
)
def test_corrupt_or_empty_image_names_the_file(tmp_path: Path, content: bytes, words: str) -> None:
    bad = tmp_path / "bad.png"
    bad.write_bytes(content)
    with pytest.raises(ImageFileError, match=words) as caught:
        FileSource(bad)
    assert str(bad) in str(caught.value)


def test_corrupt_image_in_a_folder_is_named_when_reached(folder: Path) -> None:
    (folder / "d.png").write_bytes(b"garbage")
    source = FileSource(folder, loop=False)
    for _ in range(3):
        source.read()
    with pytest.raises(ImageFileError, match=r"d\.png"):
        source.read()


def test_missing_path_and_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(ImageFileError, match="no such image file or folder"):
        FileSource(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ImageFileError, match="holds no images"):
        FileSource(tmp_path / "empty")


# --- USB camera -------------------------------------------------------------------------------


class FakeCapture:
    """Stands in for cv2.VideoCapture: records property sets, returns set frames."""

    def __init__(self, opened: bool = True, frames: list[Any] | None = None) -> None:
        self.opened = opened
        self.frames = frames if frames is not None else [solid(90, (1280, 720))]
        self.props: dict[int, float] = {cv2.CAP_PROP_EXPOSURE: 156.0}
        self.calls: list[tuple[int, float]] = []
        self.released = 0

    def isOpened(self) -> bool:
        return self.opened

    def set(self, prop: int, value: float) -> bool:
        self.calls.append((prop, value))
        self.props[prop] = value
        return True

    def get(self, prop: int) -> float:
        return self.props.get(prop, 4600.0)

    def read(self) -> tuple[bool, Any]:
        if not self.frames:
            return False, None
        return True, self.frames.pop(0)

    def release(self) -> None:
        self.released += 1


def test_missing_usb_camera_is_a_clear_error() -> None:
    with pytest.raises(CameraNotFound, match="USB camera 63 is not available"):
        OpenCVSource(63)  # no such device here: the real cv2.VideoCapture says so


def test_usb_camera_reads_and_resizes_frames() -> None:
    capture = FakeCapture()
    with OpenCVSource(0, (640, 480), capture_factory=lambda device: capture) as source:
        assert (cv2.CAP_PROP_FRAME_WIDTH, 640) in capture.calls
        frame = source.read()
        assert frame.shape == (480, 640, 3)
        with pytest.raises(SourceError, match="returned no frame"):
            source.read()
    assert capture.released == 1


def test_usb_camera_rejects_a_malformed_frame() -> None:
    capture = FakeCapture(frames=[np.zeros((48, 64), np.float32)])
    source = OpenCVSource(0, (64, 48), capture_factory=lambda device: capture)
    with pytest.raises(SourceError, match="expected a BGR uint8 image"):
        source.read()


def test_usb_camera_locks_exposure_at_its_current_value() -> None:
    capture = FakeCapture()
    source = OpenCVSource(0, (640, 480), capture_factory=lambda device: capture)
    locked = source.lock_exposure()
    assert locked["exposure"] == 156.0
    assert capture.props[cv2.CAP_PROP_AUTO_EXPOSURE] == 0.25
    assert capture.props[cv2.CAP_PROP_AUTO_WB] == 0
    assert capture.props[cv2.CAP_PROP_EXPOSURE] == 156.0


def test_unopened_capture_is_camera_not_found() -> None:
    with pytest.raises(CameraNotFound):
        OpenCVSource(2, capture_factory=lambda device: FakeCapture(opened=False))


# --- shared camera ----------------------------------------------------------------------------


class SlowSource:
    """Counts reads and fails the test if two threads are inside read() at once."""

    name = "slow camera"
    size = (64, 48)

    def __init__(self) -> None:
        self.reads = 0
        self.inside = 0
        self.overlap = False
        self.closed = 0

    def read(self) -> np.ndarray:
        self.inside += 1
        self.overlap |= self.inside > 1
        time.sleep(0.002)
        self.reads += 1
        self.inside -= 1
        return solid(self.reads % 256)

    def close(self) -> None:
        self.closed += 1

    def __enter__(self) -> SlowSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def test_shared_camera_serialises_reads_across_threads() -> None:
    source = SlowSource()
    camera = SharedCamera(source)

    def grab() -> None:
        for _ in range(10):
            camera.read()

    threads = [threading.Thread(target=grab) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert source.reads == 40 and camera.frames == 40
    assert not source.overlap


def test_latest_does_not_touch_the_camera() -> None:
    source = SlowSource()
    camera = SharedCamera(source)
    assert camera.latest() is None
    frame = camera.read()
    frame[:] = 200  # the caller's frame is its own
    for _ in range(3):
        assert int(camera.latest()[0, 0, 0]) == 1  # type: ignore[index]
    assert source.reads == 1
    assert camera.last_read_at is not None


def test_lock_exposure_delegates_where_supported() -> None:
    capture = FakeCapture()
    usb = SharedCamera(OpenCVSource(0, capture_factory=lambda device: capture))
    assert usb.lock_exposure() is True
    assert capture.props[cv2.CAP_PROP_AUTO_EXPOSURE] == 0.25
    assert SharedCamera(SlowSource()).lock_exposure() is False


def test_shared_camera_closes_its_source() -> None:
    source = SlowSource()
    with SharedCamera(source) as camera:
        camera.read()
    assert source.closed == 1
    with pytest.raises(SourceError, match="not a frame source"):
        SharedCamera(object())  # type: ignore[arg-type]


def test_shared_camera_checks_frames() -> None:
    class Broken(SlowSource):
        def read(self) -> np.ndarray:
            return np.zeros((4, 4), np.uint8)

    with pytest.raises(SourceError, match="slow camera returned"):
        SharedCamera(Broken()).read()


# --- open_source ------------------------------------------------------------------------------


def test_open_source_sim_from_config_values() -> None:
    section = {"source": "sim", "device": 0, "path": "", "width": 320, "height": 240}
    with open_source(section["source"], **section) as source:
        assert isinstance(source, RendererSource)
        assert source.read().shape == (240, 320, 3)


def test_open_source_sim_with_a_tray_provider() -> None:
    tray = random_tray(5, 2)
    with open_source("sim", tray_provider=lambda: tray, seed=5) as source:
        assert source.read().shape == (480, 640, 3)


def test_open_source_files_keeps_the_image_size(folder: Path) -> None:
    with open_source("files", path=str(folder), width=640, height=480) as source:
        assert isinstance(source, FileSource)
        assert source.read().shape == (48, 64, 3)


def test_open_source_usb_and_picamera2_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(CameraNotFound, match="USB camera 63"):
        open_source("usb", device=63)
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(CameraNotFound, match="picamera2"):
        open_source("picamera2")


@pytest.mark.parametrize(
    ("kind", "options", "words"),
    [
        ("webcam", {}, "camera source 'webcam' is unknown; use one of sim, picamera2"),
        ("files", {"path": ""}, "needs a path"),
        ("sim", {"width": 10}, "frame size"),
        ("sim", {"colour": "red"}, "unknown camera option"),
        ("usb", {"device": 1.5}, "USB camera device"),
    ],
)
def test_open_source_bad_config(kind: str, options: dict[str, Any], words: str) -> None:
    with pytest.raises(SourceError, match=words):
        open_source(kind, **options)
