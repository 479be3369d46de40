"""Fixtures for the service: a table on the simulated tower in a temporary state directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server.app import create_app
from server.config import Config, load_config
from server.controller import Timing
from server.service import TableService

PIN = {"X-Table-Pin": "2468"}
ADMIN = {"X-Admin-Pin": "13579"}
FAST = Timing(settle_timeout_s=2.0, poll_s=0.01, bot_delay_s=0.0, reshakes=3)


# One 1 ms pulse: the simulated dice stop tumbling at once (tests never wait for them).
QUICK_SHAKE = "[solenoid]\npulses = 1\npulse_ms = 1\ngap_ms = 100\n"


def make_config(state_dir: Path, text: str = QUICK_SHAKE) -> Config:
    """A configuration from ``text`` (TOML) with its state in ``state_dir``."""
    path = state_dir / "tower.toml"
    state_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(text + f'\n[state]\ndir = "{state_dir}"\n')
    return load_config(path, env={})


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return make_config(tmp_path / "state")


@pytest.fixture
def service(config: Config) -> Iterator[TableService]:
    """A running table: simulated tower (seed 7, no settle time), real renderer and reader."""
    table = TableService(config, sim=True, seed=7, timing=FAST, sim_settle_s=0.0)
    table.start()
    yield table
    table.stop()


@pytest.fixture
def client(service: TableService):  # type: ignore[no-untyped-def]
    app = create_app(service.config, service, test_config={"TESTING": True})
    return app.test_client()
