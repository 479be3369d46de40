"""The page routes: QR code, phone address, PIN and form choices, without a browser."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from server import pages
from server.config import load_config


@pytest.fixture
def client() -> Any:
    app = Flask(__name__)
    app.config["ZILCH_TOWER_CONFIG"] = load_config(env={"ZILCH_TOWER_PIN": "8642"})
    app.register_blueprint(pages.bp)
    return app.test_client()


@pytest.mark.parametrize(
    ("host_url", "expected"),
    [
        ("http://192.168.4.20:8080/", "http://192.168.4.20:8080/"),
        ("http://tower.local:8080/", "http://tower.local:8080/"),
        ("https://zilch.example.org/", "https://zilch.example.org/"),
        ("http://127.0.0.1:8080/", "http://10.1.2.3:8080/"),
        ("http://localhost/", "http://10.1.2.3/"),
        ("http://[::1]:9000/", "http://10.1.2.3:9000/"),
    ],
)
def test_phone_url_replaces_a_loopback_host_by_the_lan_address(
    monkeypatch: pytest.MonkeyPatch, host_url: str, expected: str
) -> None:
    monkeypatch.setattr(pages, "lan_address", lambda: "10.1.2.3")
    assert pages.phone_base_url(host_url) == expected


def test_phone_url_keeps_loopback_without_a_lan_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pages, "lan_address", lambda: None)
    assert pages.phone_base_url("http://127.0.0.1:8080/") == "http://127.0.0.1:8080/"


def test_lan_address_is_never_loopback() -> None:
    address = pages.lan_address()
    assert address is None or not address.startswith("127.")


def test_qr_code_is_inline_scalable_svg() -> None:
    svg = str(pages.qr_svg("http://10.0.0.5:8080/play#pin=2468"))
    assert svg.startswith("<svg ") and "viewBox" in svg and 'role="img"' in svg
    assert "width=" not in svg.split(">", 1)[0], "a fixed size would not scale with the TV"


def test_tv_page_shows_the_configured_pin_and_a_qr_code(client: Any) -> None:
    html = client.get("/", base_url="http://192.168.4.20:8080").get_data(as_text=True)
    assert "8642" in html
    assert "http://192.168.4.20:8080/play" in html
    assert html.count('<svg role="img" aria-label="QR code"') == 2
    assert 'data-speech="on"' in html


def test_phone_page_offers_every_preset_and_computer_player(client: Any) -> None:
    from zilch import PRESETS
    from zilch.strategy import BOTS

    html = client.get("/play").get_data(as_text=True)
    for name in list(PRESETS) + list(BOTS):
        assert f'<option value="{name}"' in html
    assert '<option value="dicenow" selected>' in html


def test_pages_use_only_local_assets(client: Any) -> None:
    for path in ("/", "/play", "/calibrate"):
        html = client.get(path).get_data(as_text=True)
        assert not re.search(r"(src|href)=\"(https?:)?//", html), path
        for asset in ("common.css", "common.js"):
            assert f"/assets/{asset}" in html
    with client.get("/assets/tv.js") as response:
        assert response.status_code == 200


def test_a_missing_chromium_skips_except_under_ci(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import tower_pages

    monkeypatch.setattr(tower_pages, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no-chromium is absent"):
        tower_pages.require_chromium()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        tower_pages.require_chromium()


def test_rules_page_and_json_describe_the_rules_in_force() -> None:
    app = Flask(__name__)
    config = load_config(env={})
    app.config["ZILCH_TOWER_CONFIG"] = config
    app.register_blueprint(pages.bp)
    client = app.test_client()
    fields = client.get("/api/rules").get_json()
    assert fields == config.rules.to_dict()
    html = client.get("/rules").get_data(as_text=True)
    assert f"Rules in force: {config.rules.name}" in html
    assert "No house rules" in html
    from zilch import PRESETS

    for name in PRESETS:
        assert f'id="preset-{name}"' in html
    assert "<th>To get on board</th><td>a bank of 300</td>" in html


def test_preset_titles_are_one_line_each() -> None:
    titles = pages.preset_titles()
    assert titles["twinson-10000"] == "Twinson Zilch, to 10,000"
    assert all("source" not in t for t in titles.values())
