"""The coach: every legal choice for a roll with its expected value, best first.

A choice is a set-aside followed by rolling on or banking. Its value is the
solver's: the turn total if banked, or the expected final turn value of
playing on optimally, with a zilch counted at its long-run cost (which for a
player on a zilch streak includes the penalty to come).
"""

from __future__ import annotations

from dataclasses import dataclass

from zilch.rules import RuleSet
from zilch.scoring import SetAside
from zilch.strategy.final import FinalTurn, solve_final_turn
from zilch.strategy.solution import Solution
from zilch.strategy.view import StateLike, Then, TurnView, dice_left_after, options_of, view_of

NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


@dataclass(frozen=True)
class Choice:
    """One legal choice: ``keep`` these dice, ``then`` roll or bank.

    ``value`` is in points (expected final turn value), or on a final turn the
    chance (0..1) of getting ahead; ``zilch_chance`` is the chance the turn
    ends without a bank (without getting ahead, on a final turn).
    """

    keep: tuple[int, ...]
    then: Then
    value: float
    points: int
    dice_left: int
    zilch_chance: float
    text: str

    def to_json(self) -> dict[str, object]:
        """JSON-ready form for the display and the API."""
        return {
            "keep": list(self.keep),
            "then": self.then,
            "value": round(self.value, 1),
            "points": self.points,
            "dice_left": self.dice_left,
            "zilch_chance": round(self.zilch_chance, 4),
            "text": self.text,
        }


def describe(
    keep: tuple[int, ...],
    then: Then,
    total: int,
    dice_left: int,
    value: float,
    *,
    final: bool = False,
) -> str:
    """A choice as a person says it: "keep the 1 and roll five: 512".

    On a final turn the value is a chance: "keep the 1 and roll five: 34% to get ahead"."""
    if not keep:
        kept = "take the nothing bonus"
    elif len(keep) == 1:
        kept = f"keep the {keep[0]}"
    else:
        kept = "keep " + ", ".join(map(str, keep[:-1])) + f" and {keep[-1]}"
    if then == "bank":
        action = f"bank {total:,}"
    elif dice_left == 0:
        action = "take the free roll"
    else:
        action = f"roll {NUMBER_WORDS[dice_left]}"
    if final:
        return f"{kept} and {action}: {value:.0%} to get ahead"
    return f"{kept} and {action}: {round(value):,}"


def advice(
    choices: list[Choice],
    best: tuple[tuple[int, ...], int] | None,
    total: int,
    *,
    final: bool = False,
) -> str:
    """The coach's line in words, against the ★ best set-aside the table shows.

    "Coach: keep the 1 and roll five dice: expected 399 for this turn (★ 1 5
    banks 150 now)". ``choices`` are :func:`coach_view`'s, best first;
    ``best`` the highest-scoring set-aside (dice, points) and ``total`` the
    turn total before it; on a ``final`` turn values are chances to get
    ahead. Empty when there is no choice.
    """
    if not choices:
        return ""
    top = choices[0]
    after = total + top.points
    if not top.keep:
        kept = "take the nothing bonus"
    elif len(top.keep) == 1:
        kept = f"keep the {top.keep[0]}"
    else:
        kept = "keep " + " ".join(map(str, top.keep))
    if top.then == "bank":
        action, worth = f"bank {after:,}", f"{after:,} for sure"
    else:
        left = top.dice_left or 6
        action = (
            "take the free roll: six dice"
            if top.dice_left == 0
            else f"roll {NUMBER_WORDS[left]} {'die' if left == 1 else 'dice'}"
        )
        worth = f"expected {round(top.value):,} for this turn"
    if final and top.then == "roll":
        worth = f"{top.value:.0%} chance to get ahead"
    elif final:
        worth = "that gets ahead" if top.value >= 1.0 else "it does not get ahead"
    line = f"Coach: {kept} and {action}: {worth}"
    if best is not None and tuple(sorted(best[0])) != tuple(sorted(top.keep)):
        dice, points = best
        bankable = any(
            c.then == "bank" and tuple(sorted(c.keep)) == tuple(sorted(dice)) for c in choices
        )
        shown = " ".join(map(str, sorted(dice)))
        if bankable:
            line += f" (★ {shown} banks {total + points:,} now)"
        else:
            line += f" (★ {shown} scores {points:,} now)"
    return line


def coach_view(view: TurnView, rules: RuleSet, solution: Solution) -> list[Choice]:
    """Every (set-aside, then) choice for the view's roll, sorted best first.

    On a final turn the value of a choice is its chance of getting strictly
    ahead of the best other score (0..1, shown as a percentage), since points
    beyond that no longer matter.
    """
    choices: list[Choice] = []
    final = None
    if view.final:
        final = solve_final_turn(rules, view.opponent + 1 - view.score, view.on_board)
    for option in options_of(view, rules):
        if final is not None:
            choices.extend(_final_choices_for(view, option, final))
        else:
            choices.extend(_choices_for(view, option, solution))
    choices.sort(key=lambda c: (-c.value, -c.points, len(c.keep), c.then))
    return choices


def _choices_for(view: TurnView, option: SetAside, solution: Solution) -> list[Choice]:
    total = view.total + option.points
    left = dice_left_after(view, option)
    found: list[Choice] = []
    roll_value = solution.roll_value(total, left or 6, view.streak, view.on_board)
    zilch = solution.roll_zilch_chance(total, left or 6, view.streak, view.on_board)
    text = describe(option.dice, "roll", total, left, roll_value)
    found.append(Choice(option.dice, "roll", roll_value, option.points, left, zilch, text))
    if not solution.must_roll(total, left, view.on_board):
        text = describe(option.dice, "bank", total, left, total)
        found.append(Choice(option.dice, "bank", float(total), option.points, left, 0.0, text))
    return found


def _final_choices_for(view: TurnView, option: SetAside, final: FinalTurn) -> list[Choice]:
    total = view.total + option.points
    left = dice_left_after(view, option)
    found: list[Choice] = []
    chance = final.roll_chance(total, left or 6)
    text = describe(option.dice, "roll", total, left, chance, final=True)
    found.append(Choice(option.dice, "roll", chance, option.points, left, 1.0 - chance, text))
    if final.can_bank(total, left):
        won = 1.0 if total >= final.goal else 0.0
        text = describe(option.dice, "bank", total, left, won, final=True)
        found.append(Choice(option.dice, "bank", won, option.points, left, 0.0, text))
    return found


def coach(
    state: StateLike, rules: RuleSet, solution: Solution | None = None, me: str | None = None
) -> list[Choice]:
    """Every legal choice for the current player's roll, best first (empty between rolls).

    ``solution`` is the solved rule set (solved here, once per process, when
    not given); ``me`` defaults to the current player.
    """
    if solution is None:
        from zilch.strategy.solver import solve_cached

        solution = solve_cached(rules)
    player = me if me is not None else state.current
    view = view_of(state, player or "")
    if not view.roll:
        return []
    return coach_view(view, rules, solution)


def coach_line(
    state: StateLike,
    rules: RuleSet,
    solution: Solution,
    best: tuple[tuple[int, ...], int] | None,
) -> str:
    """:func:`advice` for the current player's roll (empty between rolls)."""
    view = view_of(state, state.current or "")
    if not view.roll:
        return ""
    return advice(coach_view(view, rules, solution), best, view.total, final=view.final)
