"""Fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from gpiozero.pins.mock import MockFactory

    from zilch import RuleSet
    from zilch.strategy.winchance import WinTable
    from zilch.strategy.winsolve import WinSolve

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    """``../shared`` beside the project, or a skip saying it is missing."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent: the shared data folder is not beside the project")
    return SHARED


@pytest.fixture(scope="session")
def small_rules() -> RuleSet:
    """dicenow played to 1,000 (a house rule): a win table solved in seconds, not minutes."""
    from zilch import find_preset

    return find_preset("dicenow").with_house_rules({"target": "1000"})


@pytest.fixture(scope="session")
def small_win_solve(small_rules: RuleSet) -> WinSolve:
    """The two-player win solve of ``small_rules``, solved once for the whole session."""
    from zilch.strategy.winsolve import solve_win

    return solve_win(small_rules)


@pytest.fixture(scope="session")
def small_win_table(small_win_solve: WinSolve) -> WinTable:
    """The win table of ``small_rules`` (from the session's one solve)."""
    from zilch.strategy.winchance import WinTable

    return WinTable.of(small_win_solve)


def _installed(factory: MockFactory) -> Iterator[MockFactory]:
    """gpiozero's own pattern: install a fresh factory, then reset it and restore the old one."""
    from gpiozero import Device

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
    from gpiozero.pins.mock import MockFactory

    yield from _installed(MockFactory())


@pytest.fixture
def pwm_factory() -> Iterator[MockFactory]:
    """A fresh ``MockFactory`` whose pins support PWM (for the status light)."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    yield from _installed(MockFactory(pin_class=MockPWMPin))
