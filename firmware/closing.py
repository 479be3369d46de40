"""The context-manager protocol shared by every device of the tower."""

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
