"""``with`` support for everything that holds a device: the tower's parts and the cameras.

A leaf package: it imports only the standard library, so ``firmware`` (the
solenoid, the buttons, the tower) and ``vision`` (frame sources, the shared
camera) share this one base without importing each other.
"""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """``with device:`` closes the device on the way out, however it is left.

    Subclasses define ``close()``, which must be safe to call more than once.
    """

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


__all__ = ["Closing"]
