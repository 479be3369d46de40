"""The physical side of the table: the tower, the camera and the dice in the tray.

:class:`Tray` shakes, watches the dice settle (one frame per call), reads
them, and sees dice leave the tray or come back. It never touches the game or
the table's phase: each call returns an outcome (:class:`Settled`,
:class:`TakenOut`, :class:`TrayRight` ...) and the controller decides what
the outcome means for the game, builds the next :class:`TableState` and
commits it. It runs only on the controller's thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from firmware import Tower
from server.hands import Hands, multiset_minus
from server.table_state import LastShake, TablePhase
from vision import Reading, SharedCamera
from vision.watcher import DiceWatcher

FLYING_MOTION = 0.03  # share of the picture changing between frames while dice fly
FLYING_WAIT_S = 0.025  # pause before the next frame while they do

LightStatus = str  # one of firmware.STATUSES: "ready", "rolling", "reading", "attention", "error"


@dataclass
class Hardware:
    """What the table drives: the tower, the one camera, and vision's watcher of the tray."""

    tower: Tower
    camera: SharedCamera
    watcher: DiceWatcher


@dataclass(frozen=True)
class Timing:
    """How long the controller waits for things; tests set them near zero."""

    settle_timeout_s: float = 3.0
    poll_s: float = 0.3
    bot_delay_s: float = 1.0
    reshakes: int = 3


# -- outcomes ----------------------------------------------------------------------


@dataclass(frozen=True)
class Settled:
    """The dice stopped (or the settle time ran out) and were read in ``frame``."""

    reading: Reading
    frame: np.ndarray | None = None  # kept so that a person's correction can teach the tower


@dataclass(frozen=True)
class TakenOut:
    """Dice left the tray during ``choose``: ``dice`` out, ``left`` still in."""

    dice: tuple[int, ...]
    left: tuple[int, ...]


@dataclass(frozen=True)
class Untouched:
    """The tray holds no set-aside: ``left`` is what it holds (the whole roll, or not a subset)."""

    left: tuple[int, ...]


@dataclass(frozen=True)
class TrayRight:
    """The tray holds what the next roll needs: ``count`` dice, read as ``reading`` if sure."""

    count: int
    reading: Reading | None


@dataclass(frozen=True)
class Unsure:
    """The camera could not make the tray out; nothing is concluded (looked at again later)."""

    reason: str


TakeOutOutcome = TakenOut | Untouched | Unsure | None  # None: wait for a second, same look


class Tray:
    """The tower, camera and dice as the controller sees them; returns outcomes, never commits."""

    def __init__(
        self,
        hardware: Hardware,
        hands: Hands,
        timing: Timing,
        clock: Callable[[], float],
    ) -> None:
        self.hw = hardware
        self.hands = hands
        self.timing = timing
        self.clock = clock
        self.next_poll = 0.0  # on the controller's clock: when to look at the tray again
        self.next_frame = 0.0  # on time.monotonic: when the settle watch wants its next frame
        self._settle_deadline = 0.0
        self._candidate: tuple[int, ...] | None = None

    def show(self, status: LightStatus) -> None:
        """The tower's status light."""
        self.hw.tower.light.show(status)

    def poll_now(self) -> None:
        """Look at the tray on the next loop turn."""
        self.next_poll = self.clock()

    def poll_later(self) -> None:
        self.next_poll = self.clock() + self.timing.poll_s

    def forget(self) -> None:
        """A new roll is on the table (or the shake failed): start every watch afresh."""
        self._candidate = None
        self.hw.watcher.stop()

    # -- the roll --------------------------------------------------------------

    def shake(self, reshake_of: LastShake | None) -> LastShake:
        """Shake the tower; coil time and tumble (a reshake adds the roll's earlier ones)."""
        pulses = self.hw.tower.shake()
        shake_s = float(pulses[-1][1]) if pulses else 0.0
        tumble_s = shake_s + self.hands.tumble_s
        if reshake_of is not None:
            tumble_s += reshake_of.tumble_s
        self.hw.watcher.stop()
        return LastShake(round(shake_s, 3), round(tumble_s, 3))

    def watch(self, dice: int) -> Settled | None:
        """One frame for the settle watch; the reading of ``dice`` dice once they lie still.

        Commands arriving meanwhile are answered between frames (refused while
        the dice roll), so the web app never waits for a shake to end. The
        reading follows a timeout too: an unsure one says so.
        """
        watcher = self.hw.watcher
        if not watcher.settling:
            watcher.start()
            self._settle_deadline = self.clock() + self.timing.settle_timeout_s
        if time.monotonic() < self.next_frame:
            return None
        frame = self.hw.camera.read()
        if not watcher.settle(frame) and self.clock() < self._settle_deadline:
            if watcher.motion > FLYING_MOTION:
                # The dice are clearly still flying: look again a little later, leaving
                # the CPU to the web app (a camera gives ~30 frames a second anyway).
                self.next_frame = time.monotonic() + FLYING_WAIT_S
            return None
        watcher.stop()
        self.show("reading")
        return Settled(watcher.read(frame, dice), frame)

    def look(self, expected: int | None = None) -> Reading:
        """Read the tray now; the next look is a poll interval away."""
        reading = self.hw.watcher.read(self.hw.camera.read(), expected)
        self.poll_later()
        return reading

    # -- dice out and back -------------------------------------------------------

    def check(
        self, phase: TablePhase, expect_tray: tuple[int, ...] | None, dice_left: int
    ) -> TrayRight | Unsure | None:
        """In ``remove_dice``/``return_dice``: whether the tray holds what the next roll needs.

        A tray the camera cannot make out is taken as the hands know it, where
        they do (in the simulator nobody is there to nudge a die); else the
        person is asked until the camera confirms.
        """
        reading = self.look()
        known = tuple(sorted(reading.values)) if reading.ok else self.hands.known_tray()
        if known is None:
            return Unsure(reading.reason)
        values = known
        if phase is TablePhase.REMOVE_DICE:
            good = values == expect_tray
        else:
            good = len(values) == dice_left
        if not good:
            return None
        return TrayRight(len(values), reading if reading.ok else None)

    def take_out(self, roll: tuple[int, ...], stable: bool = True) -> TakeOutOutcome:
        """In ``choose``: which of the roll's dice left the tray, once seen twice alike."""
        roll = tuple(sorted(roll))
        reading = self.look()
        if not reading.ok:
            return Unsure(reading.reason)
        left = tuple(sorted(reading.values))
        taken = multiset_minus(roll, left)
        if taken is None or len(left) == len(roll):
            self._candidate = None
            return Untouched(left)
        if stable and taken != self._candidate:
            self._candidate = taken  # wait for the same reading twice: hands may be in the way
            return None
        return TakenOut(taken, left)


__all__ = [
    "FLYING_MOTION",
    "Hardware",
    "Settled",
    "TakeOutOutcome",
    "TakenOut",
    "Timing",
    "Tray",
    "TrayRight",
    "Unsure",
    "Untouched",
]
