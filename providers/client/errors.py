"""Typed errors for the workspace API, and the one mapping from an HTTP response to them.

Every error renders as ``"<METHOD> <path>: <status> <code>: <message>"``. The path never
carries the query string (the legacy-form token request puts the client secret there), and
callers that know a secret (a token, a client secret) pass it to ``error_from_response``,
which removes it, in each of its spellings (as is, URL-encoded, base64), from the service's
text before adding any text of its own, and before cutting a long body short.
"""

from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, quote_plus, urlsplit

if TYPE_CHECKING:
    # Only named in annotations: the errors load without the transport (a provider host
    # that answers only configuration needs them, not HTTP).
    import requests

SCIM_ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"
_REDACTED = "***"
_MAX_BODY_SNIPPET = 200


class WorkspaceError(Exception):
    """An error answer (or no answer) from the workspace or its identity provider."""

    def __init__(
        self,
        *,
        status: int | None,
        code: str,
        message: str,
        method: str,
        path: str,
        retry_after: float | None = None,
    ) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.method = method
        self.path = path
        self.retry_after = retry_after
        super().__init__(str(self))

    def __str__(self) -> str:
        status = "no response" if self.status is None else str(self.status)
        return f"{self.method} {self.path}: {status} {self.code}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # The keyword-only constructor would break default exception pickling.
        return (_rebuild, (type(self), dict(self.__dict__)))


def _rebuild(cls: type[WorkspaceError], state: dict[str, Any]) -> WorkspaceError:
    error = cls.__new__(cls)
    error.__dict__.update(state)
    error.args = (str(error),)
    return error


class InvalidParameter(WorkspaceError):
    """INVALID_PARAMETER_VALUE or MALFORMED_REQUEST: the request names a bad value."""


class AlreadyExists(WorkspaceError):
    """RESOURCE_ALREADY_EXISTS (400 or 409)."""


class InvalidState(WorkspaceError):
    """INVALID_STATE: the object is not in a state that allows the operation."""


class Unauthenticated(WorkspaceError):
    """UNAUTHENTICATED (401): the token was refused."""


class PermissionDenied(WorkspaceError):
    """PERMISSION_DENIED (403)."""


class NotFound(WorkspaceError):
    """RESOURCE_DOES_NOT_EXIST, or any 404."""


class RateLimited(WorkspaceError):
    """REQUEST_LIMIT_EXCEEDED (429) after the retry budget was spent."""


class ServerError(WorkspaceError):
    """INTERNAL_ERROR (500), 502 or 504 after the retry budget was spent."""


class TemporarilyUnavailable(WorkspaceError):
    """TEMPORARILY_UNAVAILABLE (503) after the retry budget was spent."""


class IdentityError(WorkspaceError):
    """An error answer from the identity provider (token endpoint)."""


class InvalidClientCredentials(IdentityError):
    """invalid_client: the identity provider rejected the client id or the client secret."""


class SignInFailed(IdentityError):
    """A sign-in method could not get a token (no answer of the identity provider's own to
    report, or an error of a tool the method runs). ``method`` is the auth type."""

    def __str__(self) -> str:
        return f"{self.method} sign-in failed: {self.message}"


class RedirectRefused(WorkspaceError):
    """A 3xx answer with a Location: the client follows no redirect. Following one would
    send the request again, its client secret, bearer token or body included, to whatever
    host and scheme the Location names (a 307 or 308 keeps the method and the body). The
    message names the target as scheme://host/path, never its query."""


class WorkspaceUnreachable(WorkspaceError):
    """No HTTP answer: connection refused, DNS failure, TLS failure, timeout, dropped connection.

    ``request_may_have_been_sent`` is False only when the connection was never established,
    so a non-idempotent request certainly did not reach the server; otherwise a create may
    have happened and the caller should look the object up before creating it again.
    """

    def __init__(self, *, request_may_have_been_sent: bool, **kwargs: Any) -> None:
        self.request_may_have_been_sent = request_may_have_been_sent
        super().__init__(**kwargs)


_BY_CODE: dict[str, type[WorkspaceError]] = {
    "INVALID_PARAMETER_VALUE": InvalidParameter,
    "MALFORMED_REQUEST": InvalidParameter,
    "RESOURCE_ALREADY_EXISTS": AlreadyExists,
    "INVALID_STATE": InvalidState,
    "UNAUTHENTICATED": Unauthenticated,
    "PERMISSION_DENIED": PermissionDenied,
    "RESOURCE_DOES_NOT_EXIST": NotFound,
    "REQUEST_LIMIT_EXCEEDED": RateLimited,
    "INTERNAL_ERROR": ServerError,
    "TEMPORARILY_UNAVAILABLE": TemporarilyUnavailable,
}

_BY_STATUS: dict[int, type[WorkspaceError]] = {
    400: InvalidParameter,
    401: Unauthenticated,
    403: PermissionDenied,
    404: NotFound,
    409: AlreadyExists,
    429: RateLimited,
    500: ServerError,
    502: ServerError,
    503: TemporarilyUnavailable,
    504: ServerError,
}

# The service's codes for "slow down / try later": retried whatever the status they come
# with (a 500 REQUEST_LIMIT_EXCEEDED is seen), see workspace.WorkspaceClient._call.
THROTTLING_CODES = frozenset({"REQUEST_LIMIT_EXCEEDED", "TEMPORARILY_UNAVAILABLE"})

_IDENTITY_BY_CODE: dict[str, type[IdentityError]] = {
    "invalid_client": InvalidClientCredentials,
}

INVALID_CLIENT_HINT = "the client secret or client id is wrong"


def error_from_response(
    response: requests.Response, *, secrets: Iterable[str | None] = ()
) -> WorkspaceError:
    """Map an error response (platform, SCIM, identity provider, or not JSON) to a typed error.

    ``secrets`` (token, client secret) are removed from everything the service sent.
    """
    secrets = tuple(secrets)
    status = response.status_code
    method, path = _request_line(response)
    path = redact_text(path, secrets)
    body = _json_object(response)
    retry_after = _retry_after(response)

    if body is not None and _is_identity_error(body):
        code = redact_text(str(body["error"]), secrets)
        description = _first_line(str(body.get("error_description") or code))
        description = redact_text(description, secrets)
        identity_cls = _IDENTITY_BY_CODE.get(code, IdentityError)
        if identity_cls is InvalidClientCredentials:
            description = f"{INVALID_CLIENT_HINT} ({description})"
        return identity_cls(status=status, code=code, message=description, method=method, path=path)

    if body is not None and SCIM_ERROR_SCHEMA in (body.get("schemas") or []):
        code = str(body.get("scimType") or f"HTTP_{status}")
        message = str(body.get("detail") or response.reason or "")
    elif body is not None and body.get("error_code"):
        code = str(body["error_code"])
        message = str(body.get("message") or "")
    else:
        code = f"HTTP_{status}"
        message = _describe_unstructured(response, secrets)

    cls = _class_for(status, code)
    if _reads_a_missing_object(method, path, status, code, message):
        cls = NotFound
    return cls(
        status=status,
        code=redact_text(code, secrets),
        message=redact_text(message, secrets),
        method=method,
        path=path,
        retry_after=retry_after,
    )


# Reads where the service answers 400 INVALID_PARAMETER_VALUE for an object that does not
# exist (as the official SDK's error overrides know): (path, the message's pattern).
_MISSING_AS_INVALID = (
    (re.compile(r"^/api/2\.\d/clusters/get$"), re.compile(r"Cluster .* does not exist")),
    (re.compile(r"^/api/2\.\d/jobs/get$"), re.compile(r"Job .* does not exist")),
    (re.compile(r"^/api/2\.\d/jobs/runs/get$"),
     re.compile(r"Run .* does not exist|Run: .* in job: .* doesn't exist")),
)


def _reads_a_missing_object(method: str, path: str, status: int, code: str,
                            message: str) -> bool:
    if method != "GET" or status != 400 or code != "INVALID_PARAMETER_VALUE":
        return False
    return any(route.match(path) and pattern.search(message)
               for route, pattern in _MISSING_AS_INVALID)


def _class_for(status: int, code: str) -> type[WorkspaceError]:
    if status == 404:
        return NotFound
    if code in _BY_CODE:
        return _BY_CODE[code]
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    if status >= 500:
        return ServerError
    return WorkspaceError


def _request_line(response: requests.Response) -> tuple[str, str]:
    request = response.request
    method = (request.method if request is not None else None) or "?"
    url = (request.url if request is not None else None) or response.url or ""
    return method, urlsplit(url).path or "/"


def _json_object(response: requests.Response) -> dict[str, Any] | None:
    if not response.content:
        return None
    try:
        body = json.loads(response.content)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _is_identity_error(body: dict[str, Any]) -> bool:
    return isinstance(body.get("error"), str) and (
        "error_description" in body or "error_codes" in body
    )


def _retry_after(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


def _describe_unstructured(response: requests.Response, secrets: Iterable[str | None]) -> str:
    reason = response.reason or "error"
    text = response.text if response.content else ""
    if not text.strip():
        return f"{reason} (empty body)"
    # Redacted before anything reshapes or cuts it: a secret cut in two by the snippet's end
    # (or split by the markup and whitespace clean-up) would no longer match, and its first
    # part would survive.
    text = redact_text(text, secrets)
    text = re.sub(r"<[^>]*>", " ", text)
    text = " ".join(text.split())
    return f"{reason} (body is not JSON: {snippet(text)})"


def snippet(text: str, limit: int = _MAX_BODY_SNIPPET) -> str:
    """The first `limit` characters of already redacted text, "..." marking a cut."""
    return text if len(text) <= limit else text[:limit] + "..."


def redact_text(text: str, secrets: Iterable[str | None]) -> str:
    """`text` with every spelling of each secret (`secret_spellings`) replaced by ***."""
    for secret in secrets:
        if secret:
            for spelling in secret_spellings(secret):
                text = text.replace(spelling, _REDACTED)
    return text


@functools.lru_cache(maxsize=64)
def secret_spellings(secret: str) -> tuple[str, ...]:
    """The ways a secret shows up in text a client or server writes: as itself, URL-encoded
    (`quote` with its default `/` kept or not, `quote_plus`: a query string, a form body) and
    base64 (standard and URL-safe, padded or not). Longest first, so a spelling that holds
    another is replaced whole."""
    raw = secret.encode()
    encoded = {base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()}
    spellings = {
        secret,
        quote(secret),
        quote(secret, safe=""),
        quote_plus(secret),
        quote_plus(secret, safe=""),
        *encoded,
        *(spelling.rstrip("=") for spelling in encoded),
    }
    return tuple(sorted((s for s in spellings if s), key=len, reverse=True))


def is_gone(error: Exception) -> bool:
    """Whether the service says the object does not exist: 404, or (the public service, for a
    deleted job or run id) INVALID_PARAMETER_VALUE "... does not exist"."""
    return isinstance(error, NotFound) or (
        isinstance(error, InvalidParameter) and "does not exist" in error.message
    )
