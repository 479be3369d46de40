"""Frames in, dice out: camera sources, the dice reader, calibration, annotation."""
