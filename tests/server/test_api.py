"""The JSON API through Flask's test client: PIN rules, bad input, play, history."""

from __future__ import annotations

import json

import pytest

from tests.server.conftest import ADMIN, PIN
from zilch import RuleSet, find_preset

PLAY_ENDPOINTS = ["/api/new-game", "/api/join", "/api/roll", "/api/keep", "/api/bank", "/api/skip"]


def _post(client, path: str, body: object | None = None, headers: dict | None = None, raw=None):
    data = raw if raw is not None else (json.dumps(body) if body is not None else None)
    return client.post(
        path,
        data=data,
        headers=headers if headers is not None else PIN,
        content_type="application/json",
    )


def _start(client, players=("Ann", "Ben"), preset="dicenow"):
    response = _post(client, "/api/new-game", {"preset": preset, "players": list(players)})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_idle_state_document(client) -> None:
    state = client.get("/api/state").get_json()
    assert state["phase"] == "idle"
    assert state["players"] == [] and state["current"] is None and state["game_id"] is None
    for key in ("preset", "turn", "finished", "winners", "log", "table", "seq", "announcement"):
        assert key in state
    assert set(state["turn"]) >= {"total", "roll", "dice_left", "best", "can_bank"}
    assert state["table"]["next_game"] is None, "no schedule is made up when none is configured"


@pytest.mark.parametrize("path", PLAY_ENDPOINTS)
@pytest.mark.parametrize("headers", [{}, {"X-Table-Pin": "0000"}, {"X-Table-Pin": ""}])
def test_changes_need_the_table_pin(client, path: str, headers: dict) -> None:
    before = client.get("/api/state").get_json()
    response = _post(client, path, {}, headers=headers)
    assert response.status_code == 401
    assert "X-Table-Pin" in response.get_json()["error"]
    assert client.get("/api/state").get_json() == before


def test_pin_from_the_environment(tmp_path, monkeypatch) -> None:
    from server.app import create_app
    from server.config import load_config
    from server.service import TableService
    from tests.server.conftest import FAST

    config = load_config(env={"ZILCH_TOWER_PIN": "9753", "ZILCH_TOWER_STATE_DIR": str(tmp_path)})
    with TableService(config, sim=True, seed=1, timing=FAST, sim_settle_s=0) as table:
        app_client = create_app(config, table).test_client()
        assert _post(app_client, "/api/new-game", {"players": ["Ann", "Ben"]}).status_code == 401
        ok = _post(
            app_client, "/api/new-game", {"players": ["Ann", "Ben"]}, {"X-Table-Pin": "9753"}
        )
        assert ok.status_code == 200


def test_guessing_pins_is_stopped(client) -> None:
    codes = [
        _post(client, "/api/roll", {}, {"X-Table-Pin": f"{n:04d}"}).status_code for n in range(12)
    ]
    assert codes[:10] == [401] * 10 and codes[10:] == [429, 429]


BAD_BODIES = [
    ("/api/keep", None, "{", "not valid JSON"),
    ("/api/keep", [1, 5], None, "must be a JSON object"),
    ("/api/keep", {"keep": [1], "extra": 1}, None, "unknown field 'extra'"),
    ("/api/keep", {}, None, "'keep' must be a list"),
    ("/api/keep", {"keep": []}, None, "'keep' must be a list"),
    ("/api/keep", {"keep": [7]}, None, "'keep' must be a list"),
    ("/api/keep", {"keep": [True]}, None, "'keep' must be a list"),
    ("/api/keep", {"keep": "15"}, None, "'keep' must be a list"),
    ("/api/keep", {"keep": [1, 1, 1, 1, 1, 1, 1]}, None, "'keep' must be a list"),
    ("/api/roll", {"roll": [1, 2, 3]}, None, "reads the dice itself"),
    ("/api/bank", {"bank": False}, None, "'bank' must be true"),
    ("/api/skip", {"skip": 1}, None, "'skip' must be true"),
    ("/api/join", {}, None, "'name' must be a player's name"),
    ("/api/join", {"join": ""}, None, "'join' must be a player's name"),
    ("/api/join", {"join": "x" * 25}, None, "1 to 24 characters"),
    ("/api/join", {"join": "Cy", "bot": 3}, None, "'bot' must be"),
    ("/api/new-game", {"preset": 5}, None, "'preset' must be"),
    ("/api/new-game", {"preset": "yahtzee"}, None, "yahtzee"),
    ("/api/new-game", {"rules": {"three_pairs": 1.5}}, None, "'rules' must be"),
    ("/api/new-game", {"rules": {"no_such_rule": 1}}, None, "no_such_rule"),
    ("/api/new-game", {"players": "Ann"}, None, "'players' must be a list"),
    ("/api/new-game", {"players": ["Ann", "Ann"]}, None, "listed twice"),
    ("/api/new-game", {"players": [{"name": "Cy", "bot": "genius"}]}, None, "genius"),
    ("/api/new-game", {"players": [{"nom": "Cy"}]}, None, "each player must be"),
    ("/api/roll", {"player": 42}, None, "'player' must be"),
]


@pytest.mark.parametrize(("path", "body", "raw", "message"), BAD_BODIES)
def test_bad_input_is_400_with_a_reason_and_changes_nothing(
    client, path: str, body: object, raw: str | None, message: str
) -> None:
    before = client.get("/api/state").get_json()
    response = _post(client, path, body, raw=raw)
    assert response.status_code == 400, response.get_json()
    error = response.get_json()["error"]
    assert message in error and "\n" not in error
    assert client.get("/api/state").get_json() == before


@pytest.mark.parametrize("path", ["/api/roll", "/api/keep", "/api/bank", "/api/skip", "/api/join"])
def test_actions_without_a_game_are_409(client, path: str) -> None:
    body = {"keep": [1]} if path == "/api/keep" else {"join": "Ann"} if "join" in path else {}
    response = _post(client, path, body)
    assert response.status_code == 409
    assert "no game" in response.get_json()["error"]


def test_unknown_routes_and_methods_are_json(client) -> None:
    response = client.get("/api/nothing-here")
    assert response.status_code == 404 and "no such API endpoint" in response.get_json()["error"]
    response = client.get("/api/roll")
    assert response.status_code == 405 and "GET is not allowed" in response.get_json()["error"]
    assert client.get("/api/games/12345/record").status_code == 404
    assert client.get("/api/games?limit=0").status_code == 400
    assert client.get("/api/events", headers={"Last-Event-ID": "abc"}).status_code == 400


def test_request_size_limit_is_413(client) -> None:
    big = json.dumps({"keep": [1], "pad": "x" * 20000})
    response = _post(client, "/api/keep", raw=big)
    assert response.status_code == 413
    assert "16384 bytes" in response.get_json()["error"]


def test_admin_pin_for_configuration(client) -> None:
    assert client.get("/api/config").status_code == 401
    assert client.get("/api/config", headers={"X-Admin-Pin": "2468"}).status_code == 401
    response = client.get("/api/config", headers=ADMIN)
    assert response.status_code == 200
    table = response.get_json()["config"]["table"]
    assert "pin" not in table and "admin_pin" not in table and table["preset"] == "dicenow"
    assert _post(client, "/api/settings", {"speech": False}).status_code == 401
    response = _post(client, "/api/settings", {"speech": False}, headers=ADMIN)
    assert response.status_code == 200 and response.get_json()["table"]["speech"] is False
    assert _post(client, "/api/settings", {"speech": "no"}, headers=ADMIN).status_code == 400


def test_a_turn_through_the_api(client, service) -> None:
    state = _start(client)
    assert state["phase"] == "ready" and state["current"] == "Ann"
    assert [p["name"] for p in state["players"]] == ["Ann", "Ben"]
    response = _post(client, "/api/roll", {"player": "Ben"})
    assert response.status_code == 409 and "Ann's turn" in response.get_json()["error"]
    assert _post(client, "/api/roll", {}).status_code == 200
    assert service.wait_quiet()
    state = client.get("/api/state").get_json()
    roll = state["turn"]["roll"]
    assert len(roll) == 6 and state["reading"]["ok"]
    assert sorted(d["value"] for d in state["reading"]["dice"]) == sorted(roll)
    assert any(e["kind"] == "roll" for e in state["log"])
    if state["phase"] != "choose":  # a zilch passed the turn on
        assert state["current"] == "Ben"
        return
    assert state["turn"]["best"] in state["turn"]["options"]
    non_scoring = [v for v in (2, 3, 4, 6) if roll.count(v) == 1]
    if non_scoring:
        before = client.get("/api/state").get_json()
        response = _post(client, "/api/keep", {"keep": [non_scoring[0]]})
        assert response.status_code == 409
        assert client.get("/api/state").get_json() == before
    best = state["turn"]["best"]
    state = _post(client, "/api/keep", {"keep": best["dice"]}).get_json()
    assert state["turn"]["total"] == best["points"]
    assert service.wait_quiet()
    state = client.get("/api/state").get_json()
    assert state["phase"] == "ready"
    assert state["table"]["in_tray"] == 6 - len(best["dice"]) or len(best["dice"]) == 6
    response = _post(client, "/api/bank", {"bank": True})
    if state["turn"]["can_bank"]:
        assert response.status_code == 200
        assert response.get_json()["current"] == "Ben"
    else:
        assert response.status_code == 409


def test_join_and_games_and_record(client, service) -> None:
    _start(client, players=["Ann", "Ben"])
    state = _post(client, "/api/join", {"join": "Cy", "bot": "dicenow"}).get_json()
    assert {"name": "Cy", "bot": "dicenow"}.items() <= state["players"][2].items()
    assert _post(client, "/api/join", {"join": "Cy"}).status_code == 409
    games = client.get("/api/games").get_json()["games"]
    assert games[0]["players"] == ["Ann", "Ben"] and games[0]["status"] == "playing"
    record = client.get(f"/api/games/{games[0]['id']}/record").get_json()
    assert record["preset"] == "dicenow" and record["actions"] == [{"join": "Cy"}]
    assert client.get("/api/records").get_json() == {"records": []}


def test_event_stream_starts_with_the_current_state(client) -> None:
    _start(client)
    seq = client.get("/api/state").get_json()["seq"]
    response = client.get("/api/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = iter(response.response)
    retry = next(chunks)
    assert (retry.decode() if isinstance(retry, bytes) else retry).startswith("retry:")
    text = next(chunks)
    text = text.decode() if isinstance(text, bytes) else text
    assert f"id: {seq}\n" in text and text.startswith("event: state")
    data = json.loads(text.split("data: ", 1)[1])
    assert data["seq"] == seq and data["phase"] == "ready"
    response.close()


def test_history_page(client) -> None:
    response = client.get("/history")
    assert response.status_code == 200
    assert b"Are the dice fair?" in response.data and b"<svg" in response.data
    assert client.get("/api/fairness").get_json()["rolls"] == 0


@pytest.mark.parametrize("path", ["/", "/play", "/calibrate", "/history"])
def test_every_page_family_is_served(client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200 and response.mimetype == "text/html"


def test_calibration_endpoints_need_the_admin_pin(client) -> None:
    response = client.post("/api/calibrate/empty", headers=PIN)
    assert response.status_code == 401 and "X-Admin-Pin" in response.get_json()["error"]


def test_unknown_page_is_not_json(client) -> None:
    response = client.get("/no-such-page")
    assert response.status_code == 404 and response.mimetype == "text/html"


def test_live_pages_beyond_the_limit_are_refused_and_the_api_keeps_working(client, service) -> None:
    service.max_streams = 1
    first = client.get("/api/events", buffered=False)
    chunks = iter(first.response)
    next(chunks)  # the stream is open
    second = client.get("/api/events")
    assert second.status_code == 503 and "raise [server] live_pages" in second.get_json()["error"]
    assert client.get("/api/state").status_code == 200
    first.close()


def test_every_change_of_the_table_needs_a_pin(client) -> None:
    """Each POST route of the app is behind a PIN (a new endpoint without one fails here)."""
    app = client.application
    posts = [
        rule.rule
        for rule in app.url_map.iter_rules()
        if "POST" in (rule.methods or ()) and rule.rule.startswith("/api/")
    ]
    assert "/api/roll" in posts and "/api/settings" in posts
    before = client.get("/api/state").get_json()
    for path in posts:
        response = _post(client, path, raw="not json", headers={})
        assert response.status_code == 401, path
        assert "Pin" in response.get_json()["error"], path
    assert client.get("/api/state").get_json() == before


def test_pin_checks_change_nothing(client) -> None:
    before = client.get("/api/state").get_json()
    assert _post(client, "/api/pin").get_json() == {"ok": True}
    wrong = _post(client, "/api/pin", headers={"X-Table-Pin": "0000"})
    assert wrong.status_code == 401 and "wrong table PIN" in wrong.get_json()["error"]
    admin = _post(client, "/api/admin-pin", headers={"X-Admin-Pin": "13579"})
    assert admin.get_json() == {"ok": True}
    assert _post(client, "/api/admin-pin").status_code == 401, "the table PIN is not the admin's"
    assert _post(client, "/api/pin", {"x": 1}).status_code == 400
    assert client.get("/api/state").get_json() == before


def test_rules_of_the_game_in_play(client) -> None:
    _start(client, preset="greedy")
    rules = client.get("/api/rules").get_json()
    assert rules["preset"] == "greedy"
    assert rules["fields"]["entry_rule"] == "while_zero" and rules["fields"]["entry_minimum"] == 500
    html = client.get("/rules").get_data(as_text=True)
    assert "Rules in force: greedy" in html


def test_history_lists_games_in_words_and_each_games_log(client, service) -> None:
    _start(client, ("Ann", "Ben"))
    _post(client, "/api/roll")
    assert service.wait_quiet(15)
    html = client.get("/history").get_data(as_text=True)
    game = client.get("/api/state").get_json()["game_id"]
    assert f'data-game="{game}"' in html and "Ann, Ben (playing)" in html
    assert "+00:00" not in html, "times are shown as local times, not raw UTC"
    assert 'href="/play"' in html, "a way back to the table"
    page = client.get(f"/history/{game}").get_data(as_text=True)
    assert "Ann rolls" in page and f"/api/games/{game}/record" in page
    missing = client.get("/history/999")
    assert missing.status_code == 404 and "No game 999" in missing.get_data(as_text=True)


def test_rules_page_says_how_each_ending_ends_the_game() -> None:
    from server.pages import rule_lines

    def the_end(rules: RuleSet) -> str:
        return dict(rule_lines(rules))["The end"]

    dicenow = find_preset("dicenow")
    assert the_end(dicenow) == "everyone else takes one final turn"
    assert the_end(find_preset("club")).startswith("a final round")
    instant = dicenow.with_house_rules({"ending": "instant"})
    assert the_end(instant) == "the first bank that reaches the target wins at once"
