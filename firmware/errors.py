"""Errors of the tower's body: one root, each leaf also the builtin it resembles."""

from __future__ import annotations


class FirmwareError(ValueError):
    """A pin map, shake pattern or tray request that the tower refuses, with the reason."""


class GpioUnavailable(FirmwareError):
    """No GPIO chip could be opened: this machine is not a Raspberry Pi (use the mocks)."""
