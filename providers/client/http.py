"""The one HTTP transport: shared sessions, retries, timeouts, client-side rate limiting.

Sessions live in the process state (process.py), never on provider instances (Pulumi pickles
providers).
Every call carries a timeout. Retries run inside urllib3 (``BudgetedRetry``), bounded by
``max_attempts`` and by ``max_retry_seconds``; waits are exponential backoff with jitter,
or the server's ``Retry-After`` when it sends one.

What is retried
---------------
Idempotent calls: GET, PUT, PATCH, DELETE, and the POSTs the caller marks ``idempotent``,
are retried on 429, 500, 502, 503, 504, on connect errors, and on dropped connections and
read timeouts. The POSTs of this API that are safe to repeat:

- ``/api/2.0/jobs/reset``            (replaces the settings: same result twice)
- ``/api/2.0/jobs/delete``           (a second delete answers RESOURCE_DOES_NOT_EXIST)
- ``/api/2.0/jobs/run-now``          only with an ``idempotency_token`` (same token, same run)
- ``/api/2.0/secrets/scopes/delete`` (a second delete answers RESOURCE_DOES_NOT_EXIST)
- ``/api/2.0/clusters/start``, ``/api/2.0/clusters/stop``, ``/api/2.0/clusters/delete``
  (stopping a stopped cluster changes nothing; starting a starting one is INVALID_STATE)
- ``/api/2.0/repos/<id>``            legacy-form branch checkout (same branch, same result)
- the token request in the public form (POST ``.../oauth2/token``): a second token is harmless

Non-idempotent POSTs (``/api/2.0/jobs/create``, SCIM ``ServicePrincipals`` create,
``/api/2.0/secrets/scopes/create``, run-now without a token) are retried only on 429 (the
service refused it before doing anything) and on connect errors (the request was never
sent). A 5xx, a read timeout or a dropped connection may mean the object was made: those
surface as errors, and the providers look the object up by its natural key and adopt it
(any 5xx, a throttling 500 such as ``REQUEST_LIMIT_EXCEEDED`` included). Retries go by
status here; the throttling codes (``REQUEST_LIMIT_EXCEEDED``, ``TEMPORARILY_UNAVAILABLE``)
that come with a status not retried here are retried by the workspace client
(``WorkspaceClient._retry_throttled``), except a create's 5xx.

No redirect is followed (``allow_redirects=False`` on every call, whatever the caller
passes): a 3xx with a ``Location`` raises ``RedirectRefused`` naming the target, and nothing
is sent there. A 307 or 308 would otherwise repeat the request, the token request's client
secret, a ``secrets/put`` body or the flow controller's password included, to any host and
scheme the answer names, plain ``http://`` too.

Every attempt of a call waits for a slot of its endpoint family's adaptive limit
(``ratelimit``), and a 429 tells that limit to slow down: the first attempt here, the
retries inside urllib3 after their backoff (``retry``).
"""

from __future__ import annotations

import logging
import os
import re
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import (
    ConnectTimeoutError,
    MaxRetryError,
    NewConnectionError,
    ReadTimeoutError,
    SSLError,
)

from providers.client import ratelimit
from providers.client.errors import RedirectRefused, WorkspaceUnreachable, redact_text
from providers.client.process import Store
from providers.client.retry import budgeted_retry

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
NON_IDEMPOTENT_RETRY_STATUSES = frozenset({429})
# POST included: which POSTs may be repeated, and on what, is the session's retry policy.
RETRYABLE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE", "POST"})
# Sleeps between attempts: 0, 1, 2, 4, 8, ... seconds, each plus up to 0.5 s of jitter.
BACKOFF_FACTOR = 0.5
BACKOFF_JITTER = 0.5
POOL_SIZE = 32
USER_AGENT = "workspace-iac/0.1"


@dataclass(frozen=True)
class CallPolicy:
    timeout_seconds: float = 30.0
    max_attempts: int = 6
    max_retry_seconds: float = 300.0


class Sessions:
    """A process's sessions, one per retry policy, and the environment's settings they read
    (shared by all of them)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_policy: dict[tuple[int, float, bool], requests.Session] = {}
        self.environment_settings: dict[tuple[Any, ...], dict[str, Any]] = {}


sessions = Store("http sessions", Sessions)


def session_for(policy: CallPolicy, *, idempotent: bool) -> requests.Session:
    """The shared session for this retry policy (one per attempts/budget/idempotency)."""
    key = (policy.max_attempts, policy.max_retry_seconds, idempotent)
    held = sessions()
    with held.lock:
        session = held.by_policy.get(key)
        if session is None:
            session = held.by_policy[key] = _new_session(
                policy, idempotent=idempotent, environment_settings=held.environment_settings
            )
        return session


class _Session(requests.Session):
    """A session that reads the environment's proxy and CA bundle settings once per
    distinct environment and host. requests reads them on every call (all of the
    environment, twice over), 160 µs of a call's own 0.8 ms; the key holds every variable
    those settings come from, so a changed environment is read again."""

    def __init__(self, environment_settings: dict[tuple[Any, ...], dict[str, Any]]) -> None:
        super().__init__()
        self._environment_settings = environment_settings

    def merge_environment_settings(
        self, url: str, proxies: Any, stream: Any, verify: Any, cert: Any
    ) -> dict[str, Any]:
        if proxies or stream is not None or verify is not None or cert is not None:
            return super().merge_environment_settings(url, proxies, stream, verify, cert)
        key = (urlsplit(url)[:2], _environment_settings())
        kept = self._environment_settings
        found = kept.get(key)
        if found is None:
            if len(kept) >= _ENVIRONMENT_SETTINGS_KEPT:
                kept.clear()
            found = super().merge_environment_settings(url, {}, None, None, None)
            kept[key] = found
        return {**found, "proxies": dict(found["proxies"])}


# What requests' environment settings depend on: every `*_proxy` variable (as urllib reads
# them), the CGI marker that disables HTTP_PROXY, and the CA bundle variables.
_ENVIRONMENT_NAMES = frozenset({"REQUEST_METHOD", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"})
_ENVIRONMENT_SETTINGS_KEPT = 64


def _environment_settings() -> tuple[tuple[str, str], ...]:
    return tuple(
        sorted(
            (name, value)
            for name, value in os.environ.items()
            if name in _ENVIRONMENT_NAMES or name.lower().endswith("_proxy")
        )
    )


def _new_session(
    policy: CallPolicy,
    *,
    idempotent: bool,
    environment_settings: dict[tuple[Any, ...], dict[str, Any]],
) -> requests.Session:
    retry = budgeted_retry(
        max_attempts=policy.max_attempts,
        max_retry_seconds=policy.max_retry_seconds,
        allowed_methods=RETRYABLE_METHODS,
        status_forcelist=RETRY_STATUSES if idempotent else NON_IDEMPOTENT_RETRY_STATUSES,
        retry_read_errors=idempotent,
        backoff_factor=BACKOFF_FACTOR,
        backoff_jitter=BACKOFF_JITTER,
    )
    adapter = HTTPAdapter(max_retries=retry, pool_connections=POOL_SIZE, pool_maxsize=POOL_SIZE)
    session = _Session(environment_settings)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    session.headers.update({"User-Agent": USER_AGENT, "Accept": "application/json"})
    return session


def send(
    method: str,
    url: str,
    *,
    policy: CallPolicy,
    idempotent: bool,
    rate_limit_key: str | None = None,
    rate_limit_per_second: float = 0.0,
    secrets: tuple[str, ...] = (),
    **kwargs: Any,
) -> requests.Response:
    """Send one call (with its retries). Returns the final response whatever its status;
    raises ``WorkspaceUnreachable`` when no response came back and ``RedirectRefused`` for a
    redirect (never followed).

    ``secrets`` are scrubbed from any error text; ``kwargs`` go to ``Session.request``.
    """
    method = method.upper()
    if method != "POST":
        idempotent = True
    limit = None
    if rate_limit_key is not None:
        limit = ratelimit.limit_for(rate_limit_key, rate_limit_per_second)
        limit.acquire(max_wait=policy.max_retry_seconds)
    session = session_for(policy, idempotent=idempotent)
    kwargs["allow_redirects"] = False
    try:
        with ratelimit.retrying_call(limit):
            response = session.request(method, url, timeout=policy.timeout_seconds, **kwargs)
    except requests.RequestException as exc:
        raise _unreachable(exc, method, url, secrets) from None
    if 300 <= response.status_code < 400 and response.headers.get("Location"):
        raise _redirect_refused(response, method, url, secrets)
    return response


def _redirect_refused(
    response: requests.Response, method: str, url: str, secrets: tuple[str, ...]
) -> RedirectRefused:
    target = urlsplit(urljoin(url, response.headers["Location"]))
    # scheme://host/path: never credentials in the authority, nor the query or fragment.
    host = target.netloc.rpartition("@")[2]
    shown = redact_text(f"{target.scheme}://{host}{target.path}", secrets)
    return RedirectRefused(
        status=response.status_code,
        code="REDIRECT_REFUSED",
        message=(
            f"the server redirected the call to {shown}; the client follows no redirect "
            "(it would send the call's credentials and body there): check the configured "
            "address, and use the address the service itself answers on"
        ),
        method=method,
        path=urlsplit(url).path or "/",
    )


def _unreachable(
    exc: requests.RequestException, method: str, url: str, secrets: tuple[str, ...]
) -> WorkspaceUnreachable:
    reason = _innermost_reason(exc)
    code, never_sent = _classify(exc, reason)
    # Not str(exc): urllib3 puts the whole URL, query string included, into it.
    message = redact_query_secrets(redact_text(f"{type(reason).__name__}: {reason}", secrets))
    return WorkspaceUnreachable(
        request_may_have_been_sent=not never_sent,
        status=None,
        code=code,
        message=message,
        method=method,
        path=urlsplit(url).path or "/",
    )


def _classify(exc: requests.RequestException, reason: BaseException) -> tuple[str, bool]:
    """(code, whether the request certainly never reached the server)."""
    if isinstance(
        exc,
        (
            requests.exceptions.InvalidURL,
            requests.exceptions.InvalidSchema,
            requests.exceptions.MissingSchema,
        ),
    ):
        return "INVALID_URL", True
    if isinstance(reason, NewConnectionError):
        return "CONNECT_FAILED", True
    if isinstance(exc, requests.exceptions.SSLError) or isinstance(reason, SSLError):
        return "TLS_FAILED", True
    if isinstance(reason, ConnectTimeoutError):
        return "CONNECT_TIMEOUT", True
    if isinstance(reason, ReadTimeoutError) or isinstance(exc, requests.Timeout):
        return "TIMEOUT", False
    return "CONNECTION_BROKEN", False


def _innermost_reason(exc: BaseException) -> BaseException:
    reason: BaseException = exc
    for _ in range(5):
        if isinstance(reason, MaxRetryError) and reason.reason is not None:
            reason = reason.reason
        elif reason.args and isinstance(reason.args[0], BaseException):
            reason = reason.args[0]
        else:
            break
    return reason


_SECRET_QUERY_VALUE = re.compile(
    r"(?i)((?:client_secret|secret|password|access_token|token)=)[^&\s\"'#]*"
)


def redact_query_secrets(text: str) -> str:
    return _SECRET_QUERY_VALUE.sub(r"\1***", text)


class _RedactSecretsInUrls(logging.Filter):
    """urllib3 logs full URLs (its retry warnings are on by default), and the legacy-form
    token request carries the client secret in its query string."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact_query_secrets(message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        return True


for _logger_name in ("urllib3.connectionpool", "urllib3.util.retry", "urllib3.poolmanager"):
    logging.getLogger(_logger_name).addFilter(_RedactSecretsInUrls())
