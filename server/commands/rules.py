"""Rules verbs: score, odds, replay, play."""

from __future__ import annotations

import argparse

from server.commands import (
    Subparsers,
    add_rule_arguments,
    not_available,
    parse_rule_options,
    print_json,
)
from zilch import InvalidDice, RuleSet, find_preset, legal_set_asides, odds_table


def register(sub: Subparsers) -> None:
    p = sub.add_parser("score", help="legal set-asides of a roll and the best one")
    add_rule_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("dice", nargs="+", metavar="D", help="die values 1-6")
    p.set_defaults(func=run_score)

    p = sub.add_parser("odds", help="exact zilch chance and average best points for 1-6 dice")
    add_rule_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run_odds)

    p = sub.add_parser("replay", help="replay a game record and print the final state")
    p.add_argument("file", metavar="FILE", help="game record (JSON); - for stdin")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_todo("replay"))

    p = sub.add_parser("play", help="play a game in the terminal with virtual dice")
    add_rule_arguments(p)
    p.add_argument("--players", required=True, help='comma-separated names, e.g. "Ann,Ben"')
    p.add_argument("--seed", type=int, help="seed of the virtual dice")
    p.set_defaults(func=_todo("play"))


def rules_from_args(args: argparse.Namespace) -> RuleSet:
    """The preset named by ``--preset`` with the ``--rule`` house rules on top."""
    return find_preset(args.preset).with_house_rules(parse_rule_options(args.rule))


def parse_dice(words: list[str]) -> list[int]:
    """Die values from command-line words; :class:`InvalidDice` names a bad one."""
    values = []
    for word in words:
        if not word.strip().isdigit():
            raise InvalidDice(f"die value {word!r} is not a number; die values are 1 to 6")
        values.append(int(word))
    return values


def run_score(args: argparse.Namespace) -> int:
    """Print every legal set-aside of the roll and the best one."""
    rules = rules_from_args(args)
    dice = parse_dice(args.dice)
    options = legal_set_asides(dice, rules)
    document = {
        "dice": sorted(dice),
        "zilch": not options,
        "best": options[0].to_json() if options else None,
        "set_asides": [option.to_json() for option in options],
    }
    if args.json:
        print_json(document)
        return 0
    shown = " ".join(map(str, sorted(dice)))
    if not options:
        print(f"{shown}: zilch (no die scores under {rules.name})")
        return 0
    print(f"{shown} under {rules.name}: {len(options)} legal set-asides")
    for number, option in enumerate(options, 1):
        mark = "  <- best" if number == 1 else ""
        print(f"  {number:2}. keep {' '.join(map(str, option.dice)):<12} {option.points:>6,}{mark}")
    return 0


def run_odds(args: argparse.Namespace) -> int:
    """Print the exact zilch chance and average best points for 1..6 dice."""
    rules = rules_from_args(args)
    rows = odds_table(rules)
    if args.json:
        print_json(rows)
        return 0
    print(f"Odds under {rules.name} (exact):")
    print("  dice  zilch chance  average best")
    for row in rows:
        print(f"  {row['dice']:4}  {row['zilch_chance']:11.2%}  {row['average_best']:12.1f}")
    return 0


def _todo(verb: str):  # type: ignore[no-untyped-def]
    def run(args: argparse.Namespace) -> int:
        raise not_available(verb)

    return run
