"""Turn and game: dice come from outside, the rule set decides everything else.

Each action (:meth:`Game.roll`, :meth:`~Game.keep`, :meth:`~Game.bank`,
:meth:`~Game.skip`, :meth:`~Game.join`, :meth:`~Game.challenge`,
:meth:`~Game.correct`) is checked
against the current state, builds a new immutable :class:`GameState` and
returns the events it caused; an illegal action raises a
:class:`~zilch.errors.ZilchError` subclass and changes nothing.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zilch.errors import GameOver, IllegalAction, InvalidPlayer, ReplayError, ZilchError
from zilch.names import check_name, name_key
from zilch.rules import RuleSet, find_preset
from zilch.scoring import SetAside, check_dice, counts_of, scoring_table
from zilch.state import Event, GameState, PlayerState, TurnState
from zilch.steps import (
    Draft,
    Outcome,
    bank,
    bank_refusal,
    corrected,
    dice_text,
    end_turn,
    land,
    names_text,
    refresh,
    set_aside,
    start_turn,
)

__all__ = ["ACTIONS", "Event", "Game", "GameState", "PlayerState", "TurnState"]

ACTIONS = ("roll", "keep", "bank", "skip", "join", "challenge", "correct")


@dataclass(frozen=True)
class Landing:
    """The latest roll while a person may still correct it.

    ``before`` is the state the roll was taken in, ``dice`` what it showed
    (sorted) and ``outcome`` what it led to: a set-aside to choose, or a
    zilch, "nothing" or forgiveness resolved at once.
    """

    before: GameState
    dice: tuple[int, ...]
    outcome: Outcome


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
        folded = [name_key(name) for name in names]
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
        step = Draft(rules, state)
        start_turn(step, names[0])
        self._state = step.state
        self._journal: list[Event] = list(step.events)
        self._actions: list[dict[str, Any]] = []
        self._landed: Landing | None = None

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
        return bank_refusal(self.rules, self._state)

    def allowed_actions(self) -> tuple[str, ...]:
        """The kinds of action legal now, for buttons and prompts.

        ``keep`` means some set-aside of the waiting roll; ``join`` and
        ``challenge`` mean that a suitable name would be accepted.
        """
        state, turn = self._state, self._state.turn
        if state.finished:
            return ()
        kinds = ["keep"] if state.phase == "keep" else ["roll"]
        if turn.can_bank:
            kinds.append("bank")
        if state.phase == "roll" and not turn.rolls and not turn.challenge:
            kinds.append("skip")
            if self._challenge_refusal() is None:
                kinds.append("challenge")
        if self._join_refusal() is None:
            kinds.append("join")
        if isinstance(self._landing(), Landing):
            kinds.append("correct")
        return tuple(kinds)

    def correctable(self) -> tuple[int, ...] | None:
        """The dice of the roll a correction would replace (sorted), or None when there is none.

        While the roll waits for a set-aside this is ``state.turn.roll``; after a
        zilch, "nothing" or forgiveness it is the roll that led there.
        """
        if self._state.finished:
            return None
        landing = self._landing()
        return landing.dice if isinstance(landing, Landing) else None

    def correct_refusal(self) -> str | None:
        """Why the current roll cannot be corrected now (a sentence), or None."""
        if self._state.finished:
            return f"the game is over; winners: {names_text(self._state.winners)}"
        landing = self._landing()
        return landing if isinstance(landing, str) else None

    # --- actions -----------------------------------------------------------------

    def roll(self, values: Sequence[int]) -> list[Event]:
        """The current player's dice as they landed: zilch, "nothing", or a roll to keep from."""
        step = self._begin()
        state, turn = step.state, step.state.turn
        if state.phase != "roll":
            raise IllegalAction(
                f"{state.current} must set aside dice from {dice_text(turn.roll or ())} "
                "before rolling"
            )
        dice = check_dice(values, f"{state.current}'s roll", turn.dice_left, turn.dice_left)
        step.emit(
            "roll", state.current, f"{state.current} rolls {dice_text(dice)}.", dice=list(dice)
        )
        outcome = land(step, dice, bool(self._table.legal(dice, counts_of(turn.pyramid))))
        return self._commit(step, {"roll": list(values)}, Landing(state, dice, outcome))

    def correct(self, values: Sequence[int], by: str | None = None) -> list[Event]:
        """A person says what the current roll's dice really show: the roll is taken again.

        Legal while the latest roll waits for its set-aside, or when it was
        resolved at once (zilch, "nothing", forgiveness) and nothing else has
        happened since; never after the game is over. The corrected dice are
        played exactly as if they had been rolled instead: a corrected roll
        with no scoring die is a zilch (or "nothing", or forgiven), and a
        zilch corrected into scoring dice is undone (streak, penalty and turn
        restored). ``by`` names who corrected it, for the journal.
        """
        step = self._begin()
        landing = self._landing()
        if isinstance(landing, str):
            raise IllegalAction(landing)
        name = landing.before.current
        if by is not None:
            by = check_name(by)
        n = len(landing.dice)
        dice = check_dice(values, f"the correction of {name}'s roll", n, n)
        if dice == landing.dice:
            raise IllegalAction(
                f"{name}'s roll already shows {dice_text(dice)}: nothing to correct"
            )
        step = Draft(self.rules, landing.before)
        corrected(step, dice, landing.dice, by, landing.outcome)
        scores = self._table.legal(dice, counts_of(landing.before.turn.pyramid))
        outcome = land(step, dice, bool(scores))
        action: dict[str, Any] = {"correct": list(values)}
        if by is not None:
            action["by"] = by
        return self._commit(step, action, Landing(landing.before, dice, outcome))

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
        set_aside(step, tuple(sorted(values)), split)
        return self._commit(step, {"keep": list(values)})

    def bank(self) -> list[Event]:
        """End the turn and add the turn total to the banked score."""
        step = self._begin()
        refusal = bank_refusal(self.rules, step.state)
        if refusal is not None:
            raise IllegalAction(refusal)
        bank(step)
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
        end_turn(step, 0)
        return self._commit(step, {"skip": True})

    def join(self, name: str) -> list[Event]:
        """Add a player at the end of the order, when the rules still take joiners."""
        step = self._begin()
        state, rules = step.state, self.rules
        name = check_name(name)
        if name_key(name) in (name_key(n) for n in state.names):
            raise InvalidPlayer(f"{name} is already playing")
        refusal = self._join_refusal()
        if refusal is not None:
            raise IllegalAction(f"{name} cannot join now: {refusal}")
        after = state.names[-1]
        step.set(players=(*state.players, PlayerState(name, forgiveness=rules.forgiveness)))
        step.emit("join", name, f"{name} joins the game and plays after {after}.")
        return self._commit(step, {"join": name})

    def challenge(self, victim: str) -> list[Event]:
        """Announce a challenge turn against ``victim`` before the turn's first roll."""
        step = self._begin()
        state, rules = step.state, self.rules
        me = step.me
        refusal = self._challenge_refusal()
        if refusal is not None:
            raise IllegalAction(refusal)
        others = [n for n in state.names if n != me.name]
        victim = next((n for n in others if name_key(n) == name_key(victim)), victim)
        if victim not in others:
            raise IllegalAction(f"{victim!r} is not another player; challenge one of {others}")
        level = 2 if me.score >= rules.challenge_split else 1
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
        """Apply one replay-record action, e.g. ``{"roll": [1, 5, 2]}`` or ``{"bank": true}``.

        A correction may name who made it: ``{"correct": [1, 5, 2], "by": "Ann"}``.
        """
        if isinstance(action, Mapping) and set(action) in ({"correct"}, {"correct", "by"}):
            values, by = action["correct"], action.get("by")
            if isinstance(values, list) and (by is None or isinstance(by, str)):
                return self.correct(values, by)
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
            "{'bank': true}, {'skip': true}, {'join': name}, {'challenge': name} "
            "or {'correct': [dice], 'by': name}"
        )

    def after(self, action: Mapping[str, object]) -> tuple[Game, list[Event]]:
        """The game after ``action`` as a new game, and the events; this game is unchanged.

        For callers that build the next state, save it, and only then adopt it.
        Raises like :meth:`apply` when the action is not legal now.
        """
        following = self.copy()
        events = following.apply(action)
        return following, events

    def copy(self) -> Game:
        """An independent game at this same point: playing it on leaves this one as it is."""
        following = copy.copy(self)
        following._journal = list(self._journal)
        following._actions = list(self._actions)
        return following

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
        return game_from_json(data)

    # --- internals -----------------------------------------------------------------

    def _join_refusal(self) -> str | None:
        """Why nobody can join now (table full, too late), or None."""
        state, rules = self._state, self.rules
        if state.finished:
            return "the game is over"
        if len(state.players) >= rules.players_max:
            return f"the table is full ({rules.name} takes {rules.players_max})"
        late_ok = rules.join_rounds and state.round <= rules.join_rounds and not state.final_round
        if state.started and not late_ok:
            if rules.join_rounds:
                return (
                    f"under {rules.name} players join during the first {rules.join_rounds} rounds"
                )
            return f"under {rules.name} players join before the first roll"
        return None

    def _challenge_refusal(self) -> str | None:
        """Why the current player cannot announce a challenge now, or None."""
        state, rules = self._state, self.rules
        if not rules.challenging:
            return (
                f"challenge turns are off under {rules.name}; "
                "they need the house rule challenging=true"
            )
        if state.finished or state.current is None:
            return "the game is over"
        if state.phase != "roll" or state.turn.rolls or state.turn.challenge:
            return "a challenge is announced once, before the turn's first roll"
        me = state.player(state.current)
        level = 2 if me.score >= rules.challenge_split else 1
        if level == 1 and not me.on_board:
            return f"{me.name} must be on board to use challenge one"
        if level in me.challenges:
            return f"{me.name} has already used challenge {level}"
        return None

    def _landing(self) -> Landing | str:
        """The roll a correction would replace, or why there is none (a sentence)."""
        if self._landed is not None:
            return self._landed
        state, turn = self._state, self._state.turn
        if state.finished or state.current is None:
            return "the game is over"
        if state.phase == "keep" and turn.roll is not None:
            turn_before = dataclasses.replace(turn, roll=None, rolls=turn.rolls - 1)
            before = dataclasses.replace(state, phase="roll", turn=turn_before)
            return Landing(before, turn.roll, "keep")
        if self._actions and "keep" in self._actions[-1]:
            return (
                f"{state.current} has set aside dice from the last roll; "
                "a roll can be corrected only before any set-aside from it"
            )
        if turn.rolls == 0:
            return f"{state.current} has not rolled yet this turn: there is no roll to correct"
        return (
            "the last roll can no longer be corrected: a correction comes before any "
            "set-aside from the roll and before anything else happens at the table"
        )

    def _begin(self) -> Draft:
        if self._state.finished:
            raise GameOver(f"the game is over; winners: {names_text(self._state.winners)}")
        return Draft(self.rules, self._state)

    def _commit(
        self, step: Draft, action: dict[str, Any], landed: Landing | None = None
    ) -> list[Event]:
        """Keep the built state; ``landed`` is the roll that may now be corrected, if any."""
        refresh(step)
        self._state = step.state
        self._journal.extend(step.events)
        self._actions.append(action)
        self._landed = landed
        return step.events


# --- records: a game rebuilt from the design's replay format ---------------------

RECORD_KEYS = {"preset", "rules", "players", "actions"}


def new_game(record: Mapping[str, Any]) -> Game:
    """The game a record starts from (its preset, house rules and players), before any action."""
    if not isinstance(record, Mapping):
        raise ReplayError('a game record is an object {"preset", "rules", "players", "actions"}')
    missing = sorted({"preset", "players", "actions"} - set(record))
    extra = sorted(set(record) - RECORD_KEYS)
    if missing or extra:
        wrong = f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(extra)}"
        raise ReplayError(
            f'game record has {wrong}; it holds "preset", "rules", "players", "actions"'
        )
    house = record.get("rules", {})
    if not isinstance(house, Mapping):
        raise ReplayError('the record\'s "rules" is an object of house rules, e.g. {}')
    if not isinstance(record["actions"], list):
        raise ReplayError('the record\'s "actions" is a list')
    try:
        rules = find_preset(record["preset"]).with_house_rules(house)
        return Game(rules, record["players"])
    except ZilchError as error:
        raise ReplayError(f"game record: {error}") from None


def replay(record: Mapping[str, Any]) -> Game:
    """Play a record's actions; :class:`ReplayError` at the first illegal one, with its index."""
    game = new_game(record)
    for index, action in enumerate(record["actions"]):
        try:
            game.apply(action)
        except ZilchError as error:
            raise ReplayError(str(error), index) from None
    return game


def game_from_json(data: Mapping[str, Any]) -> Game:
    """Rebuild :meth:`Game.to_json` output by replay, then check its state and journal."""
    if not isinstance(data, Mapping) or set(data) != {"record", "state", "journal"}:
        raise ReplayError('a saved game is {"record", "state", "journal"}')
    journal = data["journal"]
    if not isinstance(journal, list):
        raise ReplayError("a saved game's journal is a list of events")
    events = [Event.from_json(event) for event in journal]
    game = replay(data["record"])
    if _plain(game.state.to_dict()) != _plain(data["state"]):
        raise ReplayError("the saved state does not match its record's actions")
    if [e.to_json() for e in game.journal] != [_plain(e.to_json()) for e in events]:
        raise ReplayError("the saved journal does not match its record's actions")
    return game


def _plain(value: Any) -> Any:
    """The value as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(value))
