"""The health gate's config validation and threshold checks (no engine, no network)."""

from __future__ import annotations

import json

import pytest
import yaml

from providers.apps import METRIC_NUMBER_FIELDS, MetricEntry
from stacks.errors import ConfigError
from stacks.health import evaluate, flow_password
from stacks.health_settings import Threshold, parse_settings, problems
from stacks.pulumi_cli import REPO_ROOT

URLS = {
    "appUrl": "http://127.0.0.1:1",
    "adminUrl": "http://127.0.0.1:2",
    "flowApiBase": "http://127.0.0.1:3/nifi-api",
}


def entry(**values: float) -> MetricEntry:
    fields: dict = dict.fromkeys(METRIC_NUMBER_FIELDS, 0.0)
    fields.update(count=0, duration_units="seconds", rate_units="calls/second")
    fields.update(values)
    return MetricEntry(**fields)


def test_settings_parse_with_thresholds() -> None:
    settings = parse_settings(
        {**URLS, "flowUsername": "svc", "thresholds": [{"metric": "runTest", "field": "p99",
                                                        "max": 0.5}]}
    )
    assert settings.flow_api_base == URLS["flowApiBase"]
    assert settings.thresholds == [Threshold(metric="runTest", field="p99", max=0.5)]


@pytest.mark.parametrize(
    ("raw", "key", "reason"),
    [
        ({**URLS, "appUrl": None}, "workspace:health.appUrl", "valid string"),
        ({"adminUrl": "x", "flowApiBase": "y"}, "workspace:health.appUrl", "Field required"),
        ({**URLS, "thresholds": [{"metric": "runTest", "field": "p100", "max": 1}]},
         "workspace:health.thresholds[0].field", "'p100'"),
        ({**URLS, "thresholds": [{"metric": "runTest", "field": "p99"}]},
         "workspace:health.thresholds[0]", "give `max`, `min` or both"),
        ({**URLS, "thresholds": [{"metric": "runTest", "field": "p99", "min": 2, "max": 1}]},
         "workspace:health.thresholds[0]", "min 2 is above max 1"),
        ("not an object", "workspace:health", "must be an object"),
    ],
)
def test_bad_settings_name_the_key_and_reason(raw: object, key: str, reason: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings(raw)
    assert str(caught.value).startswith(key)
    assert reason in str(caught.value)


def test_unknown_key_is_named_but_its_value_never_shown() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings({**URLS, "flowPassword": "s3cret-value"})
    assert "workspace:health.flowPassword" in str(caught.value)
    assert "s3cret-value" not in str(caught.value)


def test_evaluate_reports_every_threshold_and_names_failures() -> None:
    thresholds = [
        Threshold(metric="runTest", field="p99", max=0.5),
        Threshold(metric="runTest", field="count", min=10),
        Threshold(metric="runTest", field="mean", max=1.0),
        Threshold(metric="other", field="p99", max=1.0),
    ]
    checks, failures = evaluate(thresholds, {"runTest": entry(p99=0.75, count=3, mean=0.1)},
                                "http://admin/metrics")
    assert [(c["field"], c["observed"], c["passed"]) for c in checks] == [
        ("p99", 0.75, False), ("count", 3.0, False), ("mean", 0.1, True)]
    assert failures == [
        "runTest.p99 = 0.75 exceeds max 0.5",
        "runTest.count = 3 is below min 10",
        "thresholds[3].metric 'other' is not reported by http://admin/metrics "
        "(reported: runTest)",
    ]


def test_the_local_stacks_health_config_is_valid() -> None:
    local = yaml.safe_load((REPO_ROOT / "Pulumi.local.yaml").read_text())["config"]
    settings = parse_settings(local["workspace:health"])
    assert settings.flow_api_base.endswith("/nifi-api")
    assert [t.metric for t in settings.thresholds] == ["runTest"]


def test_config_problems_include_the_health_settings_and_a_plain_password() -> None:
    values = {
        "health": json.dumps({**URLS, "thresholds": [{"metric": "runTest", "field": "p100",
                                                      "max": 1}]}),
        "flowPassword": "in-plain-text",
    }
    found = problems(values, secret_keys=())
    assert found[0].startswith("workspace:flowPassword: stored in plain text")
    assert found[1].startswith("workspace:health.thresholds[0].field")
    assert problems(values | {"health": json.dumps(URLS)}, secret_keys={"flowPassword"}) == []
    assert problems({"health": "not json"}) == ["workspace:health must be an object"]


FLOW_PASSWORD_REQUIRED = (
    "workspace:flowPassword: required: the flow controller at {base} gets a credential of its "
    "own, never the workspace's client secret (that default holds for a loopback address, "
    "the emulator, only); set it with `pulumi config set --secret workspace:flowPassword "
    "<password>`"
)


@pytest.mark.parametrize(
    "base", ["https://flow.example.net/nifi-api", "https://10.0.0.7:8443/nifi-api"]
)
def test_the_client_secret_goes_to_no_other_flow_controller_than_a_loopback_one(
    base: str,
) -> None:
    remote = {**URLS, "appUrl": "https://app.example.net", "flowApiBase": base}
    assert problems({"health": json.dumps(remote)}) == [FLOW_PASSWORD_REQUIRED.format(base=base)]
    encrypted = {"secure": "v1:x:y"}
    assert problems({"health": remote, "flowPassword": encrypted}, {"flowPassword"}) == []
    # the emulator's flow controller, on loopback, takes the client secret
    for loopback in ("http://127.0.0.1:3/nifi-api", "http://localhost:3/nifi-api",
                     "http://[::1]:3/nifi-api"):
        assert problems({"health": {**URLS, "flowApiBase": loopback}}) == []


def test_the_gate_never_sends_the_client_secret_elsewhere() -> None:
    remote = parse_settings({**URLS, "flowApiBase": "https://flow.example.net/nifi-api"})
    with pytest.raises(ConfigError, match="workspace:flowPassword: required"):
        flow_password(remote, flow_password=None, client_secret="the-client-secret")
    assert flow_password(remote, flow_password="own", client_secret="the-client-secret") == "own"
    local = parse_settings(URLS)
    assert flow_password(local, flow_password=None, client_secret="cs") == "cs"
