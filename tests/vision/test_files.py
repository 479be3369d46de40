"""State files are replaced at once: a kill in the middle of a write leaves the old file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vision.files import write_atomically

ROOT = Path(__file__).resolve().parents[2]

# A child that saves a calibration over an existing one and stops for good
# in the middle of writing (its fsync blocks); the parent then kills it -9.
CHILD = textwrap.dedent(
    """
    import os, sys, time
    from vision.calibration import load_calibration
    cal = load_calibration(sys.argv[1])
    real_fsync = os.fsync
    def stuck(fd):
        print("writing", flush=True)
        time.sleep(60)
    os.fsync = stuck
    cal.save(sys.argv[1])
    """
)


def _calibration(tmp_path: Path) -> Path:
    from vision import calibrate
    from vision.render import random_tray, render_tray

    empty, _ = render_tray([], seed=0, style="tower", frame=1)
    dice, _ = render_tray(random_tray(50), seed=0, style="tower", frame=2)
    cal, _ = calibrate(empty, dice)
    path = tmp_path / "calibration.json"
    cal.save(path)
    return path


def test_a_kill_while_saving_a_calibration_leaves_the_old_one(tmp_path: Path) -> None:
    from vision.calibration import load_calibration

    path = _calibration(tmp_path)
    before = path.read_bytes()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "writing"
    os.kill(child.pid, signal.SIGKILL)
    child.wait(10)
    child.stdout.close()
    assert path.read_bytes() == before
    load_calibration(path)
    # The temporary file of the killed write is all that is left over, and hidden.
    left = [p.name for p in tmp_path.iterdir() if p != path]
    assert len(left) == 1 and left[0].startswith(".calibration.json.")


def test_a_failed_write_leaves_the_file_and_no_temporary(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "profile.json"
    path.write_text("old\n")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="No space"):
        write_atomically(path, "new\n")
    assert path.read_text() == "old\n"
    assert list(tmp_path.iterdir()) == [path]


def test_text_and_bytes(tmp_path: Path) -> None:
    write_atomically(tmp_path / "a.json", "é\n")
    write_atomically(tmp_path / "b.npz", b"\x00\x01")
    assert (tmp_path / "a.json").read_text(encoding="utf-8") == "é\n"
    assert (tmp_path / "b.npz").read_bytes() == b"\x00\x01"
