"""Grant against the emulator, in both wire forms: one principal's privileges, additively."""

from __future__ import annotations

from typing import Any

import pytest

from providers.core.lifecycle import CONNECTION_KEY
from providers.unity_catalog.grant import GrantProvider
from providers.unity_catalog.grants_api import GrantsApi
from tests.providers.support import assert_check_names, failures
from tests.providers.test_grants import ANALYSTS, BOB, ENGINEERS, grants_on
from tests.providers.uc_support import (  # noqa: F401
    catalog,
    lose_the_answer_to_patch,
    service_credential,
)


@pytest.fixture
def provider() -> GrantProvider:
    return GrantProvider()


@pytest.fixture
def props(connection: dict[str, Any], catalog: str) -> dict[str, Any]:  # noqa: F811
    return {
        "securable_type": "catalog",
        "full_name": catalog,
        "principal": ANALYSTS,
        "privileges": ["USE_CATALOG", "SELECT"],
        CONNECTION_KEY: connection,
    }


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"securable_type": "widget"}, "securable_type", "must be one of"),
        ({"securable_type": "metastore"}, "full_name", "a metastore is named by its id"),
        ({"securable_type": "table"}, "full_name", "is named catalog.schema.table"),
        ({"securable_type": "connection", "full_name": "pg", "privileges": ["SELECT"]},
         "privileges.0", "SELECT does not apply to a connection; it takes ALL_PRIVILEGES, "
                         "CREATE_FOREIGN_CATALOG, MANAGE, USE_CONNECTION"),
        ({"full_name": "x y"}, "full_name", "a catalog is named"),
        ({"principal": ""}, "principal", "without surrounding spaces"),
        ({"privileges": []}, "privileges", "at least one"),
        ({"privileges": ["USE_CATALOG", "SELEKT"]}, "privileges.1", "did you mean SELECT?"),
        ({"privileges": ["WRITE_FILES"]}, "privileges.0", "does not apply to a catalog"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_lifecycle_leaves_other_principals_alone(provider, props, client, catalog) -> None:  # noqa: F811
    GrantsApi(client).update("catalog", catalog, [{"principal": ENGINEERS, "add": ["SELECT"]}])
    assert failures(provider, props) == {}
    made = provider.create(props)
    assert made.id == f"catalog/{catalog}/{ANALYSTS}"
    assert grants_on(client, catalog) == {ANALYSTS: ["SELECT", "USE_CATALOG"],
                                          ENGINEERS: ["SELECT"]}
    assert not provider.diff(made.id, made.outs, {**props, "privileges": ["SELECT",
                                                                          "USE_CATALOG"]}).changes

    # A grant made outside to another principal survives, and is never a change.
    GrantsApi(client).update("catalog", catalog, [{"principal": BOB, "add": ["USE_CATALOG"]}])
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    # A declared privilege revoked outside is seen, and restored.
    GrantsApi(client).update("catalog", catalog, [{"principal": ANALYSTS, "remove": ["SELECT"]}])
    read = provider.read(made.id, made.outs)
    assert provider.diff(made.id, read.outs, props).changed_keys == ["privileges"]
    provider.update(made.id, read.outs, props)
    assert grants_on(client, catalog)[ANALYSTS] == ["SELECT", "USE_CATALOG"]

    # A privilege removed from config is revoked; nothing else is touched.
    fewer = {**props, "privileges": ["USE_CATALOG"]}
    updated = provider.update(made.id, read.outs, fewer)
    assert grants_on(client, catalog) == {ANALYSTS: ["USE_CATALOG"], BOB: ["USE_CATALOG"],
                                          ENGINEERS: ["SELECT"]}

    provider.delete(made.id, updated.outs)
    assert grants_on(client, catalog) == {BOB: ["USE_CATALOG"], ENGINEERS: ["SELECT"]}


def test_a_user_is_matched_without_regard_to_case(provider, props, client, catalog) -> None:  # noqa: F811
    declared = {**props, "principal": "Bob@Example.com"}
    made = provider.create(declared)
    assert made.id == f"catalog/{catalog}/{BOB}"
    assert grants_on(client, catalog) == {BOB: ["SELECT", "USE_CATALOG"]}
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, declared).changes
    assert not provider.diff(made.id, read.outs, {**props, "principal": BOB}).changes
    provider.delete(made.id, made.outs)


def test_another_principal_replaces(provider, props, created) -> None:
    id_, outs = created
    assert provider.diff(id_, outs, {**props, "principal": ENGINEERS}).replaces == ["principal"]
    provider.delete(id_, outs)


def test_import_by_id_previews_no_change(provider, props, client, catalog) -> None:  # noqa: F811
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["privileges"] == ["SELECT", "USE_CATALOG"]
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    provider.delete(made.id, imported.outs)
    assert grants_on(client, catalog) == {}


def test_create_converges_after_a_lost_answer(
    provider, props, client, catalog, monkeypatch  # noqa: F811
) -> None:
    with monkeypatch.context() as patched:
        lost = lose_the_answer_to_patch(patched, "/permissions/")
        made = provider.create(props)
    assert len(lost) == 1
    again = provider.create(props)  # an interrupted run: the grant is there already
    assert again.outs["privileges"] == made.outs["privileges"] == ["SELECT", "USE_CATALOG"]
    provider.delete(again.id, again.outs)


def test_a_gone_securable_reads_as_gone(provider, props, client, catalog) -> None:  # noqa: F811
    made = provider.create(props)
    client.request("DELETE", f"/api/2.1/unity-catalog/catalogs/{catalog}",
                   params={"force": "true"})
    assert provider.read(made.id, made.outs).id is None
    provider.delete(made.id, made.outs)


def test_a_grant_on_a_table_leaves_another_principal_alone(
    provider, connection, client, catalog  # noqa: F811
) -> None:
    table = client.post("/api/2.1/unity-catalog/tables", {
        "catalog_name": catalog, "schema_name": "default", "name": "orders",
        "table_type": "EXTERNAL", "data_source_format": "DELTA",
        "storage_location": f"abfss://lake@emulated.dfs.core.windows.net/{catalog}/orders"},
    )["full_name"]
    GrantsApi(client).update("table", table, [{"principal": ENGINEERS, "add": ["MODIFY"]}])
    props = {"securable_type": "view", "full_name": table, "principal": ANALYSTS,
             "privileges": ["SELECT"], CONNECTION_KEY: connection}
    made = provider.create(props)
    assert made.id == f"table/{table}/{ANALYSTS}"
    assert grants_on(client, table, "table") == {ANALYSTS: ["SELECT"], ENGINEERS: ["MODIFY"]}
    assert not provider.diff(made.id, provider.read(made.id, made.outs).outs, props).changes
    provider.delete(made.id, made.outs)
    assert grants_on(client, table, "table") == {ENGINEERS: ["MODIFY"]}


def test_a_grant_on_a_service_credential_leaves_another_principal_alone(
    provider, connection, client, service_credential  # noqa: F811
) -> None:
    name = service_credential
    GrantsApi(client).update("credential", name, [{"principal": ENGINEERS, "add": ["MANAGE"]}])
    props = {"securable_type": "credential", "full_name": name, "principal": ANALYSTS,
             "privileges": ["ACCESS"], CONNECTION_KEY: connection}
    assert failures(provider, {**props, "privileges": ["ACCESS", "SELECT"]}) == {
        "privileges.1": "SELECT does not apply to a service credential; it takes ACCESS, "
                        "ALL_PRIVILEGES, CREATE_CONNECTION, MANAGE"}
    made = provider.create(props)
    assert made.id == f"credential/{name}/{ANALYSTS}"
    assert grants_on(client, name, "credential") == {ANALYSTS: ["ACCESS"],
                                                     ENGINEERS: ["MANAGE"]}
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes
    updated = provider.update(made.id, read.outs, {**props, "privileges": ["ACCESS",
                                                                         "CREATE_CONNECTION"]})
    assert grants_on(client, name, "credential") == {
        ANALYSTS: ["ACCESS", "CREATE_CONNECTION"], ENGINEERS: ["MANAGE"]}
    provider.delete(made.id, updated.outs)
    assert grants_on(client, name, "credential") == {ENGINEERS: ["MANAGE"]}
