"""Frames in, dice out: camera sources, the dice reader, calibration, annotation."""

from vision.annotate import annotate
from vision.calibration import Calibration, CalibrationError, calibrate, load_calibration
from vision.reader import MIN_CONFIDENCE, read_dice
from vision.reading import Die, Reading

__all__ = [
    "MIN_CONFIDENCE",
    "Calibration",
    "CalibrationError",
    "Die",
    "Reading",
    "annotate",
    "calibrate",
    "load_calibration",
    "read_dice",
]
