"""The coil's safety limits, the shake pattern they bound, and the duty guard.

The limits are constants, not configuration: a config may ask for gentler
shakes, never harder ones. A push solenoid rated for intermittent duty
overheats when held on, so every shake is checked three ways: each pulse is
short, each gap lets the plunger return, and the coil's on-time over any
10 s stays at or under 20 %.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any, NamedTuple

from firmware.errors import FirmwareError

log = logging.getLogger(__name__)

MAX_PULSE_S = 0.150
"""Longest single pulse the coil is ever driven for."""
MIN_GAP_S = 0.100
"""Shortest pause between two pulses (also between the last pulse of one shake and the next)."""
MAX_DUTY = 0.20
"""Largest fraction of any window that the coil may be on."""
DUTY_WINDOW_S = 10.0
"""Length of the sliding window the duty limit is measured over."""
MAX_ON_S = MAX_DUTY * DUTY_WINDOW_S
_EPS = 1e-9

Interval = tuple[float, float]


class Wait(NamedTuple):
    """How long a shake must wait, and which limit (``"duty"``, ``"gap"`` or ``""``) says so."""

    seconds: float
    limit: str

    @property
    def reason(self) -> str:
        """The limit in words, for the log line that announces the wait."""
        if self.limit == "duty":
            return f"the {MAX_DUTY:.0%} duty limit in any {DUTY_WINDOW_S:g} s"
        if self.limit == "gap":
            return f"the {MIN_GAP_S * 1000:g} ms minimum gap between pulses"
        return "no limit"


def _overlap(a: Interval, start: float, end: float) -> float:
    """Length of interval ``a`` inside ``[start, end]``."""
    return max(0.0, min(a[1], end) - max(a[0], start))


def max_window_on_time(intervals: Sequence[Interval], window: float = DUTY_WINDOW_S) -> float:
    """The largest on-time of ``intervals`` inside any ``window``-long span.

    The maximum is reached by a window that ends where some interval ends, so
    only those windows are measured.
    """
    return max(
        (sum(_overlap(i, end - window, end) for i in intervals) for _, end in intervals),
        default=0.0,
    )


@dataclass(frozen=True)
class ShakePattern:
    """One shake: ``pulses`` pulses of ``pulse_s`` seconds, ``gap_s`` apart.

    Refuses (``FirmwareError`` naming the limit) any pattern past the coil's
    safety limits, so an unsafe config stops the service at start-up.
    """

    pulse_s: float = 0.060
    gap_s: float = 0.180
    pulses: int = 4

    def __post_init__(self) -> None:
        if isinstance(self.pulses, bool) or not isinstance(self.pulses, int) or self.pulses < 1:
            raise FirmwareError(f"solenoid.pulses = {self.pulses!r}: expected a whole number >= 1")
        if not 0 < self.pulse_s <= MAX_PULSE_S + _EPS:
            raise FirmwareError(
                f"solenoid.pulse_ms = {self.pulse_s * 1000:g} exceeds the safety limit: "
                f"a single pulse is at most {MAX_PULSE_S * 1000:g} ms"
            )
        if self.gap_s < MIN_GAP_S - _EPS:
            raise FirmwareError(
                f"solenoid.gap_ms = {self.gap_s * 1000:g} is under the safety limit: "
                f"gaps between pulses are at least {MIN_GAP_S * 1000:g} ms"
            )
        on = max_window_on_time(self.offsets())
        if on > MAX_ON_S + _EPS:
            raise FirmwareError(
                f"solenoid pattern ({self.pulses} x {self.pulse_s * 1000:g} ms every "
                f"{(self.pulse_s + self.gap_s) * 1000:g} ms) keeps the coil on {on:.2f} s "
                f"in {DUTY_WINDOW_S:g} s: the safety limit is {MAX_DUTY:.0%} duty "
                f"({MAX_ON_S:g} s) in any {DUTY_WINDOW_S:g} s window; use fewer or shorter "
                "pulses or longer gaps"
            )

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ShakePattern:
        """The pattern of the ``[solenoid]`` section (``pulse_ms``, ``gap_ms``, ``pulses``).

        Accepts the section itself or the whole configuration.
        """
        section = config["solenoid"] if isinstance(config.get("solenoid"), Mapping) else config
        ms: dict[str, float] = {}
        for key in ("pulse_ms", "gap_ms"):
            value = section.get(key)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise FirmwareError(f"solenoid.{key} = {value!r}: expected a number of ms")
            ms[key] = float(value)
        pulses: Any = section.get("pulses")  # checked by __post_init__
        return cls(ms["pulse_ms"] / 1000, ms["gap_ms"] / 1000, pulses)

    def offsets(self) -> list[Interval]:
        """``(on, off)`` of each pulse in seconds from the shake's start."""
        period = self.pulse_s + self.gap_s
        return [(k * period, k * period + self.pulse_s) for k in range(self.pulses)]

    @property
    def duration_s(self) -> float:
        """From the first pulse's start to the last pulse's end."""
        return self.offsets()[-1][1]


def _earliest_start(history: Sequence[Interval], budget: float) -> float:
    """Smallest window start ``L`` with the on-time of ``history`` after ``L`` <= ``budget``.

    The on-time after ``L`` falls piecewise linearly as ``L`` grows, so the
    answer is found exactly between two interval edges.
    """

    def on_after(start: float) -> float:
        return sum(max(0.0, off - max(on, start)) for on, off in history)

    if on_after(float("-inf")) <= budget + _EPS:
        return float("-inf")
    edges = sorted({t for interval in history for t in interval})
    prev = edges[0]
    for edge in edges[1:]:
        if on_after(edge) <= budget + _EPS:
            covering = sum(1 for on, off in history if on <= prev and off >= edge)
            return prev + (on_after(prev) - budget) / covering if covering else edge
        prev = edge
    return edges[-1]


class DutyGuard:
    """Remembers when the coil was on and says how long to wait before driving it again.

    Pure bookkeeping over times from an injected clock: it never sleeps and
    never reads the time itself, so it is tested without real waiting.
    """

    def __init__(self) -> None:
        self._history: list[Interval] = []
        self._lock = threading.Lock()

    def record(self, on: float, off: float) -> None:
        """Note that the coil was on from ``on`` to ``off`` (clock seconds)."""
        with self._lock:
            self._history.append((on, off))
            horizon = off - DUTY_WINDOW_S
            self._history = [i for i in self._history if i[1] > horizon]

    def on_time(self, now: float) -> float:
        """Seconds the coil was on in the window ending at ``now``."""
        with self._lock:
            return sum(_overlap(i, now - DUTY_WINDOW_S, now) for i in self._history)

    def wait_before(self, planned: Sequence[Interval], now: float) -> float:
        """Seconds to wait so that pulses ``planned`` (offsets from start) stay within limits."""
        return self.plan(planned, now)[0]

    def plan(self, planned: Sequence[Interval], now: float) -> Wait:
        """The wait before ``planned`` can start at ``now``, and which limit imposes it.

        Covers the duty limit over every window that holds a planned pulse's
        end, and the minimum gap after the last recorded pulse.
        """
        with self._lock:
            history = list(self._history)
        gap = duty = 0.0
        if history:
            gap = history[-1][1] + MIN_GAP_S - (now + planned[0][0])
        for _, end in planned:
            own = sum(_overlap(p, end - DUTY_WINDOW_S, end) for p in planned)
            start = _earliest_start(history, MAX_ON_S - own)
            duty = max(duty, start - (now + end - DUTY_WINDOW_S))
        if duty > max(gap, 0.0):
            return Wait(duty, "duty")
        if gap > 0:
            return Wait(gap, "gap")
        return Wait(0.0, "")

    def wait_before_pattern(self, pattern: ShakePattern, now: float) -> float:
        """Seconds to wait before starting ``pattern`` at ``now``."""
        return self.wait_before(pattern.offsets(), now)


@contextlib.contextmanager
def coil_safety(
    off: Callable[[], None], signals: Sequence[signal.Signals] = (signal.SIGTERM, signal.SIGINT)
) -> Iterator[None]:
    """Force the coil off on leaving the block: normally, by an exception, or by a signal.

    On SIGTERM/SIGINT the coil goes off first, then the signal's previous
    behaviour runs (SIGINT's default raises ``KeyboardInterrupt``, SIGTERM's
    default becomes ``SystemExit(143)`` so that ``finally`` blocks run). The
    previous handlers are restored on exit. Outside the main thread signal
    handlers cannot be installed; the block still forces the coil off.
    """
    installed: dict[signal.Signals, Any] = {}

    def handler(signum: int, frame: FrameType | None) -> None:
        off()
        previous = installed.get(signal.Signals(signum), signal.SIG_DFL)
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_DFL:
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            raise SystemExit(128 + signum)

    if threading.current_thread() is threading.main_thread():
        for sig in signals:
            installed[sig] = signal.getsignal(sig)
            signal.signal(sig, handler)
    else:
        log.debug("coil_safety outside the main thread: no signal handlers installed")
    try:
        yield
    finally:
        off()
        for sig, previous in installed.items():
            signal.signal(sig, previous if previous is not None else signal.SIG_DFL)
