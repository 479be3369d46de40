"""Where frames come from: the Pi camera, a USB camera, image files, or the renderer.

Every source has ``read() -> frame`` (a BGR ``uint8`` array), ``close()``
(safe to repeat), ``size`` as ``(width, height)``, and works as a context
manager. One process owns a camera: wrap it once in :class:`SharedCamera` and
let every user borrow frames from that.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self, runtime_checkable

import cv2
import numpy as np

from closing import Closing
from vision.camera_settings import (
    AF_MODE_MANUAL,
    DEFAULT_LENS_HEIGHT_MM,
    DIE_TOP_MM,
    converged,
    full_field_mode,
    lens_dioptres,
    same_aspect_size,
    stable,
)
from vision.render import (
    DIE_MM,
    TRAY_MM,
    Frame,
    RenderError,
    RenderStyle,
    random_tray,
    render_tray,
    resolve_style,
)

log = logging.getLogger(__name__)

SOURCE_KINDS = ("sim", "picamera2", "usb", "files")
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})


class SourceError(ValueError):
    """A frame source cannot be opened or read; the message says which and why."""


class CameraNotFound(SourceError, OSError):
    """The configured camera (or the library that drives it) is not there."""


class ImageFileError(SourceError):
    """An image file is missing, empty or not a readable image."""


class NoMoreFrames(SourceError, EOFError):
    """A non-looping file source has handed out its last image."""


class SourceClosed(SourceError):
    """``read()`` on a source that was closed."""


@runtime_checkable
class FrameSource(Protocol):
    """Anything that hands out camera frames."""

    @property
    def size(self) -> tuple[int, int]:
        """Frame size as ``(width, height)``."""
        ...

    def read(self) -> Frame:
        """The next frame, a BGR ``uint8`` array of shape ``(height, width, 3)``."""
        ...

    def close(self) -> None:
        """Release the device; safe to call twice."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None: ...


def check_size(size: Any, what: str = "frame size") -> tuple[int, int]:
    """``(width, height)`` in whole pixels, 16..8192 each, or a :class:`SourceError`."""
    try:
        width, height = size
    except (TypeError, ValueError):
        raise SourceError(f"{what} {size!r} is not (width, height)") from None
    for value in (width, height):
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise SourceError(f"{what} {size!r}: width and height must be whole pixels")
        if not 16 <= value <= 8192:
            raise SourceError(f"{what} {size!r}: width and height must be 16..8192 pixels")
    return int(width), int(height)


def camera_frame(frame: Any, where: str) -> Frame:
    """A usable BGR frame, or a :class:`SourceError` saying what ``where`` returned instead."""
    if not isinstance(frame, np.ndarray):
        raise SourceError(f"{where} returned {type(frame).__name__}, not an image array")
    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3 or frame.size == 0:
        raise SourceError(
            f"{where} returned a {frame.dtype} array of shape {frame.shape}; "
            "expected a BGR uint8 image (height, width, 3)"
        )
    return frame


def fit(frame: Frame, size: tuple[int, int]) -> Frame:
    """The frame at ``size``; cameras may deliver another size than the one asked for."""
    if (frame.shape[1], frame.shape[0]) == size:
        return frame
    return np.asarray(cv2.resize(frame, size, interpolation=cv2.INTER_AREA))


class _Source(Closing):
    """Shared plumbing: the context manager, idempotent close, reads refused after close."""

    name = "source"
    _closed = False

    def close(self) -> None:
        """Release the device; safe to call twice."""
        if not self._closed:
            self._closed = True
            self._release()

    def _release(self) -> None:
        """Free what the source holds (once)."""

    def _check_open(self) -> None:
        if self._closed:
            raise SourceClosed(f"{self.name} is closed")


class RendererSource(_Source):
    """Rendered frames of the simulated tray: ``tray_provider()`` is asked at every read.

    The scene (floor, dice colours, lighting) is fixed by ``seed``; sensor noise
    and a little flicker change from frame to frame like a real camera's.
    ``last_truth`` is the renderer's ground truth for the last frame read.
    """

    name = "rendered camera"

    def __init__(
        self,
        tray_provider: Callable[[], Sequence[Mapping[str, Any]]],
        size: tuple[int, int] = (640, 480),
        seed: int = 0,
        style: RenderStyle | str | None = None,
        *,
        tray_mm: tuple[float, float] = TRAY_MM,
        die_mm: float = DIE_MM,
    ) -> None:
        if not callable(tray_provider):
            raise SourceError("tray_provider must be a function returning the tray's dice")
        self._size = check_size(size)
        self._provider = tray_provider
        self.seed, self.tray_mm, self.die_mm = seed, tray_mm, die_mm
        self._frame = 0
        self.last_truth: dict[str, Any] | None = None  # ground truth of the last frame
        try:  # check seed and style now, not at the first read
            self.style = resolve_style(style)
            self._render([])
        except RenderError as error:
            raise SourceError(f"rendered camera: {error}") from None

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    def read(self) -> Frame:
        """Render the tray as it is now."""
        self._check_open()
        self._frame += 1
        return self._render(self._provider())

    def _render(self, tray: Sequence[Mapping[str, Any]]) -> Frame:
        frame, self.last_truth = render_tray(
            tray,
            size=self._size,
            seed=self.seed,
            style=self.style,
            frame=self._frame,
            tray_mm=self.tray_mm,
            die_mm=self.die_mm,
        )
        return frame


class FileSource(_Source):
    """Frames from an image file, or from the images of a folder in name order.

    A folder cycles back to its first image (``loop=True``) or raises
    :class:`NoMoreFrames` after its last. With ``size`` each image is resized
    to it; without, ``size`` is the first image's.
    """

    def __init__(
        self, path: str | Path, *, loop: bool = True, size: tuple[int, int] | None = None
    ) -> None:
        self.path = Path(path)
        self.name = f"image source {self.path}"
        if self.path.is_dir():
            self.files = sorted(
                p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()
            )
            if not self.files:
                kinds = ", ".join(sorted(IMAGE_SUFFIXES))
                raise ImageFileError(f"{self.path}: folder holds no images ({kinds})")
        elif self.path.is_file():
            self.files = [self.path]
        else:
            raise ImageFileError(f"{self.path}: no such image file or folder")
        self.loop = loop
        self._next = 0
        self.last_path: Path | None = None
        first = self._load(self.files[0])
        self._size = check_size(size) if size is not None else (first.shape[1], first.shape[0])
        self._single = first if len(self.files) == 1 else None

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    @staticmethod
    def _load(path: Path) -> Frame:
        try:
            data = np.fromfile(path, dtype=np.uint8)
        except OSError as error:
            raise ImageFileError(f"{path}: cannot read ({error.strerror})") from None
        if data.size == 0:
            raise ImageFileError(f"{path}: the file is empty")
        frame = cv2.imdecode(data, cv2.IMREAD_COLOR)
        if frame is None:
            raise ImageFileError(f"{path}: not a readable image (corrupt or unknown format)")
        return camera_frame(frame, str(path))

    def read(self) -> Frame:
        """The next image, as a BGR frame of ``size``."""
        self._check_open()
        if self._next >= len(self.files):
            if not self.loop:
                raise NoMoreFrames(f"{self.path}: no more images after {len(self.files)}")
            self._next = 0
        path = self.files[self._next]
        self._next += 1
        self.last_path = path
        if self._single is not None:  # one image: decoded once, a fresh copy per read
            return fit(self._single, self._size).copy()
        return fit(self._load(path), self._size)


class OpenCVSource(_Source):
    """A USB (V4L2) camera through OpenCV's ``VideoCapture``.

    Every ``cap.set`` is checked: OpenCV returns false when the backend
    refuses a property, and a driver may accept one and keep its own value,
    so each value is read back too. What the driver ignored is logged and
    listed in ``ignored``.
    """

    def __init__(
        self,
        device: int | str = 0,
        size: tuple[int, int] = (640, 480),
        *,
        capture_factory: Callable[[int | str], Any] | None = None,
    ) -> None:
        if isinstance(device, bool) or not isinstance(device, int | str):
            raise SourceError(f"USB camera device {device!r}: use an index such as 0 or a path")
        self.name = f"USB camera {device}"
        self._size = check_size(size)
        self.ignored: list[str] = []
        self._capture = (capture_factory or cv2.VideoCapture)(device)
        if self._capture is None or not self._capture.isOpened():
            self._closed = True
            raise CameraNotFound(
                f"USB camera {device} is not available: is it plugged in, "
                "and not held by another program?"
            )
        self._set("frame width", cv2.CAP_PROP_FRAME_WIDTH, self._size[0])
        self._set("frame height", cv2.CAP_PROP_FRAME_HEIGHT, self._size[1])

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    def _set(self, what: str, prop: int, value: float, *, tolerance: float = 0.01) -> bool:
        """Set one property; false (logged, kept in ``ignored``) when the driver ignored it."""
        accepted = bool(self._capture.set(prop, value))
        now = float(self._capture.get(prop))
        if accepted and abs(now - value) <= tolerance * max(abs(value), 1.0):
            return True
        reason = "refused it" if not accepted else f"kept {now:g}"
        log.warning("%s: the driver ignored %s = %g (%s)", self.name, what, value, reason)
        self.ignored.append(what)
        return False

    def read(self) -> Frame:
        """Grab and decode the next frame, resized to ``size`` if the camera differs."""
        self._check_open()
        ok, frame = self._capture.read()
        if not ok or frame is None:
            raise SourceError(f"{self.name} returned no frame (unplugged?)")
        return fit(camera_frame(frame, self.name), self._size)

    def lock_exposure(self) -> dict[str, float]:
        """Switch auto exposure and white balance off at their current values (V4L2).

        Returns the values asked for; a setting the driver ignored is logged
        and named in ``ignored`` (the camera then keeps adjusting that one).
        """
        self._check_open()
        exposure = float(self._capture.get(cv2.CAP_PROP_EXPOSURE))
        temperature = float(self._capture.get(cv2.CAP_PROP_WB_TEMPERATURE))
        # V4L2 through OpenCV: auto exposure 0.25 is manual, 0.75 is auto.
        self._set("auto exposure off", cv2.CAP_PROP_AUTO_EXPOSURE, 0.25)
        self._set("exposure", cv2.CAP_PROP_EXPOSURE, exposure)
        self._set("auto white balance off", cv2.CAP_PROP_AUTO_WB, 0)
        self._set("white balance temperature", cv2.CAP_PROP_WB_TEMPERATURE, temperature)
        return {"exposure": exposure, "wb_temperature": temperature}

    def _release(self) -> None:
        self._capture.release()


class Picamera2Source(_Source):
    """The Raspberry Pi camera through picamera2 (imported only when constructed).

    The sensor runs in a mode that reads its whole field (binned), and the
    main stream has that mode's aspect, so the frame is the whole view
    without a crop: ``size`` can be wider than asked (``1296x972`` becomes
    ``1728x972`` on the 16:9 Camera Module 3). Left alone, libcamera picks
    the mode nearest the main size, which on the Camera Module 3 is a
    centre crop for any size under 1536x864 and reads only the middle of
    the tray.

    A lens with autofocus is set to manual focus on the dice at
    ``lens_height_mm`` above the floor; a camera without focus control is
    left as it is. After starting, it skips ``skip_frames`` frames, then
    waits until libcamera reports ``AeState`` converged (where it reports
    it) and exposure and colour gains have stayed within 2% over
    ``stable_frames`` frames (at most ``settle_frames`` frames), then fixes
    them at the measured values so every frame of a game is exposed alike.
    """

    name = "Pi camera"
    LOCKED = ("ExposureTime", "AnalogueGain", "ColourGains")

    def __init__(
        self,
        size: tuple[int, int] = (640, 480),
        *,
        camera_num: int = 0,
        settle_frames: int = 45,
        lock: bool = True,
        lens_height_mm: float = DEFAULT_LENS_HEIGHT_MM,
        skip_frames: int = 4,
        stable_frames: int = 6,
    ) -> None:
        self._size = check_size(size)
        if not 1 <= settle_frames <= 600:
            raise SourceError(f"settle_frames={settle_frames}: use 1..600 frames")
        if not 0 <= skip_frames < settle_frames or not 2 <= stable_frames <= settle_frames:
            raise SourceError(
                f"skip_frames={skip_frames}, stable_frames={stable_frames}: skip fewer frames "
                f"than settle_frames ({settle_frames}) and compare 2..{settle_frames} frames"
            )
        if not 50 <= lens_height_mm <= 2000:
            raise SourceError(f"lens height {lens_height_mm:g} mm: use 50..2000 mm")
        self.settle_frames = settle_frames
        self.skip_frames = skip_frames
        self.stable_frames = stable_frames
        self.lens_height_mm = float(lens_height_mm)
        self.sensor_mode: dict[str, Any] = {}
        self.focus: dict[str, Any] = {}
        try:
            picamera2 = importlib.import_module("picamera2")
        except ImportError:
            raise CameraNotFound(
                "picamera2 is not installed: on Raspberry Pi OS run "
                "`sudo apt install python3-picamera2` (and create the venv with "
                "--system-site-packages)"
            ) from None
        try:
            self._camera = picamera2.Picamera2(camera_num)
        except (IndexError, RuntimeError, OSError) as error:
            raise CameraNotFound(f"Pi camera {camera_num} is not available: {error}") from None
        self.controls: dict[str, Any] = {}
        try:
            self._configure()
            self._camera.start()
            self._focus()
            if lock:
                self.lock_exposure()
        except SourceError:
            self.close()
            raise
        except (RuntimeError, ValueError, OSError) as error:
            self.close()
            raise SourceError(f"Pi camera {camera_num} cannot start: {error}") from error

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    def _configure(self) -> None:
        """A full-field sensor mode and a main stream of its aspect."""
        mode = full_field_mode(list(self._camera.sensor_modes), self._size)
        if mode is None:
            log.warning("Pi camera lists no sensor modes; libcamera picks one (may crop)")
            config = self._camera.create_video_configuration(
                main={"size": self._size, "format": "RGB888"}  # numpy array in BGR order
            )
        else:
            width, height = (int(v) for v in mode["size"])
            self._size = same_aspect_size(self._size, width / height)
            sensor = {"output_size": (width, height), "bit_depth": int(mode["bit_depth"])}
            try:
                config = self._camera.create_video_configuration(
                    main={"size": self._size, "format": "RGB888"}, sensor=sensor
                )
            except TypeError:
                raise SourceError(
                    "this picamera2 cannot be given a sensor mode (no sensor= argument); "
                    "update it: sudo apt install --only-upgrade python3-picamera2"
                ) from None
        self._camera.configure(config)
        chosen = dict(self._camera.camera_config.get("sensor") or {})
        self.sensor_mode = chosen
        if mode is not None and tuple(chosen.get("output_size", ())) != tuple(mode["size"]):
            raise SourceError(
                f"Pi camera ran sensor mode {chosen.get('output_size')} instead of the "
                f"full-field {tuple(mode['size'])}; the tray would be cropped"
            )
        log.info("Pi camera: sensor mode %s, frames %dx%d", chosen, *self._size)

    def _focus(self) -> None:
        """Manual focus on the dice where the lens can focus; nothing where it cannot."""
        available = self._camera.camera_controls
        if "LensPosition" not in available or "AfMode" not in available:
            log.info("Pi camera has no focus control; its focus is fixed")
            return
        dioptres = lens_dioptres(self.lens_height_mm)
        low, high = (float(v) for v in available["LensPosition"][:2])
        if not low <= dioptres <= high:
            log.warning(
                "Pi camera: focus at %.0f mm needs %.2f dioptres, outside the lens's %g..%g",
                self.lens_height_mm - DIE_TOP_MM, dioptres, low, high,
            )  # fmt: skip
            dioptres = min(max(dioptres, low), high)
        self.focus = {"AfMode": AF_MODE_MANUAL, "LensPosition": dioptres}
        self._camera.set_controls(dict(self.focus))

    def _settle(self) -> dict[str, Any]:
        """Metadata once exposure and white balance have converged and held still."""
        recent: list[dict[str, Any]] = []
        metadata: dict[str, Any] = {}
        for frame in range(self.settle_frames):
            metadata = dict(self._camera.capture_metadata())
            if frame < self.skip_frames:
                continue  # the first frames still carry the start-up exposure
            recent = [*recent, {key: metadata.get(key) for key in self.LOCKED}]
            recent = recent[-self.stable_frames :]
            if converged(metadata) and len(recent) == self.stable_frames and stable(recent):
                break
        else:
            log.warning("Pi camera exposure still moving after %d frames", self.settle_frames)
        return metadata

    def lock_exposure(self) -> dict[str, Any]:
        """Let exposure and white balance settle, then hold them at the measured values."""
        self._check_open()
        metadata = self._settle()
        missing = [key for key in self.LOCKED if key not in metadata]
        if missing:
            raise SourceError(f"Pi camera metadata lacks {', '.join(missing)}; cannot lock")
        controls = {"AeEnable": False, "AwbEnable": False}
        controls |= {key: metadata[key] for key in self.LOCKED}
        self._camera.set_controls(controls)
        self.controls = controls
        return controls

    def read(self) -> Frame:
        """Capture the next frame from the main stream."""
        self._check_open()
        try:
            frame = self._camera.capture_array("main")
        except (RuntimeError, OSError) as error:
            raise SourceError(f"Pi camera returned no frame: {error}") from error
        return fit(camera_frame(frame, self.name), self._size)

    def _release(self) -> None:
        try:
            self._camera.stop()
        finally:
            self._camera.close()


class SharedCamera(Closing):
    """The one owner of a camera in a process; threads borrow frames from it.

    ``read()`` grabs a new frame (one thread at a time), ``latest()`` hands a
    copy of the last one without touching the camera (for a calibration page
    or a status view while the controller reads).
    """

    def __init__(self, source: FrameSource) -> None:
        if not isinstance(source, FrameSource):
            raise SourceError(f"{type(source).__name__} is not a frame source")
        self.source = source
        self._lock = threading.Lock()
        self._latest: Frame | None = None
        self.frames = 0
        self.last_read_at: float | None = None  # time.monotonic() of the latest frame

    @property
    def size(self) -> tuple[int, int]:
        return self.source.size

    def read(self) -> Frame:
        """Grab a new frame from the camera and keep a copy as the latest."""
        with self._lock:
            frame = camera_frame(self.source.read(), getattr(self.source, "name", "camera"))
            self._latest = frame.copy()
            self.frames += 1
            self.last_read_at = time.monotonic()
        return frame

    def latest(self) -> Frame | None:
        """A copy of the last frame read, or ``None`` before the first read."""
        with self._lock:
            return None if self._latest is None else self._latest.copy()

    def lock_exposure(self) -> bool:
        """Fix exposure and white balance where the source can; false where it cannot."""
        locker = getattr(self.source, "lock_exposure", None)
        if locker is None:
            return False
        with self._lock:
            locker()
        return True

    def close(self) -> None:
        """Close the camera; safe to call twice."""
        with self._lock:
            self.source.close()


def open_source(
    kind: str,
    *,
    size: tuple[int, int] | None = None,
    width: int | None = None,
    height: int | None = None,
    device: int | str = 0,
    path: str | Path = "",
    loop: bool = True,
    seed: int = 0,
    style: RenderStyle | str | None = None,
    tray_provider: Callable[[], Sequence[Mapping[str, Any]]] | None = None,
    lens_height_mm: float = DEFAULT_LENS_HEIGHT_MM,
    **ignored: Any,
) -> FrameSource:
    """Build a frame source from configuration values (``[camera]`` of the config file).

    ``kind`` is ``sim``, ``picamera2``, ``usb`` or ``files``. Cameras and the
    renderer take ``size`` or ``width`` and ``height`` (640x480 by default);
    image files keep their own size unless ``size`` is given. Options that
    belong to another kind are ignored, so a config section can be passed
    whole: ``open_source(section["source"], **section)``.
    """
    if kind not in SOURCE_KINDS:
        raise SourceError(
            f"camera source {kind!r} is unknown; use one of {', '.join(SOURCE_KINDS)}"
        )
    unknown = sorted(set(ignored) - {"source", "calibration"})
    if unknown:
        raise SourceError(f"unknown camera option(s) {', '.join(unknown)}")
    if kind == "files":  # images keep their own size: width and height are for cameras
        if not str(path):
            raise SourceError("camera source 'files' needs a path: an image file or a folder")
        return FileSource(path, loop=loop, size=size)
    if size is None:
        size = (640 if width is None else width, 480 if height is None else height)
    size = check_size(size)
    if kind == "sim":
        return RendererSource(tray_provider or _still_tray(seed), size, seed, style)
    if kind == "picamera2":
        return Picamera2Source(size, lens_height_mm=lens_height_mm)
    return OpenCVSource(device, size)


def _still_tray(seed: int) -> Callable[[], Sequence[Mapping[str, Any]]]:
    """A tray provider for the simulator without a tower: six dice that never move."""
    try:
        tray = random_tray(seed)
    except RenderError as error:
        raise SourceError(f"rendered camera: {error}") from None
    return lambda: tray
