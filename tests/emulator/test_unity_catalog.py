"""Unity Catalog through the official SDK, unchanged: catalogs, schemas, volumes, storage
credentials, external locations, grants, effective grants and bindings of every bindable
securable, each rule with its refusal."""

from __future__ import annotations

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import (
    BadRequest,
    InvalidParameterValue,
    InvalidState,
    NotFound,
    PermissionDenied,
    ResourceAlreadyExists,
)
from databricks.sdk.service import catalog

from tests.emulator.support import (
    OTHER_WORKSPACE_IDS,
    Api,
    add_service_principal,
    expect_error,
    unique,
)
from workspace_emulator.testing import fetch_token

Privilege = catalog.Privilege
UC = "/api/2.1/unity-catalog"


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


@pytest.fixture(scope="module")
def other(api, emulator) -> tuple[str, WorkspaceClient]:
    """A second service principal, not an admin: (application id, its client)."""
    application, _ = add_service_principal(api, emulator)
    client = WorkspaceClient(host=emulator.base_url, token=fetch_token(
        emulator, application["client_id"], application["client_secret"]))
    return application["client_id"], client


def _root() -> str:
    return f"abfss://lake@emulated.dfs.core.windows.net/{unique('root')}"


def _location(sdk: WorkspaceClient, url: str) -> catalog.ExternalLocationInfo:
    credential = sdk.storage_credentials.create(
        unique("Cred"), azure_managed_identity=catalog.AzureManagedIdentityRequest(
            access_connector_id="/subscriptions/0/resourceGroups/rg/providers/"
                                "Microsoft.Databricks/accessConnectors/uc"))
    assert credential.name is not None
    return sdk.external_locations.create(unique("Loc"), url, credential.name)


def test_catalog_lifecycle(sdk, emulator):
    name = unique("Cat")
    made = sdk.catalogs.create(name, comment="c", properties={"team": "data"})
    assert made.name == name.lower() and made.full_name == name.lower()
    assert made.owner == emulator.client_id and made.created_by == emulator.client_id
    assert made.metastore_id and made.created_at and made.updated_at
    assert made.securable_type == catalog.SecurableType.CATALOG
    assert made.catalog_type == catalog.CatalogType.MANAGED_CATALOG
    assert made.isolation_mode == catalog.CatalogIsolationMode.OPEN
    assert sdk.catalogs.get(name.upper()).name == made.name
    assert made.name in {c.name for c in sdk.catalogs.list()}
    assert {s.name for s in sdk.schemas.list(made.name)} == {"default", "information_schema"}
    with pytest.raises(ResourceAlreadyExists):
        sdk.catalogs.create(name.upper())
    renamed = sdk.catalogs.update(made.name, new_name=made.name + "-x", comment="d")
    assert renamed.name == made.name + "-x" and renamed.comment == "d"
    assert sdk.schemas.get(f"{renamed.name}.default").catalog_name == renamed.name
    with pytest.raises(InvalidState, match="is not empty"):
        sdk.catalogs.delete(renamed.name)
    sdk.catalogs.delete(renamed.name, force=True)
    with pytest.raises(NotFound):
        sdk.catalogs.get(renamed.name)
    with pytest.raises(NotFound):
        sdk.schemas.get(f"{renamed.name}.default")


def test_catalog_options_and_predictive_optimization_change_in_place(sdk):
    name = sdk.catalogs.create(unique("cat"), options={"database": "a"}).name
    changed = sdk.catalogs.update(
        name, options={"database": "b"},
        enable_predictive_optimization=catalog.EnablePredictiveOptimization.DISABLE)
    assert changed.options == {"database": "b"}
    assert changed.enable_predictive_optimization == (
        catalog.EnablePredictiveOptimization.DISABLE)
    assert sdk.catalogs.get(name).options == {"database": "b"}
    with pytest.raises(InvalidParameterValue, match="enable_predictive_optimization must be"):
        sdk.api_client.do("PATCH", f"{UC}/catalogs/{name}",
                          body={"enable_predictive_optimization": "SOMETIMES"})
    with pytest.raises(InvalidParameterValue, match="options must be a map"):
        sdk.api_client.do("PATCH", f"{UC}/catalogs/{name}", body={"options": {"a": 1}})
    sdk.catalogs.delete(name, force=True)


def test_empty_catalog_deleted_without_force_and_storage_root(sdk):
    root = _root()
    name = unique("cat")
    with pytest.raises(InvalidParameterValue, match="not under any external location"):
        sdk.catalogs.create(name, storage_root=f"{root}/catalog")
    _location(sdk, root)
    made = sdk.catalogs.create(name, storage_root=f"{root}/catalog")
    assert made.storage_root == f"{root}/catalog"
    assert made.storage_location.startswith(f"{root}/catalog/__unitystorage/catalogs/")
    sdk.schemas.delete(f"{name}.default")
    sdk.catalogs.delete(name)
    with pytest.raises(NotFound):
        sdk.catalogs.get(name)


def test_schema_lifecycle(sdk, emulator):
    with pytest.raises(NotFound, match="Catalog"):
        sdk.schemas.create("s", unique("missing"))
    cat = sdk.catalogs.create(unique("cat")).name
    schema = sdk.schemas.create("Raw", cat, comment="landing", properties={"k": "v"})
    assert schema.name == "raw" and schema.full_name == f"{cat}.raw"
    assert schema.catalog_name == cat and schema.owner == emulator.client_id
    assert schema.schema_id and schema.metastore_id and schema.created_by
    assert sdk.schemas.get(f"{cat.upper()}.RAW").schema_id == schema.schema_id
    with pytest.raises(ResourceAlreadyExists):
        sdk.schemas.create("RAW", cat)
    with pytest.raises(InvalidParameterValue, match="may not contain"):
        sdk.schemas.create("a b", cat)
    updated = sdk.schemas.update(f"{cat}.raw", new_name="bronze", comment="b",
                                 owner="data-engineers")
    assert updated.full_name == f"{cat}.bronze" and updated.owner == "data-engineers"
    with pytest.raises(NotFound):
        sdk.schemas.get(f"{cat}.raw")
    sdk.volumes.create(cat, "bronze", "files", catalog.VolumeType.MANAGED)
    with pytest.raises(InvalidState, match="is not empty"):
        sdk.schemas.delete(f"{cat}.bronze")
    sdk.schemas.delete(f"{cat}.bronze", force=True)
    with pytest.raises(NotFound):
        sdk.volumes.read(f"{cat}.bronze.files")
    with pytest.raises(PermissionDenied, match="system schema"):
        sdk.schemas.delete(f"{cat}.information_schema")


def test_volume_lifecycle(sdk):
    cat = sdk.catalogs.create(unique("cat")).name
    with pytest.raises(NotFound, match="Schema"):
        sdk.volumes.create(cat, "nope", "v", catalog.VolumeType.MANAGED)
    managed = sdk.volumes.create(cat, "default", "Files", catalog.VolumeType.MANAGED,
                                 comment="m")
    assert managed.full_name == f"{cat}.default.files"
    assert managed.volume_type == catalog.VolumeType.MANAGED
    assert managed.volume_id and managed.storage_location.endswith(managed.volume_id)
    root = _root()
    with pytest.raises(InvalidParameterValue, match="not under any external location"):
        sdk.volumes.create(cat, "default", "ext", catalog.VolumeType.EXTERNAL,
                           storage_location=f"{root}/ext")
    with pytest.raises(InvalidParameterValue, match="required for an EXTERNAL"):
        sdk.volumes.create(cat, "default", "ext", catalog.VolumeType.EXTERNAL)
    _location(sdk, root)
    external = sdk.volumes.create(cat, "default", "ext", catalog.VolumeType.EXTERNAL,
                                  storage_location=f"{root}/ext/")
    assert external.storage_location == f"{root}/ext"
    with pytest.raises(InvalidParameterValue, match="overlaps"):
        sdk.volumes.create(cat, "default", "ext2", catalog.VolumeType.EXTERNAL,
                           storage_location=f"{root}/ext/inner")
    assert {v.name for v in sdk.volumes.list(cat, "default")} == {"files", "ext"}
    renamed = sdk.volumes.update(f"{cat}.default.files", new_name="docs", comment="n")
    assert renamed.full_name == f"{cat}.default.docs" and renamed.comment == "n"
    assert sdk.volumes.read(f"{cat}.DEFAULT.Docs").volume_id == managed.volume_id
    sdk.volumes.delete(f"{cat}.default.docs")
    with pytest.raises(NotFound):
        sdk.volumes.read(f"{cat}.default.docs")


def test_storage_credentials_and_external_locations(sdk, emulator):
    with pytest.raises(InvalidParameterValue, match="exactly one identity"):
        sdk.storage_credentials.create(unique("c"))
    name = unique("Role")
    role = sdk.storage_credentials.create(name, aws_iam_role=catalog.AwsIamRoleRequest(
        role_arn="arn:aws:iam::123456789012:role/uc"), comment="aws", read_only=True)
    assert role.name == name and role.owner == emulator.client_id and role.id
    assert role.aws_iam_role.unity_catalog_iam_arn and role.read_only
    assert role.isolation_mode == catalog.IsolationMode.ISOLATION_MODE_OPEN
    assert sdk.storage_credentials.get(name.lower()).id == role.id
    assert role.id in {c.id for c in sdk.storage_credentials.list()}
    with pytest.raises(ResourceAlreadyExists):
        sdk.storage_credentials.create(name.upper(), aws_iam_role=catalog.AwsIamRoleRequest(
            role_arn="arn:aws:iam::123456789012:role/uc"))
    with pytest.raises(NotFound, match="Storage Credential"):
        sdk.external_locations.create(unique("l"), _root(), unique("missing"))
    root = _root()
    location = sdk.external_locations.create(unique("Loc"), root, name, comment="c")
    assert location.credential_name == name and location.credential_id == role.id
    assert location.url == root and location.owner == emulator.client_id
    with pytest.raises(InvalidParameterValue, match="overlap"):
        sdk.external_locations.create(unique("l"), f"{root}/inner", name)
    assert location.name in {loc.name for loc in sdk.external_locations.list()}
    changed = sdk.external_locations.update(location.name, comment="d", read_only=True)
    assert changed.comment == "d" and changed.read_only
    with pytest.raises(InvalidState, match="dependent external location"):
        sdk.storage_credentials.delete(name)
    updated = sdk.storage_credentials.update(name, new_name=name + "-b", comment="e")
    assert updated.name == name + "-b"
    assert sdk.external_locations.get(location.name).credential_name == name + "-b"
    cat = sdk.catalogs.create(unique("cat")).name
    sdk.volumes.create(cat, "default", "v", catalog.VolumeType.EXTERNAL,
                       storage_location=f"{root}/v")
    with pytest.raises(InvalidState, match="is used by volume"):
        sdk.external_locations.delete(location.name)
    sdk.external_locations.delete(location.name, force=True)
    with pytest.raises(NotFound):
        sdk.external_locations.get(location.name)
    sdk.storage_credentials.delete(name + "-b")
    with pytest.raises(NotFound):
        sdk.storage_credentials.get(name + "-b")


def test_credentials_of_both_purposes(sdk, emulator):
    """The /credentials API: service credentials, and storage credentials seen through it;
    one namespace for both."""
    identity = catalog.AzureManagedIdentity(access_connector_id="/subscriptions/0/ac")
    with pytest.raises(InvalidParameterValue, match="purpose must be one of SERVICE, STORAGE"):
        sdk.credentials.create_credential(unique("c"), azure_managed_identity=identity)
    with pytest.raises(InvalidParameterValue, match="exactly one identity: one of aws_iam_role"):
        sdk.credentials.create_credential(unique("c"), purpose=catalog.CredentialPurpose.SERVICE)
    with pytest.raises(InvalidParameterValue, match="got azure_service_principal"):
        sdk.credentials.create_credential(
            unique("c"), purpose=catalog.CredentialPurpose.SERVICE,
            azure_service_principal=catalog.AzureServicePrincipal(
                directory_id="d", application_id="a", client_secret="s"))
    with pytest.raises(InvalidParameterValue, match="read_only applies to STORAGE"):
        sdk.credentials.create_credential(unique("c"), purpose=catalog.CredentialPurpose.SERVICE,
                                          azure_managed_identity=identity, read_only=True)
    name = unique("Svc")
    service = sdk.credentials.create_credential(
        name, purpose=catalog.CredentialPurpose.SERVICE, azure_managed_identity=identity,
        comment="calls a service")
    assert service.name == name and service.full_name == name and service.id
    assert service.purpose == catalog.CredentialPurpose.SERVICE
    assert service.owner == emulator.client_id and service.created_by == emulator.client_id
    assert service.isolation_mode == catalog.IsolationMode.ISOLATION_MODE_OPEN
    assert service.azure_managed_identity.credential_id == service.id
    assert sdk.credentials.get_credential(name.upper()).id == service.id
    storage_name = unique("Sto")
    storage = sdk.credentials.create_credential(
        storage_name, purpose=catalog.CredentialPurpose.STORAGE, read_only=True,
        aws_iam_role=catalog.AwsIamRole(role_arn="arn:aws:iam::123456789012:role/uc"))
    assert storage.purpose == catalog.CredentialPurpose.STORAGE and storage.read_only
    assert sdk.storage_credentials.get(storage_name).id == storage.id
    for taken in (name.lower(), storage_name.upper()):
        with pytest.raises(ResourceAlreadyExists, match="already exists"):
            sdk.credentials.create_credential(taken, purpose=catalog.CredentialPurpose.SERVICE,
                                              azure_managed_identity=identity)
    with pytest.raises(ResourceAlreadyExists):
        sdk.storage_credentials.create(name, azure_managed_identity=(
            catalog.AzureManagedIdentityRequest(access_connector_id="ac")))
    listed = {c.name: c.purpose for c in sdk.credentials.list_credentials()}
    assert listed[name] == catalog.CredentialPurpose.SERVICE
    assert listed[storage_name] == catalog.CredentialPurpose.STORAGE
    services = {c.name for c in sdk.credentials.list_credentials(
        purpose=catalog.CredentialPurpose.SERVICE)}
    assert name in services and storage_name not in services
    assert name not in {c.name for c in sdk.storage_credentials.list()}
    with pytest.raises(NotFound):
        sdk.storage_credentials.get(name)
    changed = sdk.credentials.update_credential(
        name, new_name=name + "-b", comment="d",
        isolation_mode=catalog.IsolationMode.ISOLATION_MODE_ISOLATED,
        aws_iam_role=catalog.AwsIamRole(role_arn="arn:aws:iam::123456789012:role/svc"))
    assert changed.name == name + "-b" and changed.comment == "d" and changed.id == service.id
    assert changed.isolation_mode == catalog.IsolationMode.ISOLATION_MODE_ISOLATED
    assert changed.aws_iam_role.role_arn.endswith("role/svc")
    assert changed.azure_managed_identity is None
    with pytest.raises(InvalidParameterValue, match="read_only applies to STORAGE"):
        sdk.credentials.update_credential(changed.name, read_only=True)
    with pytest.raises(ResourceAlreadyExists):
        sdk.credentials.update_credential(changed.name, new_name=storage_name)
    location = sdk.external_locations.create(unique("Loc"), _root(), storage_name)
    with pytest.raises(InvalidState, match="dependent external location"):
        sdk.credentials.delete_credential(storage_name)
    sdk.external_locations.delete(location.name)
    sdk.credentials.delete_credential(storage_name)
    sdk.credentials.delete_credential(changed.name)
    for gone in (storage_name, changed.name):
        with pytest.raises(NotFound, match=f"Credential '{gone}' does not exist"):
            sdk.credentials.get_credential(gone)


def test_a_non_admin_may_not_create_a_credential(other):
    _, client = other
    with pytest.raises(PermissionDenied, match="CREATE_SERVICE_CREDENTIAL"):
        client.credentials.create_credential(
            unique("c"), purpose=catalog.CredentialPurpose.SERVICE,
            azure_managed_identity=catalog.AzureManagedIdentity(access_connector_id="ac"))


def test_grants_get_update_and_filter(sdk):
    cat = sdk.catalogs.create(unique("cat")).name
    changed = sdk.grants.update("catalog", cat, changes=[
        catalog.PermissionsChange(principal="analysts",
                                  add=[Privilege.USE_CATALOG, Privilege.SELECT,
                                       Privilege.READ_VOLUME]),
        catalog.PermissionsChange(principal="data-engineers", add=[Privilege.ALL_PRIVILEGES]),
    ])
    assert [(a.principal, a.privileges) for a in changed.privilege_assignments] == [
        ("analysts", [Privilege.READ_VOLUME, Privilege.SELECT, Privilege.USE_CATALOG]),
        ("data-engineers", [Privilege.ALL_PRIVILEGES])]
    changed = sdk.grants.update("catalog", cat, changes=[
        catalog.PermissionsChange(principal="analysts", remove=[Privilege.SELECT]),
        catalog.PermissionsChange(principal="data-engineers",
                                  remove=[Privilege.ALL_PRIVILEGES])])
    assert [(a.principal, a.privileges) for a in changed.privilege_assignments] == [
        ("analysts", [Privilege.READ_VOLUME, Privilege.USE_CATALOG])]
    assert sdk.grants.get("catalog", cat).privilege_assignments == \
        changed.privilege_assignments
    assert not sdk.grants.get("catalog", cat, principal="data-engineers").privilege_assignments
    assert len(sdk.grants.get("catalog", cat, principal="analysts").privilege_assignments) == 1
    with pytest.raises(InvalidParameterValue, match="Could not find principal with name ghost"):
        sdk.grants.update("catalog", cat, changes=[
            catalog.PermissionsChange(principal="ghost", add=[Privilege.SELECT])])
    with pytest.raises(InvalidParameterValue, match="Privilege WRITE_FILES is not applicable"):
        sdk.grants.update("catalog", cat, changes=[
            catalog.PermissionsChange(principal="analysts", add=[Privilege.WRITE_FILES])])
    credential = _location(sdk, _root()).credential_name
    with pytest.raises(InvalidParameterValue, match="Privilege SELECT is not applicable"):
        sdk.grants.update("storage_credential", credential, changes=[
            catalog.PermissionsChange(principal="analysts", add=[Privilege.SELECT])])
    with pytest.raises(NotFound):
        sdk.grants.get("schema", f"{cat}.nope")
    with pytest.raises(BadRequest, match="Unsupported securable type 'widget'"):
        sdk.grants.get("widget", f"{cat}.default.t")


def test_unknown_privilege_is_named(api):
    cat = api.post(f"{UC}/catalogs", json={"name": unique("cat")}).json()["name"]
    body = expect_error(api.patch(f"{UC}/permissions/catalog/{cat}", json={"changes": [
        {"principal": "analysts", "add": ["SELEKT"]}]}), 400, "INVALID_PARAMETER_VALUE")
    assert "SELEKT" in body["message"] and "Did you mean SELECT" in body["message"]


def test_effective_permissions_are_inherited(sdk):
    cat = sdk.catalogs.create(unique("cat")).name
    sdk.volumes.create(cat, "default", "v", catalog.VolumeType.MANAGED)
    sdk.grants.update("catalog", cat, changes=[catalog.PermissionsChange(
        principal="analysts", add=[Privilege.USE_CATALOG, Privilege.READ_VOLUME])])
    sdk.grants.update("schema", f"{cat}.default", changes=[catalog.PermissionsChange(
        principal="analysts", add=[Privilege.USE_SCHEMA])])
    sdk.grants.update("volume", f"{cat}.default.v", changes=[catalog.PermissionsChange(
        principal="data-engineers", add=[Privilege.WRITE_VOLUME])])
    effective = {a.principal: a.privileges for a in
                 sdk.grants.get_effective("volume", f"{cat}.default.v").privilege_assignments}
    assert effective["data-engineers"] == [
        catalog.EffectivePrivilege(privilege=Privilege.WRITE_VOLUME)]
    assert effective["analysts"] == [
        catalog.EffectivePrivilege(privilege=Privilege.USE_SCHEMA,
                                   inherited_from_type=catalog.SecurableType.SCHEMA,
                                   inherited_from_name=f"{cat}.default"),
        catalog.EffectivePrivilege(privilege=Privilege.READ_VOLUME,
                                   inherited_from_type=catalog.SecurableType.CATALOG,
                                   inherited_from_name=cat),
        catalog.EffectivePrivilege(privilege=Privilege.USE_CATALOG,
                                   inherited_from_type=catalog.SecurableType.CATALOG,
                                   inherited_from_name=cat)]
    only = sdk.grants.get_effective("volume", f"{cat}.default.v", principal="data-engineers")
    assert [a.principal for a in only.privilege_assignments] == ["data-engineers"]
    assert not sdk.grants.get("volume", f"{cat}.default.v",
                              principal="analysts").privilege_assignments


def test_owners_and_privileges_of_a_non_admin(sdk, other):
    application_id, client = other
    cat = sdk.catalogs.create(unique("cat")).name
    with pytest.raises(PermissionDenied):
        client.catalogs.create(unique("cat"))
    with pytest.raises(PermissionDenied, match="USE_CATALOG and CREATE_SCHEMA"):
        client.schemas.create("mine", cat)
    sdk.grants.update("catalog", cat, changes=[catalog.PermissionsChange(
        principal=application_id, add=[Privilege.USE_CATALOG, Privilege.CREATE_SCHEMA])])
    mine = client.schemas.create("mine", cat)
    assert mine.owner == application_id
    with pytest.raises(PermissionDenied):
        client.schemas.update(f"{cat}.default", comment="not mine")
    with pytest.raises(PermissionDenied):
        client.grants.update("catalog", cat, changes=[catalog.PermissionsChange(
            principal=application_id, add=[Privilege.SELECT])])
    assert client.schemas.update(f"{cat}.mine", owner="analysts").owner == "analysts"
    with pytest.raises(PermissionDenied, match="MANAGE"):
        client.schemas.update(f"{cat}.mine", owner=application_id)
    sdk.grants.update("schema", f"{cat}.mine", changes=[catalog.PermissionsChange(
        principal=application_id, add=[Privilege.MANAGE])])
    assert client.schemas.update(f"{cat}.mine", comment="managed").comment == "managed"
    with pytest.raises(PermissionDenied, match="cannot change its owner"):
        client.schemas.update(f"{cat}.mine", owner=application_id)
    with pytest.raises(PermissionDenied):
        client.catalogs.update(cat, owner=application_id)
    assert sdk.catalogs.update(cat, owner=application_id).owner == application_id
    client.catalogs.delete(cat, force=True)


def test_bindings_by_securable_type(sdk):
    location = _location(sdk, _root())
    service = sdk.credentials.create_credential(
        unique("Svc"), purpose=catalog.CredentialPurpose.SERVICE,
        azure_managed_identity=catalog.AzureManagedIdentity(access_connector_id="ac"))
    read_only, read_write = (catalog.WorkspaceBinding(
        workspace_id=OTHER_WORKSPACE_IDS[0], binding_type=binding_type) for binding_type in (
        catalog.WorkspaceBindingBindingType.BINDING_TYPE_READ_ONLY,
        catalog.WorkspaceBindingBindingType.BINDING_TYPE_READ_WRITE))
    for securable_type, name, binding in (
            ("external_location", location.name, read_only),
            ("storage_credential", location.credential_name, read_write),
            ("credential", location.credential_name, read_write),
            ("credential", service.name, read_write)):
        added = sdk.workspace_bindings.update_bindings(securable_type, name, add=[binding])
        assert added.bindings == [binding]
        assert list(sdk.workspace_bindings.get_bindings(securable_type, name)) == [binding]
        removed = sdk.workspace_bindings.update_bindings(securable_type, name, remove=[binding])
        assert not removed.bindings
    # A credential is bound read-write only; an OPEN one keeps its bindings (they count once
    # it is ISOLATED), as the service does.
    for securable_type, name in (("storage_credential", location.credential_name),
                                 ("credential", service.name)):
        with pytest.raises(InvalidParameterValue, match=(
                f"binding types for {securable_type.upper()} are BINDING_TYPE_READ_WRITE")):
            sdk.workspace_bindings.update_bindings(securable_type, name, add=[read_only])
    sdk.workspace_bindings.update_bindings("credential", service.name, add=[read_write])
    assert sdk.credentials.get_credential(service.name).isolation_mode == (
        catalog.IsolationMode.ISOLATION_MODE_OPEN)
    assert list(sdk.workspace_bindings.get_bindings("credential", service.name)) == [read_write]
    with pytest.raises(NotFound, match="Credential"):
        list(sdk.workspace_bindings.get_bindings("credential", unique("nope")))
    with pytest.raises(NotFound):
        list(sdk.workspace_bindings.get_bindings("storage_credential", service.name))
    isolated = sdk.external_locations.update(
        location.name, isolation_mode=catalog.IsolationMode.ISOLATION_MODE_ISOLATED)
    assert isolated.isolation_mode == catalog.IsolationMode.ISOLATION_MODE_ISOLATED
    with pytest.raises(InvalidParameterValue, match="not in this metastore"):
        sdk.workspace_bindings.update_bindings("external_location", location.name, add=[
            catalog.WorkspaceBinding(workspace_id=99)])
    with pytest.raises(NotFound):
        sdk.workspace_bindings.update_bindings("external_location", unique("nope"),
                                               add=[binding])
    with pytest.raises(InvalidParameterValue, match="no workspace bindings"):
        list(sdk.workspace_bindings.get_bindings("volume", "a.b.c"))


def test_raw_shapes(api: Api):
    cat = api.post(f"{UC}/catalogs", json={"name": unique("cat")}).json()["name"]
    expect_error(api.delete(f"{UC}/catalogs/{cat}"), 400, "INVALID_STATE")
    expect_error(api.get(f"{UC}/schemas/{cat}.nope"), 404, "RESOURCE_DOES_NOT_EXIST")
    expect_error(api.get(f"{UC}/volumes/{cat}.default"), 400, "INVALID_PARAMETER_VALUE")
    expect_error(api.post(f"{UC}/catalogs", json={"name": cat}), 400, "RESOURCE_ALREADY_EXISTS")
    answer = api.patch(f"{UC}/permissions/catalog/{cat}", json={
        "changes": [{"principal": "analysts", "add": ["SELECT"]}],
        "omit_permissions_in_response": True})
    assert answer.status_code == 200 and answer.json() == {}
    assert api.get(f"{UC}/permissions/CATALOG/{cat}").json() == {
        "privilege_assignments": [{"principal": "analysts", "privileges": ["SELECT"]}]}
    assert api.delete(f"{UC}/catalogs/{cat}", params={"force": "true"}).json() == {}


def _service_credential(sdk: WorkspaceClient) -> str:
    name = unique("Svc")
    sdk.credentials.create_credential(
        name, purpose=catalog.CredentialPurpose.SERVICE,
        azure_managed_identity=catalog.AzureManagedIdentity(access_connector_id="ac"))
    return name


def _assigned(response) -> list[tuple[str, list]]:
    return [(a.principal, a.privileges) for a in response.privilege_assignments or []]


def test_grants_on_a_service_credential(sdk):
    name = _service_credential(sdk)
    changed = sdk.grants.update("credential", name, changes=[
        catalog.PermissionsChange(principal="analysts", add=[Privilege.ACCESS]),
        catalog.PermissionsChange(principal="data-engineers",
                                  add=[Privilege.MANAGE, Privilege.CREATE_CONNECTION])])
    assert _assigned(changed) == [
        ("analysts", [Privilege.ACCESS]),
        ("data-engineers", [Privilege.CREATE_CONNECTION, Privilege.MANAGE])]
    # One name, its case kept, found without regard to case.
    assert _assigned(sdk.grants.get("credential", name.upper())) == _assigned(changed)
    assert _assigned(sdk.grants.get("credential", name, principal="analysts")) == [
        ("analysts", [Privilege.ACCESS])]
    effective = sdk.grants.get_effective("credential", name, principal="analysts")
    assert [(a.principal, a.privileges) for a in effective.privilege_assignments] == [
        ("analysts", [catalog.EffectivePrivilege(privilege=Privilege.ACCESS)])]
    with pytest.raises(InvalidParameterValue, match=(
            "Privilege READ_FILES is not applicable .* service credential: ACCESS, "
            "ALL_PRIVILEGES, CREATE_CONNECTION, MANAGE")):
        sdk.grants.update("credential", name, changes=[
            catalog.PermissionsChange(principal="analysts", add=[Privilege.READ_FILES])])
    revoked = sdk.grants.update("credential", name, changes=[
        catalog.PermissionsChange(principal="analysts", remove=[Privilege.ACCESS]),
        catalog.PermissionsChange(principal="data-engineers", remove=[Privilege.MANAGE])])
    assert _assigned(revoked) == [("data-engineers", [Privilege.CREATE_CONNECTION])]
    # The grants follow a rename, and go with the credential.
    sdk.credentials.update_credential(name, new_name=name + "-b")
    assert _assigned(sdk.grants.get("credential", name + "-b")) == _assigned(revoked)
    sdk.credentials.delete_credential(name + "-b")
    with pytest.raises(NotFound, match=f"Credential '{name}-b' does not exist"):
        sdk.grants.get("credential", name + "-b")


def test_a_missing_credential_is_named_on_each_grants_path(sdk):
    missing = unique("Gone")
    for call in (lambda: sdk.grants.get("credential", missing),
                 lambda: sdk.grants.get_effective("credential", missing),
                 lambda: sdk.grants.update("credential", missing, changes=[
                     catalog.PermissionsChange(principal="analysts",
                                               add=[Privilege.ACCESS])])):
        with pytest.raises(NotFound, match=f"Credential '{missing}' does not exist"):
            call()
    service = _service_credential(sdk)
    with pytest.raises(NotFound, match=f"Storage credential '{service}' does not exist"):
        sdk.grants.get("storage_credential", service)


def test_credential_names_a_storage_credential_by_its_name_too(sdk):
    """`credential/<name>` of a storage credential reaches its grants, checked against the
    storage credential's privileges, as `storage_credential/<name>` does."""
    name = unique("Sto")
    sdk.credentials.create_credential(
        name, purpose=catalog.CredentialPurpose.STORAGE,
        azure_managed_identity=catalog.AzureManagedIdentity(access_connector_id="ac"))
    sdk.grants.update("credential", name, changes=[
        catalog.PermissionsChange(principal="analysts", add=[Privilege.READ_FILES])])
    assert _assigned(sdk.grants.get("storage_credential", name)) == [
        ("analysts", [Privilege.READ_FILES])]
    with pytest.raises(InvalidParameterValue, match="Privileges that apply to a storage cred"):
        sdk.grants.update("credential", name, changes=[
            catalog.PermissionsChange(principal="analysts", add=[Privilege.ACCESS])])
    sdk.credentials.delete_credential(name)


def test_a_service_credentials_owner_may_grant_and_others_need_manage(sdk, other):
    application_id, client = other
    name = _service_credential(sdk)
    access = [catalog.PermissionsChange(principal="analysts", add=[Privilege.ACCESS])]
    with pytest.raises(PermissionDenied, match=f"MANAGE on Credential '{name}'"):
        client.grants.update("credential", name, changes=access)
    sdk.grants.update("credential", name, changes=[
        catalog.PermissionsChange(principal=application_id, add=[Privilege.MANAGE])])
    assert ("analysts", [Privilege.ACCESS]) in _assigned(
        client.grants.update("credential", name, changes=access))
    mine = _service_credential(sdk)
    sdk.credentials.update_credential(mine, owner=application_id)
    assert _assigned(client.grants.update("credential", mine, changes=access)) == [
        ("analysts", [Privilege.ACCESS])]
    for made in (name, mine):
        sdk.credentials.delete_credential(made)
