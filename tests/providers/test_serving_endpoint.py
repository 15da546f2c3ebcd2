"""ServingEndpoint against an emulator on a manual clock whose endpoints take 10 s per
config (the provider's waits move that clock), in both wire forms: validation by field,
the lifecycle (create waited for until READY with progress, a served version change as one
config update, AI gateway and tags in place), the pending-config rule, drift shown by
refresh, import by name, adoption after a lost answer, a name taken."""

from __future__ import annotations

import uuid
from typing import Any

import pulumi
import pytest

from providers.client import AlreadyExists, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.serving.serving_endpoint import ServingEndpointProvider, ServingStateError
from providers.serving.serving_endpoints_api import ENDPOINTS_PATH, ServingEndpointsApi
from tests.conftest import emulator_fixture
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import assert_check_names, failures, waits_move_the_emulator_clock
from workspace_emulator.testing import EmulatorInfo

emulator = emulator_fixture("module", clock="manual", transition_seconds=10)
MODEL = "main.ml.churn"


@pytest.fixture(autouse=True)
def waits_on_the_emulator_clock(monkeypatch: pytest.MonkeyPatch, emulator: EmulatorInfo) -> None:
    waits_move_the_emulator_clock(monkeypatch, emulator)


@pytest.fixture
def provider() -> ServingEndpointProvider:
    return ServingEndpointProvider()


def _entity(version: int | str, **more: Any) -> dict[str, Any]:
    return {"entity_name": MODEL, "entity_version": version, "workload_size": "Small",
            "scale_to_zero_enabled": True, **more}


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": f"churn-{uuid.uuid4().hex[:8]}",
        "config": {"served_entities": [_entity(1, environment_vars={
            "API_KEY": "{{secrets/ml/api-key}}"})]},
        "ai_gateway": {"usage_tracking_config": {"enabled": True}},
        "tags": [{"key": "team", "value": "ml"}, {"key": "cost", "value": "42"}],
        CONNECTION_KEY: connection,
    }


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"name": "churn model"}, "name", "letters, digits, '-' and '_'"),
        ({"config": {"served_entities": []}}, "config.served_entities", "at least 1 item"),
        ({"config": {"served_entities": [_entity(1, environment_vars={"KEY": "hunter2"})]}},
         "config.served_entities.0.environment_vars",
         "KEY: a value must be a secret reference {{secrets/<scope>/<key>}}"),
        ({"config": {"served_entities": [{"entity_version": "1"}]}},
         "config.served_entities[0].entity_name", "required"),
        ({"config": {"served_entities": [{"entity_name": MODEL}]}},
         "config.served_entities[0].entity_version", "required"),
        ({"config": {"served_entities": [{"entity_name": MODEL, "entity_version": "1"}]}},
         "config.served_entities[0].scale_to_zero_enabled", "true or false"),
        ({"config": {"served_entities": [{
            "external_model": {"provider": "openai", "name": "gpt-4o", "task": "llm/v1/chat",
                               "openai_config": {"openai_api_key_plaintext": "sk-1"}}}]}},
         "config.served_entities[0].external_model.openai_config.openai_api_key_plaintext",
         "name a secret"),
        ({"config": {"served_entities": [_entity(1), _entity(2)]}}, "config.traffic_config",
         "a route per served entity"),
        ({"config": {"served_entities": [_entity(1), _entity(2)], "traffic_config": {"routes": [
            {"served_entity_name": "main-ml-churn-1", "traffic_percentage": 50},
            {"served_entity_name": "main-ml-churn-2", "traffic_percentage": 40}]}}},
         "config.traffic_config.routes", "add up to 90, not 100"),
        ({"config": {"served_entities": [_entity(1)], "traffic_config": {"routes": [
            {"served_entity_name": "churn", "traffic_percentage": 100}]}}},
         "config.traffic_config.routes[0].served_entity_name", "'churn' is no served entity"),
        ({"config": {"served_entities": [_entity(1, workload_size="Huge")]}},
         "config.served_entities.0.workload_size", "'Small', 'Medium' or 'Large'"),
        ({"ai_gateway": {"rate_limits": [{"renewal_period": "minute"}]}},
         "ai_gateway.rate_limits[0]", "give calls or tokens"),
        ({"ai_gateway": {"inference_table_config": {"enabled": True}}},
         "ai_gateway.inference_table_config.catalog_name", "required"),
        ({"tags": [{"key": "a"}, {"key": "a"}]}, "tags", "'a' twice"),
        ({"timeout_seconds": 0}, "timeout_seconds", "greater than or equal to 1"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_accepts_valid_input_and_unknowns(provider, props) -> None:
    assert failures(provider, props) == {}
    unknown_model = {"served_entities": [_entity(1, entity_name=UNKNOWN)]}
    assert failures(provider, {**props, "config": unknown_model}) == {}


def test_lifecycle(provider, props, client: WorkspaceClient, monkeypatch) -> None:
    reported: list[str] = []
    monkeypatch.setattr(pulumi.log, "info", lambda message, *a, **k: reported.append(message))
    made = provider.create(props)
    assert made.id == props["name"]
    endpoint = ServingEndpointsApi(client).get(made.id)
    assert endpoint["state"] == {"ready": "READY", "config_update": "NOT_UPDATING"}
    assert any("NOT_READY" in line for line in reported), reported
    assert (made.outs["ready"], made.outs["config_version"]) == ("READY", 1)
    assert made.outs["endpoint_id"] == endpoint["id"]
    # The service's default name and single route are no change; nor are tags reordered.
    assert not provider.diff(made.id, made.outs, {**props, "tags": props["tags"][::-1]}).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    calls: list[str] = []
    real = ServingEndpointsApi.update_config

    def counted(self: ServingEndpointsApi, name: str, config: dict[str, Any]) -> dict[str, Any]:
        calls.append(name)
        return real(self, name, config)

    monkeypatch.setattr(ServingEndpointsApi, "update_config", counted)
    moved = {**props, "config": {"served_entities": [_entity(2, environment_vars={
        "API_KEY": "{{secrets/ml/api-key}}"})]},
        "ai_gateway": {"usage_tracking_config": {"enabled": False},
                       "rate_limits": [{"renewal_period": "minute", "calls": 100,
                                        "key": "user"}]},
        "tags": [{"key": "team", "value": "ml-ops"}]}
    diff = provider.diff(made.id, made.outs, moved)
    assert diff.changed_keys == ["ai_gateway", "config", "tags"] and not diff.replaces
    updated = provider.update(made.id, made.outs, moved)
    assert calls == [made.id]  # one config update
    endpoint = ServingEndpointsApi(client).get(made.id)
    assert [e["entity_version"] for e in endpoint["config"]["served_entities"]] == ["2"]
    assert endpoint["config"]["config_version"] == 2
    assert endpoint["state"]["config_update"] == "NOT_UPDATING"
    assert endpoint["ai_gateway"]["rate_limits"][0]["calls"] == 100
    assert endpoint["tags"] == [{"key": "team", "value": "ml-ops"}]
    assert updated.outs["config_version"] == 2
    assert not provider.diff(made.id, updated.outs, moved).changes

    assert provider.diff(made.id, updated.outs, {**moved, "route_optimized": True}).replaces \
        == ["route_optimized"]
    provider.delete(made.id, updated.outs)
    assert provider.read(made.id, updated.outs).id is None
    provider.delete(made.id, updated.outs)


def test_an_update_waits_for_one_in_progress(provider, props, client) -> None:
    made = provider.create(props)
    # Someone else's config update, still in progress: the service refuses another.
    ServingEndpointsApi(client).update_config(made.id, {"served_entities": [_entity("3")]})
    moved = {**props, "config": {"served_entities": [_entity(4)]}}
    updated = provider.update(made.id, made.outs, moved)
    endpoint = ServingEndpointsApi(client).get(made.id)
    assert [e["entity_version"] for e in endpoint["config"]["served_entities"]] == ["4"]
    assert endpoint["config"]["config_version"] == 3
    provider.delete(made.id, updated.outs)


def test_drift_shows_in_refresh(provider, props, client) -> None:
    made = provider.create(props)
    ServingEndpointsApi(client).patch_tags(made.id, [{"key": "team", "value": "web"}], ["cost"])
    read = provider.read(made.id, made.outs)
    assert read.outs["tags"] == [{"key": "team", "value": "web"}]
    assert provider.diff(made.id, read.outs, props).changed_keys == ["tags"]
    provider.delete(made.id, made.outs)


def test_import_by_name(provider, props) -> None:
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["name"] == props["name"]
    assert imported.outs["config"]["served_entities"][0]["name"] == "main-ml-churn-1"
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    provider.delete(made.id, made.outs)


def test_a_lost_answer_adopts_the_endpoint(provider, props, client, monkeypatch) -> None:
    lost = lose_the_answer_to(monkeypatch, ENDPOINTS_PATH)
    made = provider.create(props)
    assert lost == [ENDPOINTS_PATH]
    assert [e["name"] for e in ServingEndpointsApi(client).list()].count(props["name"]) == 1
    assert made.outs["ready"] == "READY"
    provider.delete(made.id, made.outs)


def test_a_name_taken_by_another_endpoint_is_refused(provider, props, client) -> None:
    ServingEndpointsApi(client).create({"name": props["name"], "config": {
        "served_entities": [_entity("9")]}})
    with pytest.raises(AlreadyExists, match="name: another serving endpoint"):
        provider.create(props)
    ServingEndpointsApi(client).delete(props["name"])


def test_a_config_update_that_outlasts_timeout_seconds_says_what_to_do(provider, props) -> None:
    made = provider.create(props)
    slow = {**props, "timeout_seconds": 1, "config": {"served_entities": [_entity(2)]}}
    with pytest.raises(ServingStateError, match="after 1 s.*raise timeout_seconds"):
        provider.update(made.id, made.outs, slow)
    provider.delete(made.id, made.outs)
