"""Scoring: the known-answer table, the checked API and its properties."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from zilch_known_answers import FARKLE_HOUSE_RULES, dice, rules_named, table

from zilch import (
    PRESETS,
    IllegalSetAside,
    InvalidDice,
    best_set_aside,
    find_preset,
    is_zilch,
    legal_set_asides,
    score_breakdown,
    score_set_aside,
    scoring_table,
)

CASES = table("scoring.txt", 5)


@pytest.mark.parametrize(("where", "preset", "roll", "frozen", "keep", "expected"), CASES)
def test_known_answers(
    where: str, preset: str, roll: str, frozen: str, keep: str, expected: str
) -> None:
    rules = rules_named(preset)
    if keep == "best":
        best = best_set_aside(dice(roll), rules, dice(frozen))
        if expected == "zilch":
            assert best is None, where
            assert is_zilch(dice(roll), rules, dice(frozen)), where
        else:
            kept, points = expected.split("=")
            assert best is not None, where
            assert (best.dice, best.points) == (dice(kept), int(points)), where
    elif expected == "illegal":
        with pytest.raises(IllegalSetAside):
            score_set_aside(dice(keep), dice(roll), rules, dice(frozen))
    else:
        assert score_set_aside(dice(keep), dice(roll), rules, dice(frozen)) == int(expected), where


def test_table_covers_every_preset() -> None:
    covered = {preset.split("+")[0] for _, preset, *_ in CASES}
    assert covered == set(PRESETS)


def test_every_legal_set_aside_of_the_club_example() -> None:
    options = legal_set_asides([1, 2, 2, 5, 5, 6], find_preset("club"))
    assert [(o.dice, o.points) for o in options] == [
        ((1, 5, 5), 200),
        ((1, 5), 150),
        ((1,), 100),
        ((5, 5), 100),
        ((5,), 50),
    ]


def test_breakdown_names_the_combinations() -> None:
    split = score_breakdown([4, 4, 4, 1], [4, 4, 4, 1, 2, 3], find_preset("dicenow"))
    assert split.points == 500
    assert split.describe() == "three 4s 400 + 1 100"
    assert split.singles == (1,)


def test_pyramid_breakdown_reports_the_frozen_dice_used() -> None:
    rules = rules_named("twinson-5000+pyramiding=true")
    split = score_breakdown([1, 1], [1, 1, 2, 3, 4], rules, frozen=[1, 5])
    assert split.points == 1000
    assert split.frozen_used == (1,)
    assert split.singles == ()


@pytest.mark.parametrize(
    ("roll", "message"),
    [
        ([0, 1], "die values are whole numbers 1 to 6"),
        ([7], "die values are whole numbers 1 to 6"),
        ([1, 2, 3, 4, 5, 6, 1], "it must have 1 to 6"),
        ([], "it must have 1 to 6"),
        (["1"], "die values are whole numbers 1 to 6"),
        ([True], "die values are whole numbers 1 to 6"),
        ([1.0], "die values are whole numbers 1 to 6"),
        ("123", "must be a list"),
        (None, "must be a list"),
    ],
)
def test_bad_dice(roll: object, message: str) -> None:
    with pytest.raises(InvalidDice, match=message) as error:
        legal_set_asides(roll, find_preset("dicenow"))  # type: ignore[arg-type]
    assert isinstance(error.value, ValueError)


@pytest.mark.parametrize(
    ("keep", "roll", "message"),
    [
        ([1, 1], [1, 2, 3], "the roll 1 2 3 has only one 1$"),
        ([5, 5, 5], [1, 5, 5], "the roll 1 5 5 has only two 5s$"),
        ([6], [1, 2, 6], "every kept die must score; legal set-asides: 1 for 100"),
        ([], [1, 2, 6], "keep at least one scoring die"),
        ([1, 2, 3, 4, 5, 6], [1, 2, 3], "the roll 1 2 3 has no 4$"),
        ([2, 3], [2, 3, 4], r"legal set-asides: none \(the roll is a zilch\)"),
    ],
)
def test_illegal_set_asides(keep: list[int], roll: list[int], message: str) -> None:
    with pytest.raises(IllegalSetAside, match=message):
        score_set_aside(keep, roll, find_preset("dicenow"))


def test_too_many_frozen_dice() -> None:
    with pytest.raises(InvalidDice, match="frozen dice"):
        legal_set_asides([1], find_preset("dicenow"), frozen=[1, 1, 1, 1, 1, 1])


def test_table_precomputes_every_roll() -> None:
    table = scoring_table(find_preset("greedy"))
    assert table is scoring_table(find_preset("greedy"))
    assert len(table._legal) == 923  # every sorted roll of 1..6 dice


ROLLS = st.lists(st.integers(1, 6), min_size=1, max_size=6)
RULES = st.sampled_from(
    [*PRESETS.values(), rules_named("twinson-5000+pyramiding=true+three_pairs=750")]
)
FROZEN = st.lists(st.sampled_from([1, 5]), max_size=5)


@given(ROLLS, RULES, FROZEN)
def test_set_asides_use_rolled_dice_and_score_positive(
    roll: list[int], rules: object, frozen: list[int]
) -> None:
    for option in legal_set_asides(roll, rules, frozen):  # type: ignore[arg-type]
        assert not Counter(option.dice) - Counter(roll)
        assert option.points > 0
        assert option.dice == tuple(sorted(option.dice))


@given(ROLLS, RULES, FROZEN)
def test_zilch_exactly_when_no_set_aside(roll: list[int], rules: object, frozen: list[int]) -> None:
    options = legal_set_asides(roll, rules, frozen)  # type: ignore[arg-type]
    assert is_zilch(roll, rules, frozen) == (not options)  # type: ignore[arg-type]
    # a roll scores with a 1, a 5, a triple (or more), or three pairs where they count
    shape = sorted(Counter(roll).values())
    pairs = rules.three_pairs > 0 and shape == [2, 2, 2]  # type: ignore[attr-defined]
    has_counter = 1 in roll or 5 in roll or shape[-1] >= 3 or pairs
    assert bool(options) == has_counter


@given(ROLLS, RULES, FROZEN)
def test_best_is_legal_and_highest(roll: list[int], rules: object, frozen: list[int]) -> None:
    options = legal_set_asides(roll, rules, frozen)  # type: ignore[arg-type]
    best = best_set_aside(roll, rules, frozen)  # type: ignore[arg-type]
    if best is None:
        assert not options
        return
    assert best in options
    assert all(option.points <= best.points for option in options)
    assert score_set_aside(best.dice, roll, rules, frozen) == best.points  # type: ignore[arg-type]


@given(ROLLS, st.lists(st.integers(1, 6), min_size=1, max_size=6), RULES)
def test_score_set_aside_agrees_with_the_legal_list(
    roll: list[int], keep: list[int], rules: object
) -> None:
    legal = {o.dice: o.points for o in legal_set_asides(roll, rules)}  # type: ignore[arg-type]
    try:
        points = score_set_aside(keep, roll, rules)  # type: ignore[arg-type]
    except IllegalSetAside:
        assert tuple(sorted(keep)) not in legal
    else:
        assert legal[tuple(sorted(keep))] == points


def _farkle_reference(counts: tuple[int, ...]) -> int:
    """Best points of a roll by that table, leftover dice scoring nothing (plain recursion)."""
    best = 0
    dice = sum(counts)

    def minus(face: int, n: int) -> tuple[int, ...]:
        return tuple(c - n if f == face else c for f, c in enumerate(counts, start=1))

    for face, count in enumerate(counts, start=1):
        if face in (1, 5) and count:
            best = max(best, (100 if face == 1 else 50) + _farkle_reference(minus(face, 1)))
        for n, points in ((3, 1000 if face == 1 else 100 * face), (4, 1000), (5, 2000), (6, 3000)):
            if count >= n:
                best = max(best, points + _farkle_reference(minus(face, n)))
    if dice == 6 and all(c == 1 for c in counts):
        best = max(best, 2500)
    if dice == 6 and sorted(counts) == [0, 0, 0, 2, 2, 2]:
        best = max(best, 1500)
    return best


def test_farkle_house_rules_score_every_roll_as_the_published_solver() -> None:
    import itertools

    rules = find_preset("dicenow").with_house_rules(FARKLE_HOUSE_RULES)
    assert (rules.straight, rules.entry_needed(False), rules.zilch_penalty) == (2500, 0, 0)
    for size in range(1, 7):
        for roll in itertools.combinations_with_replacement(range(1, 7), size):
            counts = tuple(roll.count(face) for face in range(1, 7))
            best = best_set_aside(roll, rules)
            assert (best.points if best else 0) == _farkle_reference(counts), roll
    assert score_set_aside([1, 1, 1, 1], [1, 1, 1, 1, 2, 3], rules) == 1100  # 111 + 1 beats 1,000
    assert score_set_aside([2, 2, 2, 2, 5, 5], [2, 2, 2, 2, 5, 5], rules) == 1100
