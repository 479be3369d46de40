"""The systemd units are valid and keep the promises the service relies on."""

import http.server
import os
import shutil
import socket
import subprocess
import threading
from pathlib import Path

import pytest

SYSTEMD = Path(__file__).resolve().parents[2] / "systemd"
UNITS = ["zilch-tower.service", "zilch-tower-kiosk.service"]


def _unit(name: str) -> dict[str, list[str]]:
    """Each key of the unit's [Service] section with all its values."""
    values: dict[str, list[str]] = {}
    section = ""
    for raw in (SYSTEMD / name).read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Service]":
            key, _, value = line.partition("=")
            values.setdefault(key, []).append(value)
    return values


def test_service_is_notify_with_watchdog_and_restart() -> None:
    unit = _unit("zilch-tower.service")
    assert unit["Type"] == ["notify"]
    assert int(unit["WatchdogSec"][0]) > 0
    assert unit["Restart"] == ["on-failure"]
    assert unit["User"] == ["zilch"]
    assert set(unit["SupplementaryGroups"][0].split()) == {"gpio", "video"}
    assert unit["StateDirectory"] == ["zilch-tower"]
    assert unit["WorkingDirectory"] == ["/var/lib/zilch-tower"]


def test_service_hardening_keeps_the_tower_devices() -> None:
    unit = _unit("zilch-tower.service")
    assert "PrivateDevices" not in unit  # it would hide the GPIO and camera nodes
    assert unit["DevicePolicy"] == ["closed"]
    allowed = {value.split()[0] for value in unit["DeviceAllow"]}
    assert allowed == {"char-gpiochip", "char-video4linux", "char-media", "char-dma_heap"}
    assert unit["ProtectSystem"] == ["strict"]
    assert unit["NoNewPrivileges"] == ["yes"]


def test_every_hardening_option_is_explained() -> None:
    lines = (SYSTEMD / "zilch-tower.service").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if "Hardening" in line)
    end = next(i for i, line in enumerate(lines) if line.startswith("[Install]"))
    block = [line for line in lines[start + 1 : end] if line.strip()]
    assert block[0].startswith("#")
    # Options come in small groups, each right after the comment saying why.
    group = 0
    for line in block:
        group = 0 if line.startswith("#") else group + 1
        assert group <= 4, f"{line!r} follows too many options without an explanation"


def test_kiosk_restarts_and_points_at_the_local_display() -> None:
    unit = _unit("zilch-tower-kiosk.service")
    assert unit["Restart"] == ["always"]
    assert "--kiosk" in unit["ExecStart"][0]
    assert unit["ExecStart"][0].endswith("http://127.0.0.1:8080/")


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is absent")
def test_systemd_analyze_verify(tmp_path: Path) -> None:
    # The units name programs installed on the Pi; point them at programs
    # present here so that verify checks everything else.
    true = shutil.which("true") or "/bin/true"
    for name in UNITS:
        text = (SYSTEMD / name).read_text()
        for program in (
            "/opt/zilch-tower/.venv/bin/zilch-tower",
            "/opt/zilch-tower/systemd/kiosk-wait",
            "/usr/bin/cage",
        ):
            text = text.replace(program, true)
        (tmp_path / name).write_text(text)
    result = subprocess.run(
        ["systemd-analyze", "verify", *(str(tmp_path / n) for n in UNITS)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    complaints = [line for line in result.stderr.splitlines() if str(tmp_path) in line]
    assert not complaints, "\n".join(complaints)


def test_install_script_parses() -> None:
    result = subprocess.run(["bash", "-n", str(SYSTEMD / "install.sh")], check=False)
    assert result.returncode == 0


def _serve_once() -> tuple[http.server.HTTPServer, str]:
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.handle_request, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def test_kiosk_wait_returns_once_the_service_answers() -> None:
    server, url = _serve_once()
    with server:
        result = subprocess.run(
            ["sh", str(SYSTEMD / "kiosk-wait"), url],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            env={**os.environ, "KIOSK_WAIT_SECONDS": "20"},
        )
    assert result.returncode == 0
    assert result.stderr == ""


def test_kiosk_wait_gives_up_without_failing_the_unit() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/"  # bound, never listening
        result = subprocess.run(
            ["sh", str(SYSTEMD / "kiosk-wait"), url],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            env={**os.environ, "KIOSK_WAIT_SECONDS": "1"},
        )
    assert result.returncode == 0
    assert "did not answer in 1 s" in result.stderr
