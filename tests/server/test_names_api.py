"""Player names through the API and the configuration: one normal form (zilch.names)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.config import load_config
from server.errors import ConfigError
from tests.server.conftest import PIN


def _post(client, path: str, body: object):  # type: ignore[no-untyped-def]
    return client.post(path, data=json.dumps(body), headers=PIN, content_type="application/json")


def test_lookalike_names_are_one_player(client) -> None:
    response = _post(client, "/api/new-game", {"players": ["Ann", "Ann\u00a0"]})
    assert response.status_code == 400
    assert "listed twice" in response.get_json()["error"]
    response = _post(client, "/api/new-game", {"players": ["Ann\u00a0", " Ben  Lee "]})
    assert response.status_code == 200, response.get_json()
    assert [p["name"] for p in response.get_json()["players"]] == ["Ann", "Ben Lee"]
    response = _post(client, "/api/join", {"join": "ben\u3000lee"})
    assert response.status_code == 409 and "already playing" in response.get_json()["error"]
    # The turn's player written with a no-break space is the same Ann.
    for spelling in ("Ann\u00a0", "ANN"):
        response = _post(client, "/api/bank", {"player": spelling})
        assert "turn, not" not in response.get_json().get("error", ""), spelling


@pytest.mark.parametrize(
    ("name", "reason"),
    [("B,en", "may not hold commas"), ("Be\nn", "control characters"), ("x" * 25, "longer than")],
)
def test_api_names_refused_with_the_rule(client, name: str, reason: str) -> None:
    response = _post(client, "/api/new-game", {"players": ["Ann", name]})
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert reason in error and "1 to 24 characters" in error and "\n" not in error


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/join", {"join": "x" * 5000}),
        ("/api/join", {"join": "B,en" * 1000}),
        ("/api/correct", {"correct": [1, 2, 3, 4, 5, 6], "name": "x" * 5000}),
    ],
)
def test_a_long_refused_name_is_quoted_short(client, path: str, body: dict) -> None:
    error = _post(client, path, body).get_json()["error"]
    assert len(error) < 200 and "..." in error, error


def test_config_names_follow_the_same_rule(tmp_path: Path) -> None:
    path = tmp_path / "tower.toml"
    path.write_text('[table]\nplayers = ["Ann", "B,en"]\n')
    with pytest.raises(ConfigError, match="may not hold commas"):
        load_config(path, env={})
