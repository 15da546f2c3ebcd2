"""Entitlements against the emulator: create, read, update in place, drift, import with no
diff, delete; authoritative among the four managed entitlements, leaving nothing else
changed; and its validation rules, each naming the field and the fix."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from providers.core.lifecycle import CONNECTION_KEY
from providers.identity.entitlements import (
    EntitlementsModel,
    EntitlementsProvider,
    parse_entitlements_id,
)
from providers.identity.groups_api import GroupsApi
from tests.providers.unity_catalog import fresh


@pytest.fixture
def group(client) -> Any:
    made = GroupsApi(client).create({"displayName": fresh("ent")})
    yield made["id"]
    GroupsApi(client).delete(made["id"])


def held(client, group_id: str) -> list[str]:
    return sorted(e["value"] for e in GroupsApi(client).get(group_id).get("entitlements") or [])


def test_entitlements_lifecycle(client, connection, group) -> None:
    provider: Any = EntitlementsProvider()
    # Held before the resource: a managed one it does not declare is removed.
    GroupsApi(client).patch(group, [{"op": "add", "path": "entitlements",
                                     "value": [{"value": "allow-cluster-create"}]}])
    props = {"group_id": group, "entitlements": ["workspace-access", "databricks-sql-access"],
             CONNECTION_KEY: connection}
    made = provider.create(props)
    assert made.id == f"groups/{group}"
    assert held(client, group) == ["databricks-sql-access", "workspace-access"]
    assert not provider.diff(made.id, made.outs, props).changes
    assert not provider.diff(made.id, provider.read(made.id, made.outs).outs, props).changes

    changed = {**props, "entitlements": ["workspace-access", "allow-instance-pool-create"]}
    diff = provider.diff(made.id, made.outs, changed)
    assert diff.changed_keys == ["entitlements"] and not diff.replaces
    updated = provider.update(made.id, made.outs, changed)
    assert held(client, group) == ["allow-instance-pool-create", "workspace-access"]

    GroupsApi(client).patch(group, [{"op": "remove",
                                     "path": 'entitlements[value eq "workspace-access"]'}])
    drifted = provider.read(made.id, updated.outs)
    assert drifted.outs["entitlements"] == ["allow-instance-pool-create"]
    assert provider.diff(made.id, drifted.outs, changed).changed_keys == ["entitlements"]
    provider.update(made.id, drifted.outs, changed)
    assert held(client, group) == ["allow-instance-pool-create", "workspace-access"]

    imported = provider.read(made.id, {CONNECTION_KEY: connection})
    assert imported.outs["group_id"] == group
    assert not provider.diff(made.id, imported.outs, changed).changes

    provider.delete(made.id, updated.outs)
    assert held(client, group) == []


def test_a_user_s_entitlements_by_its_id(client, connection) -> None:
    alice = "200000000000001"
    provider: Any = EntitlementsProvider()
    before = sorted(e["value"] for e in client.get(
        f"/api/2.0/preview/scim/v2/Users/{alice}").get("entitlements") or [])
    props = {"user_id": alice, "entitlements": ["allow-cluster-create"],
             CONNECTION_KEY: connection}
    made = provider.create(props)
    assert made.id == f"users/{alice}"
    assert provider.read(made.id, made.outs).outs["entitlements"] == ["allow-cluster-create"]
    provider.delete(made.id, made.outs)
    after = sorted(e["value"] for e in client.get(
        f"/api/2.0/preview/scim/v2/Users/{alice}").get("entitlements") or [])
    assert after == [e for e in before if e != "allow-cluster-create"]


@pytest.mark.parametrize(("inputs", "field", "fix"), [
    ({"entitlements": []}, "", "give exactly one of group_id, user_id and "
                               "service_principal_id"),
    ({"group_id": "1", "user_id": "2", "entitlements": []}, "", "got group_id, user_id"),
    ({"group_id": "admins", "entitlements": []}, "group_id", "workspace's SCIM id"),
    ({"group_id": "1", "entitlements": ["can-fly"]}, "entitlements.0", "'workspace-access'"),
    ({"group_id": "1", "entitlements": ["workspace-access", "workspace-access"]},
     "entitlements", "lists 'workspace-access' more than once"),
])
def test_entitlements_rules(inputs, field, fix) -> None:
    with pytest.raises(ValidationError) as raised:
        EntitlementsModel.model_validate(inputs)
    [error] = raised.value.errors()
    assert ".".join(map(str, error["loc"])) == field
    assert fix in error["msg"]


def test_entitlements_ids() -> None:
    assert parse_entitlements_id("servicePrincipals/4000000000000001") == (
        "ServicePrincipals", "4000000000000001")
    with pytest.raises(ValueError, match="groups/100000000000003"):
        parse_entitlements_id("groups/admins")
