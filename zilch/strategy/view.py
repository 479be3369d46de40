"""What a computer player or the coach sees of a game: one roll in one turn.

:class:`TurnView` is built from a game state (:func:`view_of`) or directly
from the command line's ``decide`` arguments, so the players are tested and
used without a running game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from zilch.errors import IllegalAction, ZilchError
from zilch.rules import RuleSet
from zilch.scoring import SetAside, check_dice, legal_set_asides

Then = Literal["roll", "bank"]


class InvalidSituation(ZilchError, ValueError):
    """A turn situation given from outside that cannot happen (negative total, ...)."""


class PlayerLike(Protocol):
    """The parts of :class:`zilch.PlayerState` the strategy reads."""

    @property
    def name(self) -> str: ...
    @property
    def score(self) -> int: ...
    @property
    def streak(self) -> int: ...
    @property
    def on_board(self) -> bool: ...


class TurnLike(Protocol):
    """The parts of :class:`zilch.TurnState` the strategy reads."""

    @property
    def total(self) -> int: ...
    @property
    def roll(self) -> tuple[int, ...] | None: ...
    @property
    def dice_left(self) -> int: ...
    @property
    def set_aside(self) -> tuple[tuple[int, ...], ...]: ...
    @property
    def pyramid(self) -> tuple[int, ...]: ...
    @property
    def free_roll(self) -> bool: ...


class StateLike(Protocol):
    """The parts of :class:`zilch.GameState` the strategy reads."""

    @property
    def players(self) -> Sequence[PlayerLike]: ...
    @property
    def current(self) -> str | None: ...
    @property
    def turn(self) -> TurnLike: ...
    @property
    def final_round(self) -> bool: ...
    @property
    def closer(self) -> str | None: ...
    @property
    def tiebreak(self) -> bool: ...
    @property
    def round(self) -> int: ...


@dataclass(frozen=True)
class Decision:
    """What a player does with a roll: the dice it keeps, then ``roll`` or ``bank``.

    ``keep`` is empty only for a roll that scores by itself (the "nothing" bonus).
    """

    keep: tuple[int, ...]
    then: Then

    def to_json(self) -> dict[str, object]:
        """The ``decide`` contract: ``{"keep": [..], "then": "roll" | "bank"}``."""
        return {"keep": list(self.keep), "then": self.then}


@dataclass(frozen=True)
class TurnView:
    """One roll to decide on, and the situation around it.

    ``total`` is the turn total before this roll's set-aside; ``frozen`` the
    dice set aside earlier that may still complete a triple (pyramiding only);
    ``opponent`` the best score among the other players; ``final`` is true on
    the player's last turn of the game (someone else has reached the target).
    ``opponent_streak`` and ``opponent_on_board`` describe that best other
    player (the ``win`` player reads them). Where the game ends with a final
    round, ``closes`` is true for the player who plays last in each round and
    ``round`` is the round number (0: not given, a round whose scores are
    announced); ``final`` is then true throughout the final round.
    """

    roll: tuple[int, ...]
    total: int = 0
    score: int = 0
    opponent: int = 0
    streak: int = 0
    on_board: bool = True
    final: bool = False
    frozen: tuple[int, ...] = ()
    opponent_streak: int = 0
    opponent_on_board: bool = True
    closes: bool = False
    round: int = 0

    @classmethod
    def checked(
        cls,
        roll: Sequence[object],
        *,
        total: int = 0,
        score: int = 0,
        opponent: int = 0,
        streak: int = 0,
        on_board: bool = True,
        final: bool = False,
        opponent_streak: int = 0,
        opponent_on_board: bool = True,
        closes: bool = False,
        round: int = 0,
    ) -> TurnView:
        """A view from outside input, each value checked with a one-line reason.

        Raises :class:`~zilch.InvalidDice` for the roll and
        :class:`InvalidSituation` for the numbers.
        """
        dice = check_dice(roll)
        if total < 0:
            raise InvalidSituation(f"the turn total cannot be negative (got {total})")
        if total % 50:
            raise InvalidSituation(f"a turn total is a multiple of 50 (got {total})")
        if streak < 0 or opponent_streak < 0:
            bad = min(streak, opponent_streak)
            raise InvalidSituation(f"a zilch streak cannot be negative (got {bad})")
        if round < 0:
            raise InvalidSituation(f"a round number is 1 or more (got {round})")
        return cls(
            dice,
            total,
            score,
            opponent,
            streak,
            on_board,
            final,
            (),
            opponent_streak,
            opponent_on_board,
            closes,
            round,
        )

    @property
    def dice(self) -> int:
        """Number of dice in this roll."""
        return len(self.roll)


def options_of(view: TurnView, rules: RuleSet) -> list[SetAside]:
    """Legal set-asides of the view's roll; a "nothing" roll yields one empty set-aside."""
    options = legal_set_asides(view.roll, rules, view.frozen)
    if not options and view.dice == 6 and rules.nothing_bonus:
        return [SetAside((), rules.nothing_bonus)]
    if not options:
        shown = " ".join(map(str, view.roll))
        raise IllegalAction(f"the roll {shown} is a zilch: there is nothing to keep")
    return options


def dice_left_after(view: TurnView, option: SetAside) -> int:
    """Dice left to roll after ``option`` (0 when all have scored: a free roll follows)."""
    if not option.dice:  # the "nothing" bonus gives all six dice back
        return 0
    return view.dice - len(option.dice)


def left_between_rolls(turn: TurnLike) -> int:
    """Dice left after the last set-aside: 0 when all six are back for a free roll."""
    return 0 if turn.free_roll else turn.dice_left


def is_final_turn(state: StateLike, me: str) -> bool:
    """True on ``me``'s last turn: the final round, or a final turn after someone else
    reached the target (or a tie-break turn)."""
    return state.final_round and (state.closer != me or state.tiebreak)


def view_of(state: StateLike, me: str) -> TurnView:
    """The view of player ``me`` on the current turn of a game state.

    ``roll`` is empty between rolls (the decision is then only bank or roll).
    Raises :class:`IllegalAction` when it is not ``me``'s turn.
    """
    if state.current != me:
        raise IllegalAction(f"it is not {me}'s turn (current: {state.current})")
    player = next(p for p in state.players if p.name == me)
    others = [p for p in state.players if p.name != me]
    best = max(others, key=lambda p: p.score, default=None)
    return TurnView(
        tuple(state.turn.roll or ()),
        state.turn.total,
        player.score,
        best.score if best else 0,
        player.streak,
        player.on_board,
        is_final_turn(state, me),
        state.turn.pyramid,
        best.streak if best else 0,
        best.on_board if best else True,
        state.players[-1].name == me,
        state.round,
    )
