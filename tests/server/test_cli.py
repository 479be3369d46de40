"""The command line frame: every contract verb, one-line errors, exit codes."""

import subprocess
import sys

import pytest

from server.cli import build_parser, main

CONTRACT_VERBS = ["score", "odds", "solve", "decide", "replay", "read", "serve", "shake"]
ISSUE_VERBS = ["play", "duel", "calibrate", "vision-bench", "hw-test", "config"]


def test_help_lists_every_verb(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for verb in CONTRACT_VERBS + ISSUE_VERBS:
        assert f"\n    {verb}" in out, verb


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.startswith("zilch-tower ")


@pytest.mark.parametrize(
    "argv",
    [[], ["no-such-verb"], ["score"], ["odds", "--bogus"], ["duel", "--games", "many"]],
)
def test_usage_error_is_one_line_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "error:" in err


def test_bad_config_is_one_line_exit_1(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "tower.toml"
    config.write_text("[server]\nport = 99999\n")
    assert main(["config", "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "server.port = 99999" in err and "1 to 65535" in err


def test_console_script_runs_without_traceback() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "server.cli", "config", "--config", "/nonexistent/tower.toml"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "does not exist" in result.stderr


def test_every_verb_has_a_handler() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, verb_parser in sub.choices.items():
        assert verb_parser.get_default("func") is not None, name
