"""The JSON API: table state, live events, play actions, history and settings.

Bodies are JSON objects shaped like the replay actions (``{"keep": [1, 5]}``).
Requests that change the table carry the table PIN in ``X-Table-Pin``;
configuration endpoints the admin PIN in ``X-Admin-Pin``. Every error is
``{"error": "..."}`` with a 4xx code: 400 bad input, 401 PIN missing or
wrong, 404 unknown, 409 not legal now (with the engine's reason), 413 too
large, 429 too many wrong PINs.
"""

from __future__ import annotations

import functools
import hmac
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Literal, TypeVar, cast

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from server.nesting import BODY_NESTING, nesting_depth, too_deep
from server.service import TableService
from server.serving import STREAM_KEY, StreamSlot
from server.store import CorruptJournal, StorageError
from server.table_state import TableError
from zilch import IllegalAction
from zilch.errors import cut
from zilch.names import NAME_RULE, name_key, name_problem, normalize_name

bp = Blueprint("api", __name__, url_prefix="/api")

STORAGE_RETRY_AFTER_S = 2  # after a 503 "cannot save": try again this much later

PIN_FAILURES = 10  # wrong PINs one address may send per window
PIN_WINDOW_S = 60.0
ROOM_FAILURES = 20  # wrong PINs from all addresses together per window, then a back-off
BACKOFF_S = 30.0  # the first back-off; each further one doubles, up to BACKOFF_MAX_S
BACKOFF_MAX_S = 3600.0
BACKOFF_RESET_S = 900.0  # this long without a wrong PIN and back-offs start again from 30 s
KNOWN_CLIENT_S = 12 * 3600.0  # an address that gave the right PIN keeps playing this long
KNOWN_CLIENTS_MAX = 256


class ApiError(ValueError):
    """A request the API refuses; ``status`` is the HTTP code.

    ``retry_after`` (seconds) goes out as ``Retry-After`` where trying again
    later will do (503: the storage refused, the table was busy).
    """

    def __init__(self, message: str, status: int = 400, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class BadBody(ApiError):
    """A request body that is not the JSON object the endpoint expects."""


class PinRefused(ApiError):
    """A change of the table without the right PIN."""

    def __init__(self, message: str) -> None:
        super().__init__(message, 401)


# -- helpers -------------------------------------------------------------------


def service() -> TableService:
    """The table service of this app."""
    found: TableService = current_app.extensions["zilch_tower"]
    return found


class PinGuard:
    """Counts wrong PINs per client address and for the whole room.

    One address gets :data:`PIN_FAILURES` wrong PINs a minute. Guesses spread
    over many addresses (one phone's script can use a hundred) meet the room's
    limit: after :data:`ROOM_FAILURES` wrong PINs a minute no PIN is checked
    for a back-off that doubles each time, and the TV says so. Addresses that
    gave the right PIN lately (the players' phones) are let through the
    back-off, so a guesser cannot lock the room out of its own game.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._failures: dict[str, list[float]] = {}
        self._room: list[float] = []
        self._known: dict[str, float] = {}
        self._level = 0
        self._until = 0.0
        self._last_failure = -BACKOFF_RESET_S
        self._started_by_this = False
        self._lock = threading.Lock()
        self.on_backoff: Callable[[], None] = lambda: None  # told when a back-off starts

    def backoff_s(self) -> float:
        """Seconds left of the room's back-off (0 when PINs are being checked)."""
        with self._lock:
            return max(0.0, self._until - self._clock())

    def check(self, given: str | None, wanted: str, header: str, what: str) -> None:
        """Raise :class:`PinRefused` (or 429) unless ``given`` is ``wanted``."""
        client = request.remote_addr or "?"
        with self._lock:
            refusal = self._check(client, given, wanted, header, what)
            started = self._started_by_this
        if started:
            self.on_backoff()
        if refusal is not None:
            raise refusal

    def _check(
        self, client: str, given: str | None, wanted: str, header: str, what: str
    ) -> ApiError | None:
        """Why this PIN is refused (None: accepted); counts it. Holds the lock."""
        now = self._clock()
        self._started_by_this = False
        for seen in list(self._failures):  # forget clients whose window has passed
            self._failures[seen] = [t for t in self._failures[seen] if now - t < PIN_WINDOW_S]
            if not self._failures[seen]:
                del self._failures[seen]
        self._room = [t for t in self._room if now - t < PIN_WINDOW_S]
        recent = self._failures.setdefault(client, [])
        if len(recent) >= PIN_FAILURES:
            return ApiError(f"too many wrong PINs: wait {PIN_WINDOW_S:.0f} seconds", 429)
        known = now - self._known.get(client, -KNOWN_CLIENT_S) < KNOWN_CLIENT_S
        if now < self._until and not known:
            return ApiError(
                f"the table takes no PINs for {self._until - now:.0f} seconds: too many wrong "
                "PINs came from the network",
                429,
            )
        if given is None or given == "":
            return PinRefused(f"this needs the {what} in the {header} header")
        if hmac.compare_digest(given.encode(), wanted.encode()):
            if len(self._known) >= KNOWN_CLIENTS_MAX and client not in self._known:
                del self._known[min(self._known, key=self._known.__getitem__)]
            self._known[client] = now
            return None
        if now - self._last_failure >= BACKOFF_RESET_S:
            self._level = 0
        self._last_failure = now
        recent.append(now)
        self._room.append(now)
        if len(self._room) >= ROOM_FAILURES and now >= self._until:
            self._until = now + min(BACKOFF_S * 2**self._level, BACKOFF_MAX_S)
            self._level += 1
            self._room.clear()
            self._started_by_this = True
        return PinRefused(f"wrong {what} in the {header} header")


def _guard() -> PinGuard:
    """This app's PIN guard."""
    guard: PinGuard = current_app.extensions.setdefault("zilch_tower_pin_guard", PinGuard())
    return guard


PinKind = Literal["table", "admin"]
# What each PIN is called and the header it travels in.
PINS: dict[PinKind, tuple[str, str, str]] = {
    "table": ("pin", "X-Table-Pin", "table PIN"),
    "admin": ("admin_pin", "X-Admin-Pin", "admin PIN"),
}


def check_pin(kind: PinKind) -> None:
    """Refuse the request (401, or 429 after guessing) unless it carries the ``kind`` PIN.

    The one place every PIN check of the API and the calibration page goes through.
    """
    key, header, what = PINS[kind]
    wanted = str(current_app.extensions["zilch_tower"].config["table"][key])
    _guard().check(request.headers.get(header), wanted, header, what)


View = TypeVar("View", bound=Callable[..., Any])


def requires_pin(kind: PinKind) -> Callable[[View], View]:
    """A view decorator: the ``kind`` PIN is checked before the view does anything."""

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def checked(*args: Any, **kwargs: Any) -> Any:
            check_pin(kind)
            return view(*args, **kwargs)

        return cast(View, checked)

    return decorate


table_pin = requires_pin("table")  # views that change the table
admin_pin = requires_pin("admin")  # configuration views


def body(allowed: tuple[str, ...]) -> dict[str, Any]:
    """The request's JSON object (``{}`` when empty), with only ``allowed`` keys."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except RecursionError:
        raise BadBody(too_deep("the request body", BODY_NESTING)) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadBody(f"the request body is not valid JSON ({exc})") from None
    if nesting_depth(data) > BODY_NESTING:
        raise BadBody(too_deep("the request body", BODY_NESTING))
    if not isinstance(data, dict):
        raise BadBody('the request body must be a JSON object, such as {"keep": [1, 5]}')
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise BadBody(
            f"unknown field {unknown[0]!r}; this endpoint takes "
            + (", ".join(repr(k) for k in allowed) or "no fields")
        )
    return data


def got(data: dict[str, Any], key: str) -> str:
    """What the request sent for ``key``, for the end of an error message."""
    if key not in data:
        return "; it was left out"
    return "; got " + shown(data[key])


def shown(value: object) -> str:
    """A refused JSON value as one short line: ``[1, 9]``, ``"six"``, cut after 40 characters."""
    return cut(json.dumps(value))


def name_field(data: dict[str, Any], key: str, required: bool = True) -> str | None:
    """A player's name in its normal form (:mod:`zilch.names`)."""
    value = data.get(key)
    if value is None and not required:
        return None
    problem = name_problem(value)
    if problem is not None:
        raise BadBody(f"{key!r} must be a player's name of {NAME_RULE}: {problem}")
    return normalize_name(str(value))


def flag_field(data: dict[str, Any], key: str) -> None:
    """A replay-style marker such as ``"bank": true``: absent or true."""
    if key in data and data[key] is not True:
        raise BadBody(f"{key!r} must be true (or left out){got(data, key)}")


def dice_field(data: dict[str, Any], key: str) -> list[int]:
    """A list of 1 to 6 die values, each an integer 1..6."""
    value = data.get(key)
    if isinstance(value, list) and 1 <= len(value) <= 6:
        bad = [
            (k, v)
            for k, v in enumerate(value, start=1)
            if not (isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6)
        ]
        if not bad:
            return list(value)
        k, v = bad[0]
        raise BadBody(
            f"{key!r} must be a list of 1 to 6 die values from 1 to 6, such as [1, 5];"
            f" die {k} of {len(value)} is {shown(v)}" + got(data, key)
        )
    raise BadBody(
        f"{key!r} must be a list of 1 to 6 die values from 1 to 6, such as [1, 5]" + got(data, key)
    )


def turn_field(data: dict[str, Any]) -> str | None:
    """The ``turn`` a play action was meant for (the state's ``turn_token``), if sent."""
    value = data.get("turn")
    if value is None:
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= 40:
        raise BadBody("'turn' must be the state's turn_token, such as \"12-7\"" + got(data, "turn"))
    return value


def act(action: Callable[[], Any]) -> Response:
    """Run a table action; the new state, or the engine's reason with 409."""
    answer(action)
    return Response(service().state_json(), mimetype="application/json")


def answer(action: Callable[[], Any]) -> Any:
    """Run ``action`` on the table; its result, or its refusal as an API error."""
    try:
        return action()
    except ApiError:
        raise
    except (IllegalAction, TableError) as exc:
        raise ApiError(str(exc), 409) from None
    except FutureTimeout:
        raise ApiError("the table did not answer in time; try again", 503) from None
    except StorageError as exc:  # nothing changed: the same request may be sent again
        raise ApiError(str(exc), 503, retry_after=STORAGE_RETRY_AFTER_S) from None
    except ValueError as exc:
        raise ApiError(str(exc), 400) from None


# -- reading -------------------------------------------------------------------


@bp.get("/state")
def state() -> Response:
    """The whole table (docs/architecture.md)."""
    return Response(service().state_json(), mimetype="application/json")


@bp.get("/events")
def events() -> Response:
    """Server-Sent Events: every state change, keep-alives, ``Last-Event-ID`` resumption."""
    raw = request.headers.get("Last-Event-ID") or request.args.get("lastEventId")
    last_id: int | None = None
    if raw:
        try:
            last_id = int(raw)
        except ValueError:
            raise BadBody(f"Last-Event-ID must be a state seq number, not {raw!r}") from None
    table = service()
    limit = table.max_streams
    full = ApiError(
        f"too many live pages are open ({limit}); the rest of the API keeps working: "
        "raise [server] live_pages to allow more",
        503,
    )
    slot = request.environ.get(STREAM_KEY)
    stream: Iterator[str]
    if isinstance(slot, StreamSlot):
        # served by the HTTP server's loop after this opening (server/serving.py)
        opening = slot.open(table.broker, last_id, limit)
        if opening is None:
            raise full
        stream = iter([opening])
    else:  # another WSGI server: the stream holds the thread that reads it
        if limit is not None and table.broker.subscribers >= limit:
            raise full
        stream = table.subscribe(last_id)
    response = Response(stream, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.get("/records")
def records() -> Response:
    """Records per player and preset (best turn, best game, wins, losses)."""
    preset = request.args.get("preset") or None
    return jsonify({"records": service().store.records(preset)})


def _int_arg(name: str, default: int, lo: int, hi: int) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = lo - 1
    if not lo <= value <= hi:
        raise BadBody(f"{name} must be an integer from {lo} to {hi}; got {shown(raw)}")
    return value


@bp.get("/games")
def games() -> Response:
    """Past and present games, newest first (``limit``, ``offset``)."""
    limit = _int_arg("limit", 50, 1, 500)
    offset = _int_arg("offset", 0, 0, 10**9)
    store = service().store
    rows = store.games(limit, offset)
    corrections = store.corrections([row.id for row in rows])
    return jsonify(
        {"games": [{**row.to_json(), "corrections": corrections.get(row.id, 0)} for row in rows]}
    )


@bp.get("/games/<int:game_id>/record")
def game_record(game_id: int) -> Response:
    """The game as a replay record (``zilch-tower replay`` reads it)."""
    try:
        record = service().store.record(game_id)
    except CorruptJournal as exc:  # a game set aside by serve --recover
        raise ApiError(str(exc), 409) from None
    if record is None:
        raise ApiError(f"no game {game_id}", 404)
    return jsonify(record)


# -- play ----------------------------------------------------------------------


def _player_entry(entry: Any) -> tuple[str, str | None]:
    if isinstance(entry, str):
        return name_field({"name": entry}, "name") or "", None
    if isinstance(entry, dict) and set(entry) <= {"name", "bot"}:
        name = name_field(entry, "name") or ""
        bot = entry.get("bot")
        if bot is not None and not isinstance(bot, str):
            raise BadBody(
                "a player's 'bot' must be a computer player's name, such as \"dicenow\""
                + got(entry, "bot")
            )
        return name, bot
    raise BadBody(
        'each player must be a name or {"name": "Cy", "bot": "dicenow"}; got ' + shown(entry)
    )


@bp.post("/pin")
@table_pin
def pin_check() -> Response:
    """Check the table PIN a phone is about to keep: ``{"ok": true}`` or 401; nothing changes."""
    body(())
    return jsonify({"ok": True})


@bp.post("/admin-pin")
@admin_pin
def admin_pin_check() -> Response:
    """Check the admin PIN a host is about to use: ``{"ok": true}`` or 401; nothing changes."""
    body(())
    return jsonify({"ok": True})


@bp.post("/new-game")
@table_pin
def new_game() -> Response:
    """Start a game: ``{"preset", "rules", "players": [name | {"name", "bot"}]}``.

    While a game is running this replaces it, and needs the admin PIN as well.
    """
    data = body(("preset", "rules", "players"))
    preset = data.get("preset")
    if preset is not None and not isinstance(preset, str):
        raise BadBody("'preset' must be a preset's name, such as \"dicenow\"" + got(data, "preset"))
    rules = data.get("rules", {})
    if not isinstance(rules, dict) or not all(
        isinstance(v, str | int | bool) and not isinstance(v, float) for v in rules.values()
    ):
        raise BadBody(
            "'rules' must be an object of house rules, such as {\"three_pairs\": 750}"
            + got(data, "rules")
        )
    entries = data.get("players", [])
    if not isinstance(entries, list) or len(entries) > 20:
        raise BadBody("'players' must be a list of up to 20 players" + got(data, "players"))
    players: list[str] = []
    bots: dict[str, str] = {}
    for entry in entries:
        name, bot = _player_entry(entry)
        if name_key(name) in (name_key(p) for p in players):
            raise BadBody(f"player {name!r} is listed twice")
        players.append(name)
        if bot is not None:
            bots[name] = bot
    # Replacing a running game changes it: that is the host's, with the admin PIN too.
    replacing = service().controller.state.playing
    if replacing:
        check_pin("admin")
    return act(lambda: service().new_game(preset, rules, players, bots, replace=replacing))


@bp.post("/join")
@table_pin
def join() -> Response:
    """Join the game: ``{"join": name}`` (or ``{"name": name}``), optional ``"bot"``."""
    data = body(("join", "name", "bot"))
    name = name_field(data, "join" if "join" in data else "name")
    bot = data.get("bot")
    if bot is not None and not isinstance(bot, str):
        raise BadBody(
            "'bot' must be a computer player's name, such as \"dicenow\"" + got(data, "bot")
        )
    return act(lambda: service().join(name or "", bot))


@bp.post("/roll")
@table_pin
def roll() -> Response:
    """ROLL: ``{}`` or ``{"roll": true}``; the tower shakes and reads the dice."""
    data = body(("roll", "player", "turn"))
    if "roll" in data and data["roll"] is not True:
        raise BadBody("'roll' must be true: the tower reads the dice itself" + got(data, "roll"))
    player = name_field(data, "player", required=False)
    return act(lambda: service().roll(player, turn_field(data)))


@bp.post("/keep")
@table_pin
def keep() -> Response:
    """Set dice aside: ``{"keep": [1, 5]}``; the tower asks for them to leave the tray."""
    data = body(("keep", "player", "turn"))
    values = dice_field(data, "keep")
    player = name_field(data, "player", required=False)
    return act(lambda: service().keep(values, player, turn_field(data)))


@bp.post("/bank")
@table_pin
def bank() -> Response:
    """BANK: ``{}`` or ``{"bank": true}``."""
    data = body(("bank", "player", "turn"))
    flag_field(data, "bank")
    player = name_field(data, "player", required=False)
    return act(lambda: service().bank(player, turn_field(data)))


@bp.post("/skip")
@table_pin
def skip() -> Response:
    """Skip the current turn: ``{}`` or ``{"skip": true}``."""
    data = body(("skip", "player", "turn"))
    flag_field(data, "skip")
    player = name_field(data, "player", required=False)
    return act(lambda: service().skip(player, turn_field(data)))


@bp.post("/challenge")
@table_pin
def challenge() -> Response:
    """Announce a challenge turn: ``{"challenge": victim}`` (when the rules allow it)."""
    data = body(("challenge", "player"))
    victim = name_field(data, "challenge")
    player = name_field(data, "player", required=False)
    return act(lambda: service().challenge(victim or "", player))


# -- configuration (admin PIN) ----------------------------------------------------


@bp.post("/correct")
@table_pin
def correct() -> Response:
    """Say what the dice show: ``{"correct": [1, 5, 2, 3, 4, 6], "name": "Ann"}``.

    Corrects the roll on the table before any set-aside from it, or enters
    the dice the tower could not read after its last reshake; ``name`` (or
    ``player``) is who says so, for the journal and the TV.
    """
    data = body(("correct", "name", "player"))
    values = dice_field(data, "correct")
    if "name" in data and "player" in data:
        raise BadBody("say who corrects the dice in 'name' or in 'player', not both")
    by = name_field(data, "name" if "name" in data else "player", required=False)
    return act(lambda: service().correct(values, by))


@bp.get("/correct")
@table_pin
def correct_offer() -> Response:
    """What may be said about the dice now, with the camera's picture of each die read
    (``409`` when nothing may be said)."""
    return jsonify(answer(service().correct_pictures))


@bp.get("/config")
@admin_pin
def config() -> Response:
    """The effective configuration, PINs left out."""
    conf = service().config
    values = {section: dict(conf[section]) for section in conf}
    values["table"] = {k: v for k, v in values["table"].items() if k not in ("pin", "admin_pin")}
    return jsonify({"config": values, "state_dir": str(conf.state_dir)})


@bp.post("/end-game")
@admin_pin
def end_game() -> Response:
    """End the running game unfinished: ``{}``; it stays in the history as not finished."""
    body(())
    return act(lambda: service().end_game())


@bp.post("/pause")
@admin_pin
def pause() -> Response:
    """Pause or resume the table: ``{"paused": true|false}`` (host calls and timers stop)."""
    data = body(("paused",))
    if not isinstance(data.get("paused"), bool):
        raise BadBody("'paused' must be true or false" + got(data, "paused"))
    return act(lambda: service().pause(bool(data["paused"])))


@bp.post("/undo")
@admin_pin
def undo() -> Response:
    """Take back the last set-aside of the turn before the next roll: ``{}`` or ``{"undo": true}``.

    Journaled as an undo (the set-aside's row stays); the exported record leaves it out.
    """
    flag_field(body(("undo",)), "undo")
    return act(lambda: service().undo())


@bp.post("/rename")
@admin_pin
def rename() -> Response:
    """Call a player by another name: ``{"player": "Ben", "name": "Benjamin"}``."""
    data = body(("player", "name"))
    old = name_field(data, "player")
    new = name_field(data, "name")
    return act(lambda: service().rename(old or "", new or ""))


@bp.post("/remove-player")
@admin_pin
def remove_player() -> Response:
    """A player has left: ``{"player": "Cat"}``; their score stays, their turns are skipped."""
    data = body(("player",))
    name = name_field(data, "player")
    return act(lambda: service().remove_player(name or ""))


@bp.post("/settings")
@admin_pin
def settings() -> Response:
    """Table settings that change at runtime: ``{"speech": true|false}``."""
    data = body(("speech",))
    if not isinstance(data.get("speech"), bool):
        raise BadBody("'speech' must be true or false" + got(data, "speech"))
    return act(lambda: service().set_speech(bool(data["speech"])))


# -- errors --------------------------------------------------------------------


@bp.errorhandler(ApiError)
def api_error(exc: ApiError) -> tuple[Response, int]:
    response = jsonify({"error": str(exc)})
    if exc.retry_after is not None:
        response.headers["Retry-After"] = str(exc.retry_after)
    return response, exc.status


def http_error_json(exc: HTTPException) -> tuple[Response, int]:
    """Any HTTP error under /api as ``{"error": ...}`` (404, 405, 413, ...)."""
    code = exc.code or 500
    messages = {
        404: f"no such API endpoint: {request.method} {request.path}",
        405: f"{request.method} is not allowed on {request.path}",
        413: "the request body is too large",
    }
    return jsonify({"error": messages.get(code, exc.description or exc.name)}), code


def host_blueprint_answers(bp: Blueprint, statuses: Mapping[type[Exception], int]) -> None:
    """Guard a host page's blueprint with the admin PIN and answer its errors as JSON.

    Every error becomes ``{"error": "<one line>"}``: an :class:`ApiError` with its
    own status, each class in ``statuses`` with the status given, and any other
    HTTP error with its code.
    """

    def one_line(error: Exception, status: int) -> tuple[Response, int]:
        return jsonify(error=str(error)), status

    bp.before_request(lambda: check_pin("admin"))
    bp.register_error_handler(ApiError, lambda error: one_line(error, error.status))
    for kind, status in statuses.items():
        bp.register_error_handler(kind, lambda error, status=status: one_line(error, status))

    def http_error(error: HTTPException) -> tuple[Response, int]:
        return jsonify(error=error.description or error.name), error.code or 500

    bp.register_error_handler(HTTPException, http_error)
