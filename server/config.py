"""Configuration: one TOML file, defaults that run the simulated tower.

Every key is declared once in :data:`SCHEMA` with its default, what it allows
and a line of documentation; ``docs/configuration.md`` is checked against it
by the tests. :func:`load_config` reads the file with :mod:`tomllib`, applies
the environment overrides (``ZILCH_TOWER_PIN``, ``ZILCH_TOWER_STATE_DIR``)
and validates everything, raising :class:`~server.errors.ConfigError` with a
message naming the key, the bad value and what is allowed.
"""

from __future__ import annotations

import ipaddress
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server.errors import ConfigError
from server.host import parse_schedule
from server.nesting import CONFIG_NESTING, nesting_depth, too_deep
from zilch import RuleSet, ZilchError, find_preset
from zilch.names import NAME_RULE, name_problem

ENV_CONFIG = "ZILCH_TOWER_CONFIG"
ENV_PIN = "ZILCH_TOWER_PIN"
ENV_STATE_DIR = "ZILCH_TOWER_STATE_DIR"

Check = Callable[[Any], str | None]
"""A check returns ``None`` for a good value, else what is allowed."""


@dataclass(frozen=True)
class Key:
    """One configuration key: its default, its check and what it is for."""

    default: Any
    check: Check
    doc: str


def _int_range(lo: int, hi: int) -> Check:
    def check(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            return f"an integer from {lo} to {hi}"
        return None

    return check


def _number_range(lo: float, hi: float) -> Check:
    def check(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
            return f"a number from {lo:g} to {hi:g}"
        return None

    return check


def _one_of(*choices: str) -> Check:
    def check(value: Any) -> str | None:
        if value not in choices:
            return "one of " + ", ".join(repr(c) for c in choices)
        return None

    return check


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else "true or false"


def _text(value: Any) -> str | None:
    return None if isinstance(value, str) else "a string"


def _pin_code(value: Any) -> str | None:
    if isinstance(value, str) and re.fullmatch(r"\d{4,8}", value):
        return None
    return 'a string of 4 to 8 digits, such as "2468"'


def _optional_gpio(value: Any) -> str | None:
    if value == -1:
        return None
    return _int_range(0, 27)(value)


def _names(value: Any) -> str | None:
    if not isinstance(value, list):
        return f"a list of player names, each {NAME_RULE}"
    for name in value:
        problem = name_problem(name)
        if problem is not None:
            return f"a list of player names, each {NAME_RULE} ({problem})"
    return None


def _hostnames(value: Any) -> str | None:
    allowed = 'a list of names this tower is reached by, such as ["zilch.lan"]'
    if not isinstance(value, list) or len(value) > 32:
        return allowed
    for name in value:
        if not isinstance(name, str) or not re.fullmatch(
            r"[A-Za-z0-9]([A-Za-z0-9.-]{0,252})", name
        ):
            return allowed
    return None


def _addresses(value: Any) -> str | None:
    allowed = 'a list of IP addresses, such as ["192.168.1.40"]'
    if not isinstance(value, list) or len(value) > 32:
        return allowed
    for entry in value:
        try:
            ipaddress.ip_address(entry)
        except (TypeError, ValueError):
            return allowed
    return None


def _schedule(value: Any) -> str | None:
    allowed = 'a list of "Day HH:MM" entries, such as ["Mon 15:30", "Wed 09:30"]'
    if not isinstance(value, list):
        return allowed
    try:
        parse_schedule(value)
    except ValueError:
        return allowed
    return None


def _house_rules(value: Any) -> str | None:
    if isinstance(value, dict) and all(
        isinstance(v, str | int | bool) and not isinstance(v, float) for v in value.values()
    ):
        return None
    return 'a table of house rules, such as { three_pairs = 750, free_roll = "optional" }'


SCHEMA: dict[str, dict[str, Key]] = {
    "table": {
        "preset": Key(
            "dicenow", _text, "rule preset played by default (see `zilch-tower play --help`)"
        ),
        "rules": Key({}, _house_rules, "house rules applied on top of the preset"),
        "players": Key([], _names, "names offered on the phone page's join list"),
        "pin": Key("2468", _pin_code, "table PIN that phones send to change the table"),
        "admin_pin": Key("13579", _pin_code, "PIN for the calibration page and configuration"),
        "speech": Key(True, _boolean, "the TV browser speaks announcements"),
    },
    "server": {
        "host": Key("0.0.0.0", _text, "address the web service listens on"),
        "port": Key(8080, _int_range(1, 65535), "TCP port of the web service"),
        "max_request_bytes": Key(
            16384, _int_range(1024, 10_485_760), "largest request body accepted"
        ),
        "threads": Key(
            16, _int_range(8, 256), "worker threads for requests (live pages hold none)"
        ),
        "live_pages": Key(
            512, _int_range(1, 4096), "live TV and phone pages at once; the next one gets 503"
        ),
        "hostnames": Key(
            [], _hostnames, "names besides this machine's own that the tower answers to"
        ),
        "kiosk_addresses": Key(
            [], _addresses, "addresses of TV browsers besides the tower's own that show the PIN"
        ),
    },
    "tower": {
        "mode": Key(
            "sim", _one_of("sim", "gpio"), "`sim` renders dice; `gpio` drives the real tower"
        ),
        "seed": Key(-1, _int_range(-1, 2**31 - 1), "simulator seed; -1 picks one at start"),
        "settle_timeout_s": Key(
            3.0, _number_range(0.2, 30), "longest wait for the dice to stop after a shake"
        ),
        "reshakes": Key(
            3, _int_range(0, 10), "shakes after an unsure reading before asking a person"
        ),
    },
    "pins": {
        "solenoid": Key(17, _int_range(0, 27), "BCM pin driving the solenoid's MOSFET gate"),
        "roll_button": Key(23, _int_range(0, 27), "BCM pin of the ROLL button (to ground)"),
        "bank_button": Key(24, _int_range(0, 27), "BCM pin of the BANK button (to ground)"),
        "light": Key(25, _int_range(0, 27), "BCM pin of the status LED"),
        "buzzer": Key(-1, _optional_gpio, "BCM pin of an optional buzzer; -1 for none"),
    },
    "solenoid": {
        "pulse_ms": Key(60, _int_range(1, 1000), "length of one solenoid pulse"),
        "gap_ms": Key(180, _int_range(1, 5000), "pause between pulses"),
        "pulses": Key(4, _int_range(1, 20), "pulses in one shake"),
    },
    "buttons": {
        "bounce_ms": Key(30, _int_range(1, 500), "debounce time of both buttons"),
        "long_press_s": Key(2.0, _number_range(0.5, 10), "hold time that counts as a long press"),
        "long_press_action": Key(
            "new_game", _one_of("none", "new_game", "skip_turn"), "what a long press on BANK does"
        ),
    },
    "camera": {
        "source": Key(
            "sim",
            _one_of("sim", "picamera2", "usb", "files"),
            "`sim` (rendered), `picamera2` (Pi camera), `usb` (OpenCV capture), `files`",
        ),
        "device": Key(0, _int_range(0, 63), "USB camera index for `usb`"),
        "path": Key("", _text, "image file or folder for `files`"),
        "width": Key(640, _int_range(160, 4096), "frame width in pixels"),
        "height": Key(480, _int_range(120, 3072), "frame height in pixels"),
        "lens_height_mm": Key(
            262,
            _number_range(50, 2000),
            "lens height above the tray floor; the Pi camera focuses on the dice from it",
        ),
        "calibration": Key(
            "", _text, "calibration file; empty for calibration.json in the state dir"
        ),
    },
    "host": {
        "call_timeout_s": Key(
            30, _int_range(5, 600), "seconds before the host calls a player again"
        ),
        "schedule": Key(
            [],
            _schedule,
            'game times for the idle screen, such as ["Mon 15:30"]; none by default',
        ),
    },
    "state": {
        "dir": Key("", _text, "state directory; empty for the default (see docs)"),
    },
}


class Config(Mapping[str, Mapping[str, Any]]):
    """The effective configuration: ``config["table"]["preset"]``.

    Read-only. ``source`` is the file it came from (``None`` for defaults
    only) and ``state_dir`` the resolved state directory.
    """

    def __init__(self, values: dict[str, dict[str, Any]], source: Path | None, state_dir: Path):
        self._values = values
        self.source = source
        self.state_dir = state_dir

    def __getitem__(self, section: str) -> Mapping[str, Any]:
        return self._values[section]

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    @property
    def rules(self) -> RuleSet:
        """The table's rule set: the preset with the house rules applied."""
        return table_rules(self._values)

    @property
    def calibration_path(self) -> Path:
        path = self["camera"]["calibration"]
        return Path(path) if path else self.state_dir / "calibration.json"

    def to_toml(self) -> str:
        """The effective configuration as TOML that :func:`load_config` reads back."""
        lines = []
        if self.source:
            lines.append(f"# from {self.source}")
        lines.append(f"# state directory: {self.state_dir}")
        for section, keys in self._values.items():
            lines.append(f"\n[{section}]")
            for key, value in keys.items():
                lines.append(f"{key} = {_toml_value(value)}")
        return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    return repr(value)


def load_config(
    path: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> Config:
    """Read, override and validate the configuration.

    ``path`` falls back to ``$ZILCH_TOWER_CONFIG``; with neither, the defaults
    alone are used. Raises :class:`ConfigError` naming the first bad key.
    """
    env = os.environ if env is None else env
    if path is None and env.get(ENV_CONFIG):
        path = env[ENV_CONFIG]
    source = Path(path) if path is not None else None
    raw: dict[str, Any] = {}
    if source is not None:
        try:
            raw = tomllib.loads(source.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"config file {source} does not exist") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read config file {source}: {exc}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {source} is not valid TOML: {exc}") from None
        except RecursionError:
            raise ConfigError(too_deep(f"config file {source}", CONFIG_NESTING)) from None
        if nesting_depth(raw) > CONFIG_NESTING:
            raise ConfigError(too_deep(f"config file {source}", CONFIG_NESTING))
    values = validate(raw)
    table_rules(values)
    if ENV_PIN in env:
        values["table"]["pin"] = _checked("table", "pin", env[ENV_PIN], f"${ENV_PIN}")
    if env.get(ENV_STATE_DIR):
        values["state"]["dir"] = env[ENV_STATE_DIR]
    return Config(values, source, _state_dir(values, source, env))


def table_rules(values: Mapping[str, Mapping[str, Any]]) -> RuleSet:
    """The rule set that ``[table] preset`` and ``[table] rules`` name, checked by the engine."""
    try:
        rules = find_preset(values["table"]["preset"])
    except ZilchError as exc:
        raise ConfigError(f"config key table.preset: {exc}") from None
    try:
        return rules.with_house_rules(values["table"]["rules"])
    except ZilchError as exc:
        raise ConfigError(f"config key table.rules: {exc}") from None


def validate(raw: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Check a parsed TOML document against :data:`SCHEMA`; fill in defaults."""
    for section, table in raw.items():
        if section not in SCHEMA:
            raise ConfigError(
                f"unknown config section [{section}]; sections are " + ", ".join(SCHEMA)
            )
        if not isinstance(table, dict):
            raise ConfigError(f"config key {section} must be a [{section}] table")
        for key in table:
            if key not in SCHEMA[section]:
                raise ConfigError(
                    f"unknown config key {section}.{key}; [{section}] allows "
                    + ", ".join(SCHEMA[section])
                )
    values: dict[str, dict[str, Any]] = {}
    for section, keys in SCHEMA.items():
        given = raw.get(section, {})
        values[section] = {}
        for key, spec in keys.items():
            if key in given:
                values[section][key] = _checked(section, key, given[key])
            else:
                values[section][key] = _copy(spec.default)
    return values


def _checked(section: str, key: str, value: Any, where: str | None = None) -> Any:
    allowed = SCHEMA[section][key].check(value)
    if allowed is not None:
        name = where or f"{section}.{key}"
        raise ConfigError(
            f"config key {name} = {_toml_value(value)} is invalid: expected {allowed}"
        )
    return value


def _copy(value: Any) -> Any:
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    return value


def _state_dir(
    values: dict[str, dict[str, Any]], source: Path | None, env: Mapping[str, str]
) -> Path:
    if values["state"]["dir"]:
        return Path(values["state"]["dir"])
    if env.get("STATE_DIRECTORY"):  # set by systemd's StateDirectory=
        return Path(env["STATE_DIRECTORY"].split(":")[0])
    base = source.parent if source is not None else Path.cwd()
    return base / "zilch-state"
