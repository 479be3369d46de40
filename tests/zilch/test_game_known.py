"""Known-answer games (tests/data/rules/games.txt): the sources' worked examples and rulings."""

from __future__ import annotations

import pytest
from zilch_known_answers import action, games, rules_named

from zilch import Game, ReplayError, ZilchError, replay

BLOCKS = games() + games("corrections.txt")


def _pairs(text: str) -> dict[str, str]:
    return dict(item.strip().rsplit(" ", 1) for item in text.split(","))


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",")]


def _check(game: Game, key: str, value: str, last_events: list[str]) -> None:
    state = game.state
    if key == "scores":
        for name, score in _pairs(value).items():
            assert state.player(name).score == int(score), name
    elif key == "streaks":
        for name, streak in _pairs(value).items():
            assert state.player(name).streak == int(streak), name
    elif key == "on_board":
        for name, flag in _pairs(value).items():
            assert state.player(name).on_board == (flag == "true"), name
    elif key == "order":
        assert list(state.names) == _names(value)
    elif key == "current":
        assert state.current == (None if value == "none" else value)
    elif key == "finished":
        assert state.finished == (value == "true")
    elif key == "winners":
        assert list(state.winners) == _names(value)
    elif key == "can_bank":
        assert state.turn.can_bank == (value == "true")
        assert (game.bank_refusal() is None) == (value == "true")
    elif key in ("total", "dice_left", "round"):
        actual = state.round if key == "round" else getattr(state.turn, key)
        assert actual == int(value)
    elif key == "phase":
        assert state.phase == value
    elif key == "events":
        assert last_events == value.split()
    elif key == "journal":
        kinds = iter(event.kind for event in game.journal)
        missing = [kind for kind in value.split() if kind not in kinds]
        assert not missing, f"journal lacks {missing} in order"
    else:
        raise AssertionError(f"unknown check {key!r}")


@pytest.mark.parametrize(("title", "lines"), BLOCKS, ids=[title for title, _ in BLOCKS])
def test_known_game(title: str, lines: list[tuple[str, str]]) -> None:
    settings = dict(lines)
    spec = settings["preset"]
    house = settings.get("rules")
    if house:
        spec += "+" + "+".join(item.strip() for item in house.split(","))
    rules = rules_named(spec)
    game = Game(rules, _names(settings["players"]))
    written: list[dict[str, object]] = []
    last_events: list[str] = []
    refused: int | None = None
    for key, value in lines:
        if key in ("preset", "rules", "players"):
            continue
        if key == "actions":
            for text in value.split(";"):
                written.append(action(text))
                try:
                    last_events = [event.kind for event in game.apply(written[-1])]
                except ZilchError:
                    refused = len(written) - 1  # the "error:" line says which and why
                    break
        elif key == "error":
            index, _, message = value.partition(":")
            assert refused == int(index), f"action {index} was not refused (refused: {refused})"
            failing, refused = written[int(index)], None
            before = game.to_json()
            with pytest.raises(ZilchError, match=_escaped(message.strip())):
                game.apply(failing)
            assert game.to_json() == before, "a refused action changed the game"
            record = dict(game.record(), actions=[*game.actions, failing])
            with pytest.raises(ReplayError) as error:
                replay(record)
            assert error.value.action_index == len(game.actions)
        else:
            assert refused is None, f"action {refused} was refused without an error: line"
            _check(game, key, value, last_events)
    assert replay(game.record()).to_json() == game.to_json()


def _escaped(text: str) -> str:
    return "".join("\\" + ch if ch in ".()[]*+?^$|{}\\" else ch for ch in text)


def test_every_preset_has_known_games() -> None:
    presets = {dict(lines)["preset"] for _, lines in BLOCKS}
    assert presets >= {"twinson-5000", "twinson-10000", "club", "greedy", "dicenow", "playr"}
