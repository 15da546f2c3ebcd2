"""The personal access tokens area of the REST API: the caller's own tokens
(`/api/2.0/token/...`), and tokens an admin makes on behalf of a service principal (token
management, `/api/2.0/token-management/...`).

A token's value comes in the create's answer and nowhere else: the lists show its id, times
and comment. So the value is handed back to the caller and never goes into an error. Each
read also gives the service's time (the answer's Date header), against which a token's
expiry is judged.
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager
from email.utils import parsedate_to_datetime
from typing import Any, Protocol
from urllib.parse import quote

import requests

from providers.client.calls import Calls
from providers.client.errors import WorkspaceError

OWN_PATH = "/api/2.0/token"
MANAGEMENT_PATH = "/api/2.0/token-management"
# What a create's answer must hold: the token's value and its info with its id.
INVALID_RESPONSE = "INVALID_RESPONSE"
# Module-level: inside the class `list` names its method.
Objects = list[dict[str, Any]]


class TokenCalls(Calls, Protocol):
    def transfer(self, method: str, path: str, *, params: dict[str, Any] | None = None,
                 content: Any = None, stream: bool = False) -> requests.Response: ...


class TokensApi:
    def __init__(self, client: TokenCalls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"TokensApi({self.client!r})"

    def create(self, lifetime_seconds: int | None, comment: str | None,
               application_id: str | None = None) -> dict[str, Any]:
        """A new token, `{token_value, token_info}`: the caller's own, or (application_id)
        a service principal's. Not repeated after a lost answer: a second try makes a
        second token."""
        body: dict[str, Any] = {key: value for key, value in (
            ("lifetime_seconds", lifetime_seconds), ("comment", comment),
            ("application_id", application_id)) if value is not None}
        path = (f"{MANAGEMENT_PATH}/on-behalf-of/tokens" if application_id
                else f"{OWN_PATH}/create")
        answer = self.client.post(path, body)
        info = answer.get("token_info") or {}
        if not answer.get("token_value") or not info.get("token_id"):
            raise WorkspaceError(status=200, code=INVALID_RESPONSE, method="POST", path=path,
                                 message="the created token's answer has no value or no id")
        return answer

    def find(self, token_id: str, on_behalf: bool) -> tuple[dict[str, Any] | None, float]:
        """(the token's info, None where it is gone or expired; the service's time, in
        seconds since the epoch)."""
        if on_behalf:
            path = f"{MANAGEMENT_PATH}/tokens/{quote(token_id, safe='')}"
            with _closing(self.client.transfer("GET", path)) as response:
                return (response.json().get("token_info") or None), _service_time(response)
        with _closing(self.client.transfer("GET", f"{OWN_PATH}/list")) as response:
            infos = response.json().get("token_infos") or []
            found = next((t for t in infos if t.get("token_id") == token_id), None)
            return found, _service_time(response)

    def own(self) -> Objects:
        """The caller's own unexpired tokens."""
        return self.client.get(f"{OWN_PATH}/list").get("token_infos") or []

    def list(self) -> Objects:
        """Every unexpired token of the workspace (token management: admins), with its
        owner_id and who made it."""
        return self.client.get(f"{MANAGEMENT_PATH}/tokens").get("token_infos") or []

    def delete(self, token_id: str, on_behalf: bool) -> None:
        if on_behalf:
            self.client.delete(f"{MANAGEMENT_PATH}/tokens/{quote(token_id, safe='')}")
        else:
            self.client.post(f"{OWN_PATH}/delete", {"token_id": token_id}, idempotent=True)


def _closing(response: requests.Response) -> AbstractContextManager[requests.Response]:
    return response  # a Response closes itself as a context manager


def _service_time(response: requests.Response) -> float:
    """The service's time from the answer's Date header; the local clock where it has none."""
    date = response.headers.get("Date")
    try:
        return parsedate_to_datetime(date).timestamp() if date else time.time()
    except (TypeError, ValueError):
        return time.time()
