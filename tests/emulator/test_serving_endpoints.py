"""The official SDK, unchanged, drives the emulator's model serving endpoints: create and
the NOT_READY -> READY move, a config update and the pending-config rule, the AI gateway,
tags, the list, permissions by the endpoint's id, delete."""

from __future__ import annotations

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import (
    InvalidParameterValue,
    NotFound,
    ResourceAlreadyExists,
    ResourceConflict,
)
from databricks.sdk.service import serving

from tests.emulator.conftest import MANUAL_TRANSITION_SECONDS
from tests.emulator.support import unique
from workspace_emulator.testing import EmulatorInfo, advance_clock, fetch_token

MODEL = "main.ml.churn"


@pytest.fixture
def sdk(manual: EmulatorInfo) -> WorkspaceClient:
    return WorkspaceClient(host=manual.base_url, token=fetch_token(manual))


def _entity(version: str, **more) -> serving.ServedEntityInput:
    return serving.ServedEntityInput(entity_name=MODEL, entity_version=version,
                                     workload_size="Small", scale_to_zero_enabled=True, **more)


def _state(sdk: WorkspaceClient, name: str) -> tuple[str | None, str | None]:
    state = sdk.serving_endpoints.get(name).state
    assert state is not None
    return (state.ready.value if state.ready else None,
            state.config_update.value if state.config_update else None)


def test_an_endpoint_is_ready_once_its_first_config_is_applied(
        sdk: WorkspaceClient, manual: EmulatorInfo) -> None:
    name = unique("churn")
    sdk.serving_endpoints.create(name=name, config=serving.EndpointCoreConfigInput(
        name=name, served_entities=[_entity("1", environment_vars={
            "API_KEY": "{{secrets/ml/api-key}}"})]))
    made = sdk.serving_endpoints.get(name)
    assert _state(sdk, name) == ("NOT_READY", "IN_PROGRESS")
    assert made.config is None and made.pending_config is not None
    assert made.pending_config.config_version == 1

    advance_clock(manual, MANUAL_TRANSITION_SECONDS)
    ready = sdk.serving_endpoints.get(name)
    assert _state(sdk, name) == ("READY", "NOT_UPDATING")
    assert ready.pending_config is None and ready.config is not None
    assert ready.config.config_version == 1
    [entity] = ready.config.served_entities or []
    assert (entity.name, entity.entity_name, entity.entity_version) == \
        ("main-ml-churn-1", MODEL, "1")
    assert entity.environment_vars == {"API_KEY": "{{secrets/ml/api-key}}"}
    assert ready.config.traffic_config is not None
    assert [(r.served_entity_name, r.traffic_percentage)
            for r in ready.config.traffic_config.routes or []] == [("main-ml-churn-1", 100)]
    assert name in [e.name for e in sdk.serving_endpoints.list()]


def test_a_config_update_is_pending_until_applied_and_a_second_one_is_refused(
        sdk: WorkspaceClient, manual: EmulatorInfo) -> None:
    name = unique("churn")
    sdk.serving_endpoints.create(name=name, config=serving.EndpointCoreConfigInput(
        name=name, served_entities=[_entity("1")]))
    advance_clock(manual, MANUAL_TRANSITION_SECONDS)

    sdk.serving_endpoints.update_config(name=name, served_entities=[_entity("2")])
    assert _state(sdk, name) == ("READY", "IN_PROGRESS")
    with pytest.raises(ResourceConflict, match="config update is in progress"):
        sdk.serving_endpoints.update_config(name=name, served_entities=[_entity("3")])
    serving_now = sdk.serving_endpoints.get(name).config
    assert serving_now is not None and serving_now.config_version == 1

    advance_clock(manual, MANUAL_TRANSITION_SECONDS)
    updated = sdk.serving_endpoints.get(name)
    assert _state(sdk, name) == ("READY", "NOT_UPDATING")
    assert updated.config is not None and updated.config.config_version == 2
    assert [e.entity_version for e in updated.config.served_entities or []] == ["2"]


def test_ai_gateway_and_tags_change_at_once(sdk: WorkspaceClient) -> None:
    name = unique("churn")
    sdk.serving_endpoints.create(name=name, config=serving.EndpointCoreConfigInput(
        name=name, served_entities=[_entity("1")]),
        tags=[serving.EndpointTag(key="team", value="ml")])
    sdk.serving_endpoints.put_ai_gateway(
        name, usage_tracking_config=serving.AiGatewayUsageTrackingConfig(enabled=True),
        rate_limits=[serving.AiGatewayRateLimit(
            calls=100, renewal_period=serving.AiGatewayRateLimitRenewalPeriod.MINUTE,
            key=serving.AiGatewayRateLimitKey.USER)])
    gateway = sdk.serving_endpoints.get(name).ai_gateway
    assert gateway is not None and gateway.usage_tracking_config is not None
    assert gateway.usage_tracking_config.enabled is True
    assert [(r.calls, r.key) for r in gateway.rate_limits or []] == \
        [(100, serving.AiGatewayRateLimitKey.USER)]

    tags = sdk.serving_endpoints.patch(name, add_tags=[serving.EndpointTag("tier", "gold")],
                                       delete_tags=["team"])
    assert [(t.key, t.value) for t in tags.tags or []] == [("tier", "gold")]
    assert [(t.key, t.value) for t in sdk.serving_endpoints.get(name).tags or []] == \
        [("tier", "gold")]


def test_refusals_name_what_is_wrong(sdk: WorkspaceClient) -> None:
    name = unique("churn")
    with pytest.raises(InvalidParameterValue, match="scaleToZeroEnabled is undefined"):
        sdk.serving_endpoints.create(name=name, config=serving.EndpointCoreConfigInput(
            name=name, served_entities=[serving.ServedEntityInput(
                entity_name=MODEL, entity_version="1", workload_size="Small")]))
    with pytest.raises(InvalidParameterValue, match="add up to 100, not 90"):
        sdk.serving_endpoints.create(name=name, config=serving.EndpointCoreConfigInput(
            name=name, served_entities=[_entity("1")],
            traffic_config=serving.TrafficConfig(routes=[serving.Route(
                served_entity_name="main-ml-churn-1", traffic_percentage=90)])))
    sdk.serving_endpoints.create(name=name, config=serving.EndpointCoreConfigInput(
        name=name, served_entities=[_entity("1")]))
    with pytest.raises(ResourceAlreadyExists):
        sdk.serving_endpoints.create(name=name, config=serving.EndpointCoreConfigInput(
            name=name, served_entities=[_entity("1")]))


def test_permissions_by_id_and_delete(sdk: WorkspaceClient) -> None:
    name = unique("churn")
    sdk.serving_endpoints.create(name=name, config=serving.EndpointCoreConfigInput(
        name=name, served_entities=[_entity("1")]))
    endpoint_id = sdk.serving_endpoints.get(name).id
    assert endpoint_id is not None
    sdk.serving_endpoints.set_permissions(endpoint_id, access_control_list=[
        serving.ServingEndpointAccessControlRequest(
            group_name="users",
            permission_level=serving.ServingEndpointPermissionLevel.CAN_QUERY)])
    acl = sdk.serving_endpoints.get_permissions(endpoint_id).access_control_list or []
    assert ("users", "CAN_QUERY") in [
        (e.group_name, p.permission_level.value) for e in acl for p in e.all_permissions or []
        if p.permission_level]

    sdk.serving_endpoints.delete(name)
    with pytest.raises(NotFound):
        sdk.serving_endpoints.get(name)
    with pytest.raises(NotFound):
        sdk.serving_endpoints.get_permissions(endpoint_id)
