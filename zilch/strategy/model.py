"""What the solver needs from a rule set: roll tables, bank minimums, the streak model.

Only the rules that shape a single turn and the zilch streak enter the
long-run solve. Rules that depend on other players or on the whole game
(challenges, surpassing, forgiveness, the score floor, the target) are left
out of it and listed in :func:`approximations`, so a caller can say so.
"""

from __future__ import annotations

from dataclasses import dataclass

from zilch.rules import RuleSet
from zilch.scoring import legal_set_asides
from zilch.strategy.tables import Option, RollTable, build_roll_table

_TABLES: dict[RuleSet, RollTable] = {}


def set_aside_options(dice: tuple[int, ...], rules: RuleSet) -> list[Option]:
    """(dice used, points) of every legal set-aside, with the "nothing" bonus as one option.

    A six-dice roll with no scoring dice under ``nothing_bonus`` scores the
    bonus and gives all six dice back, which is a set-aside of six dice for
    the solver.
    """
    options = [(len(s.dice), s.points) for s in legal_set_asides(dice, rules)]
    if not options and len(dice) == 6 and rules.nothing_bonus:
        options = [(6, rules.nothing_bonus)]
    return options


def roll_table(rules: RuleSet) -> RollTable:
    """The exact roll tables of ``rules``, built once per rule set."""
    table = _TABLES.get(rules)
    if table is None:
        table = _TABLES[rules] = build_roll_table(lambda dice: set_aside_options(dice, rules))
    return table


def forget_roll_tables() -> None:
    """Drop the roll tables built so far (benchmarks time a cold start with it)."""
    _TABLES.clear()


@dataclass(frozen=True)
class StreakModel:
    """Zilch streak states 0..states-1 and what the last one's zilch costs.

    With a penalty of ``penalty`` at ``states`` zilches in a row, a zilch at
    streak ``states - 1`` costs the penalty and then resets the streak to 0
    (``resets``) or keeps it there, so every further zilch costs it again.
    Without a penalty the streak does not matter and there is one state.
    """

    states: int
    penalty: int
    resets: bool

    def index(self, streak: int) -> int:
        """The solver's streak state for a player's current streak."""
        return max(0, min(streak, self.states - 1))


def streak_model(rules: RuleSet) -> StreakModel:
    """The zilch-streak states that change the value of a turn under ``rules``."""
    if rules.zilch_penalty <= 0:
        return StreakModel(1, 0, True)
    return StreakModel(rules.penalty_streak, rules.zilch_penalty, rules.after_penalty == "reset")


def has_entry_status(rules: RuleSet) -> bool:
    """True when a player not yet on board needs more to bank than one on board."""
    return rules.entry_needed(False) != rules.entry_needed(True)


def approximations(rules: RuleSet) -> list[str]:
    """Rules in force that the long-run solve leaves out, one sentence each."""
    notes: list[str] = []
    if rules.pyramiding:
        notes.append("pyramiding is ignored: dice frozen earlier never complete a later triple")
    if rules.challenging:
        notes.append("challenge turns are not solved; every turn is played as an ordinary turn")
    if rules.surpassing:
        notes.append("surpassing is ignored: a bank only needs the bank minimum")
    if rules.forgiveness:
        notes.append("forgiveness of a first-roll zilch is ignored")
    if rules.score_floor == "zero" and rules.zilch_penalty:
        notes.append("penalties are counted in full, as if the score never reached the floor")
    if rules.entry_rule == "while_zero" and has_entry_status(rules):
        notes.append("once on board a player is assumed to stay above zero")
    return notes
