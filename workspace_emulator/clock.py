"""The emulator's time, in the units the API uses: the wall clock, or a manual clock.

A manual clock (`--clock manual`) starts at the wall-clock time of the start and moves only
when told to (`advance`, served at POST /_emulator/clock/advance), so the time-based state
machines (cluster state moves, job runs, pipeline updates, token expiry) step exactly when a
test says.
"""

from __future__ import annotations

import threading
import time

REAL = "real"
MANUAL = "manual"
MODES = (REAL, MANUAL)

_lock = threading.Lock()
_manual_now: float | None = None  # None: the wall clock


class ClockIsReal(Exception):
    """advance() on the wall clock."""


def use(mode: str) -> None:
    """Switches to the wall clock, or to a manual clock stopped at the current time."""
    global _manual_now
    if mode not in MODES:
        raise ValueError(f"clock must be one of {', '.join(MODES)}, got {mode!r}")
    with _lock:
        _manual_now = time.time() if mode == MANUAL else None


def mode() -> str:
    return REAL if _manual_now is None else MANUAL


def advance(seconds: float) -> float:
    """Moves a manual clock on by `seconds` (>= 0); returns the new time."""
    global _manual_now
    if seconds < 0:
        raise ValueError("seconds must not be negative: the clock does not go back")
    with _lock:
        if _manual_now is None:
            raise ClockIsReal("the clock is the wall clock; start the emulator with "
                              "--clock manual to move it by hand")
        _manual_now += seconds
        return _manual_now


def now() -> float:
    manual = _manual_now
    return time.time() if manual is None else manual


def now_ms() -> int:
    return int(now() * 1000)
