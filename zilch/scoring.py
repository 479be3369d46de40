"""Scoring: legal set-asides of a roll, the best one, zilch detection.

Every multiset of kept dice is scored once per rule set by splitting it into
combinations (singles, n of a kind, straight, three pairs, two triplets and,
with pyramiding, triples completed by dice frozen earlier) and taking the
split worth most; a set-aside is legal only when every kept die is part of a
combination. :func:`scoring_table` holds these results precomputed, so the
checked functions below are dictionary lookups after validation.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from zilch.errors import IllegalSetAside, InvalidDice
from zilch.rules import RuleSet

Counts = tuple[int, int, int, int, int, int]
NO_DICE: Counts = (0, 0, 0, 0, 0, 0)
FACES = range(1, 7)
_FACE_SET = frozenset(FACES)
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


@dataclass(frozen=True, order=True)
class SetAside:
    """Dice taken out of one roll to score, sorted, with their points."""

    dice: tuple[int, ...]
    points: int

    def __str__(self) -> str:
        return f"{'-'.join(map(str, self.dice))} for {self.points:,}"

    def to_json(self) -> dict[str, Any]:
        """The design's ``{"dice": [..], "points": P}``."""
        return {"dice": list(self.dice), "points": self.points}


@dataclass(frozen=True)
class Combination:
    """One scoring combination inside a set-aside.

    ``dice`` come from the roll; ``frozen`` are dice set aside earlier in the
    turn that complete a pyramided triple (empty otherwise).
    """

    name: str
    dice: tuple[int, ...]
    points: int
    frozen: tuple[int, ...] = ()

    def text(self) -> str:
        """Its name as a person says it: "three 4s", "one 1", "straight"."""
        if self.name in ("single", "kind"):
            count = len(self.dice)
            return f"{WORDS[count]} {self.dice[0]}{'s' if count > 1 else ''}"
        if self.name == "pyramid":
            return f"{WORDS[len(self.dice) + len(self.frozen)]} {self.dice[0]}s with frozen dice"
        return self.name.replace("_", " ")


@dataclass(frozen=True)
class Breakdown:
    """The best split of a set-aside into combinations."""

    points: int
    combinations: tuple[Combination, ...]

    @property
    def singles(self) -> tuple[int, ...]:
        """Dice of the roll that scored as single 1s or 5s (pyramiding candidates)."""
        return tuple(c.dice[0] for c in self.combinations if c.name == "single")

    @property
    def frozen_used(self) -> tuple[int, ...]:
        """Frozen dice this set-aside used up in pyramided triples."""
        return tuple(sorted(d for c in self.combinations for d in c.frozen))

    def describe(self) -> str:
        """Readable split, e.g. "three 4s 400 + 1 5 150" (single 1s and 5s together)."""
        parts = [f"{c.text()} {c.points:,}" for c in self.combinations if c.name != "single"]
        singles = [c for c in self.combinations if c.name == "single"]
        if singles:
            dice = " ".join(str(c.dice[0]) for c in singles)
            parts.append(f"{dice} {sum(c.points for c in singles):,}")
        return " + ".join(parts)

    @property
    def mixed(self) -> bool:
        """True when the split holds a combination besides single 1s and 5s, and more."""
        return len(self.combinations) > 1 and any(c.name != "single" for c in self.combinations)


def counts_of(dice: Iterable[int]) -> Counts:
    """How many dice show each face 1..6."""
    counts = [0] * 6
    for value in dice:
        counts[value - 1] += 1
    return (counts[0], counts[1], counts[2], counts[3], counts[4], counts[5])


def dice_of(counts: Sequence[int]) -> tuple[int, ...]:
    """The sorted dice of a count vector."""
    return tuple(face for face in FACES for _ in range(counts[face - 1]))


def check_dice(dice: object, what: str = "roll", most: int = 6, least: int = 1) -> tuple[int, ...]:
    """Sorted dice after checking values 1..6 and count; :class:`InvalidDice` if not."""
    if isinstance(dice, str | bytes) or not isinstance(dice, Iterable):
        raise InvalidDice(f"{what} must be a list of die values 1-6, got {dice!r}")
    values = tuple(dice)
    if not (_FACE_SET.issuperset(values) and all(type(v) is int for v in values)):
        bad = [v for v in values if type(v) is not int or not 1 <= v <= 6]
        raise InvalidDice(f"{what} has {bad[0]!r}: die values are whole numbers 1 to 6")
    if not least <= len(values) <= most:
        span = f"{least} to {most}" if least != most else f"exactly {most}"
        raise InvalidDice(f"{what} has {len(values)} dice; it must have {span}")
    return tuple(sorted(values))


_COUNT_WORDS = ("no", "only one", "only two", "only three", "only four", "only five")


def _how_many(n: int, face: int) -> str:
    """How many dice of ``face`` a roll has, in words: "no 5", "only one 1", "only two 6s"."""
    return f"{_COUNT_WORDS[n]} {face}" + ("s" if n > 1 else "")


def _minus(counts: Counts, face: int, n: int) -> Counts:
    c = list(counts)
    c[face - 1] -= n
    return (c[0], c[1], c[2], c[3], c[4], c[5])


@cache
def _submultisets(roll: tuple[int, ...]) -> tuple[tuple[Counts, tuple[int, ...]], ...]:
    """Every non-empty sub-multiset of a sorted roll, as counts and sorted dice (rule-free)."""
    found = []
    for kept in itertools.product(*(range(c + 1) for c in counts_of(roll))):
        if any(kept):
            counts: Counts = kept  # type: ignore[assignment]
            found.append((counts, dice_of(counts)))
    return tuple(found)


class ScoringTable:
    """Precomputed scoring for one rule set: the fast, unchecked path.

    ``points(counts, frozen)`` is the best score of exactly these kept dice
    (``None`` when some die cannot score); ``legal(roll)`` the legal
    set-asides of a sorted roll, best first. Callers pass valid dice: the
    checked functions of this module validate first.
    """

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self._splits: dict[tuple[Counts, Counts], Breakdown | None] = {}
        self._legal: dict[tuple[tuple[int, ...], Counts], tuple[SetAside, ...]] = {}
        self._points: dict[Counts, int] = {}
        for n in range(1, 7):
            for roll in itertools.combinations_with_replacement(FACES, n):
                counts = counts_of(roll)
                split = self._split(counts, NO_DICE)
                self._splits[(counts, NO_DICE)] = split
                if split is not None and split.combinations:
                    self._points[counts] = split.points
        for n in range(1, 7):
            for roll in itertools.combinations_with_replacement(FACES, n):
                self.legal(roll)

    def breakdown(self, counts: Counts, frozen: Counts = NO_DICE) -> Breakdown | None:
        """Best split of kept dice ``counts`` into combinations, or None."""
        if not self.rules.pyramiding:
            frozen = NO_DICE
        key = (counts, frozen)
        if key not in self._splits:
            self._splits[key] = self._split(counts, frozen)
        return self._splits[key]

    def points(self, counts: Counts, frozen: Counts = NO_DICE) -> int | None:
        """Points of exactly these kept dice, or None if a die cannot score."""
        split = self.breakdown(counts, frozen)
        return None if split is None or not split.combinations else split.points

    def legal(self, roll: tuple[int, ...], frozen: Counts = NO_DICE) -> tuple[SetAside, ...]:
        """Every legal set-aside of a sorted roll, best first (ties: fewer dice)."""
        if not self.rules.pyramiding:
            frozen = NO_DICE
        key = (roll, frozen)
        found = self._legal.get(key)
        if found is None:
            if frozen == NO_DICE:
                get = self._points.get
                pairs = [(dice, get(kept)) for kept, dice in _submultisets(roll)]
            else:
                pairs = [(dice, self.points(kept, frozen)) for kept, dice in _submultisets(roll)]
            options = [SetAside(dice, points) for dice, points in pairs if points]
            options.sort(key=lambda s: (-s.points, len(s.dice), s.dice))
            found = self._legal[key] = tuple(options)
        return found

    def check(
        self, kept: Iterable[int], dice: Iterable[int], frozen: Iterable[int] = ()
    ) -> Breakdown:
        """The checked path: validate a set-aside of ``dice`` and split it into combinations.

        Raises :class:`InvalidDice` for bad values and :class:`IllegalSetAside`
        naming the problem and the legal choices.
        """
        return self.check_kept(kept, check_dice(dice), _frozen_counts(frozen))

    def check_kept(
        self, kept: Iterable[int], roll: tuple[int, ...], frozen_counts: Counts
    ) -> Breakdown:
        """:meth:`check` for a roll and frozen dice already known to be valid (the game's)."""
        chosen = check_dice(kept, "set-aside", most=6, least=0)
        if not chosen:
            raise IllegalSetAside(
                "keep at least one scoring die (an empty set-aside is not allowed)"
            )
        roll_counts, chosen_counts = counts_of(roll), counts_of(chosen)
        missing = [f for f in FACES if chosen_counts[f - 1] > roll_counts[f - 1]]
        shown = " ".join(map(str, roll))
        if missing:  # also catches keeping more dice than were rolled
            face = missing[0]
            raise IllegalSetAside(
                f"cannot keep {'-'.join(map(str, chosen))}: the roll {shown} has "
                f"{_how_many(roll_counts[face - 1], face)}"
            )
        split = self.breakdown(chosen_counts, frozen_counts)
        if split is None or not split.combinations:
            options = self.legal(roll, frozen_counts)
            allowed = ", ".join(str(s) for s in options[:6]) or "none (the roll is a zilch)"
            raise IllegalSetAside(
                f"cannot keep {'-'.join(map(str, chosen))} from {shown}: every kept die must "
                f"score; legal set-asides: {allowed}"
            )
        return split

    def _split(self, counts: Counts, frozen: Counts) -> Breakdown | None:
        total = sum(counts)
        if total == 0:
            return Breakdown(0, ())
        face = next(f for f in FACES if counts[f - 1])
        best: Breakdown | None = None
        for combination, rest, frozen_rest in self._combinations(counts, frozen, face, total):
            tail = self.breakdown(rest, frozen_rest)
            if tail is None:
                continue
            points = combination.points + tail.points
            if best is None or points > best.points:
                best = Breakdown(points, (combination, *tail.combinations))
        return best

    def _combinations(
        self, counts: Counts, frozen: Counts, face: int, total: int
    ) -> Iterable[tuple[Combination, Counts, Counts]]:
        """Combinations that use the lowest face ``face`` of ``counts``."""
        rules = self.rules
        have = counts[face - 1]
        if face in (1, 5):
            points = 100 if face == 1 else 50
            yield Combination("single", (face,), points), _minus(counts, face, 1), frozen
        for n in range(3, have + 1):
            value = rules.kind(face, n)
            if value is not None:
                yield Combination("kind", (face,) * n, value), _minus(counts, face, n), frozen
        if rules.pyramiding:
            for new in (1, 2):
                old = 3 - new
                if have >= new and frozen[face - 1] >= old:
                    yield (
                        Combination("pyramid", (face,) * new, rules.triple(face), (face,) * old),
                        _minus(counts, face, new),
                        _minus(frozen, face, old),
                    )
        if total == 6:
            yield from self._six_dice(counts)

    def _six_dice(self, counts: Counts) -> Iterable[tuple[Combination, Counts, Counts]]:
        """Combinations that need all six dice of the set-aside."""
        rules = self.rules
        dice = dice_of(counts)
        shape = sorted((c for c in counts if c), reverse=True)
        if shape == [1] * 6:
            yield Combination("straight", dice, rules.straight), NO_DICE, NO_DICE
        pairs = shape == [2, 2, 2] or (rules.pairs_from_four and shape in ([4, 2], [6]))
        if rules.three_pairs and pairs:
            yield Combination("three_pairs", dice, rules.three_pairs), NO_DICE, NO_DICE
        if rules.two_triplets and shape in ([3, 3], [6]):
            yield Combination("two_triplets", dice, rules.two_triplets), NO_DICE, NO_DICE


_TABLES: dict[RuleSet, ScoringTable] = {}


def scoring_table(rules: RuleSet) -> ScoringTable:
    """The precomputed table of ``rules`` (built on first use, then shared)."""
    table = _TABLES.get(rules)
    if table is None:
        table = _TABLES[rules] = ScoringTable(rules)
    return table


def clear_tables() -> None:
    """Forget every built table, so the next use builds it again (for benchmarks)."""
    _TABLES.clear()
    _submultisets.cache_clear()


def _frozen_counts(frozen: Iterable[int]) -> Counts:
    return counts_of(check_dice(frozen, "frozen dice", most=5, least=0))


def legal_set_asides(
    dice: Iterable[int], rules: RuleSet, frozen: Iterable[int] = ()
) -> list[SetAside]:
    """Every legal set-aside of this roll, best first.

    ``frozen`` are dice set aside earlier this turn that may still complete a
    triple (used only when the rule set has ``pyramiding``).
    """
    roll = check_dice(dice)
    return list(scoring_table(rules).legal(roll, _frozen_counts(frozen)))


def best_set_aside(
    dice: Iterable[int], rules: RuleSet, frozen: Iterable[int] = ()
) -> SetAside | None:
    """The highest-scoring legal set-aside (fewest dice on a tie), or None on a zilch."""
    options = legal_set_asides(dice, rules, frozen)
    return options[0] if options else None


def is_zilch(dice: Iterable[int], rules: RuleSet, frozen: Iterable[int] = ()) -> bool:
    """True exactly when the roll has no legal set-aside."""
    return not legal_set_asides(dice, rules, frozen)


def score_breakdown(
    kept: Iterable[int], dice: Iterable[int], rules: RuleSet, frozen: Iterable[int] = ()
) -> Breakdown:
    """Check that ``kept`` is a legal set-aside of ``dice`` and split it into combinations.

    Raises :class:`IllegalSetAside` naming the problem and the legal choices.
    """
    return scoring_table(rules).check(kept, dice, frozen)


def score_set_aside(
    kept: Iterable[int], dice: Iterable[int], rules: RuleSet, frozen: Iterable[int] = ()
) -> int:
    """Points of keeping ``kept`` from the roll ``dice``; :class:`IllegalSetAside` if not legal."""
    return score_breakdown(kept, dice, rules, frozen).points
