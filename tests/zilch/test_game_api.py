"""The game API beyond the known games: setup, actions, events, saving."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zilch import (
    HOUSE_RULES,
    PRESETS,
    Event,
    Game,
    GameOver,
    IllegalAction,
    InvalidPlayer,
    ReplayError,
    ZilchError,
    find_preset,
)
from zilch.state import EVENT_KINDS

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def dicenow_game() -> Game:
    return Game(find_preset("dicenow"), ["Ann", "Ben"])


@pytest.mark.parametrize(
    ("players", "message"),
    [
        ("Ann,Ben", "players must be a list of names"),
        (["Ann"], "dicenow takes 2 to 8 players, got 1"),
        ([f"P{i}" for i in range(9)], "takes 2 to 8 players, got 9"),
        (["Ann", ""], "non-empty text"),
        (["Ann", 5], "non-empty text"),
        (["Ann", "x" * 25], "longer than 24 characters"),
        (["Ann", "B,en"], "may not hold commas"),
        (["Ann", "Be\nn"], "control characters"),
        (["Ann", "ANN"], "player names must differ"),
    ],
)
def test_bad_players(players: object, message: str) -> None:
    with pytest.raises(InvalidPlayer, match=message) as error:
        Game(find_preset("dicenow"), players)  # type: ignore[arg-type]
    assert isinstance(error.value, ValueError)


def test_names_are_trimmed_and_seated_in_order() -> None:
    game = Game(find_preset("greedy"), [" Zed ", "Amy"])
    assert game.state.names == ("Zed", "Amy")
    assert game.state.current == "Zed"
    assert [event.kind for event in game.journal] == ["turn_start"]
    assert game.journal[0].text == "Zed's turn (round 1)."


def test_club_seats_alphabetically() -> None:
    game = Game(find_preset("club"), ["zoe", "Ann", "ben"])
    assert game.state.names == ("Ann", "ben", "zoe")


def test_twenty_players_at_the_club() -> None:
    names = [f"Player {i:02}" for i in range(20)]
    assert len(Game(find_preset("club"), names).state.players) == 20
    with pytest.raises(InvalidPlayer, match="club takes 2 to 20 players"):
        Game(find_preset("club"), [*names, "One more"])


@pytest.mark.parametrize(
    "action",
    [
        [],
        "roll",
        {},
        {"roll": [1, 2, 3, 4, 5, 6], "bank": True},
        {"roll": "123456"},
        {"keep": 1},
        {"bank": "yes"},
        {"skip": 1},
        {"join": 5},
        {"challenge": None},
        {"fly": True},
        {"correct": "111111"},
        {"correct": [1, 1, 1, 1, 1, 1], "by": 5},
        {"correct": [1, 1, 1, 1, 1, 1], "who": "Ann"},
    ],
)
def test_malformed_actions(action: object) -> None:
    game = dicenow_game()
    before = game.to_json()
    with pytest.raises(IllegalAction):
        game.apply(action)  # type: ignore[arg-type]
    assert game.to_json() == before
    assert game.actions == ()


def test_actions_are_recorded_as_given() -> None:
    game = dicenow_game()
    game.roll((6, 1, 1, 1, 2, 3))
    game.keep([1, 1, 1])
    game.bank()
    assert game.actions == ({"roll": [6, 1, 1, 1, 2, 3]}, {"keep": [1, 1, 1]}, {"bank": True})
    assert game.record() == {
        "preset": "dicenow",
        "rules": {},
        "players": ["Ann", "Ben"],
        "actions": list(game.actions),
    }


def test_set_asides_of_the_waiting_roll() -> None:
    game = dicenow_game()
    assert game.set_asides() == []
    game.roll([1, 5, 2, 2, 3, 6])
    assert [(o.dice, o.points) for o in game.set_asides()] == [
        ((1, 5), 150),
        ((1,), 100),
        ((5,), 50),
    ]
    assert game.state.phase == "keep" and game.state.turn.roll == (1, 2, 2, 3, 5, 6)


def test_turn_state_through_a_turn() -> None:
    game = dicenow_game()
    game.roll([1, 1, 1, 5, 2, 3])
    game.keep([1, 1, 1])
    turn = game.state.turn
    assert (turn.total, turn.dice_left, turn.set_aside, turn.can_bank) == (
        1000,
        3,
        ((1, 1, 1),),
        True,
    )
    game.roll([5, 5, 5])
    game.keep([5, 5, 5])
    turn = game.state.turn
    assert (turn.total, turn.dice_left, turn.set_aside, turn.free_roll) == (1500, 6, (), True)
    assert turn.can_bank  # dicenow: the free roll is optional
    assert game.journal[-1].kind == "free_roll"
    assert game.journal[-1].text == (
        "Hot dice! All six dice scored: Ann may bank or roll all six again (turn total 1,500)."
    )


def test_after_the_game() -> None:
    game = Game(find_preset("dicenow").with_house_rules({"target": "1000"}), ["Ann", "Ben"])
    game.roll([1, 1, 1, 2, 3, 4])
    game.keep([1, 1, 1])
    game.bank()
    events = game.skip()
    assert events[-1].kind == "game_over"
    assert events[-1].text == "Game over: Ann wins with 1,000."
    assert game.summary() == {
        "players": [
            {"name": "Ann", "score": 1000, "streak": 0, "on_board": True},
            {"name": "Ben", "score": 0, "streak": 0, "on_board": False},
        ],
        "current": None,
        "finished": True,
        "winners": ["Ann"],
    }
    for action in (
        {"roll": [1]},
        {"keep": [1]},
        {"bank": True},
        {"skip": True},
        {"join": "Cat"},
        {"challenge": "Ben"},
    ):
        with pytest.raises(GameOver, match="the game is over; winners: Ann"):
            game.apply(action)
    assert game.bank_refusal() == "the game is over"


def test_instant_ending_ends_the_game_at_the_bank_that_reaches_the_target() -> None:
    rules = find_preset("dicenow").with_house_rules({"target": "1000", "ending": "instant"})
    game = Game(rules, ["Ann", "Ben", "Cat"])
    game.roll([5, 2, 3, 4, 6, 6])
    game.keep([5])
    game.roll([1, 2, 3, 4, 6])
    game.keep([1])
    game.roll([5, 5, 5, 2])
    game.keep([5, 5, 5])
    game.bank()  # 650: below the target, the game goes on
    assert not game.state.finished and game.state.current == "Ben"
    game.roll([1, 1, 1, 2, 3, 4])
    game.keep([1, 1, 1])
    events = game.bank()
    # Ben's bank reaches 1,000: Ben wins at once, Cat plays no final turn, Ann no other.
    assert [event.kind for event in events] == ["bank", "game_over"]
    assert events[-1].text == "Game over: Ben wins with 1,000."
    assert game.state.finished and game.state.winners == ("Ben",)
    assert game.state.pending == () and game.state.closer is None
    assert game.summary()["current"] is None
    with pytest.raises(GameOver, match="the game is over; winners: Ben"):
        game.roll([1])
    again = Game.from_json(json.loads(json.dumps(game.to_json())))
    assert again.state == game.state


def test_final_turn_ending_gives_the_others_a_turn_where_instant_does_not() -> None:
    for ending, finished in (("final_turn", False), ("instant", True)):
        rules = find_preset("dicenow").with_house_rules({"target": "1000", "ending": ending})
        game = Game(rules, ["Ann", "Ben"])
        game.roll([1, 1, 1, 2, 3, 4])
        game.keep([1, 1, 1])
        game.bank()
        assert game.state.finished is finished
        assert game.state.current == (None if finished else "Ben")


def test_nothing_with_a_compulsory_free_roll() -> None:
    rules = find_preset("playr").with_house_rules({"free_roll": "compulsory"})
    game = Game(rules, ["Ann", "Ben"])
    game.roll([2, 2, 3, 4, 6, 6])
    assert game.state.turn.total == 500 and not game.state.turn.can_bank
    with pytest.raises(IllegalAction, match="must roll six dice again"):
        game.bank()


def test_hot_dice_clear_the_pyramid() -> None:
    rules = find_preset("twinson-5000").with_house_rules({"pyramiding": "true"})
    game = Game(rules, ["Ann", "Ben"])
    game.roll([1, 5, 2, 3, 4, 6])
    game.keep([1, 5])
    assert game.state.turn.pyramid == (1, 5)
    game.roll([1, 2, 2, 3])
    game.keep([1])
    assert game.state.turn.pyramid == (1, 1, 5)
    game.roll([1, 5, 5])
    events = game.keep([1, 5, 5])  # 1 + frozen 1 1, and 5 5 + frozen 5: two triples
    assert events[0].data["points"] == 1000 + 500
    assert events[-1].kind == "free_roll"  # hot dice: the frozen dice go back into play
    assert game.state.turn.pyramid == ()
    assert game.state.turn.total == 150 + 100 + 1500


def test_house_penalty_after_two_zilches() -> None:
    rules = find_preset("dicenow").with_house_rules(
        {"zilch_penalty": "1000", "penalty_streak": "2"}
    )
    game = Game(rules, ["Ann", "Ben"])
    for action in ({"roll": [2, 2, 3, 4, 6, 6]}, {"skip": True}, {"roll": [2, 2, 3, 4, 6, 6]}):
        game.apply(action)
    assert game.state.player("Ann").score == -1000
    assert game.journal[-2].text == "Ann loses 1,000 for a second zilch in a row and has -1,000."


def test_event_kinds_and_json() -> None:
    game = dicenow_game()
    game.roll([1, 2, 3, 4, 6, 6])
    for event in game.journal:
        assert event.kind in EVENT_KINDS
        assert Event.from_json(json.loads(json.dumps(event.to_json()))) == event
    assert game.journal[-1].to_json() == {
        "kind": "roll",
        "player": "Ann",
        "data": {"dice": [1, 2, 3, 4, 6, 6]},
        "text": "Ann rolls 1 2 3 4 6 6.",
    }


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "an event is"),
        ({"kind": "roll"}, "an event is"),
        ({"kind": "dance", "player": None, "data": {}, "text": ""}, "unknown event kind"),
        ({"kind": "roll", "player": 5, "data": {}, "text": ""}, "player is a name or null"),
        ({"kind": "roll", "player": None, "data": [], "text": ""}, "data is an object"),
    ],
)
def test_bad_events(data: object, message: str) -> None:
    with pytest.raises(ReplayError, match=message):
        Event.from_json(data)


def test_saved_game_round_trip_and_tampering() -> None:
    game = dicenow_game()
    for action in ({"roll": [1, 1, 1, 2, 3, 4]}, {"keep": [1, 1, 1]}, {"bank": True}):
        game.apply(action)
    saved = json.loads(json.dumps(game.to_json()))
    again = Game.from_json(saved)
    assert again.state == game.state and again.journal == game.journal
    tampered = json.loads(json.dumps(saved))
    tampered["state"]["players"][0]["score"] = 5000
    with pytest.raises(ReplayError, match="saved state does not match"):
        Game.from_json(tampered)
    tampered = json.loads(json.dumps(saved))
    tampered["journal"][1]["text"] = "Ann rolls six 6s."
    with pytest.raises(ReplayError, match="saved journal does not match"):
        Game.from_json(tampered)
    with pytest.raises(ReplayError, match="a saved game is"):
        Game.from_json({"record": saved["record"]})


def test_errors_share_one_root() -> None:
    for error in (GameOver, IllegalAction, InvalidPlayer, ReplayError):
        assert issubclass(error, ZilchError) and issubclass(error, ValueError)


def test_docs_name_every_preset_and_house_rule() -> None:
    text = DOCS.read_text()
    for name in [*PRESETS, *HOUSE_RULES]:
        assert f"`{name}`" in text, name


def test_allowed_actions_follow_the_turn() -> None:
    game = dicenow_game()
    assert game.allowed_actions() == ("roll", "skip", "join")
    game.roll([1, 1, 1, 2, 3, 4])
    assert game.allowed_actions() == ("keep", "correct")
    game.keep([1, 1, 1])
    assert game.allowed_actions() == ("roll", "bank")
    game.roll([1, 2, 3])
    game.keep([1])
    assert game.allowed_actions() == ("roll", "bank")
    game.bank()
    assert game.allowed_actions() == ("roll", "skip")  # no joining after the first roll


def test_allowed_actions_with_challenges_and_joiners() -> None:
    rules = find_preset("club").with_house_rules({"challenging": "true"})
    game = Game(rules, ["Ann", "Ben"])
    assert game.allowed_actions() == ("roll", "skip", "join")  # Ann is not on board yet
    game.roll([1, 1, 1, 2, 3, 4])
    game.keep([1, 1, 1])
    game.bank()
    game.skip()
    assert game.allowed_actions() == ("roll", "skip", "challenge", "join")
    game.challenge("Ben")
    assert game.allowed_actions() == ("roll", "join")


def test_a_correction_is_recorded_with_who_made_it() -> None:
    game = dicenow_game()
    game.roll([2, 2, 3, 4, 6, 6])
    assert game.state.current == "Ben" and game.correctable() == (2, 2, 3, 4, 6, 6)
    events = game.correct([6, 1, 3, 4, 6, 2], by="  Cat ")
    assert [e.kind for e in events] == ["correct"]
    assert events[0].player == "Ann"
    assert (
        events[0].text
        == "Ann's roll corrected by Cat: 1 2 3 4 6 6, not 2 2 3 4 6 6; the zilch is undone."
    )
    assert events[0].data == {
        "dice": [1, 2, 3, 4, 6, 6],
        "read": [2, 2, 3, 4, 6, 6],
        "by": "Cat",
        "undone": "zilch",
    }
    assert game.state.turn.roll == (1, 2, 3, 4, 6, 6) and game.correctable() == game.state.turn.roll
    assert game.actions[-1] == {"correct": [6, 1, 3, 4, 6, 2], "by": "Cat"}
    game.correct([1, 2, 3, 4, 5, 6])
    assert game.actions[-1] == {"correct": [1, 2, 3, 4, 5, 6]}
    assert game.journal[-1].text == "Ann's roll corrected: 1 2 3 4 5 6, not 1 2 3 4 6 6."
    saved = json.loads(json.dumps(game.to_json()))
    assert Game.from_json(saved).to_json() == game.to_json()
    game.keep([1, 2, 3, 4, 5, 6])
    assert game.correctable() is None
    assert "before any set-aside" in (game.correct_refusal() or "")


def test_a_correction_needs_a_roll_and_a_running_game() -> None:
    game = dicenow_game()
    assert game.correctable() is None
    assert game.correct_refusal() == "Ann has not rolled yet this turn: there is no roll to correct"
    for _ in range(2):
        game.roll([1, 1, 1, 1, 1, 1])
        game.keep([1, 1, 1, 1, 1, 1])
    game.bank()
    game.roll([2, 2, 3, 4, 6, 6])
    assert game.state.finished
    assert game.correctable() is None
    assert game.correct_refusal() == "the game is over; winners: Ann"
    with pytest.raises(GameOver, match="the game is over"):
        game.correct([1, 2, 3, 4, 6, 6], by="Ben")


def test_after_builds_the_next_game_and_leaves_this_one_unchanged() -> None:
    from zilch import Game, IllegalAction, find_preset

    game = Game(find_preset("dicenow"), ["Ann", "Ben"])
    before = game.to_json()
    following, events = game.after({"roll": [1, 5, 2, 3, 4, 4]})
    assert game.to_json() == before
    assert following.state.phase == "keep" and [e.kind for e in events] == ["roll"]
    assert following.actions == ({"roll": [1, 5, 2, 3, 4, 4]},) and game.actions == ()
    with pytest.raises(IllegalAction):
        following.after({"roll": [1, 1, 1, 1, 1, 1]})
    assert following.state.phase == "keep"
