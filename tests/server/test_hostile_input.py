"""Every route answers hostile input with a 4xx and one line, never a 500 (issue 19 item 5)."""

from __future__ import annotations

import pytest

from tests.server.conftest import ADMIN, PIN

HEADERS = {**PIN, **ADMIN}
NESTED = "[" * 1000 + "]" * 1000
HOSTILE_BODIES = [
    NESTED,
    '{"keep": ' + "[" * 5000 + "]" * 5000 + "}",
    '{"players": ' + "[" * 9 + "]" * 9 + "}",
    '{"keep": [1e400]}',
    '{"keep": [NaN]}',
    '{"join": "\\ud800"}',
    '{"keep": [' + "9" * 5000 + "]}",
    '{"rules": {"target": 99999999999999999999999999}}',
]
HUGE_IDS = [str(2**63), "9" * 40]


def _routes(app):  # type: ignore[no-untyped-def]
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static" or rule.rule == "/api/events":
            continue
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            if rule.arguments:
                for value in HUGE_IDS:
                    yield method, rule.rule.replace("<int:game_id>", value)
            else:
                yield method, rule.rule


def test_the_routes_are_all_covered(client) -> None:
    paths = {path for _, path in _routes(client.application)}
    assert {"/api/new-game", "/api/keep", "/api/settings", "/api/calibrate/save"} <= paths
    assert f"/api/games/{2**63}/record" in paths


def test_no_route_answers_hostile_input_with_a_500(client) -> None:
    before = client.get("/api/state").get_json()
    failures = []
    for method, path in _routes(client.application):
        bodies = HOSTILE_BODIES if method == "POST" else [None]
        for raw in bodies:
            response = client.open(
                path, method=method, data=raw, headers=HEADERS, content_type="application/json"
            )
            if response.status_code >= 500:
                failures.append((method, path, (raw or "")[:40], response.status_code))
            elif response.status_code >= 400 and path.startswith("/api"):
                error = response.get_json()["error"]
                assert "\n" not in error and len(error) < 400, (path, error)
    assert failures == []
    assert client.get("/api/state").get_json()["players"] == before["players"]


@pytest.mark.parametrize("game_id", HUGE_IDS)
def test_a_game_id_beyond_sqlite_is_unknown(client, game_id: str) -> None:
    response = client.get(f"/api/games/{game_id}/record")
    assert response.status_code == 404
    assert response.get_json() == {"error": f"no game {game_id}"}


@pytest.mark.parametrize("depth", [9, 1000, 8000])
def test_deep_bodies_name_the_limit(client, depth: int) -> None:
    raw = '{"keep": ' + "[" * depth + "]" * depth + "}"
    response = client.post("/api/keep", data=raw, headers=PIN, content_type="application/json")
    assert response.status_code in (400, 413)
    if response.status_code == 400:
        assert "deeper than 8 levels" in response.get_json()["error"]


@pytest.mark.parametrize(
    ("path", "sent", "quoted"),
    [
        ("/api/correct", {"correct": [1, 2, 3, 4, 5, 9], "name": "Ann"}, "got [1, 2, 3, 4, 5, 9]"),
        ("/api/keep", {"keep": "1 5"}, 'got "1 5"'),
        ("/api/keep", {}, "it was left out"),
        ("/api/roll", {"roll": False}, "got false"),
        ("/api/new-game", {"preset": 7}, "got 7"),
        ("/api/new-game", {"players": [["Ann"]]}, 'got ["Ann"]'),
        ("/api/settings", {"speech": "on"}, 'got "on"'),
        ("/api/pause", {"paused": 1}, "got 1"),
        ("/api/keep", {"keep": list(range(100))}, "got [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11..."),
    ],
)
def test_a_refused_value_is_quoted(client, path: str, sent: dict, quoted: str) -> None:
    before = client.get("/api/state").get_json()
    response = client.post(path, json=sent, headers=HEADERS)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error.endswith(quoted), error
    assert client.get("/api/state").get_json() == before


def test_a_refused_query_value_is_quoted(client) -> None:
    response = client.get("/api/games?limit=lots")
    assert response.status_code == 400
    assert response.get_json()["error"] == 'limit must be an integer from 1 to 500; got "lots"'
