"""Turn and game: dice come from outside, the rule set decides everything else.

Each action (:meth:`Game.roll`, :meth:`~Game.keep`, :meth:`~Game.bank`,
:meth:`~Game.skip`, :meth:`~Game.join`, :meth:`~Game.challenge`) is checked
against the current state, builds a new immutable :class:`GameState` and
returns the events it caused; an illegal action raises a
:class:`~zilch.errors.ZilchError` subclass and changes nothing.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from zilch.errors import GameOver, IllegalAction, InvalidPlayer
from zilch.rules import RuleSet
from zilch.scoring import SetAside, check_dice, counts_of, scoring_table
from zilch.state import Event, GameState, PlayerState, TurnState

__all__ = ["ACTIONS", "Event", "Game", "GameState", "PlayerState", "TurnState"]

_T = TypeVar("_T")

ACTIONS = ("roll", "keep", "bank", "skip", "join", "challenge")
NAME_MAX = 24
ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}


def _dice(values: Sequence[int]) -> str:
    return " ".join(map(str, values))


def _ordinal(n: int) -> str:
    return ORDINALS.get(n, f"{n}th")


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def check_name(name: object) -> str:
    """A player's name, stripped; :class:`InvalidPlayer` if empty, too long or unprintable."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidPlayer(f"a player's name must be non-empty text, got {name!r}")
    name = name.strip()
    if len(name) > NAME_MAX:
        raise InvalidPlayer(f"player name {name!r} is longer than {NAME_MAX} characters")
    if any(unicodedata.category(ch).startswith("C") for ch in name) or "," in name:
        raise InvalidPlayer(f"player name {name!r} may not hold commas or control characters")
    return name


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


class _Step:
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
        self.events.append(Event(kind, player, data, text))

    def set(self, **changes: Any) -> None:
        self.state = _replace(self.state, **changes)

    def turn(self, **changes: Any) -> None:
        self.set(turn=_replace(self.state.turn, **changes))

    def update(self, name: str, **changes: Any) -> None:
        players = self.state.players
        for at, player in enumerate(players):
            if player.name == name:
                changed = _replace(player, **changes)
                self.set(players=(*players[:at], changed, *players[at + 1 :]))
                return
        raise KeyError(name)


class Game:
    """A game of Zilch under one rule set, fed dice values from outside.

    ``game.state`` is the current :class:`GameState`; ``game.journal`` every
    event so far; ``game.actions`` the legal actions taken, in the replay
    record's format.
    """

    def __init__(self, rules: RuleSet, players: Sequence[str]) -> None:
        if isinstance(players, str) or not isinstance(players, Sequence):
            raise InvalidPlayer("players must be a list of names")
        names = [check_name(name) for name in players]
        folded = [name.casefold() for name in names]
        if len(set(folded)) != len(folded):
            raise InvalidPlayer(f"player names must differ: {', '.join(names)}")
        if not 2 <= len(names) <= rules.players_max:
            raise InvalidPlayer(
                f"{rules.name} takes 2 to {rules.players_max} players, got {len(names)}"
            )
        self.rules = rules
        self._table = scoring_table(rules)
        self.players_given = tuple(names)
        if rules.order == "alphabetical":
            names = sorted(names, key=str.casefold)
        state = GameState(
            preset=rules.name,
            players=tuple(PlayerState(name, forgiveness=rules.forgiveness) for name in names),
            current=names[0],
            phase="roll",
            turn=TurnState(player=names[0]),
        )
        step = _Step(rules, state)
        _start_turn(step, names[0])
        self._state = step.state
        self._journal: list[Event] = list(step.events)
        self._actions: list[dict[str, Any]] = []

    @property
    def state(self) -> GameState:
        """The current state (immutable)."""
        return self._state

    @property
    def journal(self) -> tuple[Event, ...]:
        """Every event since the game began."""
        return tuple(self._journal)

    @property
    def actions(self) -> tuple[dict[str, Any], ...]:
        """The legal actions taken so far, as replay-record dicts."""
        return tuple(dict(action) for action in self._actions)

    def set_asides(self) -> list[SetAside]:
        """Legal set-asides of the roll waiting for one (empty between rolls)."""
        turn = self._state.turn
        if self._state.phase != "keep" or turn.roll is None:
            return []
        return list(self._table.legal(turn.roll, counts_of(turn.pyramid)))

    def bank_refusal(self) -> str | None:
        """Why the current player may not bank now, or None when banking is allowed."""
        return _bank_refusal(self.rules, self._state)

    # --- actions -----------------------------------------------------------------

    def roll(self, values: Sequence[int]) -> list[Event]:
        """The current player's dice as they landed: zilch, "nothing", or a roll to keep from."""
        step = self._begin()
        state, turn = step.state, step.state.turn
        if state.phase != "roll":
            raise IllegalAction(
                f"{state.current} must set aside dice from {_dice(turn.roll or ())} before rolling"
            )
        dice = check_dice(values, f"{state.current}'s roll", turn.dice_left, turn.dice_left)
        first = turn.rolls == 0
        step.emit("roll", state.current, f"{state.current} rolls {_dice(dice)}.", dice=list(dice))
        step.turn(rolls=turn.rolls + 1, roll=dice, free_roll=False)
        step.set(started=True, phase="keep")
        if self._table.legal(dice, counts_of(turn.pyramid)):
            pass
        elif len(dice) == 6 and self.rules.nothing_bonus:
            _nothing(step)
        elif first and step.me.forgiveness > 0:
            _forgive(step)
        else:
            _zilch(step)
        return self._commit(step, {"roll": list(values)})

    def keep(self, values: Sequence[int]) -> list[Event]:
        """Set aside these dice of the current roll; all must score."""
        step = self._begin()
        state, turn = step.state, step.state.turn
        if state.phase != "keep" or turn.roll is None:
            raise IllegalAction(
                f"{state.current} has no roll to set aside from: roll {turn.dice_left} dice"
                + (" or bank" if turn.can_bank else "")
            )
        split = self._table.check_kept(values, turn.roll, counts_of(turn.pyramid))
        kept = tuple(sorted(values))
        total, left = turn.total + split.points, turn.dice_left - len(kept)
        pyramid = list(turn.pyramid)
        for die in split.frozen_used:
            pyramid.remove(die)
        if self.rules.pyramiding:
            pyramid.extend(split.singles)
        step.turn(
            total=total,
            roll=None,
            dice_left=left,
            set_aside=(*turn.set_aside, kept),
            pyramid=tuple(sorted(pyramid)),
        )
        step.set(phase="roll")
        step.emit(
            "set_aside",
            state.current,
            f"{state.current} keeps {_dice(kept)} for {split.points:,}"
            + (f" ({split.describe()})" if split.mixed else "")
            + f": turn total {total:,}, {left} {'die' if left == 1 else 'dice'} left.",
            dice=list(kept),
            points=split.points,
            total=total,
            dice_left=left,
            combinations=split.describe(),
        )
        if left == 0:
            _hot_dice(step)
        return self._commit(step, {"keep": list(values)})

    def bank(self) -> list[Event]:
        """End the turn and add the turn total to the banked score."""
        step = self._begin()
        refusal = _bank_refusal(self.rules, step.state)
        if refusal is not None:
            raise IllegalAction(refusal)
        _bank(step)
        return self._commit(step, {"bank": True})

    def skip(self) -> list[Event]:
        """Skip the turn of a player who does not answer: not a zilch, no streak change."""
        step = self._begin()
        state = step.state
        if state.phase != "roll" or state.turn.rolls or state.turn.challenge:
            raise IllegalAction(
                f"{state.current}'s turn has begun; only a turn not yet started can be skipped"
            )
        step.emit("skip", state.current, f"{state.current} does not answer: the turn is skipped.")
        step.set(started=True)
        _end_turn(step, 0)
        return self._commit(step, {"skip": True})

    def join(self, name: str) -> list[Event]:
        """Add a player at the end of the order, when the rules still take joiners."""
        step = self._begin()
        state, rules = step.state, self.rules
        name = check_name(name)
        if name.casefold() in (n.casefold() for n in state.names):
            raise InvalidPlayer(f"{name} is already playing")
        if len(state.players) >= rules.players_max:
            raise IllegalAction(f"the table is full: {rules.name} takes {rules.players_max}")
        late_ok = rules.join_rounds and state.round <= rules.join_rounds and not state.final_round
        if state.started and not late_ok:
            when = (
                f"during the first {rules.join_rounds} rounds"
                if rules.join_rounds
                else "before the first roll"
            )
            raise IllegalAction(f"{name} cannot join now: under {rules.name} players join {when}")
        after = state.names[-1]
        step.set(players=(*state.players, PlayerState(name, forgiveness=rules.forgiveness)))
        step.emit("join", name, f"{name} joins the game and plays after {after}.")
        return self._commit(step, {"join": name})

    def challenge(self, victim: str) -> list[Event]:
        """Announce a challenge turn against ``victim`` before the turn's first roll."""
        step = self._begin()
        state, rules = step.state, self.rules
        me = step.me
        if not rules.challenging:
            raise IllegalAction(
                f"challenge turns are off under {rules.name}; "
                "they need the house rule challenging=true"
            )
        if state.phase != "roll" or state.turn.rolls or state.turn.challenge:
            raise IllegalAction("a challenge is announced once, before the turn's first roll")
        others = [n for n in state.names if n != me.name]
        if victim not in others:
            raise IllegalAction(f"{victim!r} is not another player; challenge one of {others}")
        level = 2 if me.score >= rules.challenge_split else 1
        if level == 1 and not me.on_board:
            raise IllegalAction(f"{me.name} must be on board to use challenge one")
        if level in me.challenges:
            raise IllegalAction(f"{me.name} has already used challenge {level}")
        penalty = rules.challenge_penalties[level - 1]
        step.update(me.name, challenges=(*me.challenges, level))
        step.turn(challenge=victim, challenge_level=level)
        step.set(started=True)
        step.emit(
            "challenge",
            me.name,
            f"{me.name} challenges {victim} (challenge {level}): the turn's total is also "
            f"taken from {victim}; a zilch costs {me.name} {penalty:,}.",
            victim=victim,
            level=level,
        )
        return self._commit(step, {"challenge": victim})

    def apply(self, action: Mapping[str, object]) -> list[Event]:
        """Apply one replay-record action, e.g. ``{"roll": [1, 5, 2]}`` or ``{"bank": true}``."""
        if not isinstance(action, Mapping) or len(action) != 1:
            raise IllegalAction(f"an action is an object with one of {', '.join(ACTIONS)}")
        ((kind, value),) = action.items()
        if kind in ("roll", "keep") and isinstance(value, list):
            return self.roll(value) if kind == "roll" else self.keep(value)
        if kind in ("bank", "skip") and value is True:
            return self.bank() if kind == "bank" else self.skip()
        if kind in ("join", "challenge") and isinstance(value, str):
            return self.join(value) if kind == "join" else self.challenge(value)
        raise IllegalAction(
            f"bad action {dict(action)!r}: use {{'roll': [dice]}}, {{'keep': [dice]}}, "
            "{'bank': true}, {'skip': true}, {'join': name} or {'challenge': name}"
        )

    # --- records -----------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The replay record of the design: preset, house rules, players, actions."""
        return {
            "preset": self.rules.name,
            "rules": self.rules.house_rules,
            "players": list(self.players_given),
            "actions": [dict(action) for action in self._actions],
        }

    def summary(self) -> dict[str, Any]:
        """The replay verb's output: players, current, finished, winners."""
        state = self._state
        return {
            "players": [
                {"name": p.name, "score": p.score, "streak": p.streak, "on_board": p.on_board}
                for p in state.players
            ],
            "current": state.current,
            "finished": state.finished,
            "winners": list(state.winners),
        }

    def to_json(self) -> dict[str, Any]:
        """The whole game as JSON: its record, state and journal."""
        return {
            "record": self.record(),
            "state": self._state.to_dict(),
            "journal": [event.to_json() for event in self._journal],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Game:
        """Rebuild a game from :meth:`to_json`, replaying and checking state and journal."""
        from zilch.record import game_from_json

        return game_from_json(data)

    # --- internals -----------------------------------------------------------------

    def _begin(self) -> _Step:
        if self._state.finished:
            raise GameOver(f"the game is over; winners: {_names(self._state.winners)}")
        return _Step(self.rules, self._state)

    def _commit(self, step: _Step, action: dict[str, Any]) -> list[Event]:
        _refresh(step)
        self._state = step.state
        self._journal.extend(step.events)
        self._actions.append(action)
        return step.events


# --- what happens inside a turn ------------------------------------------------------


def _refresh(step: _Step) -> None:
    """Keep ``turn.can_bank`` in step with the rest of the state."""
    if not step.state.finished:
        step.turn(can_bank=_bank_refusal(step.rules, step.state) is None)


def _bank_refusal(rules: RuleSet, state: GameState) -> str | None:
    if state.finished or state.current is None:
        return "the game is over"
    name, turn = state.current, state.turn
    me = state.player(name)
    if state.phase == "keep":
        return f"{name} must set aside scoring dice from {_dice(turn.roll or ())} first"
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


def _hot_dice(step: _Step) -> None:
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


def _nothing(step: _Step) -> None:
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


def _forgive(step: _Step) -> None:
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


def _zilch(step: _Step) -> None:
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
        + (f" ({_ordinal(streak)} zilch in a row)." if streak > 1 else "."),
        lost=turn.total,
        streak=streak,
    )
    if turn.challenge:
        level = turn.challenge_level
        _penalise(
            step, me.name, rules.challenge_penalties[level - 1], f"zilching challenge {level}"
        )
    if rules.zilch_penalty and streak >= rules.penalty_streak:
        _penalise(step, me.name, rules.zilch_penalty, f"a {_ordinal(streak)} zilch in a row")
        if rules.after_penalty == "reset":
            step.update(me.name, streak=0)
    _end_turn(step, 0)


def _set_score(step: _Step, name: str, score: int) -> int:
    """Set a banked score, keeping the floor and the "while zero" entry rule."""
    if step.rules.score_floor == "zero":
        score = max(0, score)
    on_board = step.state.player(name).on_board
    if step.rules.entry_rule == "while_zero" and score <= 0:
        on_board = False
    step.update(name, score=score, on_board=on_board)
    return score


def _penalise(step: _Step, name: str, amount: int, reason: str) -> None:
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


def _bank(step: _Step) -> None:
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
            f"{me.name} has reached {rules.target:,} with {score:,}: "
            f"{_names(pending)} {'takes' if len(pending) == 1 else 'each take'} one final turn.",
            score=score,
            players=list(pending),
        )
    _end_turn(step, total)


# --- between turns ---------------------------------------------------------------------


def _end_turn(step: _Step, banked: int) -> None:
    """Close the current turn and start the next one, or end the game."""
    state, rules = step.state, step.rules
    name = state.current or ""
    step.update(name, last_turn=banked)
    step.set(last_turn_score=banked, turn_number=state.turn_number + 1)
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
        _start_turn(step, names[at])
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
    _start_turn(step, names[0])


def _advance(step: _Step, name: str) -> None:
    names = step.state.names
    if names.index(name) <= names.index(step.state.current or name):
        step.set(round=step.state.round + 1)
    _start_turn(step, name)


def _start_turn(step: _Step, name: str) -> None:
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


def _announce_needs(step: _Step, name: str) -> None:
    me = step.state.player(name)
    best = max(p.score for p in step.state.players if p.name != name)
    needs = max(0, best - me.score + 1)
    text = (
        f"{name} needs {needs:,} to take the lead."
        if needs
        else f"{name} leads with {me.score:,}; any bank keeps the lead."
    )
    step.emit("announcement", name, text, needs=needs, score=me.score)


def _announce_scores(step: _Step, done: int) -> None:
    ranked = sorted(step.state.players, key=lambda p: -p.score)
    listing = ", ".join(f"{p.name} {p.score:,}" for p in ranked)
    step.emit(
        "announcement",
        None,
        f"Scores after round {done}: {listing}.",
        round=done,
        scores={p.name: p.score for p in ranked},
    )


def _resolve(step: _Step) -> None:
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
            f"{_names(tied)} are tied at {top:,}: each takes one more turn.",
            tied=list(tied),
            score=top,
        )
        _advance(step, tied[0])
        return
    winners = leaders
    reached = [p for p in leaders if p.reached is not None]
    if len(leaders) > 1 and rules.tie == "first_to_reach" and reached:
        winners = [min(reached, key=lambda p: p.reached or 0)]
    names = tuple(p.name for p in winners)
    how = "wins" if len(names) == 1 else "share the win"
    step.set(finished=True, winners=names, phase="over", current=None, pending=(), turn=TurnState())
    step.emit(
        "game_over",
        None,
        f"Game over: {_names(names)} {how} with {top:,}.",
        winners=list(names),
        scores={p.name: p.score for p in state.players},
    )
