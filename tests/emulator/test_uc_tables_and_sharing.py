"""Tables, functions and Delta Sharing's shares, recipients and providers through the
official SDK, and grants on every securable type the permissions API takes: tables (views
and materialized views among them), functions, the metastore, connections, shares,
recipients, providers; inheritance down to a table; the refusals of a bad type, name or
privilege."""

from __future__ import annotations

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import BadRequest, InvalidParameterValue, NotFound, ResourceAlreadyExists
from databricks.sdk.service import catalog, sharing

from tests.emulator.support import unique
from workspace_emulator.testing import fetch_token

Privilege = catalog.Privilege
LOCATION = "abfss://lake@emulated.dfs.core.windows.net/tables"


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


@pytest.fixture(scope="module")
def schema(sdk) -> str:
    cat = sdk.catalogs.create(unique("cat")).name
    return f"{cat}.default"


def _table(sdk: WorkspaceClient, schema: str, name: str) -> catalog.TableInfo:
    cat, sch = schema.split(".")
    return sdk.tables.create(name, cat, sch, catalog.TableType.EXTERNAL,
                             catalog.DataSourceFormat.DELTA, f"{LOCATION}/{unique(name)}")


def _function(sdk: WorkspaceClient, schema: str, name: str) -> catalog.FunctionInfo:
    cat, sch = schema.split(".")
    return sdk.functions.create(catalog.CreateFunction(
        name=name, catalog_name=cat, schema_name=sch,
        input_params=catalog.FunctionParameterInfos(parameters=[]),
        data_type=catalog.ColumnTypeName.INT, full_data_type="INT",
        routine_body=catalog.CreateFunctionRoutineBody.SQL, routine_definition="1",
        parameter_style=catalog.CreateFunctionParameterStyle.S,
        is_deterministic=True, sql_data_access=catalog.CreateFunctionSqlDataAccess.NO_SQL,
        is_null_call=False, security_type=catalog.CreateFunctionSecurityType.DEFINER,
        specific_name=name))


def _held(sdk: WorkspaceClient, securable_type: str, name: str | None) -> dict:
    return {a.principal: a.privileges
            for a in sdk.grants.get(securable_type, name or "").privilege_assignments or []}


def test_table_lifecycle(sdk, schema):
    made = _table(sdk, schema, "Orders")
    assert made.full_name == f"{schema}.orders" and made.table_type == catalog.TableType.EXTERNAL
    assert sdk.tables.get(f"{schema}.ORDERS").table_id == made.table_id
    assert sdk.tables.exists(made.full_name).table_exists is True
    assert made.full_name in {t.full_name for t in sdk.tables.list(*schema.split("."))}
    with pytest.raises(ResourceAlreadyExists):
        _table(sdk, schema, "orders")
    cat, sch = schema.split(".")
    with pytest.raises(InvalidParameterValue, match="external Delta tables only"):
        sdk.tables.create("m", cat, sch, catalog.TableType.MANAGED,
                          catalog.DataSourceFormat.DELTA, LOCATION)
    sdk.tables.delete(made.full_name)
    assert sdk.tables.exists(made.full_name).table_exists is False
    with pytest.raises(NotFound, match="does not exist"):
        sdk.tables.get(made.full_name)


def test_function_lifecycle(sdk, schema):
    made = _function(sdk, schema, "Double_It")
    assert made.full_name == f"{schema}.double_it" and made.routine_definition == "1"
    assert sdk.functions.get(made.full_name).function_id == made.function_id
    assert made.full_name in {f.full_name for f in sdk.functions.list(*schema.split("."))}
    sdk.functions.delete(made.full_name)
    with pytest.raises(NotFound):
        sdk.functions.get(made.full_name)


def test_a_schema_counts_its_tables_and_functions_before_a_delete(sdk):
    cat = sdk.catalogs.create(unique("cat")).name
    schema = sdk.schemas.create("s", cat).full_name
    _table(sdk, schema, "t")
    _function(sdk, schema, "f")
    with pytest.raises(Exception, match="has 1 tables\\(s\\), 1 functions\\(s\\)"):
        sdk.schemas.delete(schema)
    sdk.grants.update("table", f"{schema}.t", changes=[catalog.PermissionsChange(
        principal="analysts", add=[Privilege.SELECT])])
    sdk.schemas.delete(schema, force=True)
    assert sdk.tables.exists(f"{schema}.t").table_exists is False
    sdk.schemas.create("s", cat)
    _table(sdk, schema, "t")
    assert _held(sdk, "table", f"{schema}.t") == {}  # the old table's grants went with it


def test_grants_on_a_table_and_a_view_inherit_from_schema_and_catalog(sdk, schema, emulator):
    table = _table(sdk, schema, "sales").full_name
    sdk.grants.update("table", table, changes=[catalog.PermissionsChange(
        principal="analysts", add=[Privilege.SELECT, Privilege.MODIFY])])
    cat = schema.split(".")[0]
    sdk.grants.update("catalog", cat, changes=[catalog.PermissionsChange(
        principal="analysts", add=[Privilege.USE_CATALOG])])
    assert _held(sdk, "table", table) == {"analysts": [Privilege.MODIFY, Privilege.SELECT]}
    effective = sdk.grants.get_effective("table", table, principal="analysts")
    assert effective.privilege_assignments[0].privileges == [
        catalog.EffectivePrivilege(privilege=Privilege.MODIFY),
        catalog.EffectivePrivilege(privilege=Privilege.SELECT),
        catalog.EffectivePrivilege(privilege=Privilege.USE_CATALOG,
                                   inherited_from_type=catalog.SecurableType.CATALOG,
                                   inherited_from_name=cat)]
    with pytest.raises(InvalidParameterValue, match=r"Privilege USE_SCHEMA is not applicable "
                                                    r"to this entity \[.*:TABLE\]"):
        sdk.grants.update("table", table, changes=[catalog.PermissionsChange(
            principal="analysts", add=[Privilege.USE_SCHEMA])])
    with pytest.raises(NotFound, match="does not exist"):
        sdk.grants.get("table", f"{schema}.nope")


def test_grants_on_a_function_and_a_registered_model_share_the_type(sdk, schema):
    function = _function(sdk, schema, "score").full_name
    sdk.grants.update("function", function, changes=[catalog.PermissionsChange(
        principal="analysts", add=[Privilege.EXECUTE])])
    assert _held(sdk, "function", function) == {"analysts": [Privilege.EXECUTE]}
    cat, sch = schema.split(".")
    model = sdk.registered_models.create(catalog_name=cat, schema_name=sch,
                                         name="churn").full_name
    sdk.grants.update("function", model, changes=[catalog.PermissionsChange(
        principal="data-engineers", add=[Privilege.EXECUTE])])
    assert _held(sdk, "function", model) == {"data-engineers": [Privilege.EXECUTE]}


def test_grants_on_the_metastore_by_its_id(sdk, schema):
    metastore = sdk.catalogs.get(schema.split(".")[0]).metastore_id or ""
    sdk.grants.update("metastore", metastore, changes=[catalog.PermissionsChange(
        principal="data-engineers", add=[Privilege.CREATE_CATALOG, Privilege.CREATE_SHARE])])
    assert _held(sdk, "metastore", metastore)["data-engineers"] == [
        Privilege.CREATE_CATALOG, Privilege.CREATE_SHARE]
    with pytest.raises(InvalidParameterValue, match="Privilege SELECT is not applicable"):
        sdk.grants.update("metastore", metastore, changes=[catalog.PermissionsChange(
            principal="analysts", add=[Privilege.SELECT])])
    with pytest.raises(NotFound, match="Metastore 'nope' does not exist"):
        sdk.grants.get("metastore", "nope")
    sdk.grants.update("metastore", metastore, changes=[catalog.PermissionsChange(
        principal="data-engineers", remove=[Privilege.CREATE_CATALOG, Privilege.CREATE_SHARE])])


def test_grants_on_a_connection(sdk):
    # Grants reach the connections the connections area keeps, and no other.
    with pytest.raises(NotFound, match="Connection 'pg_sales' does not exist"):
        sdk.grants.update("connection", "pg_sales", changes=[catalog.PermissionsChange(
            principal="analysts", add=[Privilege.USE_CONNECTION])])
    sdk.connections.create("pg_sales", catalog.ConnectionType.POSTGRESQL, options={
        "host": "db.example.com", "port": "5432", "user": "reader", "password": "pw"})
    sdk.grants.update("connection", "PG_SALES", changes=[catalog.PermissionsChange(
        principal="analysts", add=[Privilege.USE_CONNECTION])])
    assert _held(sdk, "connection", "pg_sales") == {"analysts": [Privilege.USE_CONNECTION]}
    with pytest.raises(InvalidParameterValue, match="Privilege SELECT is not applicable"):
        sdk.grants.update("connection", "pg_sales", changes=[catalog.PermissionsChange(
            principal="analysts", add=[Privilege.SELECT])])


def test_share_recipient_and_provider_lifecycle_and_grants(sdk):
    share = sdk.shares.create(unique("Share"), comment="sales")
    assert share.name and sdk.shares.get(share.name.upper()).comment == "sales"
    assert share.name in {s.name for s in sdk.shares.list_shares()}
    recipient = sdk.recipients.create(unique("partner"), sharing.AuthenticationType.TOKEN)
    assert recipient.name and recipient.tokens and recipient.tokens[0].activation_url
    provider = sdk.providers.create(unique("upstream"), sharing.AuthenticationType.TOKEN,
                                    recipient_profile_str='{"shareCredentialsVersion":1}')
    assert provider.name in {p.name for p in sdk.providers.list()}
    with pytest.raises(InvalidParameterValue, match="recipient_profile_str is required"):
        sdk.providers.create(unique("x"), sharing.AuthenticationType.TOKEN)

    sdk.grants.update("share", share.name, changes=[
        catalog.PermissionsChange(principal=recipient.name, add=[Privilege.SELECT]),
        catalog.PermissionsChange(principal="data-engineers", add=[Privilege.MANAGE])])
    assert _held(sdk, "share", share.name) == {
        recipient.name.lower(): [Privilege.SELECT], "data-engineers": [Privilege.MANAGE]}
    with pytest.raises(InvalidParameterValue, match="is granted to a recipient"):
        sdk.grants.update("share", share.name, changes=[catalog.PermissionsChange(
            principal="analysts", add=[Privilege.SELECT])])
    sdk.grants.update("recipient", recipient.name, changes=[catalog.PermissionsChange(
        principal="analysts", add=[Privilege.MANAGE])])
    sdk.grants.update("provider", provider.name, changes=[catalog.PermissionsChange(
        principal="analysts", add=[Privilege.MANAGE])])
    assert _held(sdk, "provider", provider.name) == {"analysts": [Privilege.MANAGE]}

    renamed = sdk.shares.update(share.name, new_name=share.name + "_v2")
    assert renamed.name == share.name + "_v2"
    assert _held(sdk, "share", renamed.name)["data-engineers"] == [Privilege.MANAGE]
    for api, name in ((sdk.shares, renamed.name), (sdk.recipients, recipient.name),
                      (sdk.providers, provider.name)):
        api.delete(name)
    with pytest.raises(NotFound, match="Share '.*' does not exist"):
        sdk.grants.get("share", renamed.name)


def test_an_unknown_securable_type_is_refused_naming_the_served_ones(sdk):
    with pytest.raises(BadRequest, match="Unsupported securable type 'widget'; this "
                                         "workspace serves catalog, clean_room, connection"):
        sdk.grants.get("widget", "x")
