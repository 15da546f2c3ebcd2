"""Grants against the emulator, in both wire forms: authoritative for one securable."""

from __future__ import annotations

from typing import Any

import pytest

from providers.client import WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.core.registry import kind_named
from providers.ml.registered_models_api import RegisteredModelsApi
from providers.unity_catalog.grants import GrantsProvider
from providers.unity_catalog.grants_api import GrantsApi
from providers.unity_catalog.schemas_api import SchemasApi
from tests.providers.support import assert_check_names, failures
from tests.providers.uc_support import (  # noqa: F401
    catalog,
    lose_the_answer_to_patch,
    service_credential,
)

BOB, ANALYSTS, ENGINEERS = "bob@example.com", "analysts", "data-engineers"


@pytest.fixture
def provider() -> GrantsProvider:
    return GrantsProvider()


@pytest.fixture
def props(connection: dict[str, Any], catalog: str) -> dict[str, Any]:  # noqa: F811
    return {
        "securable_type": "catalog",
        "full_name": catalog,
        "privilege_assignments": [
            {"principal": ANALYSTS, "privileges": ["USE_CATALOG", "SELECT"]},
            {"principal": BOB, "privileges": ["USE_CATALOG"]},
        ],
        CONNECTION_KEY: connection,
    }


def grants_on(client: WorkspaceClient, name: str, kind: str = "catalog") -> dict[str, list]:
    return {a["principal"]: sorted(a["privileges"]) for a in GrantsApi(client).get(kind, name)}


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"securable_type": "widget"}, "securable_type", "must be one of catalog, schema"),
        ({"securable_type": "metastore", "full_name": "main"}, "full_name",
         "a metastore is named by its id"),
        ({"securable_type": "table", "full_name": "main.orders"}, "full_name",
         "a table (a view, a materialized view) is named catalog.schema.table"),
        (
            {"securable_type": "share", "full_name": "feed",
             "privilege_assignments": [{"principal": "a", "privileges": ["USE_SHARE"]}]},
            "privilege_assignments.0.privileges.0",
            "USE_SHARE does not apply to a share; it takes MANAGE, SELECT",
        ),
        ({"full_name": "a.b"}, "full_name", "a catalog is named catalog"),
        (
            {"privilege_assignments": [{"principal": "analysts", "privileges": ["SELEC"]}]},
            "privilege_assignments.0.privileges.0",
            "did you mean SELECT?",
        ),
        (
            {"privilege_assignments": [{"principal": "a", "privileges": ["READ_FILES"]}]},
            "privilege_assignments.0.privileges.0",
            "does not apply to a catalog",
        ),
        (
            {"privilege_assignments": [{"principal": "a", "privileges": []}]},
            "privilege_assignments.0.privileges",
            "at least one privilege",
        ),
        (
            {"privilege_assignments": [{"principal": "a", "privileges": ["SELECT", "SELECT"]}]},
            "privilege_assignments.0.privileges",
            "more than once",
        ),
        (
            {"privilege_assignments": [{"principal": " a", "privileges": ["SELECT"]}]},
            "privilege_assignments.0.principal",
            "surrounding spaces",
        ),
        (
            {"privilege_assignments": [
                {"principal": "Bob@Example.com", "privileges": ["SELECT"]},
                {"principal": BOB, "privileges": ["USE_CATALOG"]},
            ]},
            "privilege_assignments",
            "give each principal once",
        ),
        ({"owner": "x"}, "owner", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_accepts_valid_input_and_unknowns(provider, props) -> None:
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "privilege_assignments": UNKNOWN}) == {}
    # SELECT and READ_VOLUME reach a catalog's tables and volumes.
    on_volumes = {"principal": "users", "privileges": ["READ_VOLUME", "USE_SCHEMA"]}
    assert failures(provider, {**props, "privilege_assignments": [on_volumes]}) == {}


def test_lifecycle(provider, props, client, catalog) -> None:  # noqa: F811
    made = provider.create(props)
    assert made.id == f"catalog/{catalog}"
    assert grants_on(client, catalog) == {ANALYSTS: ["SELECT", "USE_CATALOG"],
                                          BOB: ["USE_CATALOG"]}
    # Privileges are sets; a user's name matches without regard to case; the type's case.
    same = {**props, "securable_type": "CATALOG", "full_name": catalog.upper(),
            "privilege_assignments": [
                {"principal": "Bob@Example.COM", "privileges": ["USE_CATALOG"]},
                {"principal": ANALYSTS, "privileges": ["SELECT", "USE_CATALOG"]}]}
    assert not provider.diff(made.id, made.outs, same).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    # A privilege removed from config is revoked; nothing else is touched.
    fewer = {**props, "privilege_assignments": [
        {"principal": ANALYSTS, "privileges": ["USE_CATALOG"]},
        {"principal": BOB, "privileges": ["USE_CATALOG"]}]}
    diff = provider.diff(made.id, read.outs, fewer)
    assert diff.changed_keys == ["privilege_assignments"] and not diff.replaces
    assert diff.field_changes == ["privilege_assignments: analysts: loses SELECT"]
    updated = provider.update(made.id, read.outs, fewer)
    assert grants_on(client, catalog) == {ANALYSTS: ["USE_CATALOG"], BOB: ["USE_CATALOG"]}

    provider.delete(made.id, updated.outs)
    assert grants_on(client, catalog) == {}
    provider.delete(made.id, updated.outs)  # nothing left to revoke


def test_a_grant_made_outside_to_an_undeclared_principal_is_removed(
    provider, props, client, catalog  # noqa: F811
) -> None:
    made = provider.create(props)
    GrantsApi(client).update("catalog", catalog, [{"principal": ENGINEERS, "add": ["SELECT"]}])
    read = provider.read(made.id, made.outs)
    diff = provider.diff(made.id, read.outs, props)
    assert diff.changed_keys == ["privilege_assignments"]
    assert diff.field_changes == [
        "privilege_assignments: data-engineers: loses SELECT (not declared)"
    ]
    provider.update(made.id, read.outs, props)
    assert ENGINEERS not in grants_on(client, catalog)
    provider.delete(made.id, made.outs)


def test_a_declared_privilege_revoked_outside_is_seen_and_restored(
    provider, props, client, catalog  # noqa: F811
) -> None:
    made = provider.create(props)
    GrantsApi(client).update("catalog", catalog, [{"principal": ANALYSTS, "remove": ["SELECT"]}])
    read = provider.read(made.id, made.outs)
    diff = provider.diff(made.id, read.outs, props)
    assert diff.field_changes == ["privilege_assignments: analysts: gains SELECT"]
    provider.update(made.id, read.outs, props)
    assert grants_on(client, catalog)[ANALYSTS] == ["SELECT", "USE_CATALOG"]
    provider.delete(made.id, made.outs)


def test_another_securable_replaces(provider, props, created) -> None:
    id_, outs = created
    diff = provider.diff(id_, outs, {**props, "full_name": "main"})
    assert diff.replaces == ["full_name"]
    provider.delete(id_, outs)


def test_import_by_id_previews_no_change(provider, props, client, catalog) -> None:  # noqa: F811
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["privilege_assignments"] == made.outs["privilege_assignments"]
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    provider.delete(made.id, imported.outs)
    assert grants_on(client, catalog) == {}


def test_create_converges_after_a_lost_answer_and_an_interrupted_run(
    provider, props, client, catalog, monkeypatch  # noqa: F811
) -> None:
    with monkeypatch.context() as patched:
        lost = lose_the_answer_to_patch(patched, "/permissions/")
        made = provider.create(props)
        assert len(lost) == 1
    assert grants_on(client, catalog)[BOB] == ["USE_CATALOG"]
    # The run is interrupted before the state records the grants: the next create finds
    # them made and sends nothing.
    sent: list[str] = []
    real_patch = WorkspaceClient.patch

    def recording_patch(self: WorkspaceClient, to: str, body: dict[str, Any]) -> dict[str, Any]:
        sent.append(to)
        return real_patch(self, to, body)

    monkeypatch.setattr(WorkspaceClient, "patch", recording_patch)
    again = provider.create(props)
    assert sent == [] and again.outs["privilege_assignments"] == made.outs[
        "privilege_assignments"]
    provider.delete(again.id, again.outs)


def test_grants_on_each_securable_type(provider, connection, client, catalog) -> None:  # noqa: F811
    schema = {"securable_type": "schema", "full_name": f"{catalog}.default",
              "privilege_assignments": [{"principal": ANALYSTS,
                                         "privileges": ["USE_SCHEMA", "SELECT"]}],
              CONNECTION_KEY: connection}
    made = provider.create(schema)
    assert grants_on(client, f"{catalog}.default", "schema") == {
        ANALYSTS: ["SELECT", "USE_SCHEMA"]}
    provider.delete(made.id, made.outs)


def test_grants_on_a_service_credential(
    provider, connection, client, service_credential  # noqa: F811
) -> None:
    name = service_credential
    props = {"securable_type": "credential", "full_name": name,
             "privilege_assignments": [
                 {"principal": ANALYSTS, "privileges": ["ACCESS"]},
                 {"principal": ENGINEERS, "privileges": ["MANAGE", "CREATE_CONNECTION"]}],
             CONNECTION_KEY: connection}
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "privilege_assignments": [
        {"principal": ANALYSTS, "privileges": ["ACCESS", "READ_FILES"]}]}) == {
        "privilege_assignments.0.privileges.1": (
            "READ_FILES does not apply to a service credential; it takes ACCESS, "
            "ALL_PRIVILEGES, CREATE_CONNECTION, MANAGE (a storage credential's grants are "
            "declared with securable_type storage_credential)")}

    made = provider.create(props)
    assert made.id == f"credential/{name}"
    assert grants_on(client, name, "credential") == {
        ANALYSTS: ["ACCESS"], ENGINEERS: ["CREATE_CONNECTION", "MANAGE"]}
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes
    imported = provider.read(made.id, {CONNECTION_KEY: connection})
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    # Adopt and the audit find it among the securables with direct grants.
    listed = dict(kind_named("Grants").inventory(client))  # type: ignore[misc]
    assert listed[made.id] == f"credential {name}"

    # A grant made outside to an undeclared principal is revoked; a privilege removed from
    # config is revoked.
    GrantsApi(client).update("credential", name, [{"principal": BOB, "add": ["ACCESS"]}])
    fewer = {**props, "privilege_assignments": [
        {"principal": ANALYSTS, "privileges": ["ACCESS"]},
        {"principal": ENGINEERS, "privileges": ["MANAGE"]}]}
    read = provider.read(made.id, made.outs)
    assert provider.diff(made.id, read.outs, fewer).field_changes == [
        "privilege_assignments: bob@example.com: loses ACCESS (not declared)",
        "privilege_assignments: data-engineers: loses CREATE_CONNECTION"]
    updated = provider.update(made.id, read.outs, fewer)
    assert grants_on(client, name, "credential") == {ANALYSTS: ["ACCESS"],
                                                     ENGINEERS: ["MANAGE"]}

    provider.delete(made.id, updated.outs)
    assert grants_on(client, name, "credential") == {}


def test_a_securable_named_in_another_case_is_no_change(
    provider, connection, client, service_credential  # noqa: F811
) -> None:
    """A credential's name keeps its case and is matched without it: Grants on it spelled in
    another case are the same grants, neither a change nor a replacement (whose delete would
    revoke what the new Grants had just declared)."""
    props = {"securable_type": "credential", "full_name": service_credential,
             "privilege_assignments": [{"principal": ANALYSTS, "privileges": ["ACCESS"]}],
             CONNECTION_KEY: connection}
    made = provider.create(props)
    other_case = {**props, "full_name": service_credential.swapcase()}
    diff = provider.diff(made.id, made.outs, other_case, old_inputs=props)
    assert not diff.changes and not diff.replaces
    assert grants_on(client, service_credential, "credential") == {ANALYSTS: ["ACCESS"]}
    provider.delete(made.id, made.outs)


def test_a_registered_model_is_reached_as_a_function(provider, connection, client,
                                                      catalog) -> None:  # noqa: F811
    schema = SchemasApi(client).create({"name": "ml", "catalog_name": catalog})["full_name"]
    model = RegisteredModelsApi(client).create(
        {"catalog_name": catalog, "schema_name": "ml", "name": "churn"})["full_name"]
    props = {"securable_type": "FUNCTION", "full_name": model.upper(), CONNECTION_KEY: connection,
             "privilege_assignments": [{"principal": ANALYSTS, "privileges": ["EXECUTE"]}]}
    made = provider.create(props)
    assert made.id == f"function/{model}" and model == f"{schema}.churn"
    assert grants_on(client, model, "function") == {ANALYSTS: ["EXECUTE"]}
    assert not provider.diff(made.id, provider.read(made.id, made.outs).outs, props).changes
    refused = {**props, "privilege_assignments": [{"principal": ANALYSTS,
                                                   "privileges": ["READ_VOLUME"]}]}
    assert failures(provider, refused) == {
        "privilege_assignments.0.privileges.0":
        "READ_VOLUME does not apply to a function (a registered model); it takes "
        "ALL_PRIVILEGES, APPLY_TAG, EXECUTE, MANAGE"}
    provider.delete(made.id, made.outs)
    assert grants_on(client, model, "function") == {}


def _table(client: WorkspaceClient, catalog: str, name: str) -> str:  # noqa: F811
    made = client.post("/api/2.1/unity-catalog/tables", {
        "catalog_name": catalog, "schema_name": "default", "name": name,
        "table_type": "EXTERNAL", "data_source_format": "DELTA",
        "storage_location": f"abfss://lake@emulated.dfs.core.windows.net/{catalog}/{name}"})
    return str(made["full_name"])


def test_grants_on_a_table_by_full_name(provider, connection, client, catalog) -> None:  # noqa: F811
    table = _table(client, catalog, "orders")
    props = {"securable_type": "table", "full_name": table.upper(), CONNECTION_KEY: connection,
             "privilege_assignments": [{"principal": ANALYSTS, "privileges": ["SELECT"]}]}
    made = provider.create(props)
    assert made.id == f"table/{table}"
    assert grants_on(client, table, "table") == {ANALYSTS: ["SELECT"]}
    # No change with no write; an import previews no change.
    assert not provider.diff(made.id, provider.read(made.id, made.outs).outs, props).changes
    imported = provider.read(made.id, {CONNECTION_KEY: connection})
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    # A privilege revoked outside shows in a refresh and comes back with the update.
    GrantsApi(client).update("table", table, [{"principal": ANALYSTS, "remove": ["SELECT"]}])
    read = provider.read(made.id, made.outs)
    assert read.outs["privilege_assignments"] == []
    provider.update(made.id, read.outs, props)
    assert grants_on(client, table, "table") == {ANALYSTS: ["SELECT"]}
    listed = dict(kind_named("Grants").inventory(client))  # type: ignore[misc]
    assert listed[made.id] == f"table {table}"
    provider.delete(made.id, made.outs)
    assert grants_on(client, table, "table") == {}


def test_grants_on_a_function_share_and_the_metastore(provider, connection, client,
                                                       catalog) -> None:  # noqa: F811
    function = client.post("/api/2.1/unity-catalog/functions", {"function_info": {
        "name": "double_it", "catalog_name": catalog, "schema_name": "default",
        "data_type": "INT", "full_data_type": "INT", "routine_body": "SQL",
        "routine_definition": "x * 2"}})["full_name"]
    share = client.post("/api/2.1/unity-catalog/shares", {"name": f"{catalog}_feed"})["name"]
    recipient = client.post("/api/2.1/unity-catalog/recipients", {
        "name": f"{catalog}_partner", "authentication_type": "TOKEN"})["name"]
    metastore = client.get(f"/api/2.1/unity-catalog/catalogs/{catalog}")["metastore_id"]
    made = []
    for securable_type, name, assignments in (
        ("function", function, [{"principal": ANALYSTS, "privileges": ["EXECUTE"]}]),
        ("share", share, [{"principal": recipient, "privileges": ["SELECT"]},
                          {"principal": ENGINEERS, "privileges": ["MANAGE"]}]),
        ("metastore", metastore, [{"principal": ENGINEERS, "privileges": ["CREATE_SHARE"]}]),
    ):
        props = {"securable_type": securable_type, "full_name": name,
                 "privilege_assignments": assignments, CONNECTION_KEY: connection}
        assert failures(provider, props) == {}
        created = provider.create(props)
        made.append(created)
        assert created.id == f"{securable_type}/{name}"
        # A recipient is matched without regard to case (the service keeps it lower case).
        expected = {str(a["principal"]).lower() if a["principal"] == recipient
                    else str(a["principal"]): a["privileges"] for a in assignments}
        assert grants_on(client, name, securable_type) == expected
        assert not provider.diff(created.id, provider.read(created.id, created.outs).outs,
                                 props).changes
    listed = dict(kind_named("Grants").inventory(client))  # type: ignore[misc]
    assert {f"function/{function}", f"share/{share}", f"metastore/{metastore}"} <= set(listed)
    for created in made:
        provider.delete(created.id, created.outs)
    assert grants_on(client, share, "share") == {}
    assert grants_on(client, metastore, "metastore") == {}
    client.delete(f"/api/2.1/unity-catalog/shares/{share}")
    client.delete(f"/api/2.1/unity-catalog/recipients/{recipient}")
