"""Per-client token buckets: N requests a second (bursts of up to N), then real 429s."""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    def __init__(self, requests_per_second: float | None) -> None:
        self.rate = requests_per_second
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()

    def acquire(self, client: str) -> float:
        """0 if the request may go ahead, else the seconds to wait before retrying."""
        if not self.rate:
            return 0.0
        now = time.monotonic()
        with self._lock:
            bucket = self._buckets.setdefault(client, _Bucket(self.rate, now))
            bucket.tokens = min(self.rate, bucket.tokens + (now - bucket.updated) * self.rate)
            bucket.updated = now
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return 0.0
            return (1 - bucket.tokens) / self.rate


def retry_after_header(wait_seconds: float) -> int:
    return max(1, math.ceil(wait_seconds))
