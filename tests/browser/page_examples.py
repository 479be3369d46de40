"""A stand-in table for working on the pages: serves them with example state documents.

Run ``python tests/browser/page_examples.py [PORT]`` and open ``/``; switch the
table to another document with ``/harness/use/NAME`` (or announce something
with ``/harness/announce?text=...``) and every open page receives it through
the event stream, as from the real service. The
documents follow the /api/state example of docs/architecture.md.
"""

from __future__ import annotations

import copy
import json
import queue
import sys
import threading
from collections.abc import Iterator
from typing import Any

from flask import Flask, Response, jsonify, request

from server import pages
from server.config import load_config
from server.service import empty_turn

PLAYERS = [
    {"name": "Ann", "score": 3250, "streak": 0, "on_board": True, "zilches": 1, "bot": None},
    {"name": "Ben", "score": 2900, "streak": 2, "on_board": True, "zilches": 3, "bot": None},
    {"name": "Cleo", "score": 0, "streak": 0, "on_board": False, "zilches": 0, "bot": "dicenow"},
    {"name": "Dmitri", "score": 4150, "streak": 0, "on_board": True, "zilches": 0, "bot": None},
]

CHOOSE: dict[str, Any] = {
    "preset": "dicenow",
    "house_rules": {},
    "game_id": 3,
    "seq": 57,
    "players": PLAYERS,
    "current": "Ann",
    "phase": "choose",
    "round": 4,
    "final_round": False,
    "turn": {
        "total": 300,
        "roll": [1, 5, 2, 2, 3, 6],
        "dice_left": 6,
        "set_aside": [[1, 1, 1]],
        "best": {"dice": [1, 5], "points": 150},
        "options": [
            {"dice": [1], "points": 100},
            {"dice": [5], "points": 50},
            {"dice": [1, 5], "points": 150},
        ],
        "can_bank": False,
        "zilch_chance": 0.157,
        "hint": "keep the 1 and roll five: 512",
    },
    "reading": {
        "dice": [
            {"value": v, "center": [100 + 60 * i, 88], "confidence": 0.98}
            for i, v in enumerate([1, 5, 2, 2, 3, 6])
        ],
        "ok": True,
        "reason": "",
    },
    "message": "Take out the dice you keep, or tap them on your phone.",
    "announcement": {"seq": 55, "text": "Ann, it's your turn.", "kind": "call"},
    "finished": False,
    "winners": [],
    "log": [
        {"seq": 50 + i, "kind": k, "player": p, "text": t, "data": d}
        for i, (k, p, t, d) in enumerate(
            [
                ("bank", "Dmitri", "Dmitri banks 650 and has 4,150.", {"points": 650}),
                ("turn_start", "Ann", "Ann's turn.", {"final": False}),
                ("roll", "Ann", "Ann rolls 1 1 1 4 6 3.", {"dice": [1, 1, 1, 4, 6, 3]}),
                ("set_aside", "Ann", "Ann sets aside 1 1 1 for 300.", {"dice": [1, 1, 1]}),
                ("roll", "Ann", "Ann rolls 1 5 2 2 3 6.", {"dice": [1, 5, 2, 2, 3, 6]}),
            ]
        )
    ],
    "table": {"speech": True, "next_game": "Wed 09:30", "join_open": True},
}


def _idle() -> dict[str, Any]:
    state = copy.deepcopy(CHOOSE)
    state.update(
        phase="idle",
        players=[],
        current=None,
        game_id=None,
        log=[],
        message="",
        announcement=None,
        reading=None,
    )
    state["turn"] = empty_turn()
    return state


def _over() -> dict[str, Any]:
    state = copy.deepcopy(CHOOSE)
    state.update(phase="over", finished=True, winners=["Dmitri"], current=None, message="")
    state["players"][3]["score"] = 10350
    state["announcement"] = {"seq": 80, "text": "Dmitri wins with 10,350!", "kind": "game_over"}
    return state


def _fix_tray() -> dict[str, Any]:
    state = copy.deepcopy(CHOOSE)
    state.update(phase="fix_tray", message="Straighten the tray: a die is leaning on the wall.")
    state["reading"] = {
        "dice": [
            {"value": v, "center": [0, 0], "confidence": c}
            for v, c in [(1, 0.97), (5, 0.95), (2, 0.31), (2, 0.9), (3, 0.96)]
        ],
        "ok": False,
        "reason": "5 dice seen, 6 expected",
    }
    return state


def _crowd() -> dict[str, Any]:
    state = copy.deepcopy(CHOOSE)
    names = [
        "Ann",
        "Ben",
        "Cleo",
        "Dmitri",
        "Esther",
        "Farid",
        "Gwen",
        "Hiroshi",
        "Ines",
        "Jonas",
        "Kalinda",
        "Lars",
        "Mei",
        "Nnamdi",
        "Olga",
        "Priya",
        "Quentin",
        "Rosalind",
        "Sven",
        "Tomasz",
    ]
    state["preset"] = "club"
    state["players"] = [
        {
            "name": n,
            "score": 150 * i,
            "streak": i % 3,
            "on_board": i % 4 != 0,
            "zilches": i % 5,
            "bot": None,
        }
        for i, n in enumerate(names)
    ]
    state["current"] = "Tomasz"
    return state


def _ready() -> dict[str, Any]:
    """Ann between rolls with 250 on the turn, not yet on board: ROLL 3 dice, no bank."""
    state = copy.deepcopy(CHOOSE)
    state["players"][0].update(score=0, on_board=False)
    state.update(phase="ready", message="", announcement=None)
    state["turn"].update(
        total=250, roll=None, dice_left=3, set_aside=[[1, 1], [5]], best=None, options=[], hint=""
    )
    state["reading"]["dice"] = state["reading"]["dice"][:3]
    return state


def _free_roll() -> dict[str, Any]:
    """Ann after hot dice: 600 on the turn and all six dice to roll again."""
    state = _ready()
    state["turn"].update(total=600, dice_left=6, set_aside=[], can_bank=True)
    state["reading"] = {"dice": [], "ok": True, "reason": ""}  # all six set aside
    state["log"].append(
        {
            "seq": 56,
            "kind": "free_roll",
            "player": "Ann",
            "text": "Hot dice! All six dice scored: Ann may bank or roll all six again.",
            "data": {"total": 600, "compulsory": False},
        }
    )
    return state


def _after_zilch() -> dict[str, Any]:
    """Ben's turn has begun; the tray still holds the dice Ann zilched on."""
    state = copy.deepcopy(CHOOSE)
    state.update(phase="ready", current="Ben", message="", announcement=None)
    state["turn"] = empty_turn()
    state["reading"] = {
        "dice": [{"value": v, "center": [0, 0], "confidence": 0.97} for v in (2, 3, 4, 4)],
        "ok": True,
        "reason": "",
    }
    state["log"] += [
        {
            "seq": 58,
            "kind": "roll",
            "player": "Ann",
            "text": "Ann rolls 2 3 4 4.",
            "data": {"dice": [2, 3, 4, 4]},
        },
        {
            "seq": 58,
            "kind": "zilch",
            "player": "Ann",
            "text": "Zilch! Ann loses the turn's 300.",
            "data": {"lost": 300, "streak": 1},
        },
        {
            "seq": 58,
            "kind": "turn_start",
            "player": "Ben",
            "text": "Ben's turn.",
            "data": {"final": False},
        },
    ]
    return state


def _duel() -> dict[str, Any]:
    """Ann and Ben, Ann between rolls with 300 she may bank: the exact chance to win."""
    state = copy.deepcopy(CHOOSE)
    state["players"] = copy.deepcopy(PLAYERS[:2])
    state.update(phase="ready", message="", announcement=None)
    state["turn"].update(
        total=300, roll=None, dice_left=3, set_aside=[[1, 1, 1]], best=None, options=[], hint=""
    )
    state["turn"]["can_bank"] = True
    state["reading"]["dice"] = state["reading"]["dice"][:3]
    state["win_chance"] = {
        "players": {"Ann": 0.64, "Ben": 0.36},
        "current": "Ann",
        "advice": "bank: 64% to win; roll: 58%",
        "history": {"player": "Ann", "chances": [0.53, 0.49, 0.41, 0.47, 0.55, 0.6]},
        "method": "exact",
    }
    return state


def _crowd_win(games: int) -> dict[str, Any]:
    """Four players: the estimate of this position from ``games`` games (0: still coming)."""
    state = copy.deepcopy(CHOOSE)
    chances = {"Ann": 0.31, "Ben": 0.18, "Cleo": 0.04, "Dmitri": 0.47}
    state["win_chance"] = {
        "players": chances if games else {},
        "current": "Ann",
        "advice": "",
        "history": {"player": "Ann", "chances": []},
        "method": "simulated",
        "games": games,
        "margins": {"Ann": 0.0227, "Ben": 0.0168, "Cleo": 0.0086, "Dmitri": 0.0245}
        if games
        else {},
    }
    return state


def _many_options() -> dict[str, Any]:
    """Ann's first roll, corrected by Cat to 1 1 1 2 5 5: eleven set-asides, more than fit."""
    state = copy.deepcopy(CHOOSE)
    roll = [1, 1, 1, 2, 5, 5]
    options = [
        ([1, 1, 1, 5, 5], 1100),
        ([1, 1, 1, 5], 1050),
        ([1, 1, 1], 1000),
        ([1, 1, 5, 5], 300),
        ([1, 1, 5], 250),
        ([1, 1], 200),
        ([1, 5, 5], 200),
        ([1, 5], 150),
        ([1], 100),
        ([5, 5], 100),
        ([5], 50),
    ]
    state["turn"].update(
        total=0,
        roll=roll,
        set_aside=[],
        best={"dice": [1, 1, 1, 5, 5], "points": 1100},
        options=[{"dice": d, "points": p} for d, p in options],
    )
    state["reading"]["dice"] = [
        dict(d, value=v) for d, v in zip(state["reading"]["dice"], roll, strict=True)
    ]
    state["correction"] = {
        "player": "Ann",
        "dice": roll,
        "read": [1, 2, 3, 5, 5, 5],
        "by": "Cat",
        "entered": False,
    }
    return state


STATES = {
    "many_options": _many_options(),
    "duel": _duel(),
    "crowd_win": _crowd_win(1600),
    "crowd_estimating": _crowd_win(0),
    "ready": _ready(),
    "free_roll": _free_roll(),
    "after_zilch": _after_zilch(),
    "choose": CHOOSE,
    "idle": _idle(),
    "over": _over(),
    "fix_tray": _fix_tray(),
    "crowd": _crowd(),
}
RECORDS = [
    {
        "player": "Dmitri",
        "preset": "dicenow",
        "best_turn": 2450,
        "best_game": 10350,
        "wins": 7,
        "losses": 3,
    },
    {
        "player": "Ann",
        "preset": "dicenow",
        "best_turn": 1900,
        "best_game": 9800,
        "wins": 4,
        "losses": 6,
    },
]


def make_app() -> Flask:
    """The pages' blueprint plus a fake ``/api/state``, ``/api/events`` and ``/api/records``."""
    app = Flask(__name__)
    app.config["ZILCH_TOWER_CONFIG"] = load_config(env={})
    app.register_blueprint(pages.bp)
    current = {"state": copy.deepcopy(CHOOSE)}
    listeners: list[queue.Queue[dict[str, Any]]] = []
    lock = threading.Lock()

    @app.get("/api/state")
    def state() -> Response:
        return jsonify(current["state"])

    @app.get("/api/records")
    def records() -> Response:
        return jsonify({"records": RECORDS})

    def publish(doc: dict[str, Any]) -> Response:
        with lock:
            doc["seq"] = current["state"].get("seq", 0) + 1
            current["state"] = doc
            for q in listeners:
                q.put(doc)
        return jsonify({"seq": doc["seq"]})

    @app.get("/harness/use/<name>")
    def use(name: str) -> Response:
        return publish(copy.deepcopy(STATES[name]))

    @app.get("/harness/announce")
    def announce() -> Response:
        doc = copy.deepcopy(current["state"])
        seq = doc.get("seq", 0) + 1
        doc["announcement"] = {"seq": seq, "text": request.args["text"], "kind": "call"}
        return publish(doc)

    @app.get("/harness/log")
    def add_log() -> Response:
        """Append log entries (``kind``, ``player``, ``text``, JSON ``data``; repeatable)."""
        doc = copy.deepcopy(current["state"])
        seq = doc.get("seq", 0) + 1
        kinds, players = request.args.getlist("kind"), request.args.getlist("player")
        texts, datas = request.args.getlist("text"), request.args.getlist("data")
        for kind, player, text, data in zip(kinds, players, texts, datas, strict=True):
            entry = {"seq": seq, "kind": kind, "player": player, "text": text}
            doc["log"].append({**entry, "data": json.loads(data)})
        return publish(doc)

    @app.get("/api/events")
    def events() -> Response:
        q: queue.Queue[dict[str, Any]] = queue.Queue()
        with lock:
            listeners.append(q)
            q.put(current["state"])

        def stream() -> Iterator[str]:
            try:
                while True:
                    try:
                        doc = q.get(timeout=15)
                    except queue.Empty:
                        yield ": keepalive\n\n"
                        continue
                    yield f"event: state\nid: {doc['seq']}\ndata: {json.dumps(doc)}\n\n"
            finally:
                with lock:
                    listeners.remove(q)

        return Response(stream(), mimetype="text/event-stream")

    return app


if __name__ == "__main__":
    from waitress import serve

    serve(make_app(), host="127.0.0.1", port=int(sys.argv[1]) if len(sys.argv) > 1 else 8765)
