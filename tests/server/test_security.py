"""Host check, page headers and who sees the PIN (issue 19 item 3)."""

from __future__ import annotations

import pytest

from server.security import SECURITY_HEADERS, HostCheck, host_name, sees_pin
from tests.server.conftest import make_config

PAGES = ["/", "/play", "/calibrate", "/history", "/api/state", "/assets/tv.js", "/nowhere"]


@pytest.mark.parametrize("path", PAGES)
def test_every_answer_carries_the_security_headers(client, path: str) -> None:
    with client.get(path) as response:
        headers = response.headers
    for name, value in SECURITY_HEADERS.items():
        assert headers.get(name) == value, (path, name)
    csp = headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "'unsafe-inline'" not in csp
    assert headers["X-Frame-Options"] == "DENY"


def test_pages_hold_no_inline_script_or_style(client) -> None:
    for path in ("/", "/play", "/calibrate", "/history"):
        html = client.get(path).get_data(as_text=True)
        assert "<style" not in html and " style=" not in html, path
        for tag in html.split("<script")[1:]:
            assert tag.lstrip().startswith("src="), (path, tag[:60])
        assert " onclick=" not in html and "javascript:" not in html, path


@pytest.mark.parametrize(
    "host",
    ["evil.example", "evil.example:8080", "rebind.attacker.net.", "8.8.8.8", "[2001:db8::1]"],
)
def test_a_foreign_host_is_refused(client, host: str) -> None:
    for path in ("/", "/api/state", "/play"):
        response = client.get(path, headers={"Host": host})
        assert response.status_code == 421, (host, path)
        assert "PIN" not in response.get_data(as_text=True)
    response = client.get("/api/state", headers={"Host": host})
    assert "does not answer to the name" in response.get_json()["error"]


@pytest.mark.parametrize("host", ["localhost", "localhost:8080", "127.0.0.1:8080", "[::1]:8080"])
def test_loopback_hosts_are_served(client, host: str) -> None:
    assert client.get("/api/state", headers={"Host": host}).status_code == 200


def test_hosts_by_name_and_address() -> None:
    local = {"192.168.1.20", "fe80::1"}
    check = HostCheck(
        ["Zilch.lan"],
        names=lambda: {"localhost", "tower", "tower.local"},
        is_local=local.__contains__,
    )
    for host in ("zilch.lan", "ZILCH.LAN:80", "tower", "tower.local:8080", "192.168.1.20:8080"):
        assert check.allows(host), host
    for host in ("192.168.1.21", "tower.evil.example", "", None, "zilch.lan.evil.example"):
        assert not check.allows(host), host
    assert host_name("[fe80::1]:8080") == "fe80::1" and check.allows("[fe80::1]:8080")


def test_an_address_of_this_machine_is_recognised() -> None:
    from server.commands.service import lan_address

    check = HostCheck()
    address = lan_address()
    if address is not None:
        assert check.allows(f"{address}:8080")
    assert not check.allows("203.0.113.9")  # TEST-NET-3: never this machine's


def test_the_pin_is_shown_only_in_the_room(service) -> None:
    from server.app import create_app

    client = create_app(service.config, service).test_client()
    pin = str(service.config["table"]["pin"])
    lan = {"REMOTE_ADDR": "192.168.1.50"}
    html = client.get("/", environ_base=lan).get_data(as_text=True)
    assert pin not in html and "#pin=" not in html and "Ask at the table for the PIN" in html
    qr_free = client.get("/", environ_base=lan).get_data(as_text=True)
    room = client.get("/").get_data(as_text=True)  # the test client is on loopback
    assert f'PIN <span class="pin">{pin}</span>' in room
    assert room.count("<svg") == qr_free.count("<svg") == 2
    # The QR code differs: in the room it carries the PIN in its link.
    assert room.split("<svg", 1)[1] != qr_free.split("<svg", 1)[1]


def test_a_kiosk_address_sees_the_pin(tmp_path) -> None:
    from server.app import create_app
    from server.service import TableService
    from tests.server.conftest import FAST, QUICK_SHAKE

    config = make_config(tmp_path, QUICK_SHAKE + '[server]\nkiosk_addresses = ["192.168.1.60"]\n')
    with TableService(config, sim=True, seed=1, timing=FAST, sim_settle_s=0) as table:
        client = create_app(config, table).test_client()
        kiosk = client.get("/", environ_base={"REMOTE_ADDR": "192.168.1.60"})
        other = client.get("/", environ_base={"REMOTE_ADDR": "192.168.1.61"})
        assert "PIN <span" in kiosk.get_data(as_text=True)
        assert "PIN <span" not in other.get_data(as_text=True)


def test_sees_pin() -> None:
    assert sees_pin("127.0.0.1", []) and sees_pin("::1", []) and sees_pin("::ffff:127.0.0.1", [])
    assert not sees_pin("10.0.0.2", []) and sees_pin("10.0.0.2", ["10.0.0.2"])
    assert not sees_pin(None, []) and not sees_pin("not an address", ["10.0.0.2"])
