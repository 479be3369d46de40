"""Zilch rules engine: pure Python, no I/O, no clock, randomness injected."""

from zilch.errors import (
    BadRuleValue,
    GameOver,
    IllegalAction,
    IllegalSetAside,
    InvalidDice,
    ReplayError,
    UnknownPreset,
    UnknownRule,
    ZilchError,
)
from zilch.odds import odds_table, roll_odds
from zilch.rules import DEFAULT_PRESET, HOUSE_RULES, PRESETS, RuleSet, find_preset
from zilch.scoring import (
    Breakdown,
    Combination,
    SetAside,
    best_set_aside,
    is_zilch,
    legal_set_asides,
    score_breakdown,
    score_set_aside,
    scoring_table,
)

__all__ = [
    "DEFAULT_PRESET",
    "HOUSE_RULES",
    "PRESETS",
    "BadRuleValue",
    "Breakdown",
    "Combination",
    "GameOver",
    "IllegalAction",
    "IllegalSetAside",
    "InvalidDice",
    "ReplayError",
    "RuleSet",
    "SetAside",
    "UnknownPreset",
    "UnknownRule",
    "ZilchError",
    "best_set_aside",
    "find_preset",
    "is_zilch",
    "legal_set_asides",
    "odds_table",
    "roll_odds",
    "score_breakdown",
    "score_set_aside",
    "scoring_table",
]
