"""Waiting for the service to reach a state: a deadline with growing pauses, and progress
lines the engine shows while a resource waits.

The provider host sends what `pulumi.log` writes while it serves a resource to the engine,
as info diagnostics of that resource (providers/core/engine_log.py); without an engine they go
to the provider's stderr, which the engine prints with the update's output.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import pulumi

FIRST_PAUSE_SECONDS = 0.5
LONGEST_PAUSE_SECONDS = 10.0
# A state that does not change is reported again after this long.
REPEAT_REPORT_SECONDS = 30.0

# Module-level so tests can run the clock faster.
monotonic = time.monotonic
sleep = time.sleep


class Deadline:
    """`timeout_seconds` from now; `pause()` sleeps 0.5 s, then longer, up to 10 s, never
    past the deadline."""

    def __init__(self, timeout_seconds: float) -> None:
        self.timeout_seconds = timeout_seconds
        self._start = monotonic()
        self._pause = FIRST_PAUSE_SECONDS

    def elapsed(self) -> float:
        return monotonic() - self._start

    def expired(self) -> bool:
        return self.elapsed() >= self.timeout_seconds

    def pause(self) -> None:
        sleep(max(0.0, min(self._pause, self.timeout_seconds - self.elapsed())))
        self._pause = min(self._pause * 1.5, LONGEST_PAUSE_SECONDS)


class Progress:
    """Reports `subject: <state>` when the state changes, and every 30 s while it stays."""

    def __init__(self, subject: str, deadline: Deadline) -> None:
        self.subject = subject
        self._deadline = deadline
        self._last: tuple[str, float] | None = None

    def observe(self, state: str) -> None:
        elapsed = self._deadline.elapsed()
        if self._last is not None:
            last_state, reported_at = self._last
            if last_state == state and elapsed - reported_at < REPEAT_REPORT_SECONDS:
                return
        self._last = (state, elapsed)
        pulumi.log.info(f"{self.subject}: {state} after {elapsed:.0f}s")


# What to do about an object in a state on its way to the desired one: "start" or "stop" it,
# "fail" (it cannot get there); a state not listed is waited out.
Actions = Mapping[str, Mapping[str, str]]


def drive_to_state(
    subject: str,
    desired: str,
    timeout_seconds: float,
    read: Callable[[], dict[str, Any]],
    act: Callable[[str], None],
    actions: Actions,
    stuck: Callable[[dict[str, Any], str], Exception],
) -> dict[str, Any]:
    """Read the object until its `state` is `desired`, asking `act("start" | "stop")` where
    `actions[desired]` says so; the object as last read. `stuck(object, why)` is the error
    raised where it cannot get there (`why`: "cannot" or "timeout")."""
    deadline = Deadline(timeout_seconds)
    progress = Progress(f"{subject} (desired {desired})", deadline)
    while True:
        observed = read()
        state = observed.get("state", "UNKNOWN")
        if state == desired:
            if deadline.elapsed() > FIRST_PAUSE_SECONDS:
                progress.observe(state)
            return observed
        action = actions[desired].get(state, "wait")
        if action == "fail":
            raise stuck(observed, "cannot")
        if deadline.expired():
            raise stuck(observed, "timeout")
        progress.observe(state)
        if action != "wait":
            act(action)
        deadline.pause()
