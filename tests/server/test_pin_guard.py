"""Wrong PINs: per address, and for the whole room with a growing back-off (issue 19 item 3)."""

from __future__ import annotations

import json
import time

from server.api import BACKOFF_S, ROOM_FAILURES, PinGuard
from tests.server.conftest import PIN


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _guard(client) -> tuple[PinGuard, Clock, list[int]]:  # type: ignore[no-untyped-def]
    clock = Clock()
    guard = PinGuard(clock)
    starts: list[int] = []
    guard.on_backoff = lambda: starts.append(1)
    client.application.extensions["zilch_tower_pin_guard"] = guard
    return guard, clock, starts


def _roll(client, pin: str, address: str) -> int:  # type: ignore[no-untyped-def]
    response = client.post(
        "/api/roll",
        data=json.dumps({}),
        headers={"X-Table-Pin": pin},
        content_type="application/json",
        environ_base={"REMOTE_ADDR": address},
    )
    return int(response.status_code)


def test_guesses_spread_over_many_addresses_meet_the_room_limit(client) -> None:
    guard, _, starts = _guard(client)
    right = PIN["X-Table-Pin"]
    wrong = [f"{n:04d}" for n in range(10000) if f"{n:04d}" != right]
    guesses = [*wrong[:200], right]
    codes = [_roll(client, g, f"10.0.{i % 50}.{i % 200 + 1}") for i, g in enumerate(guesses)]
    assert codes[:ROOM_FAILURES] == [401] * ROOM_FAILURES
    # Then nothing is checked, not even the right PIN from a new address.
    assert set(codes[ROOM_FAILURES:]) == {429}
    assert starts == [1] and 0 < guard.backoff_s() <= BACKOFF_S


def test_the_players_phones_keep_playing_through_a_back_off(client) -> None:
    guard, _, _ = _guard(client)
    right = PIN["X-Table-Pin"]
    assert _roll(client, right, "192.168.1.30") == 409  # right PIN (no game yet: 409)
    for i in range(ROOM_FAILURES):
        _roll(client, "0000", f"10.9.0.{i + 1}")
    assert guard.backoff_s() > 0
    assert _roll(client, right, "192.168.1.31") == 429  # a new address waits
    assert _roll(client, right, "192.168.1.30") == 409  # the known phone is still heard
    response = client.post(
        "/api/roll", headers={"X-Table-Pin": "0000"}, environ_base={"REMOTE_ADDR": "10.9.0.99"}
    )
    assert "takes no PINs for 30 seconds" in response.get_json()["error"]


def test_back_offs_double_and_start_again_after_a_quiet_while(client) -> None:
    guard, clock, starts = _guard(client)
    lengths = []
    for round_ in range(4):
        for i in range(ROOM_FAILURES):
            _roll(client, "0000", f"10.{round_}.{i}.1")
        lengths.append(round(guard.backoff_s()))
        clock.now += guard.backoff_s() + 0.1
    assert lengths == [30, 60, 120, 240] and len(starts) == 4
    clock.now += 900
    for i in range(ROOM_FAILURES):
        _roll(client, "0000", f"10.8.{i}.1")
    assert round(guard.backoff_s()) == 30


def test_one_address_is_still_stopped_on_its_own(client) -> None:
    _guard(client)
    codes = [_roll(client, f"{n:04d}", "10.1.1.1") for n in range(12)]
    assert codes[:10] == [401] * 10 and codes[10:] == [429, 429]


def test_the_state_document_shows_the_back_off(service) -> None:
    from server.app import create_app

    app_client = create_app(service.config, service).test_client()
    assert service.state()["table"]["pin_backoff_s"] == 0
    for i in range(ROOM_FAILURES):
        _roll(app_client, "0000", f"10.7.0.{i + 1}")
    deadline = time.monotonic() + 20  # the state is published by the controller thread
    while service.state()["table"]["pin_backoff_s"] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert 20 <= service.state()["table"]["pin_backoff_s"] <= 30  # published when it began
