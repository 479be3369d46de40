"""The strategy tests' rules and win table: dicenow to 1,000 (``tests/conftest.py``).

A test module that plays other rules defines its own ``rules`` and ``table``.
"""

from __future__ import annotations

import pytest

from zilch import RuleSet
from zilch.strategy.winchance import WinTable


@pytest.fixture(scope="session")
def rules(small_rules: RuleSet) -> RuleSet:
    return small_rules


@pytest.fixture(scope="session")
def table(small_win_table: WinTable) -> WinTable:
    return small_win_table
