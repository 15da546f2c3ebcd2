"""Unity Catalog connections through the official SDK, unchanged: create, get, list,
update (options, owner, name), delete; credential options never answered; a foreign
catalog on a connection, and one naming an unknown connection refused. Each rule with its
refusal."""

from __future__ import annotations

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import InvalidParameterValue, NotFound, ResourceAlreadyExists
from databricks.sdk.service import catalog

from tests.emulator.support import Api, expect_error, unique
from workspace_emulator.testing import fetch_token

PATH = "/api/2.1/unity-catalog/connections"


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


def _connection(sdk: WorkspaceClient, name: str, **fields) -> catalog.ConnectionInfo:
    return sdk.connections.create(
        name=name, connection_type=catalog.ConnectionType.POSTGRESQL,
        options={"host": "db.example.com", "port": "5432", "user": "reader",
                 "password": "s3cret-pw"}, **fields)


def test_connection_lifecycle(sdk, api: Api, emulator):
    name = unique("Pg")
    made = _connection(sdk, name, comment="orders", read_only=True)
    assert (made.name, made.connection_type, made.comment, made.read_only, made.owner) == (
        name.lower(), catalog.ConnectionType.POSTGRESQL, "orders", True, emulator.client_id)
    assert made.options == {"host": "db.example.com", "port": "5432", "user": "reader"}
    assert made.metastore_id == sdk.metastores.current().metastore_id and made.connection_id
    raw = api.get(f"{PATH}/{name.upper()}")
    assert raw.status_code == 200 and "s3cret-pw" not in raw.text
    assert "s3cret-pw" not in api.get(PATH).text
    assert made.name in [c.name for c in sdk.connections.list()]
    with pytest.raises(ResourceAlreadyExists):
        _connection(sdk, name.upper())
    changed = sdk.connections.update(
        name, options={"host": "db2.example.com", "port": "5432", "user": "reader",
                       "password": "other"}, owner="data-engineers")
    assert (changed.options or {}).get("host") == "db2.example.com"
    assert changed.owner == "data-engineers"
    renamed = sdk.connections.update(name, options={"host": "db2.example.com"},
                                     new_name=f"{name}-2")
    assert renamed.name == f"{name}-2".lower()
    with pytest.raises(NotFound):
        sdk.connections.get(name)
    sdk.connections.delete(f"{name}-2")
    with pytest.raises(NotFound, match="does not exist"):
        sdk.connections.get(f"{name}-2")


def test_connections_are_checked(sdk, api: Api):
    with pytest.raises(InvalidParameterValue, match="options.host"):
        sdk.connections.create(name=unique("pg"),
                               connection_type=catalog.ConnectionType.POSTGRESQL,
                               options={"user": "u"})
    refused = api.post(PATH, {"name": unique("x"), "connection_type": "NOSQL",
                              "options": {"host": "h"}})
    assert refused.status_code == 400 and "connection_type" in refused.json()["message"]
    name = unique("pg")
    _connection(sdk, name)
    without_options = api.patch(f"{PATH}/{name}", {"owner": "data-engineers"})
    assert "options is required" in expect_error(without_options, 400)["message"]
    with pytest.raises(InvalidParameterValue, match="owner"):
        sdk.connections.update(name, options={"host": "h"}, owner="nobody-at-all")


def test_a_foreign_catalog_names_its_connection(sdk):
    name = unique("pgfed")
    _connection(sdk, name)
    foreign = sdk.catalogs.create(unique("fed"), connection_name=name.upper(),
                                  options={"database": "orders"})
    assert (foreign.catalog_type, foreign.connection_name, foreign.options) == (
        catalog.CatalogType.FOREIGN_CATALOG, name, {"database": "orders"})
    with pytest.raises(NotFound, match="Connection 'missing-conn' does not exist"):
        sdk.catalogs.create(unique("fed"), connection_name="missing-conn",
                            options={"database": "orders"})
