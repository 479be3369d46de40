"""Writing the files the tower keeps (calibration, dice profile, teaching examples) safely.

A file the service reads at start must never be left half written: a power
cut or a kill in the middle of writing ``calibration.json`` in place leaves a
0-byte file and the tower silently falls back to reading without it.
:func:`write_atomically` is the one way these files are written: the data
goes to a temporary file in the same folder, is flushed and fsynced, renamed
over the old file (atomic on POSIX), and the folder is fsynced so the rename
itself survives a power cut. A reader sees the old file or the new one,
never a mix.

Every writer of a state file uses it: ``Calibration.save``, the dice
profile and its teaching examples (``vision.profile``), and the server's
solver cache. It lives in ``vision`` (which imports nothing of the other
packages) so that both ``vision`` and ``server`` can use it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["write_atomically"]


def write_atomically(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8) all at once, durably.

    Raises ``OSError`` (disk full, read-only folder, ...) with ``path`` left as
    it was and no temporary file left behind.
    """
    target = Path(path)
    folder = target.parent
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _fsync_folder(folder)


def _fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a folder; the rename is still atomic
    finally:
        os.close(fd)
