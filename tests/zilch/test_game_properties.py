"""Property tests: any sequence of legal actions keeps the game's invariants."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zilch import PRESETS, Event, Game, IllegalAction, InvalidDice, find_preset, replay

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
        "correct": lambda: game.correct([1] * 6),
    }
    for kind, attempt in attempts.items():
        if kind not in allowed:
            with pytest.raises(IllegalAction):
                attempt()
            assert game.state is before


def _dice(n: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(1, 6), min_size=n, max_size=n)


def _as_rolled(actions: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """The actions with every correction folded into the roll it corrects."""
    rolled: list[dict[str, Any]] = []
    last = -1
    for act in actions:
        if "correct" in act:
            rolled[last] = {"roll": act["correct"]}
            continue
        if "roll" in act:
            last = len(rolled)
        rolled.append(act)
    return rolled


def _play_one(game: Game, data: st.DataObject) -> list[Event]:
    """Draw and apply one action among those the game says are allowed now."""
    state = game.state
    allowed = game.allowed_actions()
    read = game.correctable()
    assert ("correct" in allowed) == (read is not None) == (game.correct_refusal() is None)
    if read is not None and data.draw(st.integers(0, 3), label="correct?") == 0:
        values = data.draw(_dice(len(read)).filter(lambda d: tuple(sorted(d)) != read))
        return game.correct(values, by="Helper")
    if "keep" in allowed:
        options = game.set_asides()
        assert options, "a roll waiting for a set-aside has legal set-asides"
        choice = data.draw(st.integers(0, len(options) - 1), label="keep")
        return game.keep(options[choice].dice)
    weights = {"roll": 4, "bank": 3, "skip": 1, "challenge": 1, "join": 1, "correct": 0}
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
        game_overs += sum(e.kind == "game_over" for e in events)
        if events[0].kind == "correct":
            # a correction plays the game as if the corrected dice had been rolled
            as_rolled = dict(game.record(), actions=_as_rolled(game.actions))
            assert replay(as_rolled).state == state
            assert events[0].data["by"] == "Helper"
        # scores change only by banks, penalties and challenge transfers
        for name in after if events[0].kind != "correct" else ():
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


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PRESET_NAMES), st.sampled_from(HOUSE), st.data())
def test_bad_corrections_change_nothing(
    preset: str, house: dict[str, str], data: st.DataObject
) -> None:
    rules = find_preset(preset).with_house_rules(house)
    game = Game(rules, ["Ann", "Ben", "Cat"])
    for _ in range(60):
        if game.state.finished:
            with pytest.raises(IllegalAction, match="the game is over"):
                game.correct([1] * 6)
            break
        read = game.correctable()
        if read is not None:
            before, saved = game.state, game.to_json()
            n = len(read)
            wrong = data.draw(st.sampled_from([k for k in range(8) if k != n]), label="count")
            with pytest.raises(InvalidDice, match=f"it must have exactly {n}"):
                game.correct([2] * wrong)
            bad = [*data.draw(_dice(n - 1), label="dice"), data.draw(st.sampled_from([0, 7, 9]))]
            with pytest.raises(InvalidDice, match="whole numbers 1 to 6"):
                game.correct(bad)
            with pytest.raises(IllegalAction, match="nothing to correct"):
                game.correct(list(reversed(read)))
            with pytest.raises(IllegalAction, match="longer than"):
                game.correct([1] * n if read != (1,) * n else [2] * n, by="x" * 40)
            assert game.state is before and game.to_json() == saved
        _play_one(game, data)
