"""The web pages: the TV display (``/``), the phone control (``/play``) and calibration.

The pages are static shells; their scripts draw the table from ``/api/state``
and keep it live through ``/api/events``. What the server adds is what a
browser cannot know by itself: the address phones should open (as a QR code
rendered here, never fetched), the table PIN shown on a TV in the room (never
to a browser elsewhere on the network), and whether the TV speaks.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import segno
from flask import Blueprint, Response, current_app, jsonify, render_template, request
from markupsafe import Markup

from server.net import lan_address
from server.security import sees_pin

if TYPE_CHECKING:
    from zilch import RuleSet

bp = Blueprint(
    "pages",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/assets",
)


def table_settings() -> Mapping[str, Any]:
    """The ``[table]`` section of the configuration the app was made with."""
    service = current_app.extensions.get("zilch_tower")
    config = service.config if service is not None else current_app.config["ZILCH_TOWER_CONFIG"]
    table: Mapping[str, Any] = config["table"]
    return table


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def phone_base_url(host_url: str) -> str:
    """The base URL a phone in the room can reach.

    The TV usually runs on the tower itself and opens ``localhost``, which a
    phone cannot use, so a loopback host is replaced by the LAN address.
    """
    parts = urlsplit(host_url)
    host = parts.hostname or "localhost"
    if _is_loopback(host):
        address = lan_address()  # the same address `zilch-tower serve` prints
        if address is not None:
            port = f":{parts.port}" if parts.port else ""
            return f"{parts.scheme}://{address}{port}/"
    return host_url if host_url.endswith("/") else host_url + "/"


def qr_svg(url: str) -> Markup:
    """An inline, freely scalable SVG QR code for ``url``."""
    code = segno.make(url, error="m")
    svg = code.svg_inline(scale=1, border=2, dark="#000", light="#fff", omitsize=True)
    return Markup(svg.replace("<svg ", '<svg role="img" aria-label="QR code" ', 1))


def room_sees_pin() -> bool:
    """Whether this request comes from a TV in the room (the tower itself, or a kiosk)."""
    service = current_app.extensions.get("zilch_tower")
    config = service.config if service is not None else current_app.config["ZILCH_TOWER_CONFIG"]
    return sees_pin(request.remote_addr, config["server"]["kiosk_addresses"])


@bp.get("/")
def tv() -> str:
    """The 10-foot TV display; the PIN (text and QR link) only on a TV in the room."""
    table = table_settings()
    play_url = phone_base_url(request.host_url) + "play"
    pin = str(table["pin"]) if room_sees_pin() else None
    return render_template(
        "tv.html",
        play_url=play_url,
        rules_url=phone_base_url(request.host_url) + "rules",
        qr=qr_svg(f"{play_url}#pin={pin}" if pin else play_url),
        pin=pin,
        speech=bool(table["speech"]),
    )


def preset_names() -> list[str]:
    """Every rule preset the engine ships, for the new-game form."""
    from zilch import PRESETS

    return list(PRESETS)


def preset_titles() -> dict[str, str]:
    """Each preset in a line for the new-game form: its name in words and its target."""
    from zilch import PRESETS

    titles = {}
    for name, rules in PRESETS.items():
        first = rules.doc.strip().splitlines()[0].rstrip(".")
        first = re.sub(r"\s*\(source [^)]*\)", "", first)  # the sources are for the docs
        first = re.sub(r"\s[\d,]+(?: / [\d,]+)+", "", first)  # one line for several targets
        titles[name] = f"{first}, to {rules.target:,}"
    return titles


def rules_in_force() -> RuleSet:
    """The rules of the game on the table, or the configured ones when no game runs."""
    from zilch import find_preset

    service = current_app.extensions.get("zilch_tower")
    doc = service.state() if service is not None else {}
    if doc.get("preset"):
        return find_preset(str(doc["preset"])).with_house_rules(doc.get("house_rules") or {})
    config = service.config if service is not None else current_app.config["ZILCH_TOWER_CONFIG"]
    return config.rules  # type: ignore[no-any-return]


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def rule_lines(rules: RuleSet) -> list[tuple[str, str]]:
    """The rules a table argues about, in words: (what, how much)."""
    multiples = {
        "none": "count as the triple plus any 1s and 5s",
        "doubling": "each die beyond three doubles the triple",
        "additive": "the triple times (dice - 2)",
        "flat": "flat " + " / ".join(f"{v:,}" for v in rules.flat_values),
    }
    lines = [
        ("Target", f"{rules.target:,}"),
        ("Single 1 / single 5", "100 / 50"),
        ("Three 1s", f"{rules.three_ones:,}; other triples face x 100"),
        ("Four, five, six of a kind", multiples[rules.multiples]),
        ("Straight 1-6", f"{rules.straight:,}"),
        ("Three pairs", f"{rules.three_pairs:,}" if rules.three_pairs else "not a combination"),
        ("Two triplets", f"{rules.two_triplets:,}" if rules.two_triplets else "two triples"),
        (
            "Nothing at all (six dice)",
            f"{rules.nothing_bonus:,}" if rules.nothing_bonus else "a zilch",
        ),
        (
            "To get on board",
            f"a bank of {rules.entry_minimum:,}"
            + (" whenever the score is zero" if rules.entry_rule == "while_zero" else ""),
        ),
        ("Every later bank", f"at least {rules.bank_minimum:,}" if rules.bank_minimum else "any"),
        ("Hot dice (all six scored)", f"the free roll is {rules.free_roll}"),
        (
            "Zilch penalty",
            f"{rules.zilch_penalty:,} at {rules.penalty_streak} zilches in a row, "
            f"then the streak {'resets' if rules.after_penalty == 'reset' else 'keeps counting'}"
            if rules.zilch_penalty
            else "none",
        ),
        ("Scores below zero", _yes(rules.score_floor == "none")),
        ("Forgiveness", f"{rules.forgiveness} per game" if rules.forgiveness else "none"),
        ("Pyramiding", _yes(rules.pyramiding)),
        ("Challenging", _yes(rules.challenging)),
        ("Surpassing", _yes(rules.surpassing)),
        ("Players", f"up to {rules.players_max}, {rules.order} order"),
        (
            "Late joiners",
            f"until the end of round {rules.join_rounds}"
            if rules.join_rounds
            else "before the first roll",
        ),
        (
            "The end",
            {
                "final_round": "a final round, decided when scores are announced",
                "final_turn": "everyone else takes one final turn",
                "instant": "the first bank that reaches the target wins at once",
            }[rules.ending],
        ),
    ]
    return lines


@bp.get("/api/rules")
def rules_json() -> Response:
    """The rules in force as JSON: ``{"preset", "house_rules", "fields": {...}}``."""
    return jsonify(rules_in_force().to_dict())


@bp.get("/rules")
def rules_page() -> str:
    """The rules in force (preset and house rules) and every preset's rules, in words."""
    from zilch import PRESETS

    current = rules_in_force()
    presets = [
        {
            "name": name,
            "title": preset_titles()[name],
            "text": " ".join(rules.doc.strip().splitlines()[1:]).strip(),
            "lines": rule_lines(rules),
        }
        for name, rules in PRESETS.items()
    ]
    return render_template(
        "rules.html",
        current=current,
        current_lines=rule_lines(current),
        house=current.house_rules,
        presets=presets,
    )


def bot_names() -> list[str]:
    """Every computer player the strategy package offers."""
    from zilch.strategy import BOTS

    return list(BOTS)


@bp.get("/play")
def play() -> str:
    """The phone control: join, ROLL, BANK, set-asides, new game."""
    table = table_settings()
    return render_template(
        "play.html",
        names=[str(n) for n in table["players"]],
        preset=str(table["preset"]),
        presets=preset_names(),
        preset_titles=preset_titles(),
        bots=bot_names(),
    )


@bp.get("/calibrate")
def calibrate() -> str:
    """The camera calibration page; every step it takes asks for the admin PIN."""
    return render_template("calibrate.html")
