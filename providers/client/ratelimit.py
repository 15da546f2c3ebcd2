"""Client-side rate limiting: one token bucket per workspace and endpoint family, shared by
all threads.

The service limits each endpoint per workspace (jobs/create, for one, at 20 requests per
second) and keeps no total across endpoints, so one bucket per family (jobs, permissions,
principals, scopes, ...) protects every endpoint without making the creates of one kind
queue behind those of another.

A bucket refills at ``rate`` tokens per second up to ``burst`` (one second's worth by
default). ``acquire`` reserves a token under the lock and sleeps outside it, so waiting
callers are spaced ``1/rate`` apart without holding the lock while they wait.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class TokenBucket:
    def __init__(
        self,
        rate: float,
        burst: float | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if rate <= 0:
            raise ValueError("rate must be positive")
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self.rate = rate
        self.burst = max(1.0, rate if burst is None else burst)
        self._tokens = self.burst
        self._updated = clock()

    def set_rate(self, rate: float) -> None:
        if rate <= 0:
            raise ValueError("rate must be positive")
        with self._lock:
            self._refill()
            self.rate = rate
            self.burst = max(1.0, rate)
            self._tokens = min(self._tokens, self.burst)

    def acquire(self) -> float:
        """Take one token, waiting if none is left; returns the time waited."""
        with self._lock:
            self._refill()
            self._tokens -= 1
            wait = -self._tokens / self.rate if self._tokens < 0 else 0.0
        if wait > 0:
            self._sleep(wait)
        return wait

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._updated) * self.rate)
        self._updated = now


_buckets: dict[str, TokenBucket] = {}
_buckets_lock = threading.Lock()


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


def limiter_for(base_url: str, rate_per_second: float) -> TokenBucket | None:
    """The shared bucket for this base URL at this rate; None when limiting is off (rate 0)."""
    if rate_per_second <= 0:
        return None
    with _buckets_lock:
        bucket = _buckets.get(base_url)
        if bucket is None:
            bucket = _buckets[base_url] = TokenBucket(rate_per_second)
        elif bucket.rate != rate_per_second:
            bucket.set_rate(rate_per_second)
        return bucket


def throttle(base_url: str, rate_per_second: float) -> float:
    """Wait for a slot to call this base URL; returns the time waited."""
    bucket = limiter_for(base_url, rate_per_second)
    return bucket.acquire() if bucket is not None else 0.0


def reset() -> None:
    """Forget all buckets (tests)."""
    with _buckets_lock:
        _buckets.clear()
