"""Configuration: defaults, validation with a clear message, overrides."""

from pathlib import Path

import pytest

from server.config import SCHEMA, load_config, validate
from server.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_run_the_simulated_tower(tmp_path: Path) -> None:
    config = load_config(env={})
    assert config["tower"]["mode"] == "sim"
    assert config["camera"]["source"] == "sim"
    assert config["table"]["preset"] == "dicenow"


def test_file_values_and_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "tower.toml"
    path.write_text('[table]\npreset = "club"\nplayers = ["Ann", "Ben"]\n[server]\nport = 9000\n')
    config = load_config(path, env={})
    assert config["table"]["preset"] == "club"
    assert config["server"]["port"] == 9000
    assert config.state_dir == tmp_path / "zilch-state"
    again = tmp_path / "again.toml"
    again.write_text(config.to_toml())
    assert dict(load_config(again, env={})) == dict(config)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[server]\nport = 0\n", "server.port = 0 is invalid: expected an integer from 1 to 65535"),
        (
            '[tower]\nmode = "laser"\n',
            "tower.mode = \"laser\" is invalid: expected one of 'sim', 'gpio'",
        ),
        ("[tower]\nmood = 1\n", "unknown config key tower.mood; [tower] allows mode"),
        ("[towr]\n", "unknown config section [towr]"),
        ('[table]\npin = "12"\n', "table.pin"),
        ('[host]\nschedule = ["Someday 15:30"]\n', "Day HH:MM"),
        ("[pins]\nsolenoid = true\n", "pins.solenoid = true is invalid"),
        ("table = 3\n", "must be a [table] table"),
        ("[server\n", "not valid TOML"),
        ('[table]\npreset = "yahtzee"\n', "table.preset: unknown preset 'yahtzee'; choose one of"),
        ("[table]\nrules = { three_pairs = 999 }\n", "table.rules:"),
        ("[table]\nrules = { sixes = 1 }\n", "unknown house rule 'sixes'; allowed:"),
    ],
)
def test_bad_values_name_key_value_and_allowed(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "tower.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path, env={})
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_environment_overrides(tmp_path: Path) -> None:
    config = load_config(env={"ZILCH_TOWER_PIN": "9753", "ZILCH_TOWER_STATE_DIR": str(tmp_path)})
    assert config["table"]["pin"] == "9753"
    assert config.state_dir == tmp_path
    with pytest.raises(ConfigError, match=r"\$ZILCH_TOWER_PIN"):
        load_config(env={"ZILCH_TOWER_PIN": "x"})


def test_systemd_state_directory(tmp_path: Path) -> None:
    assert load_config(env={"STATE_DIRECTORY": str(tmp_path)}).state_dir == tmp_path


def test_every_key_is_documented() -> None:
    doc = (ROOT / "docs" / "configuration.md").read_text()
    for section, keys in SCHEMA.items():
        assert f"[{section}]" in doc, section
        for key in keys:
            assert f"`{key}`" in doc, f"{section}.{key}"


def test_validate_fills_defaults() -> None:
    values = validate({})
    assert set(values) == set(SCHEMA)


def test_house_rules_apply(tmp_path: Path) -> None:
    path = tmp_path / "tower.toml"
    path.write_text('[table]\npreset = "greedy"\nrules = { three_pairs = 750 }\n')
    rules = load_config(path, env={}).rules
    assert rules.name == "greedy"
    assert rules.house_rules == {"three_pairs": 750}
