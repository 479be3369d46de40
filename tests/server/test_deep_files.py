"""Files nested thousands of levels deep get one line naming the file and the limit, exit 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.cli import main


@pytest.mark.parametrize("depth", [20, 5000])
def test_deep_toml_config(tmp_path: Path, capsys: pytest.CaptureFixture[str], depth: int) -> None:
    config = tmp_path / "tower.toml"
    config.write_text("[table]\nplayers = " + "[" * depth + "]" * depth + "\n")
    assert main(["config", "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert str(config) in err and "deeper than 8 levels" in err
    assert "internal error" not in err


def test_deep_replay_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "game.json"
    record.write_text('{"actions": ' + "[" * 5000 + "]" * 5000 + "}")
    code = main(["replay", str(record), "--json"])
    out, err = capsys.readouterr()
    assert code == 1 and "internal error" not in err + out
    assert "nested too deeply" in out + err


def test_deep_calibration_file(tmp_path: Path) -> None:
    from vision.calibration import CalibrationError, load_calibration

    path = tmp_path / "calibration.json"
    path.write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(CalibrationError, match=f"{path}.*too deeply"):
        load_calibration(path)
