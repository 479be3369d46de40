"""Fixtures for the tower's body: a fake clock and a machine without GPIO.

The fresh mock pin factories (``mock_factory``, ``pwm_factory``) are in
``tests/conftest.py``, shared with the server's tests of the GPIO tower.
"""

from __future__ import annotations

import sys

import gpiozero.pins.mock
import pytest


class FakeClock:
    """A monotonic clock that moves only when something sleeps on it."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0, f"asked to sleep {seconds} s"
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """A fake clock that the mock pins also use, so pin times are exact and nothing sleeps."""
    fake = FakeClock()
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", fake)
    return fake


@pytest.fixture
def no_gpio(monkeypatch: pytest.MonkeyPatch) -> None:
    """Behave as a machine without GPIO even on a Pi: lgpio cannot be imported."""
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setitem(sys.modules, "lgpio", None)
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", None)
