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


def test_kiosk_restarts_and_points_at_the_local_display(tmp_path: Path) -> None:
    unit = _unit("zilch-tower-kiosk.service")
    assert unit["Restart"] == ["always"]
    assert unit["ExecStart"][0].endswith("http://127.0.0.1:8080/")
    command = _kiosk_dry_run(tmp_path, unit["ExecStart"][0].split()[-1])["command"]
    assert "--kiosk" in command
    assert command[-1] == "http://127.0.0.1:8080/"


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
            "/opt/zilch-tower/systemd/kiosk-start",
            "/opt/zilch-tower/systemd/coil-off",
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


def _kiosk_wait(url: str, seconds: int) -> subprocess.CompletedProcess[str]:
    """``kiosk-wait URL`` allowed ``seconds`` for the service to answer."""
    return subprocess.run(
        ["sh", str(SYSTEMD / "kiosk-wait"), url],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        env={**os.environ, "KIOSK_WAIT_SECONDS": str(seconds)},
    )


def test_kiosk_wait_returns_once_the_service_answers() -> None:
    server, url = _serve_once()
    with server:
        result = _kiosk_wait(url, 20)
    assert result.returncode == 0
    assert result.stderr == ""


def test_kiosk_wait_gives_up_without_failing_the_unit() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/"  # bound, never listening
        result = _kiosk_wait(url, 1)
    assert result.returncode == 0
    assert "did not answer in 1 s" in result.stderr


# --- the kiosk: what it must write is writable under its hardening -----------------------------


def _kiosk_dry_run(tmp_path: Path, url: str = "http://127.0.0.1:8080/", **env: str) -> dict:
    """kiosk-start's environment and command, with a fake browser and the unit's directories."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    for tool in ("mkdir",):
        (bin_dir / tool).symlink_to(shutil.which(tool) or f"/bin/{tool}")
    browser = env.pop("browser", "chromium-browser")
    if browser:
        (bin_dir / browser).write_text("#!/bin/sh\n")
        (bin_dir / browser).chmod(0o755)
    state, runtime = tmp_path / "state", tmp_path / "run"
    state.mkdir(exist_ok=True)
    runtime.mkdir(exist_ok=True)
    base = {"PATH": str(bin_dir), "HOME": "/nonexistent", "KIOSK_DRY_RUN": "1",
            "STATE_DIRECTORY": str(state), "RUNTIME_DIRECTORY": str(runtime)}  # fmt: skip
    result = subprocess.run(
        ["/bin/sh", str(SYSTEMD / "kiosk-start"), url],
        capture_output=True, text=True, check=False, env=base | env,
    )  # fmt: skip
    lines = result.stdout.splitlines()
    values = dict(line.split("=", 1) for line in lines[:2] if "=" in line)
    return {"rc": result.returncode, "stderr": result.stderr, "env": values,
            "command": lines[2:], "state": state, "runtime": runtime}  # fmt: skip


def _writable(unit: dict[str, list[str]], path: str) -> bool:
    """Whether ``path`` is writable for the unit, by systemd.exec's rules for its options.

    ProtectSystem=strict makes the whole tree read-only except /dev, /proc
    and /sys; ProtectHome=read-only (or yes/tmpfs) covers /home, /root and
    /run/user; PrivateTmp= gives a private writable /tmp and /var/tmp;
    StateDirectory=, RuntimeDirectory=, CacheDirectory=, LogsDirectory= and
    ReadWritePaths= are writable again.
    """
    writable = [f"/var/lib/{d}" for v in unit.get("StateDirectory", []) for d in v.split()]
    writable += [f"/run/{d}" for v in unit.get("RuntimeDirectory", []) for d in v.split()]
    writable += [f"/var/cache/{d}" for v in unit.get("CacheDirectory", []) for d in v.split()]
    writable += [f"/var/log/{d}" for v in unit.get("LogsDirectory", []) for d in v.split()]
    writable += [p.lstrip("-") for v in unit.get("ReadWritePaths", []) for p in v.split()]
    if unit.get("PrivateTmp") == ["yes"]:
        writable += ["/tmp", "/var/tmp"]

    def under(root: str) -> bool:
        return path == root or path.startswith(root.rstrip("/") + "/")

    if any(under(root) for root in writable):
        return True
    if unit.get("ProtectHome", ["no"])[0] != "no" and any(
        under(r) for r in ("/home", "/root", "/run/user")
    ):
        return False
    return unit.get("ProtectSystem", ["no"])[0] not in ("strict",) and not under("/usr")


def test_every_path_the_kiosk_writes_is_writable_under_its_hardening(tmp_path: Path) -> None:
    unit = _unit("zilch-tower-kiosk.service")
    env = dict(value.split("=", 1) for value in unit["Environment"])
    home, runtime = env["HOME"], env["XDG_RUNTIME_DIR"]
    run = _kiosk_dry_run(tmp_path)
    assert run["rc"] == 0, run["stderr"]
    # kiosk-start uses the unit's own directories, as systemd passes them.
    assert run["env"] == {"HOME": str(run["state"]), "XDG_RUNTIME_DIR": str(run["runtime"])}
    profile = next(a.split("=", 1)[1] for a in run["command"] if a.startswith("--user-data-dir="))
    assert profile == f"{run['state']}/chromium"
    written = [
        home,  # Chromium's caches and NSS database, ~/.config
        f"{home}/chromium",  # the profile
        f"{home}/.asoundrc",
        f"{home}/.config/speech-dispatcher/speechd.conf",
        runtime,  # cage's wayland-0 socket
        f"{runtime}/speech-dispatcher",  # speech-dispatcher's socket
        "/tmp",
    ]
    for path in written:
        assert _writable(unit, path), f"{path} is read-only for the kiosk"
    assert (run["state"] / ".asoundrc").read_text().count("hdmi:CARD=vc4hdmi0,DEV=0") == 1
    speechd = (run["state"] / ".config/speech-dispatcher/speechd.conf").read_text()
    assert 'AudioOutputMethod "alsa"' in speechd
    # What the old unit got wrong stays wrong: /run/user and other homes are read-only.
    assert not _writable(unit, "/run/user/999/wayland-0")
    assert not _writable(unit, "/var/lib/zilch-kiosk-home")


def test_the_service_can_write_its_state_and_lgpio_pipes() -> None:
    unit = _unit("zilch-tower.service")
    assert _writable(unit, "/var/lib/zilch-tower/zilch.sqlite")
    assert _writable(unit, unit["WorkingDirectory"][0] + "/.lgd-nfy0")
    assert not _writable(unit, "/etc/zilch-tower/tower.toml")


def test_kiosk_start_finds_either_chromium_and_asks_for_wayland(tmp_path: Path) -> None:
    for name in ("chromium", "chromium-browser"):
        run = _kiosk_dry_run(tmp_path / name, browser=name)
        assert run["rc"] == 0, run["stderr"]
        command = run["command"]
        assert command[:3] == ["cage", "-s", "--"]
        assert command[3] == str(tmp_path / name / "bin" / name)
        assert "--ozone-platform=wayland" in command
        assert "--alsa-output-device=hdmi:CARD=vc4hdmi0,DEV=0" in command


def test_kiosk_start_without_a_browser_or_runtime_dir_says_so(tmp_path: Path) -> None:
    run = _kiosk_dry_run(tmp_path / "a", browser="")
    assert run["rc"] == 1 and "neither chromium nor chromium-browser" in run["stderr"]
    run = _kiosk_dry_run(tmp_path / "b", RUNTIME_DIRECTORY="")
    assert run["rc"] == 1 and "no runtime directory" in run["stderr"]


def test_the_kiosk_starts_with_the_console_boot() -> None:
    text = (SYSTEMD / "zilch-tower-kiosk.service").read_text()
    assert "WantedBy=multi-user.target" in text  # do_boot_behaviour B1 boots to multi-user
    install = (SYSTEMD / "install.sh").read_text()
    assert "raspi-config nonint do_boot_behaviour B1" in install
    assert "set-default graphical.target" not in install


# --- the coil after the service stops ------------------------------------------------------------


def test_the_service_drives_the_coil_low_after_any_stop() -> None:
    unit = _unit("zilch-tower.service")
    assert unit["ExecStopPost"] == [
        "+/opt/zilch-tower/systemd/coil-off --config /etc/zilch-tower/tower.toml"
    ]
    assert "Environment" not in unit or not any(
        "GPIOZERO_PIN_FACTORY" in v for v in unit["Environment"]
    )  # the firmware finds the chip by label
    install = (SYSTEMD / "install.sh").read_text()
    assert "dtparam=strict_gpiod" in install


def _coil_off(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    pinctrl = bin_dir / "pinctrl"
    pinctrl.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path}/pinctrl.log\n')
    pinctrl.chmod(0o755)
    python = Path(shutil.which("python3") or "/usr/bin/python3")
    return subprocess.run(
        [str(python), str(SYSTEMD / "coil-off"), *args],
        capture_output=True, text=True, check=False,
        env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"},
    )  # fmt: skip


def test_coil_off_drives_the_configured_pin_low(tmp_path: Path) -> None:
    config = tmp_path / "tower.toml"
    config.write_text('[tower]\nmode = "gpio"\n[pins]\nsolenoid = 22\n')
    result = _coil_off(tmp_path, "--config", str(config))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "pinctrl.log").read_text() == "set 22 op dl\n"
    assert "BCM 22 driven low" in result.stdout


def test_coil_off_falls_back_to_the_default_pin(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text("[pins\n")
    (tmp_path / "odd.toml").write_text('[pins]\nsolenoid = "seventeen"\n')
    for name in ("bad.toml", "odd.toml", "missing.toml"):
        result = _coil_off(tmp_path, "--config", str(tmp_path / name), "--dry-run")
        assert result.stdout == "pinctrl set 17 op dl\n", name
    assert "is not a BCM pin" in _coil_off(tmp_path, "--config", str(tmp_path / "odd.toml")).stderr
