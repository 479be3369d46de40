"""The terminal game in a real terminal (tmux): its prompts, defaults and confirmations."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = Path(sys.executable).with_name("zilch-tower")

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Terminal:
    """One tmux server of its own (``-L``) running a command; keys in, the screen's text out."""

    def __init__(self, name: str) -> None:
        self.name = name

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "-L", self.name, "send-keys", "-t", self.name, *keys], check=True)

    def line(self, text: str) -> None:
        self.keys("-l", text)
        self.keys("Enter")

    def screen(self) -> str:
        out = subprocess.run(
            ["tmux", "-L", self.name, "capture-pane", "-p", "-J", "-S", "-200", "-t", self.name],
            check=True,
            capture_output=True,
            text=True,
        )
        return out.stdout

    def wait_for(self, text: str, count: int = 1, timeout: float = 20.0) -> str:
        """Wait until ``text`` shows ``count`` times on the screen; the screen."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if screen.count(text) >= count:
                return screen
            assert time.monotonic() < deadline, f"{text!r} never showed:\n{screen}"
            time.sleep(0.1)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    """The terminal game for Ann and Ben with seed 2 (Ann's first roll: 1 1 1 2 3 6)."""
    name = f"zilch-{uuid.uuid4().hex[:8]}"
    command = f"{CLI} play --players Ann,Ben --seed 2; echo EXITED $?; sleep 30"
    subprocess.run(
        ["tmux", "-L", name, "new-session", "-d", "-s", name, "-x", "160", "-y", "50", command],
        check=True,
        cwd=ROOT,
    )
    try:
        yield Terminal(name)
    finally:
        subprocess.run(["tmux", "-L", name, "kill-server"], check=False)


def test_enter_neither_rolls_nor_banks_when_both_are_possible(terminal: Terminal) -> None:
    terminal.wait_for("Ann, roll 6 dice")
    terminal.keys("Enter")  # roll
    terminal.wait_for("keep which?")
    terminal.keys("Enter")  # the best: 1 1 1 for 1,000
    terminal.wait_for("or bank 1,000? [r/b]")
    terminal.keys("Enter")
    screen = terminal.wait_for("Type r to roll 3 dice or b to bank.")
    assert screen.count("Ann rolls") == 1, "Enter rolled"
    terminal.line("b")
    terminal.wait_for("Ann banks 1,000 and has 1,000.")


def test_quit_and_skip_ask_first(terminal: Terminal) -> None:
    terminal.wait_for("Ann, roll 6 dice")
    terminal.line("q")
    terminal.wait_for("End the game now? [y/N]")
    terminal.keys("Enter")  # no
    terminal.wait_for("Ann, roll 6 dice", count=2)
    terminal.line("s")
    terminal.wait_for("Skip Ann's turn (not a zilch, the streak stays)? [y/N]")
    terminal.line("y")
    terminal.wait_for("Ben, roll 6 dice")
    terminal.line("q")
    terminal.wait_for("End the game now? [y/N]", count=2)
    terminal.line("y")
    screen = terminal.wait_for("EXITED 0")
    assert "Game stopped." in screen


def test_unknown_input_and_lone_numbers_are_explained(terminal: Terminal) -> None:
    terminal.wait_for("Ann, roll 6 dice")
    terminal.line("xyzzy")
    terminal.wait_for("'xyzzy' is not understood here.")
    terminal.keys("Enter")
    screen = terminal.wait_for("keep which?")
    options = sum(1 for line in screen.splitlines() if ") " in line and "->" in line)
    terminal.line("5")  # a lone number is an option's number, never a die value
    terminal.wait_for(f"there is no option 5: choose 1 to {options}, or type k and the dice (k 5)")
    terminal.line("k 1")
    terminal.wait_for("Ann keeps 1 for 100")
