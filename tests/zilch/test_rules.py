"""Rule sets: presets, house rules, validation, round trips."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zilch import (
    HOUSE_RULES,
    PRESETS,
    BadRuleValue,
    RuleSet,
    UnknownPreset,
    UnknownRule,
    ZilchError,
    find_preset,
)

NAMES = [
    "twinson-5000",
    "twinson-10000",
    "twinson-15000",
    "club",
    "greedy",
    "dicenow",
    "playr",
]


def test_every_preset_is_shipped_with_its_rulings() -> None:
    assert list(PRESETS) == NAMES
    for name in NAMES:
        rules = find_preset(name)
        assert rules.name == name
        assert "Rulings:" in rules.doc
        assert rules.house_rules == {}


def test_presets_state_their_source_rules() -> None:
    twinson = find_preset("twinson-10000")
    assert (twinson.entry_minimum, twinson.bank_minimum, twinson.free_roll) == (
        500,
        350,
        "compulsory",
    )
    assert (twinson.three_pairs, twinson.two_triplets, twinson.target) == (2000, 3000, 10000)
    club = find_preset("club")
    assert (club.order, club.join_rounds, club.ending, club.forgiveness) == (
        "alphabetical",
        2,
        "final_round",
        1,
    )
    greedy = find_preset("greedy")
    assert (greedy.players_max, greedy.entry_rule, greedy.after_penalty, greedy.score_floor) == (
        8,
        "while_zero",
        "continue",
        "zero",
    )
    dicenow = find_preset("dicenow")
    assert (dicenow.bank_minimum, dicenow.zilch_penalty, dicenow.tie) == (
        300,
        500,
        "first_to_reach",
    )
    assert find_preset("playr").nothing_bonus == 500


def test_unknown_preset_lists_the_names() -> None:
    with pytest.raises(UnknownPreset) as error:
        find_preset("farkle")
    assert isinstance(error.value, ValueError)
    assert isinstance(error.value, ZilchError)
    for name in NAMES:
        assert name in str(error.value)


@pytest.mark.parametrize(
    ("house", "field", "value"),
    [
        ({"three_pairs": "750"}, "three_pairs", 750),
        ({"three_pairs": 800}, "three_pairs", 800),
        ({"three_ones": "300"}, "three_ones", 300),
        ({"multiples": "FLAT"}, "multiples", "flat"),
        ({"flat_values": "4000-5000-6000"}, "flat_values", (4000, 5000, 6000)),
        ({"flat_values": [4000, 5000, 6000]}, "flat_values", (4000, 5000, 6000)),
        ({"pyramiding": "on"}, "pyramiding", True),
        ({"pyramiding": True}, "pyramiding", True),
        ({"free_roll": "compulsory"}, "free_roll", "compulsory"),
        ({"target": "5000"}, "target", 5000),
        ({"players_max": 2}, "players_max", 2),
        ({"zilch_penalty": "1000"}, "zilch_penalty", 1000),
        ({"nothing_bonus": "500"}, "nothing_bonus", 500),
        ({"entry_minimum": "500"}, "entry_minimum", 500),
        ({"bank_minimum": "0"}, "bank_minimum", 0),
        ({"straight": "2000"}, "straight", 2000),
    ],
)
def test_house_rules_apply(house: dict[str, object], field: str, value: object) -> None:
    base = find_preset("dicenow")
    rules = base.with_house_rules(house)
    assert getattr(rules, field) == value
    assert rules.name == "dicenow"
    assert list(rules.house_rules) == [field]


def test_house_rules_accumulate_and_record() -> None:
    rules = find_preset("greedy").with_house_rules({"three_pairs": "750"})
    rules = rules.with_house_rules({"target": 5000, "three_pairs": 500})
    assert rules.house_rules == {"target": 5000, "three_pairs": 500}
    assert rules != find_preset("greedy")
    assert hash(rules) == hash(find_preset("greedy").with_house_rules(rules.house_rules))


@pytest.mark.parametrize(
    ("house", "message"),
    [
        ({"three_pairs": "700"}, "three_pairs='700' is not allowed; use 0 (off), 500, 750"),
        ({"three_ones": True}, "use 1000 or 300"),
        ({"multiples": "tripling"}, "use none, doubling, additive or flat"),
        ({"target": "-5"}, "use 1000 to 100000 in steps of 500"),
        ({"target": "10001"}, "in steps of 500"),
        ({"players_max": 1}, "use 2 to 20"),
        ({"players_max": "many"}, "use 2 to 20"),
        ({"pyramiding": "maybe"}, "use true or false"),
        ({"flat_values": "1000-2000"}, "use 1000-2000-3000 or 4000-5000-6000"),
        ({"flat_values": 5}, "use 1000-2000-3000"),
        ({"straight": None}, "use 1000, 1200, 1500, 2000 or 2500"),
        (
            {"ending": "sudden"},
            "ending='sudden' is not allowed; use final_turn, final_round or instant",
        ),
    ],
)
def test_bad_house_rule_values_name_the_allowed(house: dict[str, object], message: str) -> None:
    with pytest.raises(BadRuleValue, match=message.replace("(", r"\(").replace(")", r"\)")):
        find_preset("dicenow").with_house_rules(house)


def test_unknown_rule_lists_the_rules() -> None:
    with pytest.raises(UnknownRule) as error:
        find_preset("club").with_house_rules({"three_pair": "500"})
    assert isinstance(error.value, ValueError)
    for name in HOUSE_RULES:
        assert name in str(error.value)


def test_a_bad_house_rule_leaves_the_rule_set_alone() -> None:
    rules = find_preset("club")
    with pytest.raises(BadRuleValue):
        rules.with_house_rules({"three_pairs": "750", "straight": "1"})
    assert rules == find_preset("club")
    assert rules.three_pairs == 500


def test_rule_sets_are_immutable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        find_preset("dicenow").target = 5  # type: ignore[misc]


@pytest.mark.parametrize("name", NAMES)
def test_dict_round_trip(name: str) -> None:
    rules = find_preset(name).with_house_rules({"three_pairs": "750", "pyramiding": "true"})
    data = rules.to_dict()
    assert data["preset"] == name
    assert data["house_rules"] == {"pyramiding": True, "three_pairs": 750}
    assert set(data["fields"]) == set(HOUSE_RULES)
    assert RuleSet.from_dict(data) == rules
    assert RuleSet.from_dict({"preset": name}) == find_preset(name)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "needs"),
        ([], "needs"),
        ({"preset": 5}, "needs"),
        ({"preset": "dicenow", "house_rules": []}, "house_rules must be an object"),
        ({"preset": "dicenow", "fields": {"target": 1}}, "do not match"),
    ],
)
def test_bad_rule_dicts(data: object, message: str) -> None:
    with pytest.raises(BadRuleValue, match=message):
        RuleSet.from_dict(data)  # type: ignore[arg-type]


def test_bank_minimum_needed() -> None:
    twinson = find_preset("twinson-5000")
    assert (twinson.entry_needed(False), twinson.entry_needed(True)) == (500, 350)
    dicenow = find_preset("dicenow")
    assert (dicenow.entry_needed(False), dicenow.entry_needed(True)) == (300, 300)
    club = find_preset("club")
    assert (club.entry_needed(False), club.entry_needed(True)) == (500, 0)


VALID = {
    "three_ones": ["1000", "300"],
    "multiples": ["none", "doubling", "additive", "flat"],
    "flat_values": ["1000-2000-3000", "4000,5000,6000"],
    "straight": ["1000", "1200", "1500", "2000", "2500"],
    "three_pairs": ["0", "500", "750", "800", "1500", "2000"],
    "pairs_from_four": ["true", "off"],
    "two_triplets": ["0", "3000"],
    "nothing_bonus": ["0", "500"],
    "pyramiding": ["yes", "false"],
    "entry_minimum": ["0", "500", "5000"],
    "entry_rule": ["once", "while_zero"],
    "bank_minimum": ["0", "300", "350"],
    "free_roll": ["compulsory", "optional"],
    "surpassing": ["on", "no"],
    "zilch_penalty": ["0", "500", "1000"],
    "penalty_streak": ["2", "5"],
    "after_penalty": ["reset", "continue"],
    "score_floor": ["none", "zero"],
    "forgiveness": ["0", "3"],
    "challenging": ["true", "false"],
    "challenge_split": ["1000", "5000"],
    "challenge_penalties": ["600-2000"],
    "target": ["1000", "100000"],
    "players_max": ["2", "20"],
    "order": ["seated", "alphabetical"],
    "join_rounds": ["0", "2"],
    "ending": ["final_turn", "final_round", "instant"],
    "announce_from": ["1", "5"],
    "tie": ["tiebreak_turns", "share", "first_to_reach"],
}


def test_every_house_rule_has_valid_examples() -> None:
    assert set(VALID) == set(HOUSE_RULES)


@given(
    st.sampled_from(NAMES),
    st.dictionaries(st.sampled_from(sorted(VALID)), st.just(""), max_size=6).flatmap(
        lambda keys: st.fixed_dictionaries({key: st.sampled_from(VALID[key]) for key in keys})
    ),
)
def test_any_valid_house_rules_round_trip(name: str, house: dict[str, str]) -> None:
    rules = find_preset(name).with_house_rules(house)
    assert set(rules.house_rules) == set(house)
    again = RuleSet.from_dict(json.loads(json.dumps(rules.to_dict())))
    assert again == rules and hash(again) == hash(rules)
    assert find_preset(name).with_house_rules(rules.house_rules) == rules
