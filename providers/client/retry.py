"""urllib3 ``Retry`` bounded by a number of attempts and by a time budget.

urllib3 calls ``increment`` when a retry is wanted and then ``sleep`` on the object it
returned. Here ``increment`` also decides the wait (the server's ``Retry-After`` if given,
else exponential backoff with jitter) and refuses the retry, exactly like an exhausted
count, when that wait would end past the budget; ``sleep`` then waits that decided time.
Giving up hands back the last response (``raise_on_status=False``), so a 429 whose
``Retry-After`` outlasts the budget surfaces as the service's own REQUEST_LIMIT_EXCEEDED.

The budget counts from the first failed attempt; each attempt is bounded by the request
timeout on its own. A 429 is reported to the call's adaptive limit (``ratelimit``), and every
retry waits for a slot of that limit after its own sleep.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from types import TracebackType
from typing import Any, Self

from urllib3.connectionpool import ConnectionPool
from urllib3.exceptions import InvalidHeader, MaxRetryError, ResponseError
from urllib3.response import BaseHTTPResponse
from urllib3.util.retry import Retry

from providers.client import ratelimit

# Indirections so tests can run the real retry loop on a fake clock.
monotonic = time.monotonic
sleep = time.sleep


class BudgetedRetry(Retry):
    def __init__(
        self,
        *args: Any,
        max_retry_seconds: float = 300.0,
        started_at: float | None = None,
        next_delay: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.max_retry_seconds = max_retry_seconds
        self.started_at = started_at
        self.next_delay = next_delay

    def new(self, **kw: Any) -> Self:
        kw.setdefault("max_retry_seconds", self.max_retry_seconds)
        kw.setdefault("started_at", self.started_at)
        kw.setdefault("next_delay", self.next_delay)
        return super().new(**kw)

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        # Only the configured statuses; urllib3 would also retry any 413/503 that carries
        # Retry-After, which is not safe for a non-idempotent POST.
        return self._is_method_retryable(method) and status_code in self.status_forcelist

    def increment(
        self,
        method: str | None = None,
        url: str | None = None,
        response: BaseHTTPResponse | None = None,
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: TracebackType | None = None,
    ) -> Self:
        now = monotonic()
        started_at = now if self.started_at is None else self.started_at
        if response is not None and response.status == 429:
            limit = ratelimit.current_limit()
            if limit is not None:
                limit.on_throttled(self._retry_after_of(response))
        retry = super().increment(method, url, response, error, _pool, _stacktrace)
        delay = retry.delay_before_next_attempt(response)
        spent = now - started_at
        if spent + delay > self.max_retry_seconds:
            reason = error or ResponseError(
                f"retry budget of {self.max_retry_seconds:g}s spent "
                f"({spent:.1f}s used, next wait {delay:.1f}s)"
            )
            raise MaxRetryError(_pool, url, reason) from reason  # type: ignore[arg-type]
        retry.started_at = started_at
        retry.next_delay = delay
        return retry

    def delay_before_next_attempt(self, response: BaseHTTPResponse | None) -> float:
        if self.respect_retry_after_header and response is not None:
            retry_after = self._retry_after_of(response)
            if retry_after:
                return retry_after
        return self.get_backoff_time()

    def _retry_after_of(self, response: BaseHTTPResponse) -> float | None:
        try:
            return self.get_retry_after(response)
        except InvalidHeader:
            return None

    def sleep(self, response: BaseHTTPResponse | None = None) -> None:
        sleep(self.next_delay)
        limit = ratelimit.current_limit()
        if limit is not None:
            limit.acquire()


def budgeted_retry(
    *,
    max_attempts: int,
    max_retry_seconds: float,
    allowed_methods: Collection[str],
    status_forcelist: Collection[int],
    retry_read_errors: bool,
    backoff_factor: float,
    backoff_jitter: float,
    backoff_max: float = Retry.DEFAULT_BACKOFF_MAX,
) -> BudgetedRetry:
    return BudgetedRetry(
        total=max_attempts - 1,
        connect=None,
        read=None if retry_read_errors else False,
        other=0,
        redirect=False,
        allowed_methods=frozenset(allowed_methods),
        status_forcelist=frozenset(status_forcelist),
        backoff_factor=backoff_factor,
        backoff_jitter=backoff_jitter,
        backoff_max=backoff_max,
        respect_retry_after_header=True,
        raise_on_status=False,
        max_retry_seconds=max_retry_seconds,
    )
