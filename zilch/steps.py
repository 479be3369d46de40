"""How each action changes a game: the steps inside a turn and between turns.

:class:`Draft` (the next state, being drafted) rebuilds the immutable
:class:`~zilch.state.GameState` piece by piece and collects the events;
:class:`~zilch.game.Game` checks that an action is legal, runs these steps,
and keeps the result only when all went well. Every function here takes the
draft being built.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypeVar

from zilch.rules import RuleSet
from zilch.scoring import Breakdown
from zilch.state import Event, GameState, PlayerState, TurnState

_T = TypeVar("_T")

Outcome = Literal["keep", "nothing", "forgiven", "zilch"]
"""What a roll led to: a set-aside to choose, or one of the outcomes resolved at once."""

ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}


def dice_text(values: Sequence[int]) -> str:
    """Dice for a sentence: ``1 5 5``."""
    return " ".join(map(str, values))


def ordinal(n: int) -> str:
    """``3`` -> ``"third"``."""
    return ORDINALS.get(n, f"{n}th")


def names_text(names: Sequence[str]) -> str:
    """``["Ann", "Ben", "Cat"]`` -> ``"Ann, Ben and Cat"``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _replace(value: _T, **changes: Any) -> _T:
    """A copy of a frozen state object with some fields changed.

    A fast :func:`dataclasses.replace` for the engine's own plain frozen
    dataclasses (no ``__post_init__``, no init-only fields, only known field
    names passed: the tests cover every call): replays of long records spend
    much of their time here.
    """
    new = object.__new__(type(value))
    object.__setattr__(new, "__dict__", {**value.__dict__, **changes})
    return new


class Draft:
    """One action being applied: the state as it is being rebuilt, and its events."""

    def __init__(self, rules: RuleSet, state: GameState) -> None:
        self.rules = rules
        self.state = state
        self.events: list[Event] = []

    @property
    def me(self) -> PlayerState:
        """The player whose turn it is."""
        return self.state.player(self.state.current or "")

    def emit(self, kind: str, player: str | None, text: str, **data: Any) -> None:
        """Record an event of this action."""
        self.events.append(Event(kind, player, data, text))

    def set(self, **changes: Any) -> None:
        """Change fields of the game state."""
        self.state = _replace(self.state, **changes)

    def turn(self, **changes: Any) -> None:
        """Change fields of the turn."""
        self.set(turn=_replace(self.state.turn, **changes))

    def update(self, name: str, **changes: Any) -> None:
        """Change fields of one player."""
        players = self.state.players
        for at, player in enumerate(players):
            if player.name == name:
                changed = _replace(player, **changes)
                self.set(players=(*players[:at], changed, *players[at + 1 :]))
                return
        raise KeyError(name)


# --- what happens inside a turn ------------------------------------------------------


def refresh(step: Draft) -> None:
    """Keep ``turn.can_bank`` in step with the rest of the state."""
    if not step.state.finished:
        can_bank = bank_refusal(step.rules, step.state) is None
        if can_bank != step.state.turn.can_bank:
            step.turn(can_bank=can_bank)


def bank_refusal(rules: RuleSet, state: GameState) -> str | None:
    """Why the current player may not bank now (a sentence), or None."""
    if state.finished or state.current is None:
        return "the game is over"
    name, turn = state.current, state.turn
    me = state.player(name)
    if state.phase == "keep":
        return f"{name} must set aside scoring dice from {dice_text(turn.roll or ())} first"
    if turn.total <= 0:
        return f"{name} has nothing to bank yet: roll the dice"
    if turn.free_roll and rules.free_roll == "compulsory":
        return f"all six dice scored: under {rules.name} {name} must roll six dice again"
    need = rules.entry_needed(me.on_board)
    if turn.total < need:
        why = "to get on board" if not me.on_board and need > rules.bank_minimum else "to bank"
        return f"{name} needs {need:,} {why} and has {turn.total:,}: roll {turn.dice_left} dice"
    if rules.surpassing and turn.total <= state.last_turn_score:
        return (
            f"{name} must beat the previous turn's {state.last_turn_score:,} to bank "
            f"(surpassing) and has {turn.total:,}"
        )
    return None


def land(step: Draft, dice: tuple[int, ...], scores: bool) -> Outcome:
    """Dice that landed (rolled, or corrected by a person): a roll to keep from, or resolved.

    ``scores`` says whether the roll has a legal set-aside. Without one, a
    six-dice roll pays the "nothing" bonus where the rules have it, a turn's
    first roll is forgiven while the player has forgiveness left, and any
    other roll is a zilch.
    """
    turn = step.state.turn
    first = turn.rolls == 0
    step.turn(rolls=turn.rolls + 1, roll=dice, free_roll=False)
    step.set(started=True, phase="keep")
    if scores:
        return "keep"
    if len(dice) == 6 and step.rules.nothing_bonus:
        nothing(step)
        return "nothing"
    if first and step.me.forgiveness > 0:
        forgive(step)
        return "forgiven"
    zilch(step)
    return "zilch"


UNDONE = {"nothing": "the nothing bonus", "forgiven": "the forgiveness", "zilch": "the zilch"}


def corrected(
    step: Draft, dice: tuple[int, ...], read: tuple[int, ...], by: str | None, undone: Outcome
) -> None:
    """Announce a correction of the current player's roll (``undone``: what the old roll led to)."""
    name = step.state.current
    who = f"{name}'s roll corrected by {by}" if by else f"{name}'s roll corrected"
    text = f"{who}: {dice_text(dice)}, not {dice_text(read)}."
    if undone != "keep":
        text = f"{text[:-1]}; {UNDONE[undone]} is undone."
    step.emit(
        "correct",
        name,
        text,
        dice=list(dice),
        read=list(read),
        by=by,
        undone=None if undone == "keep" else undone,
    )


def set_aside(step: Draft, kept: tuple[int, ...], split: Breakdown) -> None:
    """Take checked dice out of the roll: points to the turn total, hot dice if none are left."""
    name, turn = step.state.current, step.state.turn
    total, left = turn.total + split.points, turn.dice_left - len(kept)
    pyramid = list(turn.pyramid)
    for die in split.frozen_used:
        pyramid.remove(die)
    if step.rules.pyramiding:
        pyramid.extend(split.singles)
    step.turn(
        total=total,
        roll=None,
        dice_left=left,
        set_aside=(*turn.set_aside, kept),
        pyramid=tuple(sorted(pyramid)),
    )
    step.set(phase="roll")
    described = split.describe()
    step.emit(
        "set_aside",
        name,
        f"{name} keeps {dice_text(kept)} for {split.points:,}"
        + (f" ({described})" if split.mixed else "")
        + f": turn total {total:,}, {left} {'die' if left == 1 else 'dice'} left.",
        dice=list(kept),
        points=split.points,
        total=total,
        dice_left=left,
        combinations=described,
    )
    if left == 0:
        hot_dice(step)


def hot_dice(step: Draft) -> None:
    """All six dice scored: they come back for a free roll."""
    name, total = step.state.current, step.state.turn.total
    step.turn(dice_left=6, set_aside=(), pyramid=(), free_roll=True)
    must = step.rules.free_roll == "compulsory"
    then = "must roll all six again" if must else "may bank or roll all six again"
    step.emit(
        "free_roll",
        name,
        f"Hot dice! All six dice scored: {name} {then} (turn total {total:,}).",
        total=total,
        compulsory=must,
    )


def nothing(step: Draft) -> None:
    """A six-dice roll with no scoring die pays the "nothing" bonus and gives six dice."""
    name, bonus = step.state.current, step.rules.nothing_bonus
    total = step.state.turn.total + bonus
    step.turn(total=total, roll=None, dice_left=6, set_aside=(), pyramid=(), free_roll=True)
    step.set(phase="roll")
    step.emit(
        "nothing",
        name,
        f"{name} rolls nothing at all: {bonus:,} points and all six dice back "
        f"(turn total {total:,}).",
        points=bonus,
        total=total,
    )


def forgive(step: Draft) -> None:
    """Forgive a zilch on the turn's first roll: roll six dice again, once per game."""
    me = step.me
    step.update(me.name, forgiveness=me.forgiveness - 1)
    step.turn(roll=None)
    step.set(phase="roll")
    step.emit(
        "forgiven",
        me.name,
        f"Forgiveness: {me.name}'s first roll zilched, so {me.name} rolls six dice again "
        "(once per game).",
        left=me.forgiveness - 1,
    )


def zilch(step: Draft) -> None:
    """A roll with no set-aside: the turn total is lost, streak and penalties follow."""
    rules, me, turn = step.rules, step.me, step.state.turn
    streak = me.streak + 1
    step.update(me.name, streak=streak, zilches=me.zilches + 1)
    step.emit(
        "zilch",
        me.name,
        (
            f"Zilch! {me.name} loses the turn's {turn.total:,}"
            if turn.total
            else f"Zilch! {me.name} scores nothing this turn"
        )
        + (f" ({ordinal(streak)} zilch in a row)." if streak > 1 else "."),
        lost=turn.total,
        streak=streak,
    )
    if turn.challenge:
        level = turn.challenge_level
        _penalise(
            step, me.name, rules.challenge_penalties[level - 1], f"zilching challenge {level}"
        )
    if rules.zilch_penalty and streak >= rules.penalty_streak:
        _penalise(step, me.name, rules.zilch_penalty, f"a {ordinal(streak)} zilch in a row")
        if rules.after_penalty == "reset":
            step.update(me.name, streak=0)
    end_turn(step, 0)


def _set_score(step: Draft, name: str, score: int) -> int:
    """Set a banked score, keeping the floor and the "while zero" entry rule."""
    if step.rules.score_floor == "zero":
        score = max(0, score)
    on_board = step.state.player(name).on_board
    if step.rules.entry_rule == "while_zero" and score <= 0:
        on_board = False
    step.update(name, score=score, on_board=on_board)
    return score


def _penalise(step: Draft, name: str, amount: int, reason: str) -> None:
    """Take a penalty from a banked score (down to the floor) and say so."""
    before = step.state.player(name).score
    after = _set_score(step, name, before - amount)
    step.emit(
        "penalty",
        name,
        f"{name} loses {before - after:,} for {reason} and has {after:,}.",
        amount=before - after,
        score=after,
        reason=reason,
    )


def bank(step: Draft) -> None:
    """Add the turn total to the score (and take it from a challenge's victim)."""
    rules, state, me = step.rules, step.state, step.me
    total = state.turn.total
    score = _set_score(step, me.name, me.score + total)
    reached = me.reached
    if reached is None and score >= rules.target:
        reached = state.turn_number
    step.update(me.name, streak=0, on_board=True, reached=reached)
    step.emit(
        "bank", me.name, f"{me.name} banks {total:,} and has {score:,}.", points=total, score=score
    )
    victim = state.turn.challenge
    if victim:
        left = _set_score(step, victim, state.player(victim).score - total)
        step.emit(
            "challenge",
            victim,
            f"{victim} loses {total:,} to {me.name}'s challenge and has {left:,}.",
            challenger=me.name,
            points=total,
            score=left,
        )
    if rules.ending == "final_turn" and state.closer is None and score >= rules.target:
        names = state.names
        at = names.index(me.name)
        pending = names[at + 1 :] + names[:at]
        step.set(closer=me.name, pending=pending, final_round=True)
        step.emit(
            "final_round",
            me.name,
            f"{me.name} has reached {rules.target:,} with {score:,}: {names_text(pending)} "
            f"{'takes' if len(pending) == 1 else 'each take'} one final turn.",
            score=score,
            players=list(pending),
        )
    end_turn(step, total)


# --- between turns ---------------------------------------------------------------------


def end_turn(step: Draft, banked: int) -> None:
    """Close the current turn and start the next one, or end the game."""
    state, rules = step.state, step.rules
    name = state.current or ""
    step.update(name, last_turn=banked)
    step.set(last_turn_score=banked, turn_number=state.turn_number + 1)
    if rules.ending == "instant" and banked and step.state.player(name).score >= rules.target:
        _finish(step, (name,))
        return
    if state.pending:
        pending = tuple(n for n in state.pending if n != name)
        step.set(pending=pending)
        if pending:
            _advance(step, pending[0])
        else:
            _resolve(step)
        return
    names = state.names
    at = names.index(name) + 1
    if at < len(names):
        start_turn(step, names[at])
        return
    done = state.round
    step.set(round=done + 1)
    if rules.ending == "final_round" and done >= rules.announce_from:
        _announce_scores(step, done)
        if state.final_round:
            _resolve(step)
            return
        leader = max(step.state.players, key=lambda p: p.score)
        if leader.score >= rules.target:
            step.set(final_round=True)
            step.emit(
                "final_round",
                leader.name,
                f"Game point: {leader.name} has {leader.score:,}. "
                f"Round {done + 1} is the final round.",
                round=done + 1,
                score=leader.score,
            )
    start_turn(step, names[0])


def _advance(step: Draft, name: str) -> None:
    """Start ``name``'s turn out of seat order (final and tie-break turns)."""
    names = step.state.names
    if names.index(name) <= names.index(step.state.current or name):
        step.set(round=step.state.round + 1)
    start_turn(step, name)


def start_turn(step: Draft, name: str) -> None:
    """Give the dice to ``name`` with a fresh turn, announced."""
    state = step.state
    step.set(current=name, phase="roll", turn=TurnState(player=name))
    kind = "tie-break turn" if state.tiebreak else "final turn" if state.pending else "turn"
    step.emit(
        "turn_start",
        name,
        f"{name}'s {kind} (round {state.round}).",
        round=state.round,
        turn=state.turn_number,
        final=bool(state.pending) or state.final_round,
        tiebreak=state.tiebreak,
    )
    if step.rules.ending == "final_round" and state.final_round:
        _announce_needs(step, name)


def _announce_needs(step: Draft, name: str) -> None:
    """Before a final-round turn: the points this player needs to take the lead."""
    me = step.state.player(name)
    best = max(p.score for p in step.state.players if p.name != name)
    needs = max(0, best - me.score + 1)
    text = (
        f"{name} needs {needs:,} to take the lead."
        if needs
        else f"{name} leads with {me.score:,}; any bank keeps the lead."
    )
    step.emit("announcement", name, text, needs=needs, score=me.score)


def _announce_scores(step: Draft, done: int) -> None:
    """The host reads every score after a round."""
    ranked = sorted(step.state.players, key=lambda p: -p.score)
    listing = ", ".join(f"{p.name} {p.score:,}" for p in ranked)
    step.emit(
        "announcement",
        None,
        f"Scores after round {done}: {listing}.",
        round=done,
        scores={p.name: p.score for p in ranked},
    )


def _resolve(step: Draft) -> None:
    """Game end: winners by the tie rule, or tie-break turns for tied leaders."""
    state, rules = step.state, step.rules
    top = max(p.score for p in state.players)
    leaders = [p for p in state.players if p.score == top]
    if len(leaders) > 1 and rules.tie == "tiebreak_turns":
        names = state.names
        at = names.index(state.current or names[0])
        tied = tuple(
            sorted((p.name for p in leaders), key=lambda n: (names.index(n) - at - 1) % len(names))
        )
        step.set(tiebreak=True, pending=tied)
        step.emit(
            "announcement",
            None,
            f"{names_text(tied)} are tied at {top:,}: each takes one more turn.",
            tied=list(tied),
            score=top,
        )
        _advance(step, tied[0])
        return
    winners = leaders
    reached = [p for p in leaders if p.reached is not None]
    if len(leaders) > 1 and rules.tie == "first_to_reach" and reached:
        winners = [min(reached, key=lambda p: p.reached or 0)]
    _finish(step, tuple(p.name for p in winners))


def _finish(step: Draft, names: tuple[str, ...]) -> None:
    """End the game with ``names`` as its winners (one, or several sharing the win)."""
    state = step.state
    top = max(state.player(name).score for name in names)
    how = "wins" if len(names) == 1 else "share the win"
    step.set(finished=True, winners=names, phase="over", current=None, pending=(), turn=TurnState())
    step.emit(
        "game_over",
        None,
        f"Game over: {names_text(names)} {how} with {top:,}.",
        winners=list(names),
        scores={p.name: p.score for p in state.players},
    )
