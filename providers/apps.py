"""Lookups on the services beside the platform: the sample application's resource, its
metrics, and the flow controller's root process group (docs/api.md#metrics, #flow-controller).

These are not platform calls: no workspace token. The sample application and its admin
address take no credentials; the flow controller wants a bearer token from its own login
(``POST {flow_api_base}/access/token``) on every call. Calls go through the one HTTP layer
(providers.client.http: timeouts, retries on 429/5xx and dropped connections). Errors name
the method, the URL (never a query string) and the status; the flow password and token are
scrubbed from every message.

In a program, the `get_*` functions take plain values or Outputs and return an Output of a
plain dict, like providers.lookups; they run in preview as well as in up, once their inputs
are known. The results hold no credential and are plain (non-secret) Outputs even when the
flow password is a secret. The `find_*` functions return the pydantic models, for code
outside a program (the health gate, scripts):

    root = apps.get_root_process_group(flow_api_base, username, config.require_secret("pw"))
    pulumi.export("flow_root", root.apply(lambda group: group["name"]))
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pulumi
import requests
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from providers.client import http
from providers.client.blocking import in_thread
from providers.client.connection import require_secure_url
from providers.client.errors import (
    RedirectRefused,
    WorkspaceUnreachable,
    redact_text,
    snippet,
)

DEFAULT_POLICY = http.CallPolicy(timeout_seconds=30.0, max_attempts=4, max_retry_seconds=60.0)

METRIC_NUMBER_FIELDS = (
    "max",
    "mean",
    "min",
    "stddev",
    "p50",
    "p75",
    "p95",
    "p98",
    "p99",
    "p999",
    "m1_rate",
    "m5_rate",
    "m15_rate",
    "mean_rate",
)
METRIC_FIELDS = ("count", *METRIC_NUMBER_FIELDS)


class AppLookupError(Exception):
    """A lookup on the sample application or the flow controller failed."""

    def __init__(self, method: str, url: str, status: int | None, reason: str) -> None:
        self.method = method
        self.url = url
        self.status = status
        self.reason = reason
        status_text = "no response" if status is None else str(status)
        super().__init__(f"{method} {url}: {status_text}: {reason}")


class SampleResource(BaseModel):
    model_config = ConfigDict(frozen=True)

    value: float


class MetricEntry(BaseModel):
    """One timed method's statistics; durations in ``duration_units`` (seconds)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    count: int = Field(ge=0)
    max: float
    mean: float
    min: float
    stddev: float
    p50: float
    p75: float
    p95: float
    p98: float
    p99: float
    p999: float
    m1_rate: float
    m5_rate: float
    m15_rate: float
    mean_rate: float
    duration_units: str
    rate_units: str


class RootProcessGroup(BaseModel):
    """The flow controller's root process group: the fields a stack reports on."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    uri: str | None = None
    version: int | None = None
    running_count: int = 0
    stopped_count: int = 0
    invalid_count: int = 0
    disabled_count: int = 0


def find_sample_resource(
    app_url: str, *, allow_insecure_http: bool = False, policy: http.CallPolicy = DEFAULT_POLICY
) -> SampleResource:
    """``GET {app_url}/my-resource`` -> ``{value}``."""
    url = _join(app_url, "/my-resource", "app_url", allow_insecure_http)
    body = _get_json(url, policy=policy)
    return _parse(SampleResource, body, "GET", url)


def find_metrics(
    admin_url: str, *, allow_insecure_http: bool = False, policy: http.CallPolicy = DEFAULT_POLICY
) -> dict[str, MetricEntry]:
    """``GET {admin_url}/metrics?pretty=true`` -> one entry per timed method, by name."""
    url = _join(admin_url, "/metrics", "admin_url", allow_insecure_http)
    body = _get_json(url, policy=policy, params={"pretty": "true"})
    if not isinstance(body, dict):
        raise AppLookupError("GET", url, 200, "expected a JSON object keyed by metric name")
    return {
        name: _parse(MetricEntry, entry, "GET", url, f"{name}.") for name, entry in body.items()
    }


def flow_login(
    flow_api_base: str,
    username: str,
    password: str,
    *,
    allow_insecure_http: bool = False,
    policy: http.CallPolicy = DEFAULT_POLICY,
) -> str:
    """``POST {flow_api_base}/access/token`` with the form credentials -> the bearer token."""
    url = _join(flow_api_base, "/access/token", "flow_api_base", allow_insecure_http)
    # A repeated login only issues a second token, so retrying it is safe.
    response = _send(
        "POST",
        url,
        policy=policy,
        secrets=(password,),
        data={"username": username, "password": password},
        idempotent=True,
    )
    _raise_for_status(response, "POST", url, secrets=(password,))
    token = response.text.strip()
    if not token:
        raise AppLookupError("POST", url, response.status_code, "the login returned no token")
    return token


def find_root_process_group(
    flow_api_base: str,
    username: str,
    password: str,
    *,
    allow_insecure_http: bool = False,
    policy: http.CallPolicy = DEFAULT_POLICY,
) -> RootProcessGroup:
    """Logs in, then ``GET {flow_api_base}/process-groups/root`` with the bearer token."""
    token = flow_login(
        flow_api_base, username, password, allow_insecure_http=allow_insecure_http, policy=policy
    )
    url = _join(flow_api_base, "/process-groups/root", "flow_api_base", allow_insecure_http)
    secrets = (password, token)
    response = _send(
        "GET", url, policy=policy, secrets=secrets, headers={"Authorization": f"Bearer {token}"}
    )
    _raise_for_status(response, "GET", url, secrets=secrets)
    body = _json(response, "GET", url)
    return root_group_from_entity(body, url)


def root_group_from_entity(entity: Any, url: str) -> RootProcessGroup:
    """The typed root group from a ProcessGroupEntity body."""
    if not isinstance(entity, dict) or not isinstance(entity.get("component"), dict):
        raise AppLookupError("GET", url, 200, "expected a process group entity with a component")
    component = entity["component"]
    revision = entity.get("revision")
    revision = revision if isinstance(revision, dict) else {}
    fields = {
        "id": entity.get("id") or component.get("id"),
        "name": component.get("name"),
        "uri": entity.get("uri"),
        "version": revision.get("version"),
        "running_count": entity.get("runningCount", 0),
        "stopped_count": entity.get("stoppedCount", 0),
        "invalid_count": entity.get("invalidCount", 0),
        "disabled_count": entity.get("disabledCount", 0),
    }
    return _parse(RootProcessGroup, fields, "GET", url)


def _join(base: str, path: str, field: str, allow_insecure_http: bool) -> str:
    try:
        base = require_secure_url(base, allow_insecure_http=allow_insecure_http, field=field)
    except ValueError as exc:
        raise AppLookupError("GET", base, None, str(exc)) from None
    return base + path


def _send(
    method: str,
    url: str,
    *,
    policy: http.CallPolicy,
    secrets: tuple[str, ...] = (),
    idempotent: bool = True,
    **kwargs: Any,
) -> requests.Response:
    try:
        return http.send(
            method, url, policy=policy, idempotent=idempotent, secrets=secrets, **kwargs
        )
    except WorkspaceUnreachable as exc:
        raise AppLookupError(method, url, None, f"{exc.code}: {exc.message}") from None
    except RedirectRefused as exc:  # never followed: it would re-send the flow password
        raise AppLookupError(method, url, exc.status, f"{exc.code}: {exc.message}") from None


def _get_json(url: str, *, policy: http.CallPolicy, params: dict[str, str] | None = None) -> Any:
    response = _send("GET", url, policy=policy, params=params)
    _raise_for_status(response, "GET", url)
    return _json(response, "GET", url)


def _raise_for_status(
    response: requests.Response, method: str, url: str, secrets: tuple[str, ...] = ()
) -> None:
    if response.ok:
        return
    # Redacted, then cut: a secret straddling the cut would leave its first part behind.
    text = redact_text(response.text, secrets) if response.content else ""
    text = snippet(" ".join(text.split()))
    reason = redact_text(response.reason or "error", secrets)
    detail = f"{reason} ({text})" if text else reason
    raise AppLookupError(method, url, response.status_code, detail)


def _json(response: requests.Response, method: str, url: str) -> Any:
    try:
        return response.json()
    except ValueError:
        raise AppLookupError(
            method, url, response.status_code, "the response body is not JSON"
        ) from None


def _parse(model: type[Any], body: Any, method: str, url: str, prefix: str = "") -> Any:
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        problems = "; ".join(
            f"{prefix}{'.'.join(str(p) for p in error['loc']) or 'body'}: {error['msg']}"
            for error in exc.errors()
        )
        raise AppLookupError(method, url, 200, f"unexpected response: {problems}") from None


# --- in a program: Outputs ---------------------------------------------------------------


def get_sample_resource(
    app_url: pulumi.Input[str], *, allow_insecure_http: bool = False
) -> pulumi.Output[dict[str, Any]]:
    """The sample resource (`{value}`) as an Output."""
    return _lookup(
        lambda url: find_sample_resource(url, allow_insecure_http=allow_insecure_http).model_dump(),
        app_url,
    )


def get_metrics(
    admin_url: pulumi.Input[str], *, allow_insecure_http: bool = False
) -> pulumi.Output[dict[str, Any]]:
    """The metrics, `{name: {count, p99, ...}}`, as an Output."""
    return _lookup(
        lambda url: {
            name: entry.model_dump()
            for name, entry in find_metrics(url, allow_insecure_http=allow_insecure_http).items()
        },
        admin_url,
    )


def get_root_process_group(
    flow_api_base: pulumi.Input[str],
    username: pulumi.Input[str],
    password: pulumi.Input[str],
    *,
    allow_insecure_http: bool = False,
) -> pulumi.Output[dict[str, Any]]:
    """The flow controller's root process group (`{id, name, ...}`) as an Output."""
    return _lookup(
        lambda base, user, secret: find_root_process_group(
            base, user, secret, allow_insecure_http=allow_insecure_http
        ).model_dump(),
        flow_api_base,
        username,
        password,
    )


def _lookup(
    find: Callable[..., dict[str, Any]], *inputs: pulumi.Input[Any]
) -> pulumi.Output[dict[str, Any]]:
    found: pulumi.Output[dict[str, Any]] = pulumi.Output.all(*inputs).apply(
        lambda values: in_thread(_run, find, values)
    )
    # The results carry no credential, only the password that went in was secret.
    result = pulumi.Output.unsecret(found)
    _report_failure_once(result)
    return result


def _report_failure_once(output: pulumi.Output[Any]) -> None:
    # A failure reaches the program through the value; asyncio would print the unawaited
    # "is known" twin again at exit, traceback and all.
    def consume(task: asyncio.Future[Any]) -> None:
        if not task.cancelled():
            task.exception()

    asyncio.ensure_future(output.is_known()).add_done_callback(consume)


def _run(find: Callable[..., dict[str, Any]], values: list[Any]) -> dict[str, Any]:
    try:
        return find(*values)
    except AppLookupError as exc:
        raise AppLookupFailed(str(exc)) from None


class AppLookupFailed(pulumi.RunError):
    """A lookup in a program failed; fails the preview or up with the call's message."""
