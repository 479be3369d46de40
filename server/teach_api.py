"""The calibration page's teach step, under ``/api/calibrate/teach`` (admin PIN).

After the calibration is saved the host teaches the tower its dice: each
``POST roll`` shakes the tower by itself and reads the dice, and the page
shows a crop of every die; the host confirms or corrects each value
(``POST confirm``); ``POST learn`` fits the dice profile from every confirmed
die and saves it beside the calibration (through the service's
:class:`~server.teaching.Teacher`), replacing the examples of the dice set
taught before. Only between games: the tower is not shaken under a game.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from flask import Blueprint, Response, current_app, jsonify

from server.api import BadBody, body, got, host_blueprint_answers
from server.pictures import PictureError, die_picture
from server.table_state import TableError
from vision import Reading
from vision.profile import (
    MIN_EXAMPLES,
    ProfileError,
    TeachingExample,
    examples_from_reading,
)
from vision.sources import SourceError

bp = Blueprint("teach_api", __name__, url_prefix="/api/calibrate/teach")

MAX_ROLLS = 40  # rolls one teach session keeps (20 make a good profile)


class TeachStepError(ValueError):
    """A teach step asked for at the wrong moment (names what to do first)."""


@dataclass
class TaughtRoll:
    """One roll of the teach step: the frame, what the tower read, what the host said."""

    frame: np.ndarray
    reading: Reading
    values: list[int] | None = None  # confirmed values, in the reading's order


@dataclass
class TeachSession:
    """The teach step's rolls so far (one per service)."""

    rolls: list[TaughtRoll] = field(default_factory=list)
    learned: dict[str, Any] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def examples(self) -> list[TeachingExample]:
        """Every confirmed die as a teaching example (with the calibration in use)."""
        calibration = _service().hardware.watcher.calibration.get()
        found: list[TeachingExample] = []
        for roll in self.rolls:
            if roll.values is not None:
                found += examples_from_reading(roll.frame, roll.reading, roll.values, calibration)
        return found


def _service() -> Any:
    return current_app.extensions["zilch_tower"]


def _session() -> TeachSession:
    session = current_app.extensions.setdefault("zilch_tower_teach", TeachSession())
    assert isinstance(session, TeachSession)
    return session


host_blueprint_answers(bp, {TeachStepError: 409, ProfileError: 422, PictureError: 422})


def _roll_json(index: int, roll: TaughtRoll) -> dict[str, Any]:
    calibration = _service().hardware.watcher.calibration.get()
    dice = [
        {
            "value": die.value,
            "confidence": round(die.confidence, 3),
            "crop": die_picture(roll.frame, die, calibration),
        }
        for die in roll.reading.dice
    ]
    return {
        "roll": index,
        "dice": dice,
        "ok": roll.reading.ok,
        "reason": roll.reading.reason,
        "values": roll.values,
    }


def _status(session: TeachSession) -> dict[str, Any]:
    confirmed = sum(len(r.values or ()) for r in session.rolls)
    return {
        "rolls": [_roll_json(i, r) for i, r in enumerate(session.rolls)],
        "confirmed_dice": confirmed,
        "needed": MIN_EXAMPLES,
        "learned": session.learned,
        "taught": _service().teacher.summary(),
    }


@bp.get("")
def status() -> Response:
    """The teach step's rolls, what was confirmed, and what the tower knows now."""
    return jsonify(_status(_session()))


@bp.post("/roll")
def roll() -> Response:
    """The tower shakes by itself and reads the dice; the page shows a crop of each."""
    session = _session()
    service = _service()
    body(())
    with session.lock:
        if service.hardware.watcher.calibration.get() is None:
            raise TeachStepError("calibrate the camera first: capture the empty tray and the dice")
        if len(session.rolls) >= MAX_ROLLS:
            raise TeachStepError(f"{MAX_ROLLS} rolls are kept; learn from them or start again")
        try:
            frame, reading = service.teach_roll()
        except TableError as exc:
            raise TeachStepError(str(exc)) from None
        except SourceError as exc:
            raise TeachStepError(f"the camera gave no picture: {exc}") from None
        if not reading.dice:
            raise TeachStepError(f"no dice seen ({reading.reason}): put the dice in the tray")
        session.rolls.append(TaughtRoll(frame, reading))
        session.learned = None
    return jsonify(_status(session))


@bp.post("/confirm")
def confirm() -> Response:
    """``{"roll": i, "values": [...]}``: what each die of roll ``i`` shows, in its order."""
    session = _session()
    data = body(("roll", "values"))
    index = data.get("roll")
    values = data.get("values")
    with session.lock:
        if not isinstance(index, int) or isinstance(index, bool):
            raise BadBody(
                "'roll' must be the number of a roll of this teach step" + got(data, "roll")
            )
        if not 0 <= index < len(session.rolls):
            raise BadBody(
                f"'roll' {index} is not a roll of this teach step (0 to {len(session.rolls) - 1})"
            )
        taught = session.rolls[index]
        n = len(taught.reading.dice)
        if (
            not isinstance(values, list)
            or len(values) != n
            or not all(
                isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in values
            )
        ):
            raise BadBody(
                f"'values' must be {n} die values from 1 to 6, one per die shown"
                + got(data, "values")
            )
        taught.values = list(values)
        session.learned = None
    return jsonify(_status(session))


@bp.post("/learn")
def learn() -> Response:
    """Fit the dice profile from every confirmed die and save it beside the calibration."""
    session = _session()
    body(())
    with session.lock:
        examples = session.examples()
        if len(examples) < MIN_EXAMPLES:
            raise TeachStepError(
                f"{len(examples)} dice confirmed; confirm at least {MIN_EXAMPLES} to teach"
            )
        profile = _service().teacher.replace_all(examples)
        session.learned = {
            "dice": len(examples),
            "counts": list(profile.counts),
            "cv_accuracy": round(profile.cv_accuracy, 4),
            "path": str(_service().teacher.profile_path),
        }
        session.rolls = []
    return jsonify(_status(session))
