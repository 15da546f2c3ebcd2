"""Client-side pacing: one adaptive limit per workspace and endpoint family, shared by every
thread of the process (the program, the provider host's workers, every resource of a run)
through its process state (process.py).

The service limits each endpoint per workspace (jobs/create, for one, at 20 requests per
second), keeps no total across endpoints, and says when it throttles: 429 with
``Retry-After``. A fixed client limit makes every deployment pay for a throttle that may
never come, so a family starts with no limit of its own and learns the service's:

- the first 429 stops new calls of the family until ``Retry-After`` has passed and sets its
  pace to half the rate the family was sending at over the last second; each later 429
  halves the pace again (multiplicative decrease). 429s that arrive within one pause of
  the last decrease answer calls sent before it and are not counted again;
- while no 429 comes, the pace grows by ``INCREASE_PER_SECOND`` calls per second every
  second (additive increase), without bound unless a ceiling is set;
- ``rate_limit_per_second`` (the connection's setting), when positive, is a hard ceiling:
  the pace never exceeds it, throttled or not. Under the ceiling alone calls may come in
  bursts of one second's worth; once throttled they are spaced evenly.

The retries of a throttled call go through the limit too (``retry.BudgetedRetry`` waits for
a slot after its own ``Retry-After`` sleep, through ``retrying_call``), so a pause's end is
no stampede. ``acquire`` reserves a slot under the lock and sleeps outside it, so waiting
callers are spaced ``1/pace`` apart without holding the lock while they wait.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator

from providers.client.process import Store

# Multiplicative decrease on a 429, additive increase while none comes, and a floor.
DECREASE = 0.5
INCREASE_PER_SECOND = 1.0
MIN_RATE = 1.0
# The window over which the sending rate is measured when the first 429 comes.
RATE_WINDOW_SECONDS = 1.0
# The pause when a 429 carries no Retry-After.
DEFAULT_PAUSE_SECONDS = 1.0


class AdaptiveLimit:
    """The pace of one workspace endpoint family (see the module's docstring)."""

    def __init__(
        self,
        ceiling: float | None = None,
        *,
        burst: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        decrease: float = DECREASE,
        increase_per_second: float = INCREASE_PER_SECOND,
        min_rate: float = MIN_RATE,
    ) -> None:
        if ceiling is not None and ceiling < 0:
            raise ValueError("ceiling must not be negative")
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self.decrease = decrease
        self.increase_per_second = increase_per_second
        self.min_rate = min_rate
        self._burst = burst
        self.ceiling: float | None = ceiling or None
        # Calls per second, None: no limit. Starts at the ceiling, if any.
        self.rate: float | None = self.ceiling
        self.learned = False  # whether a 429 has set the pace
        self.throttled = 0  # 429s seen
        self.decreases = 0
        now = clock()
        self._next_start = now  # the theoretical start of the next call at the pace
        self._paused_until = -math.inf
        self._decreased_at = -math.inf
        self._grown_at = now
        self._recent: deque[float] = deque()  # starts within the last RATE_WINDOW_SECONDS

    def set_ceiling(self, ceiling: float | None) -> None:
        with self._lock:
            self.ceiling = ceiling or None
            if self.ceiling is None:
                if not self.learned:
                    self.rate = None
            elif self.rate is None or self.rate > self.ceiling or not self.learned:
                self.rate = self.ceiling

    def acquire(self, max_wait: float = math.inf) -> float:
        """Wait for this family's next slot; returns the time waited. A slot further away
        than `max_wait` (a pause longer than the caller's retry budget) is not waited for:
        the call goes at once, and the service's answer decides."""
        with self._lock:
            now = self._clock()
            self._grow(now)
            start = max(now, self._paused_until)
            if start - now > max_wait:
                return 0.0
            if self.rate is not None:
                interval = 1.0 / self.rate
                tolerance = (self._burst_size() - 1.0) * interval
                scheduled = max(self._next_start, start)
                start = max(start, scheduled - tolerance)
                self._next_start = scheduled + interval
            self._note_start(start)
        wait = start - now
        if wait > 0:
            self._sleep(wait)
            return wait
        return 0.0

    def on_throttled(self, retry_after: float | None) -> None:
        """A call of this family was answered 429 (``retry_after``: the server's pause)."""
        with self._lock:
            now = self._clock()
            self.throttled += 1
            pause = DEFAULT_PAUSE_SECONDS if retry_after is None else max(0.0, retry_after)
            self._paused_until = max(self._paused_until, now + pause)
            if now - self._decreased_at < pause:
                return  # an answer to a call sent before the last decrease
            self._grow(now)
            sending = self._sending_rate(now)
            base = sending if self.rate is None else min(self.rate, max(sending, self.min_rate))
            rate = max(self.min_rate, base * self.decrease)
            self.rate = rate if self.ceiling is None else min(rate, self.ceiling)
            self.learned = True
            self.decreases += 1
            self._decreased_at = now
            # No burst after a pause: the next call starts when it ends, the rest spaced.
            self._next_start = self._paused_until
            self._grown_at = self._paused_until

    def _grow(self, now: float) -> None:
        if not self.learned or self.rate is None or now <= self._grown_at:
            return
        self.rate += self.increase_per_second * (now - self._grown_at)
        if self.ceiling is not None:
            self.rate = min(self.rate, self.ceiling)
        self._grown_at = now

    def _burst_size(self) -> float:
        if self._burst is not None:
            return max(1.0, self._burst)
        # Under the ceiling alone, one second's worth at once; once throttled, evenly.
        return 1.0 if self.learned or self.rate is None else max(1.0, self.rate)

    def _note_start(self, start: float) -> None:
        self._recent.append(start)
        self._prune(start)

    def _sending_rate(self, now: float) -> float:
        self._prune(now)
        return len(self._recent) / RATE_WINDOW_SECONDS

    def _prune(self, now: float) -> None:
        while self._recent and self._recent[0] < now - RATE_WINDOW_SECONDS:
            self._recent.popleft()


class RateLimits:
    """A process's limits, one per workspace endpoint family (by key)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_key: dict[str, AdaptiveLimit] = {}


rate_limits = Store("rate limits", RateLimits)


def endpoint_family(path: str) -> str:
    """`/api/2.0/jobs/runs/get` -> `jobs`; `/api/2.0/preview/scim/v2/ServicePrincipals/7` ->
    `ServicePrincipals`; `/api/2.1/unity-catalog/bindings/catalog/x` -> `unity-catalog/bindings`.
    """
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["api"]:
        parts = parts[2:]  # the API version
    if parts[:1] == ["preview"]:
        parts = parts[1:]
    if parts[:1] == ["scim"]:
        return "/".join(parts[2:3])
    if parts[:1] == ["unity-catalog"]:
        return "/".join(parts[:2])
    return "/".join(parts[:1])


def limit_for(key: str, ceiling_per_second: float) -> AdaptiveLimit:
    """The shared limit of this workspace endpoint family (`key`); a positive ceiling caps it."""
    ceiling = ceiling_per_second if ceiling_per_second > 0 else None
    held = rate_limits()
    with held.lock:
        limit = held.by_key.get(key)
        if limit is None:
            limit = held.by_key[key] = AdaptiveLimit(ceiling)
        elif limit.ceiling != ceiling:
            limit.set_ceiling(ceiling)
        return limit


def throttle(key: str, ceiling_per_second: float) -> float:
    """Wait for a slot to call this workspace endpoint family; returns the time waited."""
    return limit_for(key, ceiling_per_second).acquire()


def limits() -> dict[str, AdaptiveLimit]:
    """Every family's limit, by key (reports and tests)."""
    held = rate_limits()
    with held.lock:
        return dict(held.by_key)


# --- the call in progress on this thread, for its retries ------------------------------------

_current = threading.local()


@contextlib.contextmanager
def retrying_call(limit: AdaptiveLimit | None) -> Iterator[None]:
    """Within the block, this thread's retries report 429s to `limit` and wait for its slots
    (urllib3 runs a call's retries on the caller's thread)."""
    previous = getattr(_current, "limit", None)
    _current.limit = limit
    try:
        yield
    finally:
        _current.limit = previous


def current_limit() -> AdaptiveLimit | None:
    return getattr(_current, "limit", None)
