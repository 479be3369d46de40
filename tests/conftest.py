"""Fixtures shared by every test package."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    """``../shared`` beside the project, or a skip saying it is missing."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent: the shared data folder is not beside the project")
    return SHARED
