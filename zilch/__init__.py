"""Zilch rules engine: pure Python, no I/O, no clock, randomness injected."""

from zilch.errors import (
    BadRuleValue,
    GameOver,
    IllegalAction,
    IllegalSetAside,
    InvalidDice,
    InvalidPlayer,
    ReplayError,
    UnknownPreset,
    UnknownRule,
    ZilchError,
)
from zilch.game import Event, Game, GameState, PlayerState, TurnState
from zilch.odds import nothing_bonus_applies, odds_table, roll_odds
from zilch.record import load_record, replay
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
from zilch.steps import dice_text

__all__ = [
    "DEFAULT_PRESET",
    "HOUSE_RULES",
    "PRESETS",
    "BadRuleValue",
    "Breakdown",
    "Combination",
    "Event",
    "Game",
    "GameOver",
    "GameState",
    "IllegalAction",
    "IllegalSetAside",
    "InvalidDice",
    "InvalidPlayer",
    "PlayerState",
    "ReplayError",
    "RuleSet",
    "SetAside",
    "TurnState",
    "UnknownPreset",
    "UnknownRule",
    "ZilchError",
    "best_set_aside",
    "dice_text",
    "find_preset",
    "is_zilch",
    "legal_set_asides",
    "load_record",
    "nothing_bonus_applies",
    "odds_table",
    "replay",
    "roll_odds",
    "score_breakdown",
    "score_set_aside",
    "scoring_table",
]
