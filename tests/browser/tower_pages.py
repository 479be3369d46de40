"""What the browser tests and the TV benchmark share: PINs, Chromium, a test table.

A module of its own (not ``conftest``) so test files import it by a name no
other test folder uses.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TABLE_PIN = "4321"
ADMIN_PIN = "97531"
SEED = 3
PAGE_TIMEOUT_MS = 60_000  # generous: CI machines are shared and slow at times


@dataclass
class LiveTable:
    """A running service: its base URL, the service object and its configuration."""

    url: str
    service: Any
    config: Any

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        """POST to the JSON API with the table PIN, as a phone would; the decoded answer."""
        import json
        import urllib.request

        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body or {}).encode(),
            headers={"Content-Type": "application/json", "X-Table-Pin": TABLE_PIN},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())


def require_chromium() -> None:
    """Skip without Debian's Chromium; under CI (``CI`` set) fail instead."""
    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is absent: install Debian's chromium to run the browser tests"
    if os.environ.get("CI"):
        pytest.fail(message + " (CI is set, so this is a failure, not a skip)")
    pytest.skip(message)


def write_config(state_dir: Path) -> Path:
    """A configuration file for a test table in ``state_dir``."""
    path = state_dir / "zilch-tower.toml"
    path.write_text(
        "[table]\n"
        f'pin = "{TABLE_PIN}"\n'
        f'admin_pin = "{ADMIN_PIN}"\n'
        'players = ["Ann", "Ben"]\n'
        "speech = false\n"
        "[tower]\n"
        f"seed = {SEED}\n"
        f'[state]\ndir = "{state_dir / "state"}"\n',
        encoding="utf-8",
    )
    return path
