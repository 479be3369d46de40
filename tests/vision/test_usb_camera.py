"""The USB camera's property sets are checked: what the driver ignores is said, never assumed."""

from __future__ import annotations

import logging

import cv2
import pytest

from tests.vision.test_sources import FakeCapture
from vision.sources import OpenCVSource


class PickyCapture(FakeCapture):
    """A V4L2 driver that refuses some properties and quietly keeps its own value for others."""

    def __init__(self, refuses: set[int], keeps: dict[int, float]) -> None:
        super().__init__()
        self.refuses, self.keeps = refuses, keeps

    def set(self, prop: int, value: float) -> bool:
        self.calls.append((prop, value))
        if prop in self.refuses:
            return False
        self.props[prop] = self.keeps.get(prop, value)
        return True


def test_every_setting_a_driver_accepts_is_not_reported(caplog: pytest.LogCaptureFixture) -> None:
    source = OpenCVSource(0, (640, 480), capture_factory=lambda device: FakeCapture())
    with caplog.at_level(logging.WARNING, logger="vision.sources"):
        source.lock_exposure()
    assert source.ignored == [] and caplog.text == ""


def test_refused_and_ignored_settings_are_named(caplog: pytest.LogCaptureFixture) -> None:
    capture = PickyCapture(
        refuses={cv2.CAP_PROP_AUTO_WB, cv2.CAP_PROP_WB_TEMPERATURE},
        keeps={cv2.CAP_PROP_FRAME_WIDTH: 1280, cv2.CAP_PROP_AUTO_EXPOSURE: 3},
    )
    with caplog.at_level(logging.WARNING, logger="vision.sources"):
        source = OpenCVSource(4, (640, 480), capture_factory=lambda device: capture)
        locked = source.lock_exposure()
    assert source.ignored == [
        "frame width",
        "auto exposure off",
        "auto white balance off",
        "white balance temperature",
    ]
    assert "USB camera 4: the driver ignored frame width = 640 (kept 1280)" in caplog.text
    assert "ignored auto white balance off = 0 (refused it)" in caplog.text
    assert locked["exposure"] == 156.0
    assert source.read().shape == (480, 640, 3)  # frames are still fitted to the size asked
