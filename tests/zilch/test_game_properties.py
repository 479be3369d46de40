"""Property tests: any sequence of legal actions keeps the game's invariants."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zilch import PRESETS, Event, Game, IllegalAction, find_preset, replay

PRESET_NAMES = sorted(PRESETS)
HOUSE = [
    {},
    {"target": "1000"},
    {"target": "1500", "challenging": "true", "pyramiding": "true"},
    {"surpassing": "true", "target": "2000"},
    {"zilch_penalty": "1000", "penalty_streak": "2", "target": "1000"},
]
SCORE_EVENTS = {"bank", "penalty", "challenge"}


def _check_refusals(game: Game) -> None:
    """Every kind of action not in ``allowed_actions`` is refused, leaving the game alone."""
    allowed = game.allowed_actions()
    before = game.state
    attempts = {
        "roll": lambda: game.roll([1] * 6),
        "keep": lambda: game.keep([1]),
        "bank": game.bank,
        "skip": game.skip,
        "challenge": lambda: game.challenge(game.state.names[-1]),
        "join": lambda: game.join("Newcomer"),
    }
    for kind, attempt in attempts.items():
        if kind not in allowed:
            with pytest.raises(IllegalAction):
                attempt()
            assert game.state is before


def _play_one(game: Game, data: st.DataObject) -> list[Event]:
    """Draw and apply one action among those the game says are allowed now."""
    state = game.state
    allowed = game.allowed_actions()
    if "keep" in allowed:
        options = game.set_asides()
        assert options, "a roll waiting for a set-aside has legal set-asides"
        choice = data.draw(st.integers(0, len(options) - 1), label="keep")
        return game.keep(options[choice].dice)
    weights = {"roll": 4, "bank": 3, "skip": 1, "challenge": 1, "join": 1}
    moves = [kind for kind in allowed for _ in range(weights[kind])]
    move = data.draw(st.sampled_from(moves), label="move")
    if move == "bank":
        return game.bank()
    if move == "skip":
        return game.skip()
    if move == "join":
        return game.join(f"J{len(state.players)}")
    if move == "challenge":
        victim = data.draw(st.sampled_from([n for n in state.names if n != state.current]))
        return game.challenge(victim)
    n = state.turn.dice_left
    code = data.draw(st.integers(0, 6**n - 1), label="dice")
    return game.roll([code // 6**i % 6 + 1 for i in range(n)])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(PRESET_NAMES),
    st.sampled_from(HOUSE),
    st.integers(2, 4),
    st.data(),
)
def test_legal_play_keeps_the_invariants(
    preset: str, house: dict[str, str], players: int, data: st.DataObject
) -> None:
    rules = find_preset(preset).with_house_rules(house)
    game = Game(rules, [f"P{i}" for i in range(players)])
    game_overs = 0
    for _ in range(150):
        if game.state.finished:
            break
        before = {p.name: p.score for p in game.state.players}
        _check_refusals(game)
        events = _play_one(game, data)
        after = {p.name: p.score for p in game.state.players}
        state = game.state
        # scores change only by banks, penalties and challenge transfers
        for name in after:
            change = sum(
                e.data["points"] if e.kind == "bank" else 0 for e in events if e.player == name
            )
            change -= sum(
                e.data["amount"] for e in events if e.kind == "penalty" and e.player == name
            )
            change -= sum(
                e.data["points"]
                for e in events
                if e.kind == "challenge" and e.player == name and "challenger" in e.data
            )
            if rules.score_floor == "none":
                assert after[name] - before.get(name, 0) == change, (name, events)
            else:
                assert after[name] >= 0
        assert all(e.kind != "bank" or e.data["points"] > 0 for e in events)
        game_overs += sum(e.kind == "game_over" for e in events)
        if state.finished:
            assert state.current is None and state.phase == "over" and state.winners
            assert set(state.winners) <= set(state.names)
        else:
            assert state.current in state.names and state.phase in ("roll", "keep")
            assert (state.phase == "keep") == (state.turn.roll is not None)
            assert 1 <= state.turn.dice_left <= 6
            assert state.turn.total >= 0
    assert game_overs == (1 if game.state.finished else 0)
    assert game.allowed_actions() == () or not game.state.finished
    # the game survives JSON, and its record replays to the same game
    saved = json.loads(json.dumps(game.to_json()))
    assert Game.from_json(saved).to_json() == game.to_json()
    assert replay(json.loads(json.dumps(game.record()))).summary() == game.summary()
    for event in game.journal:
        assert Event.from_json(json.loads(json.dumps(event.to_json()))) == event
        assert event.text
