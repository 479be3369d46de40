"""Player names: one normal form and one rule for the engine, the API and the config."""

from __future__ import annotations

import pytest

from zilch import Game, InvalidPlayer, find_preset
from zilch.names import NAME_MAX, check_name, name_key, name_problem, normalize_name


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("Ann", "Ann"),
        ("Ann\u00a0", "Ann"),
        ("  Ann   Lee ", "Ann Lee"),
        ("Ann\u2003Lee", "Ann Lee"),
        ("\uff21nn", "Ann"),  # full-width A
        ("Zoe\u0301", "Zoé"),  # combining accent composes
    ],
)
def test_normal_form(raw: str, normal: str) -> None:
    assert normalize_name(raw) == normal
    assert check_name(raw) == normal


def test_names_that_look_alike_are_the_same_player() -> None:
    assert name_key("Ann") == name_key("Ann\u00a0") == name_key("ANN") == name_key("\uff21nn")
    with pytest.raises(InvalidPlayer, match="player names must differ"):
        Game(find_preset("dicenow"), ["Ann", "Ann\u00a0"])
    game = Game(find_preset("dicenow"), ["Ann\u00a0", "Ben"])
    assert game.state.names == ("Ann", "Ben")
    with pytest.raises(InvalidPlayer, match="already playing"):
        game.join("\u00a0Ben")


def test_length_is_counted_on_the_normal_form() -> None:
    assert name_problem("a" + " " * 40 + "b") is None
    assert name_problem("x" * NAME_MAX) is None
    assert "longer than 24" in (name_problem("x" * (NAME_MAX + 1)) or "")
    # NFKC can lengthen a name: one ligature character becomes many letters.
    assert "longer than 24" in (name_problem("Ann Lee \ufdfa") or "")


@pytest.mark.parametrize("raw", ["x" * 1000, "A," * 500, ["Ann"] * 500])
def test_a_long_refused_name_is_quoted_short(raw: object) -> None:
    problem = name_problem(raw) or ""
    assert problem and len(problem) < 120 and "..." in problem


@pytest.mark.parametrize("raw", ["", "   ", "\u00a0", None, 7, "Be\nn", "A,B", "Ann\u200b"])
def test_refused(raw: object) -> None:
    with pytest.raises(InvalidPlayer):
        check_name(raw)
