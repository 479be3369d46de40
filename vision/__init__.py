"""Frames in, dice out: camera sources, the dice reader, calibration, annotation."""

from vision.annotate import annotate
from vision.calibrate import calibrate
from vision.calibration import Calibration, CalibrationError, load_calibration
from vision.profile import (
    DiceProfile,
    ProfileError,
    ProfileOutdated,
    TeachingExample,
    example_from_frame,
    examples_from_reading,
    fit_profile,
    load_profile,
)
from vision.reader import MIN_CONFIDENCE, read_dice
from vision.reading import Die, Reading
from vision.render import DIE_MM, TRAY_MM, RenderError, RenderStyle, random_scene, render_tray
from vision.settle import SettleDetector, SettleError
from vision.sources import (
    CameraNotFound,
    FileSource,
    FrameSource,
    OpenCVSource,
    Picamera2Source,
    RendererSource,
    SharedCamera,
    SourceError,
    open_source,
)

__all__ = [
    "DIE_MM",
    "MIN_CONFIDENCE",
    "TRAY_MM",
    "Calibration",
    "CalibrationError",
    "CameraNotFound",
    "DiceProfile",
    "Die",
    "FileSource",
    "FrameSource",
    "OpenCVSource",
    "Picamera2Source",
    "ProfileError",
    "ProfileOutdated",
    "Reading",
    "RenderError",
    "RenderStyle",
    "RendererSource",
    "SettleDetector",
    "SettleError",
    "SharedCamera",
    "SourceError",
    "TeachingExample",
    "annotate",
    "calibrate",
    "example_from_frame",
    "examples_from_reading",
    "fit_profile",
    "load_calibration",
    "load_profile",
    "open_source",
    "random_scene",
    "read_dice",
    "render_tray",
]
