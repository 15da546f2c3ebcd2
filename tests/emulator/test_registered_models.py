"""Unity Catalog registered models through the official SDK, unchanged: create, read, list,
update, rename, delete; aliases naming existing versions; versions registered through the
MLflow client's path; grants on a model as the `function` securable; a schema holding a
model is not empty. Each rule with its refusal."""

from __future__ import annotations

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import (
    InvalidParameterValue,
    InvalidState,
    NotFound,
    PermissionDenied,
    ResourceAlreadyExists,
)
from databricks.sdk.service import catalog

from tests.emulator.support import Api, add_service_principal, expect_error, unique
from workspace_emulator.testing import fetch_token

VERSIONS = "/api/2.0/mlflow/unity-catalog/model-versions/create"


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


@pytest.fixture
def schema(sdk) -> catalog.SchemaInfo:
    made = sdk.catalogs.create(unique("mlcat"))
    assert made.name is not None
    return sdk.schemas.create("models", made.name)


def _model(sdk: WorkspaceClient, schema: catalog.SchemaInfo, name: str, **fields
           ) -> catalog.RegisteredModelInfo:
    return sdk.registered_models.create(catalog_name=schema.catalog_name,
                                        schema_name=schema.name, name=name, **fields)


def _version(api: Api, full_name: str, source: str = "dbfs:/runs/1/model") -> int:
    response = api.post(VERSIONS, {"name": full_name, "source": source, "run_id": "r1"})
    assert response.status_code == 200, response.text
    return response.json()["model_version"]["version"]


def test_model_lifecycle(sdk, schema, emulator):
    made = _model(sdk, schema, "Churn", comment="first")
    full = f"{schema.full_name}.churn"
    assert made.full_name == full and made.name == "churn" and made.comment == "first"
    assert made.owner == emulator.client_id and made.created_by == emulator.client_id
    assert made.storage_location and made.metastore_id
    assert sdk.registered_models.get(full.upper()).full_name == full
    assert [m.full_name for m in sdk.registered_models.list(
        catalog_name=schema.catalog_name, schema_name="models")] == [full]
    with pytest.raises(ResourceAlreadyExists, match="already exists"):
        _model(sdk, schema, "CHURN")
    changed = sdk.registered_models.update(full, comment="second")
    assert changed.comment == "second"
    renamed = sdk.registered_models.update(full, new_name="churn2")
    assert renamed.full_name == f"{schema.full_name}.churn2"
    with pytest.raises(NotFound):
        sdk.registered_models.get(full)
    sdk.registered_models.delete(renamed.full_name)
    with pytest.raises(NotFound, match="does not exist"):
        sdk.registered_models.get(renamed.full_name)


def test_a_model_needs_its_schema(sdk):
    with pytest.raises(NotFound, match="Schema"):
        sdk.registered_models.create(catalog_name="main", schema_name=unique("noschema"), name="m")
    with pytest.raises(InvalidParameterValue, match="name"):
        sdk.registered_models.create(catalog_name="main", schema_name="default", name="bad name")


def test_aliases_name_existing_versions(sdk, api, schema):
    full = _model(sdk, schema, "m").full_name
    assert full is not None
    assert _version(api, full) == 1 and _version(api, full) == 2
    with pytest.raises(NotFound, match="version 3"):
        sdk.registered_models.set_alias(full, "champion", 3)
    alias = sdk.registered_models.set_alias(full, "Champion", 1)
    assert alias.alias_name == "champion" and alias.version_num == 1
    sdk.registered_models.set_alias(full, "champion", 2)
    shown = sdk.registered_models.get(full, include_aliases=True)
    assert [(a.alias_name, a.version_num) for a in shown.aliases or []] == [("champion", 2)]
    assert not sdk.registered_models.get(full).aliases
    assert sdk.model_versions.get_by_alias(full, "champion").version == 2
    assert [v.version for v in sdk.model_versions.list(full)] == [2, 1]
    for reserved in ("latest", "v1"):
        with pytest.raises(InvalidParameterValue, match="reserved"):
            sdk.registered_models.set_alias(full, reserved, 1)
    sdk.registered_models.delete_alias(full, "champion")
    with pytest.raises(NotFound):
        sdk.registered_models.delete_alias(full, "champion")
    sdk.registered_models.set_alias(full, "old", 1)
    sdk.model_versions.delete(full, 1)
    assert not sdk.registered_models.get(full, include_aliases=True).aliases
    with pytest.raises(NotFound):
        sdk.model_versions.get(full, 1)


def test_grants_reach_a_model_as_a_function(sdk, api, schema, emulator):
    full = _model(sdk, schema, "g").full_name
    assert full is not None
    application, _ = add_service_principal(api, emulator)
    principal = application["client_id"]
    sdk.grants.update("function", full, changes=[
        catalog.PermissionsChange(principal=principal, add=[catalog.Privilege.EXECUTE])])
    found = sdk.grants.get("function", full)
    assert [(a.principal, a.privileges) for a in found.privilege_assignments or []] == [
        (principal, [catalog.Privilege.EXECUTE])]
    refused = api.patch(f"/api/2.1/unity-catalog/permissions/function/{full}", {
        "changes": [{"principal": principal, "add": ["READ_VOLUME"]}]})
    assert "not applicable" in expect_error(refused, 400, "INVALID_PARAMETER_VALUE")["message"]
    renamed = sdk.registered_models.update(full, new_name="g2").full_name
    assert renamed is not None
    moved = sdk.grants.get("function", renamed)
    assert [a.principal for a in moved.privilege_assignments or []] == [principal]
    sdk.registered_models.delete(renamed)
    with pytest.raises(NotFound):
        sdk.grants.get("function", renamed)


def test_a_schema_holding_a_model_is_not_empty(sdk, schema):
    full = _model(sdk, schema, "kept").full_name
    with pytest.raises(InvalidState, match="1 functions"):
        sdk.schemas.delete(schema.full_name)
    sdk.schemas.update(schema.full_name, new_name="renamed")
    moved = f"{schema.catalog_name}.renamed.kept"
    assert sdk.registered_models.get(moved).schema_name == "renamed"
    assert full is not None
    sdk.schemas.delete(f"{schema.catalog_name}.renamed", force=True)
    with pytest.raises(NotFound):
        sdk.registered_models.get(moved)


def test_creating_a_model_needs_create_model(sdk, api, schema, emulator):
    application, _ = add_service_principal(api, emulator)
    other = WorkspaceClient(host=emulator.base_url, token=fetch_token(
        emulator, application["client_id"], application["client_secret"]))
    with pytest.raises(PermissionDenied, match="CREATE_MODEL"):
        _model(other, schema, "theirs")
