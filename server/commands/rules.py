"""Rules verbs: score, odds, replay, play."""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from server.commands import (
    Subparsers,
    add_rule_arguments,
    parse_pairs,
    print_json,
    rules_from_args,
    win_table,
)
from server.errors import UserError
from zilch import (
    Game,
    InvalidDice,
    ReplayError,
    RuleSet,
    SetAside,
    legal_set_asides,
    load_record,
    nothing_bonus_applies,
    odds_table,
    replay,
    roll_odds,
)
from zilch.names import normalize_name


def register(sub: Subparsers) -> None:
    p = sub.add_parser("score", help="legal set-asides of a roll and the best one")
    add_rule_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("dice", nargs="+", metavar="D", help="die values 1-6")
    p.add_argument(
        "--frozen",
        default="",
        metavar="D,D",
        help="dice frozen earlier this turn as single 1s and 5s, e.g. --frozen 1,5 "
        "(used only with --rule pyramiding=true)",
    )
    p.set_defaults(func=run_score)

    p = sub.add_parser("odds", help="exact zilch chance and average best points for 1-6 dice")
    add_rule_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run_odds)

    p = sub.add_parser("replay", help="replay a game record and print the final state")
    p.add_argument("file", metavar="FILE", help="game record (JSON); - for stdin")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run_replay)

    p = sub.add_parser("play", help="play a game in the terminal with virtual dice")
    add_rule_arguments(p)
    p.add_argument("--players", required=True, help='comma-separated names, e.g. "Ann,Ben"')
    p.add_argument("--seed", type=int, help="seed of the virtual dice")
    p.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="NAME=KIND",
        help="a computer player, e.g. --bot Robo=dicenow (repeatable)",
    )
    p.add_argument(
        "--record", metavar="FILE", help="write the game's replay record here at the end"
    )
    p.set_defaults(func=run_play)


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
    frozen = parse_dice(args.frozen.replace(",", " ").split())
    options = legal_set_asides(dice, rules, frozen)
    roll = tuple(sorted(dice))
    nothing = nothing_bonus_applies(roll, rules, not options)
    if nothing:  # the game pays the bonus and gives all six dice back: not a zilch
        options = [SetAside(roll, rules.nothing_bonus)]
    document: dict[str, Any] = {"dice": list(roll), "zilch": not options}
    if rules.nothing_bonus:
        document["nothing"] = nothing
    document["best"] = options[0].to_json() if options else None
    document["set_asides"] = [option.to_json() for option in options]
    if args.json:
        print_json(document)
        return 0
    shown = " ".join(map(str, roll))
    if nothing:
        print(
            f"{shown}: nothing scores, so under {rules.name} it pays the nothing bonus: "
            f"{rules.nothing_bonus:,} points and all six dice back"
        )
        return 0
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


def run_replay(args: argparse.Namespace) -> int:
    """Replay a record; at the first illegal action print the error and its index, exit 1."""
    text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    try:
        game = replay(load_record(text))
    except ReplayError as error:
        if args.json:
            print_json({"error": error.message, "action": error.action_index})
        where = "" if error.action_index is None else f"action {error.action_index}: "
        print(f"zilch-tower replay: error: {where}{error.message}", file=sys.stderr)
        return 1
    summary = game.summary()
    if args.json:
        print_json(summary)
        return 0
    for line in scoreboard(game):
        print(line)
    return 0


def scoreboard(game: Game) -> list[str]:
    """Readable lines: every player's score and streak, and who plays or who won."""
    state = game.state
    lines = []
    for player in state.players:
        notes = []
        if player.streak:
            notes.append(f"{player.streak} zilch{'es' if player.streak > 1 else ''} in a row")
        rules = game.rules
        if not player.on_board and rules.entry_needed(False) > rules.entry_needed(True):
            notes.append("not on board")
        mark = "*" if player.name in state.winners else ">" if player.name == state.current else " "
        extra = f"  ({', '.join(notes)})" if notes else ""
        lines.append(f" {mark} {player.name:<12} {player.score:>7,}{extra}")
    if state.finished:
        lines.append(
            f"Game over. Winner{'s' if len(state.winners) > 1 else ''}: {', '.join(state.winners)}"
        )
    else:
        lines.append(f"Round {state.round}; {state.current} to play.")
    return lines


# --- play: a game in the terminal ------------------------------------------------------

HELP = (
    "At the roll prompt: r rolls (Enter too, unless you could bank), b banks, "
    "s skips an absent player's turn, c NAME announces a challenge, j NAME adds a player, "
    "q ends the game (both asked again). "
    "At the keep prompt: Enter keeps the best, a number picks an option, "
    "or type k and the dice (k 5, k 1 5 5; several dice need no k)."
)


class StopPlay(Exception):
    """The person ended the game (q, end of input)."""


def parse_bots(options: list[str]) -> dict[str, str]:
    """``["Robo=dicenow"]`` -> ``{"Robo": "dicenow"}``."""
    return parse_pairs(options, "--bot", "NAME=KIND", "Robo=dicenow")


def make_bots(bots: dict[str, str], rules: RuleSet) -> dict[str, Any]:
    """Computer players from ``zilch.strategy``; a clear error if it is not available."""
    if not bots:
        return {}
    try:
        strategy = importlib.import_module("zilch.strategy")
        make_bot: Callable[..., Any] = strategy.make_bot
    except (ImportError, AttributeError):
        raise UserError(
            "--bot needs the strategy package (zilch.strategy.make_bot), "
            "which is not available in this installation"
        ) from None
    if "win" in bots.values():  # the win table comes from the solver cache (solved once)
        from server.config import load_config
        from server.solver_cache import CACHE_FOLDER, WinTableCache

        winners = [name for name, kind in bots.items() if kind == "win"]
        plays = "plays" if len(winners) == 1 else "play"
        cache = WinTableCache(load_config().state_dir / CACHE_FOLDER)
        table = win_table(cache, rules, f"{' and '.join(winners)} {plays} to win: ")
        return {
            name: make_bot(kind, rules, None, table) if kind == "win" else make_bot(kind, rules)
            for name, kind in bots.items()
        }
    return {name: make_bot(kind, rules) for name, kind in bots.items()}


def show_dice(dice: tuple[int, ...] | list[int]) -> str:
    """Dice as a person reads them: ``[1] [5] [2]``."""
    return " ".join(f"[{d}]" for d in dice)


class TerminalPlay:
    """A game of Zilch at the terminal: virtual dice, prompts, computer players."""

    def __init__(
        self,
        game: Game,
        roller: random.Random,
        bots: dict[str, Any],
        stdin: TextIO,
        stdout: TextIO,
    ) -> None:
        self.game = game
        self.roller = roller
        self.bots = bots
        self.stdin = stdin
        self.stdout = stdout
        self.shown = 0
        self.plan: dict[str, str] = {}
        self.odds: dict[int, float] = {}

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def ask(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = str(self.stdin.readline())
        if not line:
            raise StopPlay
        if not self.stdin.isatty():  # piped input: echo it so the transcript reads well
            self.stdout.write(line.rstrip("\n") + "\n")
        return line.strip()

    def confirm(self, question: str) -> bool:
        """A yes/no question whose safe answer (Enter) is no."""
        return self.ask(f"{question} [y/N] ").lower() in ("y", "yes")

    def zilch_chance(self, dice: int) -> str:
        """The exact chance that ``dice`` fresh dice zilch, as a percentage."""
        if dice not in self.odds:
            self.odds[dice] = roll_odds(dice, self.game.rules, self.game.state.turn.pyramid)[0]
        return f"{self.odds[dice]:.1%}"

    def show_events(self) -> None:
        """Print the log lines of events not shown yet."""
        journal = self.game.journal
        for event in journal[self.shown :]:
            if event.kind == "roll":
                self.say(f"  {event.player} rolls {show_dice(event.data['dice'])}")
            elif event.kind == "turn_start":
                self.say()
                self.say(" | ".join(line.strip() for line in scoreboard(self.game)[:-1]))
                self.say(f"--- {event.text}")
            else:
                self.say(f"  {event.text}")
        self.shown = len(journal)

    def run(self) -> None:
        """Play until the game ends or the person stops."""
        self.show_events()
        while not self.game.state.finished:
            name = self.game.state.current or ""
            try:
                if name in self.bots:
                    self.bot_step(name)
                elif self.game.state.phase == "keep":
                    self.keep_step(name)
                else:
                    self.roll_step(name)
            except ValueError as error:  # an illegal choice: say why, nothing changed
                self.say(f"  ! {error}")
            self.show_events()

    def roll_dice(self) -> None:
        n = self.game.state.turn.dice_left
        self.game.roll([self.roller.randint(1, 6) for _ in range(n)])

    def roll_step(self, name: str) -> None:
        turn = self.game.state.turn
        refusal = self.game.bank_refusal()
        n = turn.dice_left
        dice = f"{n} {'die' if n == 1 else 'dice'} ({self.zilch_chance(n)} zilch)"
        choosing = False  # a real choice between rolling and banking: Enter picks neither
        if turn.rolls == 0 and turn.total == 0:
            prompt = f"{name}, roll {dice}? [Enter=roll, ?=help] "
        elif refusal is None:
            choosing = True
            prompt = (
                f"{name}: turn total {turn.total:,}. Roll {dice} or bank {turn.total:,}? [r/b] "
            )
        else:
            chance = self.zilch_chance(n)
            prompt = f"{refusal} ({chance} zilch). [Enter=roll] "
        answer = self.ask(prompt)
        word, _, rest = answer.partition(" ")
        word = word.lower()
        if word == "" and choosing:
            self.say(f"  Type r to roll {n} {'die' if n == 1 else 'dice'} or b to bank.")
        elif word in ("", "r", "roll"):
            self.roll_dice()
        elif word in ("b", "bank"):
            self.game.bank()
        elif word in ("s", "skip"):
            if self.confirm(f"Skip {name}'s turn (not a zilch, the streak stays)?"):
                self.game.skip()
        elif word in ("c", "challenge"):
            self.game.challenge(rest.strip())
        elif word in ("j", "join"):
            self.game.join(rest.strip())
        elif word in ("q", "quit"):
            if self.confirm("End the game now?"):
                raise StopPlay
        elif word in ("?", "h", "help"):
            self.say(HELP)
        else:
            self.say(f"  ? {answer!r} is not understood here. {HELP}")

    def keep_step(self, name: str) -> None:
        state = self.game.state
        options = self.game.set_asides()
        self.say(f"  Turn total {state.turn.total:,}. Set aside:")
        for number, option in enumerate(options, 1):
            best = "  <- best" if number == 1 else ""
            left = state.turn.dice_left - len(option.dice)
            after = "free roll!" if left == 0 else f"{left} left"
            total = state.turn.total + option.points
            self.say(
                f"   {number:2}) {' '.join(map(str, option.dice)):<12} "
                f"{option.points:>6,}  -> {total:>6,}  ({after}){best}"
            )
        answer = self.ask(f"{name}, keep which? [Enter=best, number, or k and dice] ")
        words = answer.replace(",", " ").split()
        if answer.lower() in ("q", "quit"):
            if self.confirm("End the game now?"):
                raise StopPlay
            return
        if answer in ("?", "h", "help"):
            self.say(HELP)
            return
        if not words:
            keep = options[0].dice
        elif len(words) == 1 and words[0].isdigit():
            # one number is always an option's number, never a die: no guessing which
            if not 1 <= int(words[0]) <= len(options):
                count = len(options)
                which = "1" if count == 1 else f"1 to {count}"
                self.say(
                    f"  ! there is no option {words[0]}: choose {which}, "
                    f"or type k and the dice (k {words[0]})"
                )
                return
            keep = options[int(words[0]) - 1].dice
        elif words[0].lower() in ("k", "keep"):
            keep = tuple(parse_dice(words[1:]))
        elif all(w.isdigit() for w in words):
            keep = tuple(parse_dice(words))
        else:
            self.say(f"  ? {answer!r} is not understood here. {HELP}")
            return
        self.game.keep(keep)

    def bot_step(self, name: str) -> None:
        state = self.game.state
        if state.phase == "roll" and (state.turn.rolls == 0 or name not in self.plan):
            self.roll_dice()
            return
        if state.phase == "roll":
            then = self.plan.pop(name)
            if then == "bank" and self.game.bank_refusal() is None:
                self.game.bank()
            else:
                self.roll_dice()
            return
        decision = self.bots[name].decide(state, name)
        keep = tuple(decision.keep) or self.game.set_asides()[0].dice
        try:
            self.game.keep(keep)
        except ValueError:
            self.say(f"  ({name} chose {keep}, which is not legal; keeping the best)")
            self.game.keep(self.game.set_asides()[0].dice)
        self.plan[name] = decision.then


def run_play(args: argparse.Namespace) -> int:
    """A complete game in the terminal with a seeded virtual roller."""
    rules = rules_from_args(args)
    names = [normalize_name(name) for name in args.players.split(",") if name.strip()]
    bot_kinds = {normalize_name(name): kind for name, kind in parse_bots(args.bot).items()}
    names += [name for name in bot_kinds if name not in names]
    bots = make_bots(bot_kinds, rules)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    game = Game(rules, names)
    play = TerminalPlay(game, random.Random(seed), bots, sys.stdin, sys.stdout)
    first = rules.doc.strip().splitlines()[0] if rules.doc else rules.name
    play.say(f"Zilch: {first}")
    play.say(f"Target {rules.target:,}; seed {seed} (replay these dice with --seed {seed}).")
    play.say("Type ? at any prompt for help.")
    stopped = False
    try:
        play.run()
    except (StopPlay, KeyboardInterrupt):
        stopped = True
    play.say()
    play.say("Game stopped." if stopped else "Final scores:")
    for line in scoreboard(game):
        play.say(line)
    if args.record:
        Path(args.record).write_text(json.dumps(game.record(), indent=1) + "\n", encoding="utf-8")
        play.say(f"Record written to {args.record}.")
    return 0
