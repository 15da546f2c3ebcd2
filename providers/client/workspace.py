"""The workspace REST client the providers use: JSON in, JSON out (raw bytes for the Files
API: `transfer`), typed errors.

A client holds only its connection and wire profile; tokens, sessions, rate limiters and
the writes sent are in the process state (process.py), shared by every client in the process.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, BinaryIO
from urllib.parse import urlsplit

import requests
from requests.auth import AuthBase

from providers.client import http, ratelimit, retry, sign_in
from providers.client.connection import Connection, is_loopback_host
from providers.client.errors import THROTTLING_CODES, WorkspaceError, error_from_response
from providers.client.permissions import PermissionsApi
from providers.client.process import Store
from providers.client.token import tokens
from providers.client.token_request import MANAGEMENT_RESOURCE, AccessToken
from providers.client.wire import SCIM_ME, WireProfile, profile

# The management-token variant's headers (docs/workspace-auth.md#the-management-token).
MANAGEMENT_TOKEN_HEADER = "X-Databricks-Azure-SP-Management-Token"
WORKSPACE_RESOURCE_ID_HEADER = "X-Databricks-Azure-Workspace-Resource-Id"
# The DNS zones of Azure workspaces (public, US government and China clouds): the only hosts,
# besides a literal loopback one (the emulator), a management token is ever sent to.
AZURE_WORKSPACE_ZONES = (".azuredatabricks.net", ".databricks.azure.us", ".databricks.azure.cn")
OCTET_STREAM = "application/octet-stream"

# Opens the raw bytes a call sends (`WorkspaceClient.transfer`), once per time it is sent.
Content = Callable[[], AbstractContextManager[BinaryIO]]


@dataclass(frozen=True)
class _Payload:
    """What one call sends and how it takes the answer: a JSON body, or raw bytes
    (`content`); `stream`: the answer's body left unread."""

    body: dict[str, Any] | None
    content: Content | None = None
    stream: bool = False


@dataclass(frozen=True)
class Credentials:
    """What a call carries: the platform token and, where the connection names the
    workspace's Azure resource, the management token with it."""

    platform: AccessToken
    management: AccessToken | None = None
    workspace_resource_id: str | None = None

    def values(self) -> tuple[str, ...]:
        return tuple(t.value for t in (self.platform, self.management) if t is not None)


class BearerAuth(AuthBase):
    """Sets the bearer header (and the management headers); also keeps requests from
    replacing them with .netrc credentials."""

    def __init__(self, credentials: Credentials) -> None:
        self._credentials = credentials

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        credentials = self._credentials
        request.headers["Authorization"] = f"Bearer {credentials.platform.value}"
        if credentials.management is not None and credentials.workspace_resource_id:
            request.headers[MANAGEMENT_TOKEN_HEADER] = credentials.management.value
            request.headers[WORKSPACE_RESOURCE_ID_HEADER] = credentials.workspace_resource_id
        return request

    def __repr__(self) -> str:
        return "BearerAuth(***)"


def credentials_for(connection: Connection, *, admission: bool = False) -> Credentials:
    """The tokens a call of this connection carries now (from the cache). The management
    token only for `admission` (the call the workspace refused with 401 without it, sent
    again: a principal that is not a member yet is added by it), only to an Azure
    workspace's host (`may_carry_the_management_token`), and only where the principal
    signing in is the stack's own: a CI preview's read-only principal (sign_in.acting)
    never sends one, so a preview never admits anyone."""
    platform = tokens().get(connection)
    if not (admission and may_carry_the_management_token(connection)):
        return Credentials(platform)
    return Credentials(
        platform,
        tokens().get(connection, MANAGEMENT_RESOURCE),
        connection.azure_workspace_resource_id,
    )


def may_carry_the_management_token(connection: Connection) -> bool:
    """Whether the connection names the workspace's Azure resource, signs in as the stack's
    own principal, and points at an Azure workspace's host (or the emulator on loopback)."""
    if sign_in.acting(connection).azure_workspace_resource_id is None:
        return False
    host = (urlsplit(connection.base_url).hostname or "").lower()
    return host.endswith(AZURE_WORKSPACE_ZONES) or is_loopback_host(host)


def invalidate(connection: Connection, stale: Credentials) -> None:
    tokens().invalidate(connection, stale=stale.platform)
    if stale.management is not None:
        tokens().invalidate(connection, MANAGEMENT_RESOURCE, stale=stale.management)


class WorkspaceClient:
    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        # The id of the account the workspace belongs to, where the caller knows it (no
        # workspace call tells it): the audit and adopt set it from `workspace:accountId`
        # to list the service principals' rule sets, which are named by it.
        self.account_id: str | None = connection.account_id
        # The account's own connection, where the caller has one (the audit and adopt, from
        # `workspace:accountHost` and `workspace:accountId`): the account-level kinds are
        # listed and read through it.
        self.account: WorkspaceClient | None = None
        self.wire: WireProfile = profile(connection.wire_form)
        self._policy = http.CallPolicy(
            timeout_seconds=connection.timeout_seconds,
            max_attempts=connection.max_attempts,
            max_retry_seconds=connection.max_retry_seconds,
        )

    def me(self) -> dict[str, Any]:
        """Whoever the call's credentials stand for (a user or a service principal)."""
        return self.get(SCIM_ME)

    def prove(self) -> None:
        """One read only the credentials' principal can make: who it is (SCIM Me) in a
        workspace; in the account (an account connection, whose host has no Me), a page
        of one of its groups."""
        account_id = self.connection.account_id
        if account_id is None:
            self.me()
        else:
            self.get(f"/api/2.0/accounts/{account_id}/scim/v2/Groups", {"count": 1})

    def permissions(self, object_type: str) -> PermissionsApi:
        """The permissions area for objects of `object_type` (`clusters`, `notebooks`, ...)."""
        return PermissionsApi(self, object_type)

    def __repr__(self) -> str:
        return f"WorkspaceClient({self.connection.base_url!r}, wire={self.wire.form.value})"

    def get(self, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self._call("GET", path, params=params)

    def post(
        self, path: str, body: dict[str, Any] | None = None, *, idempotent: bool = False
    ) -> dict[str, Any]:
        """POST; pass ``idempotent=True`` only for calls that are safe to repeat (see http)."""
        return self._call("POST", path, body=body, idempotent=idempotent)

    def put(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._call("PUT", path, body=body)

    def patch(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._call("PATCH", path, body=body)

    def delete(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        return self._call("DELETE", path, body=body)

    def request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        params: dict[str, Any] | None = None,
        idempotent: bool = False,
    ) -> dict[str, Any]:
        """Any method by name, for wire-dependent verbs (e.g. ``wire.repo_update_method``)."""
        return self._call(method, path, params=params, body=body, idempotent=idempotent)

    def transfer(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        content: Content | None = None,
        stream: bool = False,
    ) -> requests.Response:
        """A call whose request body or answer is raw bytes, not JSON (the Files API):
        `content` opens the bytes to send, afresh for each time the call is sent (a file,
        read by the transport in blocks, never whole); `stream` leaves the answer's body
        unread, for the caller to read in chunks and close. Errors raise as for JSON calls."""
        return self._exchange(method, path, params=params, content=content, stream=stream,
                              idempotent=True)

    def _call(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        body: dict[str, Any] | None = None,
        idempotent: bool = True,
    ) -> dict[str, Any]:
        return _json_body(
            self._exchange(method, path, params=params, body=body, idempotent=idempotent))

    def _exchange(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        body: dict[str, Any] | None = None,
        content: Content | None = None,
        stream: bool = False,
        idempotent: bool = True,
    ) -> requests.Response:
        self._url(path)  # refuses anything but a path before a token is fetched
        token = credentials_for(self.connection)
        writes = method.upper() not in READ_METHODS
        sent = _Payload(body, content, stream)
        if writes:
            _count_write(self.connection.base_url)
        try:
            response = self._send(method, path, token, params, sent, idempotent)
            if response.status_code == 401:
                # Revoked or rotated before its expiry: one more try with a fresh token; for a
                # principal the workspace does not know yet, with the management token
                # where the stack names the workspace's Azure resource (admission).
                invalidate(self.connection, token)
                token = credentials_for(self.connection, admission=True)
                response = self._send(method, path, token, params, sent, idempotent)
            response = self._retry_throttled(
                method, path, token, params, sent, idempotent, response
            )
        finally:
            if writes:  # counted on both sides: a listing taken meanwhile may miss it
                _count_write(self.connection.base_url)
        if not response.ok:
            raise error_from_response(response, secrets=self._secrets(token, body))
        return response

    def _send(
        self,
        method: str,
        path: str,
        token: Credentials,
        params: dict[str, Any] | None,
        sent: _Payload,
        idempotent: bool,
    ) -> requests.Response:
        def send(**payload: Any) -> requests.Response:
            return http.send(
                method,
                self._url(path),
                policy=self._policy,
                idempotent=idempotent,
                rate_limit_key=f"{self.connection.base_url} {ratelimit.endpoint_family(path)}",
                rate_limit_per_second=self.connection.rate_limit_per_second,
                secrets=self._secrets(token, sent.body),
                params=params,
                auth=BearerAuth(token),
                **payload,
            )

        # `stream` only where set: requests reads the environment's proxy settings afresh
        # for any call that passes it (http._Session keeps them for the others).
        streamed = {"stream": True} if sent.stream else {}
        if sent.content is None:
            return send(json=sent.body, **streamed)
        with sent.content() as data:
            return send(data=data, headers={"Content-Type": OCTET_STREAM}, **streamed)

    def _retry_throttled(
        self,
        method: str,
        path: str,
        token: Credentials,
        params: dict[str, Any] | None,
        sent: _Payload,
        idempotent: bool,
        response: requests.Response,
    ) -> requests.Response:
        """A throttling code (REQUEST_LIMIT_EXCEEDED, TEMPORARILY_UNAVAILABLE) is retried
        whatever the status it comes with, within the call's attempts and time budget. The
        transport retries by status alone, so here are only the answers it did not retry:
        any status of an idempotent call outside its retried ones (a 400 REQUEST_LIMIT_EXCEEDED),
        and under 500 for a create; a create's 5xx is an uncertain outcome, which only the
        kind may follow up, by looking the object up first (providers/core/create_or_adopt.py)."""
        idempotent = idempotent or method.upper() != "POST"
        transport_retries = (
            http.RETRY_STATUSES if idempotent else http.NON_IDEMPOTENT_RETRY_STATUSES
        )
        started = retry.monotonic()
        for attempt in range(1, self.connection.max_attempts):
            status = response.status_code
            if response.ok or status in transport_retries or (not idempotent and status >= 500):
                break
            if _error_code(response) not in THROTTLING_CODES:
                break
            delay = _retry_after(response)
            if delay is None:
                delay = http.BACKOFF_FACTOR * 2 ** (attempt - 1)
            if retry.monotonic() - started + delay > self.connection.max_retry_seconds:
                break
            retry.sleep(delay)
            response = self._send(method, path, token, params, sent, idempotent)
        return response

    def _secrets(self, credentials: Credentials, body: Any = None) -> tuple[str, ...]:
        """What error text must never show: the call's tokens, the connection's secret and
        every secret the request's body carries (`secrets_in_body`)."""
        return (*credentials.values(), *self.connection.secret_values(), *secrets_in_body(body))

    def _url(self, path: str) -> str:
        # Only paths: the bearer token must never go to another host.
        if not path.startswith("/") or path.startswith("//"):
            raise ValueError(f"path must start with a single '/', got {path!r}")
        return self.connection.base_url + path


def _error_code(response: requests.Response) -> str | None:
    try:
        body = json.loads(response.content) if response.content else None
    except ValueError:
        return None
    return str(body.get("error_code")) if isinstance(body, dict) else None


def _retry_after(response: requests.Response) -> float | None:
    try:
        return max(0.0, float(response.headers["Retry-After"]))
    except (KeyError, ValueError):
        return None


def _json_body(response: requests.Response) -> dict[str, Any]:
    if response.status_code == 204 or not response.content.strip():
        return {}
    try:
        body = json.loads(response.content)
    except ValueError:
        body = None
    if not isinstance(body, dict):
        request = response.request
        raise WorkspaceError(
            status=response.status_code,
            code="INVALID_RESPONSE",
            message="expected a JSON object in the response body",
            method=(request.method if request is not None else None) or "?",
            path=urlsplit(response.url).path,
        )
    return body


# Request-body fields that hold a secret, wherever they sit in the body: a Git credential's
# token, a credential's client secret (Azure service principal), a secret's value, a
# password. Their values are removed from the text of any error the call raises.
SECRET_BODY_FIELDS = frozenset(
    {"personal_access_token", "client_secret", "string_value", "bytes_value", "password"}
)


def secrets_in_body(body: Any) -> tuple[str, ...]:
    """The values of SECRET_BODY_FIELDS anywhere in a JSON body."""
    found: list[str] = []
    stack = [body]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key in SECRET_BODY_FIELDS and isinstance(value, str) and value:
                    found.append(value)
                elif isinstance(value, (dict, list)):
                    stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)
    return tuple(found)

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class WriteCounts:
    """Writes sent to each workspace by this process (each counted as it starts and as it
    ends): a listing kept to answer reads (`listing.Listing`) is used only while this has not
    moved."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_workspace: dict[str, int] = {}


writes = Store("writes sent", WriteCounts)


def _count_write(base_url: str) -> None:
    held = writes()
    with held.lock:
        held.by_workspace[base_url] = held.by_workspace.get(base_url, 0) + 1


def writes_sent(base_url: str) -> int:
    """How many write events this process has sent to the workspace at `base_url`."""
    held = writes()
    with held.lock:
        return held.by_workspace.get(base_url, 0)


class Clients:
    """A process's clients, one per connection (by its identity without the secret)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_connection: dict[tuple[Any, ...], WorkspaceClient] = {}


clients = Store("clients", Clients)


def client_for(connection: Connection) -> WorkspaceClient:
    """The shared client for this connection (a changed secret replaces the cached client)."""
    key = connection.cache_key()
    held = clients()
    with held.lock:
        client = held.by_connection.get(key)
        if client is None or client.connection != connection:
            client = held.by_connection[key] = WorkspaceClient(connection)
        return client
