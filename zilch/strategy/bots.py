"""Computer players: source 004's ``dicenow`` player and the long-run ``optimal`` player.

A bot answers ``decide(state, me)`` with a :class:`Decision` for the roll in
front of it; ``decide_view(view)`` is the same decision from a
:class:`TurnView`, for the command line and the tests.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import ClassVar, Protocol

from zilch.errors import ZilchError
from zilch.rules import RuleSet
from zilch.scoring import SetAside
from zilch.strategy.final import FinalTurn, solve_final_turn
from zilch.strategy.model import roll_table
from zilch.strategy.solution import Solution
from zilch.strategy.view import (
    Decision,
    StateLike,
    Then,
    TurnView,
    dice_left_after,
    left_between_rolls,
    options_of,
    view_of,
)
from zilch.strategy.winchance import Side, TurnChances, WinTable
from zilch.strategy.winround import Place, RoundKind, place_of

BOTS = ("dicenow", "optimal", "win")

TurnKey = tuple[int, int, int, int, bool, bool, bool, bool, RoundKind]
"""A win turn's situation: scores, streaks and statuses of both sides, last turn or not,
and under a final round the mover's seat and the kind of round (else False, announced)."""


class UnknownBot(ZilchError, ValueError):
    """A computer player name that is not one of :data:`BOTS`."""


class Bot(Protocol):
    """A computer player."""

    name: str

    def decide(self, state: StateLike, me: str) -> Decision:
        """What ``me`` does now (``keep=()`` between rolls: only bank or roll)."""
        ...

    def decide_view(self, view: TurnView) -> Decision:
        """The same decision from a :class:`TurnView`."""
        ...


class DicenowBot:
    """The computer opponent of source 004 ("Play Zilch Online on Dice.now"), clause by clause.

    - Set-aside: for each legal option, points gained + average points of the
      next roll - zilch chance of the next roll x what would be lost (the
      turn total after the set-aside, plus the pending penalty, below); the
      highest wins, ties to more points then fewer dice. The next roll has
      the dice left, or six after a free roll. Ruling: an option after which
      the bot would bank has no next roll, so it is worth its points alone
      (otherwise it would keep one 1 of three and bank 350 instead of 1,250).
    - Never banks under 300 (nor under the rule set's own minimum, if higher).
    - Always takes a free roll (six dice), unless banking reaches the goal.
    - Otherwise banks when the amount at risk reaches the bar for the dice
      left: 300 with three or fewer, 900 with four, 2,500 with five.
    - Raised bar (ruling): when the opponent is past 7,000 (more than 7,000)
      and 2,000 or more ahead, the three-or-fewer bar rises from 300 to 600;
      the higher bars for four and five dice stay as they are.
    - Pending third zilch (ruling): when one more zilch would cost the
      penalty (500 in dicenow), that penalty counts as extra points at risk,
      both in the set-aside formula and against the bank bars.
    - Reaching the target (ruling): if a legal set-aside would bring the
      score to the target with a bankable total, it takes the highest-scoring
      such set-aside and banks at once.
    - Final turn (someone else has reached the target): it keeps rolling
      until a bankable total puts it strictly ahead of the best other score
      (a tie goes to whoever reached the target first, so a tie is not
      enough), then banks; the formula picks set-asides until then.
    """

    name = "dicenow"
    FLOOR = 300
    BARS: ClassVar[dict[int, int]] = {1: 300, 2: 300, 3: 300, 4: 900, 5: 2500}
    RAISED_BAR = 600
    OPPONENT_PAST = 7000
    OPPONENT_LEAD = 2000

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.table = roll_table(rules)

    def decide(self, state: StateLike, me: str) -> Decision:
        """What ``me`` does now: with a roll waiting, the set-aside and then bank or roll;
        between rolls (after a "nothing" bonus, say), ``keep=()`` and bank or roll."""
        view = view_of(state, me)
        if not view.roll:
            return Decision((), self.bank_or_roll(view, left_between_rolls(state.turn)))
        return self.decide_view(view)

    def bank_or_roll(self, view: TurnView, dice_left: int) -> Then:
        """Between rolls at the view's turn total, ``dice_left`` dice left (0: free roll)."""
        floor = self.floor(view)
        total = view.total
        bankable = total > 0 and (dice_left > 0 or self.rules.free_roll != "compulsory")
        if bankable and total >= max(self.points_needed(view), floor):
            return "bank"
        return self._then(view, total, dice_left, floor)

    def floor(self, view: TurnView) -> int:
        """Smallest total it banks: 300, or the rule set's minimum if higher."""
        return max(self.FLOOR, self.rules.entry_needed(view.on_board))

    def decide_view(self, view: TurnView) -> Decision:
        """Pick the set-aside, then bank or roll, by the rules in the class docstring."""
        options = options_of(view, self.rules)
        floor = self.floor(view)
        needed = self.points_needed(view)
        winning = [
            o
            for o in options
            if view.total + o.points >= max(needed, floor) and self.may_bank_after(view, o)
        ]
        if winning:
            best = max(winning, key=lambda o: (o.points, -len(o.dice)))
            return Decision(best.dice, "bank")
        choice = max(
            options, key=lambda o: (self.option_value(view, o, floor), o.points, -len(o.dice))
        )
        return Decision(choice.dice, self.then(view, choice, floor))

    def may_bank_after(self, view: TurnView, option: SetAside) -> bool:
        """False when ``option`` uses the last dice and the free roll is compulsory."""
        return dice_left_after(view, option) > 0 or self.rules.free_roll != "compulsory"

    def points_needed(self, view: TurnView) -> int:
        """Turn total that wins on the spot: the target, or on a final turn the lead."""
        if view.final:
            return view.opponent + 1 - view.score
        return self.rules.target - view.score

    def pending_penalty(self, view: TurnView) -> int:
        """Points a zilch now would cost beyond the turn total (the pending third zilch)."""
        penalty = self.rules.zilch_penalty
        if penalty and view.streak + 1 >= self.rules.penalty_streak:
            return penalty
        return 0

    def option_value(self, view: TurnView, option: SetAside, floor: int) -> float:
        """Points gained + next roll's average - next roll's zilch chance x what would be lost.

        Only the points gained when the bot would bank after this option.
        """
        if self.then(view, option, floor) == "bank":
            return float(option.points)
        left = dice_left_after(view, option) or 6
        odds = self.table.dice[left]
        at_risk = view.total + option.points + self.pending_penalty(view)
        return option.points + odds.average_best - odds.zilch_chance * at_risk

    def bar(self, view: TurnView, dice_left: int) -> int:
        """The banking bar for the dice left, raised when far behind a leader past 7,000."""
        bar = self.BARS[dice_left]
        behind = view.opponent - view.score
        if view.opponent > self.OPPONENT_PAST and behind >= self.OPPONENT_LEAD:
            bar = max(bar, self.RAISED_BAR)
        return bar

    def then(self, view: TurnView, option: SetAside, floor: int) -> Then:
        """Bank or roll after ``option`` (the goal has not been reached)."""
        return self._then(view, view.total + option.points, dice_left_after(view, option), floor)

    def _then(self, view: TurnView, total: int, left: int, floor: int) -> Then:
        if view.final or left == 0 or total < floor:
            return "roll"
        at_risk = total + self.pending_penalty(view)
        return "bank" if at_risk >= self.bar(view, left) else "roll"


class OptimalBot:
    """Plays the solver's strategy: the most long-run points per turn, whatever the scores.

    Each set-aside is valued by the solved value of the state it leads to
    (bank or roll, whichever is better); ties go to more points, then fewer
    dice. The player's streak and on-board status pick the strategy.
    On its final turn (someone else has reached the target, or the final
    round) there is no long run: it plays the exactly solved last turn that
    maximises the chance of banking enough to get strictly ahead of the best
    other score (:mod:`zilch.strategy.final`).
    """

    name = "optimal"

    def __init__(self, rules: RuleSet, solution: Solution) -> None:
        self.rules = rules
        self.solution = solution
        self._final_turns: dict[tuple[int, bool], FinalTurn] = {}

    def decide(self, state: StateLike, me: str) -> Decision:
        """What ``me`` does now: set-aside and then, or between rolls ``keep=()`` and then."""
        view = view_of(state, me)
        if not view.roll:
            return Decision((), self.bank_or_roll(view, left_between_rolls(state.turn)))
        return self.decide_view(view)

    def final_turn(self, view: TurnView) -> FinalTurn:
        """The solved last turn for this view's deficit (kept for later turns of the game)."""
        key = (view.opponent + 1 - view.score, view.on_board)
        final = self._final_turns.get(key)
        if final is None:
            final = self._final_turns[key] = solve_final_turn(self.rules, key[0], view.on_board)
        return final

    def bank_or_roll(self, view: TurnView, dice_left: int) -> Then:
        """Between rolls: the solved decision at the view's total (``dice_left`` 0: free roll)."""
        if view.final:
            roll = self.final_turn(view).should_roll(view.total, dice_left)
        else:
            roll = self.solution.should_roll(view.total, dice_left, view.streak, view.on_board)
        return "roll" if roll else "bank"

    def decide_view(self, view: TurnView) -> Decision:
        """The set-aside leading to the best-valued state, then its best continuation."""
        sol = self.solution
        final = self.final_turn(view) if view.final else None

        def value(option: SetAside) -> tuple[float, int, int]:
            total = view.total + option.points
            left = dice_left_after(view, option)
            if final is not None:
                worth = final.chance_after(total, left)
            else:
                worth = sol.state_value(total, left, view.streak, view.on_board)
            return (worth, option.points, -len(option.dice))

        choice = max(options_of(view, self.rules), key=value)
        after = TurnView(
            (),
            view.total + choice.points,
            view.score,
            view.opponent,
            view.streak,
            view.on_board,
            view.final,
        )
        return Decision(choice.dice, self.bank_or_roll(after, dice_left_after(view, choice)))


class WinBot:
    """Plays for the highest chance of winning the game, from the two-player win solve.

    Each set-aside is valued by the exact chance of winning of the state it
    leads to (banking or rolling on, whichever is better), solved for this turn
    from the turn-start table (:meth:`WinTable.turn`); ties go to more points,
    then fewer dice. The opponent is the other player, or with three or more
    players the one with the best score (an approximation: the others are
    ignored). On a final turn only getting ahead counts. Under a final round
    (club) the turn is placed by the view's seat, round and final flag.
    """

    name = "win"

    def __init__(self, rules: RuleSet, table: WinTable, keep: int = 64) -> None:
        self.rules = rules
        self.table = table
        self.keep = max(1, keep)
        self._turns: OrderedDict[TurnKey, TurnChances] = OrderedDict()

    @staticmethod
    def key_of(view: TurnView, rules: RuleSet | None = None) -> TurnKey:
        """What a turn's solution depends on: both sides, whether it is a last turn, and
        under final-round ``rules`` where the turn falls in its round."""
        place = Place()
        if rules is not None and rules.ending == "final_round":
            place = place_of(rules, view.round, view.closes, view.final)
            if place.kind == "quiet" and (view.score or (view.opponent and not place.closes)):
                # More than two players (or one who left): round 1 is past its two-player
                # shape, so the turn is read as one of a round whose end is announced.
                place = Place(place.closes, "announced")
        return (
            view.score,
            view.opponent,
            view.streak,
            view.opponent_streak,
            view.on_board,
            view.opponent_on_board,
            view.final,
            place.closes,
            place.kind,
        )

    def turn(self, view: TurnView) -> TurnChances:
        """The solved turn for this view's scores, streaks and statuses (remembered)."""
        key = self.key_of(view, self.rules)
        found = self._turns.get(key)
        if found is None:
            self.prepare([key])
            found = self._turns[key]
        else:
            self._turns.move_to_end(key)
        return found

    def pending(self, state: StateLike, me: str) -> TurnKey | None:
        """The turn ``decide(state, me)`` would have to solve first, or None if remembered."""
        key = self.key_of(view_of(state, me), self.rules)
        return None if key in self._turns else key

    def prepare(self, keys: Sequence[TurnKey]) -> None:
        """Solve these turns together (:meth:`WinTable.turns`) and remember them.

        The most recently used ``keep`` turns are remembered; a batch larger than
        that is kept whole until the next one.
        """
        wanted = [k for k in dict.fromkeys(keys) if k not in self._turns]
        situations = [(Side(k[0], k[2], k[4]), Side(k[1], k[3], k[5]), k[6]) for k in wanted]
        places = [Place(k[7], k[8]) for k in wanted]
        for key, solved in zip(wanted, self.table.turns(situations, places), strict=True):
            self._turns[key] = solved
        while len(self._turns) > max(self.keep, len(wanted)):
            self._turns.popitem(last=False)

    def decide(self, state: StateLike, me: str) -> Decision:
        """What ``me`` does now: set-aside and then, or between rolls ``keep=()`` and then."""
        view = view_of(state, me)
        if not view.roll:
            return Decision((), self.bank_or_roll(view, left_between_rolls(state.turn)))
        return self.decide_view(view)

    def bank_or_roll(self, view: TurnView, dice_left: int) -> Then:
        """Between rolls at the view's total (``dice_left`` 0: all six are back)."""
        return "roll" if self.turn(view).should_roll(view.total, dice_left) else "bank"

    def decide_view(self, view: TurnView) -> Decision:
        """The set-aside with the best chance of winning, then bank or roll."""
        turn = self.turn(view)

        def value(option: SetAside) -> tuple[float, int, int]:
            chance = turn.chance_after(view.total + option.points, dice_left_after(view, option))
            return (chance, option.points, -len(option.dice))

        choice = max(options_of(view, self.rules), key=value)
        total = view.total + choice.points
        left = dice_left_after(view, choice)
        return Decision(choice.dice, "roll" if turn.should_roll(total, left) else "bank")


def make_bot(
    name: str,
    rules: RuleSet,
    solution: Solution | Callable[[RuleSet], Solution] | None = None,
    win: WinTable | Callable[[RuleSet], WinTable] | None = None,
) -> Bot:
    """The computer player ``name`` for ``rules``.

    ``optimal`` needs the solved rule set: pass a :class:`Solution` (e.g. from
    a cache), a function that returns one, or nothing to solve here. ``win``
    needs the two-player win table the same way (solving it takes minutes).
    """
    if name == "dicenow":
        return DicenowBot(rules)
    if name == "win":
        if win is None:
            from zilch.strategy.winsolve import solve_win

            win = WinTable.of(solve_win(rules))
        elif not isinstance(win, WinTable):
            win = win(rules)
        return WinBot(rules, win)
    if name == "optimal":
        if solution is None:
            from zilch.strategy.solver import solve_cached

            solution = solve_cached
        if not isinstance(solution, Solution):
            solution = solution(rules)
        return OptimalBot(rules, solution)
    raise UnknownBot(f"unknown bot {name!r}; choose one of {', '.join(BOTS)}")
