"""Fixtures for the tower's body: fresh mock pin factories and a fake clock."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import gpiozero.pins.mock
import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin


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


def _install(factory: MockFactory) -> Iterator[MockFactory]:
    """gpiozero's own pattern: install a fresh factory, then reset it and restore the old one."""
    saved = Device.pin_factory
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    """A fresh ``MockFactory`` (plain digital pins)."""
    yield from _install(MockFactory())


@pytest.fixture
def pwm_factory() -> Iterator[MockFactory]:
    """A fresh ``MockFactory`` whose pins support PWM (for the status light)."""
    yield from _install(MockFactory(pin_class=MockPWMPin))


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
