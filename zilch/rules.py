"""Rule sets as data: every rule of RULES.md is a field, presets are named values.

A :class:`RuleSet` is immutable and hashable (scoring tables are cached per
rule set). House rules are applied by name on top of a preset with
:meth:`RuleSet.with_house_rules`, each value checked against what the rule
allows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from zilch.errors import BadRuleValue, UnknownPreset, UnknownRule

RuleValue = int | bool | str | tuple[int, ...]

Multiples = Literal["none", "doubling", "additive", "flat"]
EntryRule = Literal["once", "while_zero"]
FreeRoll = Literal["compulsory", "optional"]
AfterPenalty = Literal["reset", "continue"]
ScoreFloor = Literal["none", "zero"]
Order = Literal["seated", "alphabetical"]
Ending = Literal["final_turn", "final_round", "instant"]
Tie = Literal["tiebreak_turns", "share", "first_to_reach"]


@dataclass(frozen=True)
class RuleSet:
    """One complete, immutable set of Zilch rules (a preset plus house rules).

    Scoring: ``three_ones`` (three 1s; other triples are face x 100),
    ``multiples`` (four/five/six of a kind: ``none`` = triple plus dead dice,
    ``doubling`` = each die beyond three doubles, ``additive`` = triple x
    (n - 2), ``flat`` = ``flat_values``), ``straight``, ``three_pairs``
    (0 = not a combination), ``pairs_from_four`` (four of a kind plus a pair,
    or six of a kind, counts as three pairs), ``two_triplets`` (0 = scored as
    two triples), ``nothing_bonus`` (0 = off), ``pyramiding``.
    Banking: ``entry_minimum`` (to get on board; ``entry_rule`` ``once`` or
    ``while_zero``), ``bank_minimum`` (every later bank), ``free_roll``,
    ``surpassing``. Zilches: ``zilch_penalty`` at ``penalty_streak`` zilches
    in a row, then the streak ``after_penalty`` resets or continues;
    ``score_floor``; ``forgiveness`` per player per game. ``challenging``
    with ``challenge_split`` and ``challenge_penalties``. Game: ``target``,
    ``players_max``, ``order``, ``join_rounds`` (late joiners until the
    end of this round), ``ending`` (``final_turn`` after the first to reach
    the target, ``final_round`` decided when scores are announced after
    round ``announce_from`` and every later round, or ``instant``: the first
    bank that reaches the target wins the game at once), ``tie``.
    """

    name: str
    three_ones: int = 1000
    multiples: Multiples = "doubling"
    flat_values: tuple[int, int, int] = (1000, 2000, 3000)
    straight: int = 1500
    three_pairs: int = 1500
    pairs_from_four: bool = False
    two_triplets: int = 0
    nothing_bonus: int = 0
    pyramiding: bool = False
    entry_minimum: int = 300
    entry_rule: EntryRule = "once"
    bank_minimum: int = 300
    free_roll: FreeRoll = "optional"
    surpassing: bool = False
    zilch_penalty: int = 500
    penalty_streak: int = 3
    after_penalty: AfterPenalty = "reset"
    score_floor: ScoreFloor = "none"
    forgiveness: int = 0
    challenging: bool = False
    challenge_split: int = 5000
    challenge_penalties: tuple[int, int] = (600, 2000)
    target: int = 10000
    players_max: int = 8
    order: Order = "seated"
    join_rounds: int = 0
    ending: Ending = "final_turn"
    announce_from: int = 2
    tie: Tie = "first_to_reach"
    overrides: tuple[tuple[str, RuleValue], ...] = ()
    doc: str = field(default="", compare=False, repr=False)

    @property
    def house_rules(self) -> dict[str, Any]:
        """The house rules applied on top of the preset, JSON-ready."""
        return {key: _json_value(value) for key, value in self.overrides}

    def triple(self, face: int) -> int:
        """Points of three dice of ``face``."""
        return self.three_ones if face == 1 else face * 100

    def kind(self, face: int, count: int) -> int | None:
        """Points of ``count`` (3..6) dice of ``face`` as one combination, or None."""
        if count == 3:
            return self.triple(face)
        if self.multiples == "doubling":
            return self.triple(face) << (count - 3)
        if self.multiples == "additive":
            return self.triple(face) * (count - 2)
        if self.multiples == "flat":
            return self.flat_values[count - 4]
        return None

    def entry_needed(self, on_board: bool) -> int:
        """The smallest turn total this player may bank."""
        return self.bank_minimum if on_board else max(self.entry_minimum, self.bank_minimum)

    def with_house_rules(self, rules: Mapping[str, object]) -> RuleSet:
        """A new rule set with house rules applied by name.

        Values may be strings (from the command line) or TOML values. An
        unknown name raises :class:`UnknownRule` listing the rules; a bad value
        raises :class:`BadRuleValue` naming the allowed values.
        """
        changes: dict[str, RuleValue] = {}
        for key, raw in rules.items():
            spec = HOUSE_RULES.get(key)
            if spec is None:
                raise UnknownRule(
                    f"unknown house rule {key!r}; allowed: {', '.join(sorted(HOUSE_RULES))}"
                )
            changes[key] = spec.parse(raw)
        merged = dict(self.overrides)
        merged.update(changes)
        result = dataclasses.replace(self, **changes)  # type: ignore[arg-type]
        return dataclasses.replace(result, overrides=tuple(sorted(merged.items())))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: the preset, the house rules and every field's value."""
        values = {spec.name: _json_value(getattr(self, spec.name)) for spec in HOUSE_RULES.values()}
        return {"preset": self.name, "house_rules": self.house_rules, "fields": values}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        """Rebuild a rule set from :meth:`to_dict` (``fields`` is optional and checked)."""
        if not isinstance(data, Mapping) or not isinstance(data.get("preset"), str):
            raise BadRuleValue('a rule set needs {"preset": NAME, "house_rules": {...}}')
        house = data.get("house_rules", {})
        if not isinstance(house, Mapping):
            raise BadRuleValue("house_rules must be an object of rule names to values")
        rules = find_preset(data["preset"]).with_house_rules(house)
        fields = data.get("fields")
        if fields is not None and fields != rules.to_dict()["fields"]:
            raise BadRuleValue(
                f"the fields do not match preset {rules.name!r} with its house rules"
            )
        return rules


@dataclass(frozen=True)
class RuleSpec:
    """How one house rule is read from text or TOML, and what it allows."""

    name: str
    allowed: str
    parse_value: Callable[[object], RuleValue | None]

    def parse(self, raw: object) -> RuleValue:
        """The checked value, or :class:`BadRuleValue` naming what is allowed."""
        value = self.parse_value(raw)
        if value is None:
            raise BadRuleValue(f"house rule {self.name}={raw!r} is not allowed; use {self.allowed}")
        return value


def _json_value(value: RuleValue) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _as_int(raw: object) -> int | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str) and raw.strip().lstrip("-").isdigit():
        return int(raw.strip().replace(" ", ""))
    return None


def _choice_of(*choices: int) -> Callable[[object], RuleValue | None]:
    def parse(raw: object) -> RuleValue | None:
        value = _as_int(raw)
        return value if value in choices else None

    return parse


def _range_of(low: int, high: int, step: int = 1) -> Callable[[object], RuleValue | None]:
    def parse(raw: object) -> RuleValue | None:
        value = _as_int(raw)
        if value is None or not low <= value <= high or value % step:
            return None
        return value

    return parse


def _word_of(*words: str) -> Callable[[object], RuleValue | None]:
    def parse(raw: object) -> RuleValue | None:
        if isinstance(raw, str) and raw.strip().lower() in words:
            return raw.strip().lower()
        return None

    return parse


def _flag(raw: object) -> RuleValue | None:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        word = raw.strip().lower()
        if word in ("true", "on", "yes", "1"):
            return True
        if word in ("false", "off", "no", "0"):
            return False
    return None


def _ints(count: int, *choices: tuple[int, ...]) -> Callable[[object], RuleValue | None]:
    def parse(raw: object) -> RuleValue | None:
        parts: list[object]
        if isinstance(raw, str):
            parts = list(raw.replace(",", "-").split("-"))
        elif isinstance(raw, list | tuple):
            parts = list(raw)
        else:
            return None
        values = tuple(_as_int(part) for part in parts)
        if len(values) != count or values not in choices:
            return None
        return values  # type: ignore[return-value]

    return parse


def _spec(name: str, allowed: str, parse: Callable[[object], RuleValue | None]) -> RuleSpec:
    return RuleSpec(name, allowed, parse)


HOUSE_RULES: dict[str, RuleSpec] = {
    spec.name: spec
    for spec in (
        _spec("three_ones", "1000 or 300", _choice_of(1000, 300)),
        _spec(
            "multiples",
            "none, doubling, additive or flat",
            _word_of("none", "doubling", "additive", "flat"),
        ),
        _spec(
            "flat_values",
            "1000-2000-3000 or 4000-5000-6000",
            _ints(3, (1000, 2000, 3000), (4000, 5000, 6000)),
        ),
        _spec(
            "straight",
            "1000, 1200, 1500, 2000 or 2500",
            _choice_of(1000, 1200, 1500, 2000, 2500),
        ),
        _spec(
            "three_pairs",
            "0 (off), 500, 750, 800, 1500 or 2000",
            _choice_of(0, 500, 750, 800, 1500, 2000),
        ),
        _spec("pairs_from_four", "true or false", _flag),
        _spec("two_triplets", "0 (two triples) or 3000", _choice_of(0, 3000)),
        _spec("nothing_bonus", "0 (off) or 500", _choice_of(0, 500)),
        _spec("pyramiding", "true or false", _flag),
        _spec("entry_minimum", "0 to 5000 in steps of 50", _range_of(0, 5000, 50)),
        _spec("entry_rule", "once or while_zero", _word_of("once", "while_zero")),
        _spec("bank_minimum", "0 to 5000 in steps of 50", _range_of(0, 5000, 50)),
        _spec("free_roll", "compulsory or optional", _word_of("compulsory", "optional")),
        _spec("surpassing", "true or false", _flag),
        _spec("zilch_penalty", "0, 500 or 1000", _choice_of(0, 500, 1000)),
        _spec("penalty_streak", "2 to 5", _range_of(2, 5)),
        _spec("after_penalty", "reset or continue", _word_of("reset", "continue")),
        _spec("score_floor", "none or zero", _word_of("none", "zero")),
        _spec("forgiveness", "0 to 3", _range_of(0, 3)),
        _spec("challenging", "true or false", _flag),
        _spec("challenge_split", "1000 to 50000 in steps of 500", _range_of(1000, 50000, 500)),
        _spec("challenge_penalties", "600-2000", _ints(2, (600, 2000))),
        _spec("target", "1000 to 100000 in steps of 500", _range_of(1000, 100000, 500)),
        _spec("players_max", "2 to 20", _range_of(2, 20)),
        _spec("order", "seated or alphabetical", _word_of("seated", "alphabetical")),
        _spec("join_rounds", "0 to 2", _range_of(0, 2)),
        _spec(
            "ending",
            "final_turn, final_round or instant",
            _word_of("final_turn", "final_round", "instant"),
        ),
        _spec("announce_from", "1 to 5", _range_of(1, 5)),
        _spec(
            "tie",
            "tiebreak_turns, share or first_to_reach",
            _word_of("tiebreak_turns", "share", "first_to_reach"),
        ),
    )
}


def twinson(target: int) -> RuleSet:
    """Twinson Zilch 5,000 / 10,000 / 15,000 (source 000, 1980 boxed rules).

    Rulings: 5s, 1s, triples (three 1s 1,000) and the 1-6 straight (1,500);
    four or more of a kind without a flat value score as the triple plus any
    1s or 5s. 10,000 adds three pairs (2,000; three different faces, four of
    a kind is not two pairs) and two triplets (3,000; six of a kind is two
    triplets, since it already scores as two triples); 15,000 adds four, five
    and six of a kind at a flat 4,000 / 5,000 / 6,000 of any face.
    On board with one bank of 500, then 350 a bank. Turning the corner is
    compulsory. No zilch penalties; scores can go below zero only through
    challenges. First to the target gives every other player one more turn;
    tied leaders each take one more turn, in seat order, until the tie breaks.
    Up to 8 players (the box says "2 or more"). Optional rules off by default:
    pyramiding (only dice frozen as single 1s or 5s join a later triple, each
    at most once), challenging (challenge one on board and under 5,000,
    challenge two at 5,000 or more; a zilch costs 600 / 2,000 and counts in
    the streak), surpassing (a bank must exceed the turn score banked by the
    player who played just before; a zilched or skipped turn counts 0).
    """
    return RuleSet(
        name=f"twinson-{target}",
        multiples="flat" if target >= 15000 else "none",
        flat_values=(4000, 5000, 6000),
        three_pairs=2000 if target >= 10000 else 0,
        two_triplets=3000 if target >= 10000 else 0,
        entry_minimum=500,
        bank_minimum=350,
        free_roll="compulsory",
        zilch_penalty=0,
        target=target,
        tie="tiebreak_turns",
        doc=twinson.__doc__ or "",
    )


def club() -> RuleSet:
    """The hosted club game (source 002).

    Rulings: 1s, 5s, triples (three 1s 1,000), straight 1,500, three pairs 500,
    four of a kind plus a pair 500 (six of a kind counts too); more than three
    of a kind otherwise scores as the triple plus any 1s or 5s. First bank
    needs 500, then any score. Hot dice: bank or roll six. Forgiveness once
    per player per game for a zilch on the first roll of a turn (automatic,
    announced, not a zilch). Alphabetical order; players may join until the
    scores are announced after round two and go to the end of the order.
    Scores are announced after round two and every later round; a player at
    5,000 or more at an announcement makes the next round final; before each
    final-round turn the points needed to take the lead are announced; equal
    top totals share the win. No zilch penalty. Up to 20 players. A skipped
    turn is not a zilch and leaves the streak alone.
    """
    return RuleSet(
        name="club",
        multiples="none",
        three_pairs=500,
        pairs_from_four=True,
        entry_minimum=500,
        bank_minimum=0,
        zilch_penalty=0,
        forgiveness=1,
        target=5000,
        players_max=20,
        order="alphabetical",
        join_rounds=2,
        ending="final_round",
        tie="share",
        doc=club.__doc__ or "",
    )


def greedy() -> RuleSet:
    """Greedy Zilch Table v.2 (source 003).

    Rulings: four of a kind = triple x 2, five x 4, six x 8 (the doubling
    rule); three pairs 800 (three different faces); straight 1,200. A bank
    needs 500 whenever the banked score is zero, any score otherwise. Every
    zilch after the second in a row costs 500 (the streak keeps counting),
    never below zero; banking resets the streak. Free roll optional. Up to 8
    players; first to 10,000 gives every other player one final turn; equal
    top totals share the win.
    """
    return RuleSet(
        name="greedy",
        three_pairs=800,
        straight=1200,
        entry_minimum=500,
        entry_rule="while_zero",
        bank_minimum=0,
        after_penalty="continue",
        score_floor="zero",
        tie="share",
        doc=greedy.__doc__ or "",
    )


def dicenow() -> RuleSet:
    """Dice.now Zilch (source 004), the default preset.

    Rulings: 1s, 5s, triples (three 1s 1,000), each die beyond three doubles
    the set, straight 1,500, three pairs 1,500 (three different faces); two
    triplets score as two triples; four of a kind with a pair is the four of
    a kind plus the pair only when the pair scores as 1s or 5s. Every bank
    needs 300. Free roll optional. The third zilch in a row costs 500 and
    resets the streak; scores may go negative. First to 10,000 gives every
    other player one final turn; a tie goes to whoever reached 10,000 first.
    Up to 8 players (the source: "two or more").
    """
    return RuleSet(name="dicenow", doc=dicenow.__doc__ or "")


def playr() -> RuleSet:
    """Playr.co.uk Zilch (2008), the rules dicenow descends from.

    Rulings: as dicenow, plus the "nothing" bonus: a six-dice roll with no
    scoring dice scores 500 and gives back all six dice (not a zilch, no
    streak change); the player then banks (if the total allows) or rolls six.
    Three pairs include four of a kind plus any pair (and six of a kind).
    """
    return dataclasses.replace(
        dicenow(), name="playr", nothing_bonus=500, pairs_from_four=True, doc=playr.__doc__ or ""
    )


PRESETS: dict[str, RuleSet] = {
    rules.name: rules
    for rules in (
        twinson(5000),
        twinson(10000),
        twinson(15000),
        club(),
        greedy(),
        dicenow(),
        playr(),
    )
}
DEFAULT_PRESET = "dicenow"


def find_preset(name: str) -> RuleSet:
    """The preset called ``name``; :class:`UnknownPreset` lists the names."""
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise UnknownPreset(
            f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}"
        ) from None
