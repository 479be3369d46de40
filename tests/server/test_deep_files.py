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


def test_a_calibration_with_a_huge_background_names_the_limit(tmp_path: Path) -> None:
    import base64
    import json
    import struct
    import zlib

    from vision.calibration import CalibrationError, load_calibration

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 65535, 65535, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")
    path = tmp_path / "calibration.json"
    document = {
        "version": 1,
        "frame_size": [640, 480],
        "tray": [[0, 0], [640, 0], [640, 480]],
        "background_png": base64.b64encode(png).decode(),
        "die_side": 40.0,
        "pip_contrast": 1.0,
    }
    path.write_text(json.dumps(document))
    with pytest.raises(CalibrationError, match=f"{path}.*65535 x 65535.*limit is 50 MP"):
        load_calibration(path)
    document["frame_size"] = [100000, 100000]
    path.write_text(json.dumps(document))
    with pytest.raises(CalibrationError, match="frame_size is 100000 x 100000"):
        load_calibration(path)
