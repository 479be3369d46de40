"""The web pages: the TV display (``/``), the phone control (``/play``) and calibration.

The pages are static shells; their scripts draw the table from ``/api/state``
and keep it live through ``/api/events``. What the server adds is what a
browser cannot know by itself: the address phones should open (as a QR code
rendered here, never fetched), the table PIN shown on a TV in the room (never
to a browser elsewhere on the network), and whether the TV speaks.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import segno
from flask import Blueprint, current_app, render_template, request
from markupsafe import Markup

from server.commands.service import lan_address
from server.security import sees_pin

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
        qr=qr_svg(f"{play_url}#pin={pin}" if pin else play_url),
        pin=pin,
        speech=bool(table["speech"]),
    )


def preset_names() -> list[str]:
    """Every rule preset the engine ships, for the new-game form."""
    from zilch import PRESETS

    return list(PRESETS)


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
        bots=bot_names(),
    )


@bp.get("/calibrate")
def calibrate() -> str:
    """The camera calibration page; every step it takes asks for the admin PIN."""
    return render_template("calibrate.html")
