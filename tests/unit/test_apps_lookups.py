"""The sample-app, metrics and flow root-group lookups against `responses`: typed results,
errors naming the URL and status, retries through the HTTP layer, no secrets in errors."""

from __future__ import annotations

import pytest
import responses

from providers import apps

APP = "https://app.example.net"
ADMIN = "https://admin.example.net"
FLOW = "https://flow.example.net/nifi-api"
PASSWORD = "flow-password-7731"
TOKEN = "eyJhbGciOiJIUzI1NiJ9.flow-token.sig"


def metric_entry(**overrides: float) -> dict:
    entry: dict = {name: 0.0 for name in apps.METRIC_NUMBER_FIELDS}
    entry.update(count=0, duration_units="seconds", rate_units="calls/second")
    entry.update(overrides)
    return entry


def root_entity() -> dict:
    return {
        "revision": {"version": 3},
        "id": "9f6c-root",
        "uri": f"{FLOW}/process-groups/9f6c-root",
        "component": {"id": "9f6c-root", "name": "NiFi Flow"},
        "runningCount": 2,
        "stoppedCount": 1,
    }


pytestmark = pytest.mark.usefixtures("no_retry_sleep")


@responses.activate
def test_sample_resource_value() -> None:
    responses.get(f"{APP}/my-resource", json={"value": 7})
    assert apps.find_sample_resource(APP + "/").value == 7.0


@responses.activate
def test_metrics_are_typed_per_timed_method() -> None:
    responses.get(
        f"{ADMIN}/metrics",
        match=[responses.matchers.query_param_matcher({"pretty": "true"})],
        json={"runTest": metric_entry(count=3, p99=0.25, m1_rate=0.5)},
    )
    metrics = apps.find_metrics(ADMIN)
    assert set(metrics) == {"runTest"}
    assert metrics["runTest"].count == 3
    assert metrics["runTest"].p99 == 0.25
    assert metrics["runTest"].duration_units == "seconds"


@responses.activate
def test_metric_entry_missing_a_field_names_it() -> None:
    broken = metric_entry()
    del broken["p99"]
    responses.get(f"{ADMIN}/metrics", json={"runTest": broken})
    with pytest.raises(apps.AppLookupError) as caught:
        apps.find_metrics(ADMIN)
    assert "runTest.p99" in str(caught.value)
    assert f"GET {ADMIN}/metrics: 200" in str(caught.value)


@responses.activate
def test_not_found_names_url_and_status() -> None:
    responses.get(f"{APP}/my-resource", status=404, body="no such thing")
    with pytest.raises(apps.AppLookupError) as caught:
        apps.find_sample_resource(APP)
    assert caught.value.status == 404
    assert str(caught.value).startswith(f"GET {APP}/my-resource: 404:")
    assert "no such thing" in str(caught.value)


@responses.activate
def test_server_errors_are_retried() -> None:
    url = f"{APP}/my-resource"
    responses.get(url, status=503)
    responses.get(url, json={"value": 1})
    assert apps.find_sample_resource(APP).value == 1
    assert len(responses.calls) == 2


@responses.activate
def test_persistent_server_error_surfaces_with_status() -> None:
    responses.get(f"{ADMIN}/metrics", status=500, body="boom")
    with pytest.raises(apps.AppLookupError) as caught:
        apps.find_metrics(ADMIN)
    assert caught.value.status == 500
    assert len(responses.calls) == apps.DEFAULT_POLICY.max_attempts


def test_unreachable_names_url_without_status() -> None:
    closed = "http://127.0.0.1:9"
    with pytest.raises(apps.AppLookupError) as caught:
        apps.find_sample_resource(
            closed, allow_insecure_http=True,
            policy=apps.http.CallPolicy(timeout_seconds=2, max_attempts=1),
        )
    assert caught.value.status is None
    assert f"GET {closed}/my-resource: no response" in str(caught.value)


def test_plain_http_refused_unless_allowed() -> None:
    with pytest.raises(apps.AppLookupError) as caught:
        apps.find_sample_resource("http://127.0.0.1:1")
    assert "allow_insecure_http" in str(caught.value)


@responses.activate
def test_root_group_logs_in_and_sends_the_bearer_token() -> None:
    login = responses.post(
        f"{FLOW}/access/token",
        match=[responses.matchers.urlencoded_params_matcher(
            {"username": "svc", "password": PASSWORD})],
        body=TOKEN, status=201, content_type="text/plain",
    )
    group = responses.get(
        f"{FLOW}/process-groups/root",
        match=[responses.matchers.header_matcher({"Authorization": f"Bearer {TOKEN}"})],
        json=root_entity(),
    )
    root = apps.find_root_process_group(FLOW, "svc", PASSWORD)
    assert root.name == "NiFi Flow"
    assert root.id == "9f6c-root"
    assert (root.version, root.running_count, root.stopped_count) == (3, 2, 1)
    assert login.call_count == 1 and group.call_count == 1


@responses.activate
def test_refused_login_names_url_and_status_without_the_password() -> None:
    responses.post(
        f"{FLOW}/access/token", status=400,
        body=f"The supplied username and password are not valid: {PASSWORD}",
    )
    with pytest.raises(apps.AppLookupError) as caught:
        apps.find_root_process_group(FLOW, "svc", PASSWORD)
    message = str(caught.value)
    assert message.startswith(f"POST {FLOW}/access/token: 400:")
    assert "not valid" in message
    assert PASSWORD not in message


@responses.activate
def test_rejected_token_names_url_and_status_without_the_token() -> None:
    responses.post(f"{FLOW}/access/token", body=TOKEN, status=201)
    responses.get(
        f"{FLOW}/process-groups/root", status=401,
        body=f"Unauthorized {TOKEN}", headers={"WWW-Authenticate": "Bearer"},
    )
    with pytest.raises(apps.AppLookupError) as caught:
        apps.find_root_process_group(FLOW, "svc", PASSWORD)
    message = str(caught.value)
    assert message.startswith(f"GET {FLOW}/process-groups/root: 401:")
    assert TOKEN not in message and PASSWORD not in message


@responses.activate
def test_root_group_without_component_is_an_unexpected_response() -> None:
    responses.post(f"{FLOW}/access/token", body=TOKEN, status=201)
    responses.get(f"{FLOW}/process-groups/root", json={"id": "x"})
    with pytest.raises(apps.AppLookupError, match="process group entity"):
        apps.find_root_process_group(FLOW, "svc", PASSWORD)
