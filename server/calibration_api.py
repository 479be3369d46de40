"""The calibration endpoints behind ``/calibrate``, under ``/api/calibrate``.

Every endpoint asks for the admin PIN (``X-Admin-Pin``). Frames come from the
service's own shared camera, never from a second one. The guided steps are:
capture the empty tray, capture the six dice (which runs vision's
``calibrate``), read a test frame with the new calibration, lock exposure and
white balance, save. In the simulator two helpers take the dice out of the
simulated tray and put them back, standing in for a person's hands.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import cv2
import numpy as np
from flask import Blueprint, Response, current_app, jsonify

from server.api import host_blueprint_answers
from server.service import TableService
from server.store import StorageError
from server.table_state import TableError
from vision import Reading, annotate, read_dice
from vision.calibrate import calibrate
from vision.calibration import Calibration, CalibrationError
from vision.sources import SharedCamera, SourceError

bp = Blueprint("calibration_api", __name__, url_prefix="/api/calibrate")

DICE = 6
JPEG_QUALITY = 80


class CalibrationStepError(ValueError):
    """A calibration step asked for out of order, or one the tower cannot do now."""


@dataclass
class CalibrationSession:
    """The steps done so far on the calibration page (one per service)."""

    empty: np.ndarray | None = None
    candidate: Calibration | None = None
    report: list[str] = field(default_factory=list)
    test: dict[str, Any] | None = None
    saved: str | None = None
    exposure_locked: bool = False
    lock_note: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def step(self) -> str:
        """The next step the page should offer."""
        if self.empty is None:
            return "empty"
        if self.candidate is None:
            return "dice"
        if self.test is None:
            return "test"
        return "save"


# ---------- access to the service's objects ----------


def _service() -> TableService:
    found: TableService = current_app.extensions["zilch_tower"]
    return found


def _session() -> CalibrationSession:
    session = current_app.extensions.setdefault("zilch_tower_calibration", CalibrationSession())
    assert isinstance(session, CalibrationSession)
    return session


def _camera() -> SharedCamera:
    return _service().hardware.camera


def _calibration_path() -> Path:
    return _service().hardware.watcher.calibration.path


def _frame() -> np.ndarray:
    """The newest frame from the service's shared camera."""
    try:
        return np.asarray(_camera().read())
    except SourceError as exc:
        raise CalibrationStepError(f"the camera gave no picture: {exc}") from None


def _read(frame: np.ndarray, session: CalibrationSession) -> Reading:
    """Read ``frame`` with the calibration being made, else as the table reads it."""
    if session.candidate is not None:
        return read_dice(frame, session.candidate)
    return _service().hardware.watcher.read(frame, None)


# ---------- checks and answers ----------


host_blueprint_answers(bp, {CalibrationStepError: 409, CalibrationError: 422, StorageError: 503})


def reading_words(reading_json: dict[str, Any]) -> str:
    """A reading in a sentence for the page: what was seen and whether it is sure."""
    values = sorted(int(d["value"]) for d in reading_json.get("dice", []))
    noun = "die" if len(values) == 1 else "dice"
    seen = f"{len(values)} {noun} read: {' '.join(map(str, values))}" if values else "no dice read"
    if reading_json.get("ok"):
        return seen + "."
    return f"{seen}; not sure: {reading_json.get('reason') or 'unknown reason'}."


def report_lines(report: dict[str, Any]) -> list[str]:
    """Vision's calibration quality report as lines of plain words, verdict first."""
    verdict = (
        "Calibration looks good."
        if report.get("ok")
        else "Calibration made, but check the points below and capture again if needed."
    )
    details = [part.strip() for part in str(report.get("text", "")).split(";") if part.strip()]
    return [verdict, *(d[0].upper() + d[1:] + "." for d in details)]


def _status(session: CalibrationSession) -> dict[str, Any]:
    return {
        "step": session.step(),
        "has_empty": session.empty is not None,
        "has_calibration": session.candidate is not None,
        "report": session.report,
        "test": session.test,
        "saved": session.saved,
        "exposure_locked": session.exposure_locked,
        "lock_note": session.lock_note,
        "simulated": _service().hands.helper,
        "path": str(_calibration_path()),
    }


# ---------- endpoints ----------


@bp.get("/frame.jpg")
def frame_jpeg() -> Response:
    """The live picture with the current reading drawn over it, as a JPEG."""
    session = _session()
    frame = _frame()
    reading = _read(frame, session)
    picture = annotate(frame, reading)
    ok, encoded = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise CalibrationStepError("the camera frame could not be encoded as JPEG")
    response = Response(encoded.tobytes(), mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    # percent-encoded: a header carries Latin-1 only, a reason may need more
    response.headers["X-Reading"] = quote(reading_words(reading.to_json()))
    return response


@bp.get("/status")
def status() -> Response:
    """Which steps are done, the quality report and the test read."""
    return jsonify(_status(_session()))


def _between_games() -> None:
    """Captures change how every roll is read: between games, or while the host has paused."""
    table = _service().controller.state
    if table.playing and not table.paused:
        raise CalibrationStepError(
            "a game is running: calibrate between games, or pause the game first "
            "(the new calibration reads every roll after it)"
        )


@bp.post("/empty")
def capture_empty() -> Response:
    """Step 1: remember a frame of the empty tray; refused while dice are seen in it."""
    session = _session()
    _between_games()
    frame = _frame()
    seen = _service().hardware.watcher.read(frame, None)
    if seen.dice:
        raise CalibrationStepError(
            f"the tray is not empty ({reading_words(seen.to_json())[:-1]}): take every die "
            "out of the tray, then capture the empty tray"
        )
    with session.lock:
        session.empty = frame.copy()
        session.candidate = None
        session.report = []
        session.test = None
        session.saved = None
    return jsonify(_status(session))


@bp.post("/dice")
def capture_dice() -> Response:
    """Step 2: a frame of the six dice; vision measures the tray and the dice from both."""
    session = _session()
    _between_games()
    with session.lock:
        if session.empty is None:
            raise CalibrationStepError("capture the empty tray first (step 1)")
        candidate, report = calibrate(session.empty, _frame(), expected=DICE)
        session.candidate = candidate
        session.report = report_lines(report)
        session.test = None
        session.saved = None
    return jsonify(_status(session))


@bp.post("/test")
def test_read() -> Response:
    """Step 3: read the tray now with the new calibration."""
    session = _session()
    with session.lock:
        if session.candidate is None:
            raise CalibrationStepError("capture the six dice first (step 2)")
        reading = read_dice(_frame(), session.candidate, expected=DICE).to_json()
        session.test = {
            "ok": bool(reading.get("ok")),
            "values": sorted(int(d["value"]) for d in reading.get("dice", [])),
            "words": reading_words(reading),
        }
    return jsonify(_status(session))


@bp.post("/lock")
def lock_exposure() -> Response:
    """Lock the camera's exposure and white balance so every frame looks the same."""
    session = _session()
    try:
        locked = bool(_camera().lock_exposure())
    except SourceError as exc:
        raise CalibrationStepError(f"the camera could not lock its exposure: {exc}") from None
    session.exposure_locked = locked
    session.lock_note = (
        "Exposure and white balance are locked."
        if locked
        else "This camera has no automatic exposure or white balance: nothing to lock."
    )
    return jsonify(_status(session))


@bp.post("/save")
def save() -> Response:
    """Step 4: write the calibration to the service's calibration file and use it."""
    session = _session()
    with session.lock:
        if session.candidate is None:
            raise CalibrationStepError("capture the empty tray and the six dice first")
        if session.test is None:
            raise CalibrationStepError("do a test read before saving (step 3)")
        saved = _service().hardware.watcher.calibration.save(session.candidate)
        session.saved = str(saved)
    return jsonify(_status(session))


# ---------- the simulator's hands ----------


def _move_sim_dice(take_out: bool) -> Response:
    """Run the service's journaled helper hands; the status and the dice in the tray."""
    service = _service()
    try:
        if take_out:
            service.sim_take_out()
        else:
            service.sim_put_back()
    except TableError as exc:
        raise CalibrationStepError(str(exc)) from None
    return jsonify(_status(_session()) | {"in_tray": service.controller.state.in_tray})


@bp.post("/sim/take-out")
def sim_take_out() -> Response:
    """Simulator, between games: take every die out of the tray (for the empty-tray step)."""
    return _move_sim_dice(take_out=True)


@bp.post("/sim/put-back")
def sim_put_back() -> Response:
    """Simulator, between games: put every die back into the tray (for the dice step)."""
    return _move_sim_dice(take_out=False)
