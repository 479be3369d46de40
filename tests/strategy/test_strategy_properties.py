"""Properties every decision and every coach list must have, on random situations."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from zilch import PRESETS, find_preset, is_zilch, score_set_aside
from zilch.strategy import TurnView, coach_view, make_bot, solve_cached

PRESET_NAMES = sorted(PRESETS)

situations = st.fixed_dictionaries(
    {
        "preset": st.sampled_from(PRESET_NAMES),
        "roll": st.lists(st.integers(1, 6), min_size=1, max_size=6).map(tuple),
        "total": st.integers(0, 200).map(lambda k: 50 * k),
        "score": st.integers(-40, 300).map(lambda k: 50 * k),
        "opponent": st.integers(0, 300).map(lambda k: 50 * k),
        "streak": st.integers(0, 4),
        "on_board": st.booleans(),
        "final": st.booleans(),
    }
)


def _view(s: dict[str, object]) -> TurnView:
    return TurnView(
        s["roll"],  # type: ignore[arg-type]
        total=s["total"],  # type: ignore[arg-type]
        score=s["score"],  # type: ignore[arg-type]
        opponent=s["opponent"],  # type: ignore[arg-type]
        streak=s["streak"],  # type: ignore[arg-type]
        on_board=s["on_board"],  # type: ignore[arg-type]
        final=s["final"],  # type: ignore[arg-type]
    )


def _scores(roll: tuple[int, ...], preset: str) -> bool:
    rules = find_preset(preset)
    return not is_zilch(roll, rules) or (len(roll) == 6 and rules.nothing_bonus > 0)


@settings(max_examples=100, deadline=None)
@given(situations)
def test_every_decision_is_legal(s: dict[str, object]) -> None:
    preset = str(s["preset"])
    roll: tuple[int, ...] = s["roll"]  # type: ignore[assignment]
    if not _scores(roll, preset):
        return
    rules = find_preset(preset)
    view = _view(s)
    for name in ("dicenow", "optimal"):
        decision = make_bot(name, rules).decide_view(view)
        if decision.keep:
            points = score_set_aside(decision.keep, roll, rules)
        else:
            points = rules.nothing_bonus
        assert points > 0
        total = view.total + points
        used_all = not decision.keep or len(decision.keep) == len(roll)
        if decision.then == "bank":
            assert total >= rules.entry_needed(view.on_board)
            assert not (used_all and rules.free_roll == "compulsory")
            if name == "dicenow":
                assert total >= 300


@settings(max_examples=60, deadline=None)
@given(situations)
def test_coach_is_sorted_and_its_best_choice_is_the_optimal_bots(s: dict[str, object]) -> None:
    preset = str(s["preset"])
    roll: tuple[int, ...] = s["roll"]  # type: ignore[assignment]
    if not _scores(roll, preset):
        return
    rules = find_preset(preset)
    view = _view(s)
    choices = coach_view(view, rules, solve_cached(rules))
    values = [c.value for c in choices]
    assert values == sorted(values, reverse=True)
    assert len({(c.keep, c.then) for c in choices}) == len(choices)
    decision = make_bot("optimal", rules).decide_view(view)
    chosen = next(c for c in choices if (c.keep, c.then) == (decision.keep, decision.then))
    assert abs(chosen.value - choices[0].value) < 1e-9
