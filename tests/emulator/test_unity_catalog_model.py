"""The Unity Catalog area's model, without HTTP: creation rules, names, deletion, owners,
grants and their inheritance, privileges per securable type, bindings."""

from __future__ import annotations

import pytest

from workspace_emulator.errors import (
    AlreadyExists,
    InvalidParameter,
    InvalidState,
    NotFound,
    PermissionDenied,
)
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.model import TABLES, UnityCatalog
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.privileges import APPLICABLE
from workspace_emulator.platform.directory import (
    TABLES as DIRECTORY_TABLES,
)
from workspace_emulator.platform.directory import (
    Caller,
    Directory,
    Group,
    ServicePrincipalSpec,
    User,
)
from workspace_emulator.storage import Database, to_json

ADMIN = Caller("admin-app", "1", "admin", frozenset({"admins", "users"}))
ALICE = Caller("alice-app", "2", "alice", frozenset({"analysts", "users"}))
BOB = Caller("bob-app", "3", "bob", frozenset({"users"}))
ROOT = "abfss://lake@acct.dfs.core.windows.net"


@pytest.fixture
def uc() -> UnityCatalog:
    db = Database(None)
    db.create_tables(DIRECTORY_TABLES)
    db.create_tables("CREATE TABLE IF NOT EXISTS catalogs (name TEXT PRIMARY KEY, "
                     "doc TEXT NOT NULL);")
    db.create_tables(TABLES)
    directory = Directory(db, lambda app: app)
    with db.write() as conn:
        directory.add_group(conn, Group("g1", "analysts"))
        directory.add_group(conn, Group("g2", "admins"))
        directory.add_group(conn, Group("g3", "users"))
        directory.add_user(conn, User("u1", "Ana@Example.com", "Ana"))
    for caller in (ADMIN, ALICE, BOB):
        directory.create_service_principal(caller.application_id,
                                           ServicePrincipalSpec(display_name=caller.display_name))
    model = UnityCatalog(db, directory, "meta-1")
    with db.write() as conn:
        for name, owner in (("main", "admins"), ("sales", "alice-app")):
            doc = {"name": name, "full_name": name, "owner": owner,
                   "securable_type": "CATALOG", "catalog_type": "MANAGED_CATALOG"}
            conn.execute("INSERT INTO catalogs (name, doc) VALUES (?, ?)", (name, to_json(doc)))
    return model


def _location(uc: UnityCatalog, url: str = f"{ROOT}/ext") -> dict:
    uc.create_storage_credential({"name": "Cred", "azure_managed_identity": {
        "access_connector_id": "/subscriptions/x/connector"}}, ADMIN)
    return uc.create_external_location({"name": "Ext", "url": url, "credential_name": "cred"},
                                       ADMIN)


def test_schema_needs_its_catalog_and_names_fold_to_lower_case(uc):
    with pytest.raises(NotFound, match="Catalog 'nope' does not exist"):
        uc.create_schema({"name": "s", "catalog_name": "nope"}, ADMIN)
    schema = uc.create_schema({"name": "Raw", "catalog_name": "MAIN"}, ADMIN)
    assert schema["name"] == "raw" and schema["full_name"] == "main.raw"
    assert schema["owner"] == "admin-app" and schema["metastore_id"] == "meta-1"
    assert schema["schema_id"] and schema["created_by"] == "admin-app"
    assert uc.get_schema("Main.RAW")["schema_id"] == schema["schema_id"]
    with pytest.raises(AlreadyExists):
        uc.create_schema({"name": "RAW", "catalog_name": "main"}, ADMIN)
    with pytest.raises(InvalidParameter, match="may not contain"):
        uc.create_schema({"name": "a.b", "catalog_name": "main"}, ADMIN)
    with pytest.raises(InvalidParameter, match="expected catalog.schema"):
        uc.get_schema("main")


def test_volume_needs_its_schema_and_managed_ones_are_placed(uc):
    with pytest.raises(NotFound, match="Schema 'main.nope'"):
        uc.create_volume({"catalog_name": "main", "schema_name": "nope", "name": "v",
                          "volume_type": "MANAGED"}, ADMIN)
    uc.create_schema({"name": "raw", "catalog_name": "main"}, ADMIN)
    volume = uc.create_volume({"catalog_name": "main", "schema_name": "raw", "name": "Files",
                               "volume_type": "MANAGED"}, ADMIN)
    assert volume["full_name"] == "main.raw.files"
    assert volume["storage_location"] == f"{uc.metastore_root}/volumes/{volume['volume_id']}"
    with pytest.raises(InvalidParameter, match="MANAGED or EXTERNAL"):
        uc.create_volume({"catalog_name": "main", "schema_name": "raw", "name": "x",
                          "volume_type": "OTHER"}, ADMIN)
    with pytest.raises(InvalidParameter, match="cannot be given for a MANAGED"):
        uc.create_volume({"catalog_name": "main", "schema_name": "raw", "name": "x",
                          "volume_type": "MANAGED", "storage_location": f"{ROOT}/x"}, ADMIN)


def test_external_volume_needs_a_location_covering_it(uc):
    uc.create_schema({"name": "raw", "catalog_name": "main"}, ADMIN)
    spec = {"catalog_name": "main", "schema_name": "raw", "name": "landing",
            "volume_type": "EXTERNAL", "storage_location": f"{ROOT}/ext/landing"}
    with pytest.raises(InvalidParameter, match="not under any external location"):
        uc.create_volume(spec, ADMIN)
    _location(uc)
    volume = uc.create_volume(spec, ADMIN)
    assert volume["storage_location"] == f"{ROOT}/ext/landing"
    with pytest.raises(InvalidParameter, match="overlaps"):
        uc.create_volume({**spec, "name": "inner",
                          "storage_location": f"{ROOT}/ext/landing/inner"}, ADMIN)
    with pytest.raises(InvalidParameter, match="not under any"):
        uc.create_volume({**spec, "name": "sibling", "storage_location": f"{ROOT}/extra"},
                         ADMIN)


def test_external_location_needs_its_credential_and_may_not_overlap(uc):
    with pytest.raises(NotFound, match="Storage Credential 'cred'"):
        uc.create_external_location({"name": "e", "url": f"{ROOT}/x", "credential_name": "cred"},
                                    ADMIN)
    location = _location(uc)
    assert location["credential_name"] == "Cred" and location["owner"] == "admin-app"
    assert uc.get_external_location("EXT")["url"] == f"{ROOT}/ext"
    with pytest.raises(InvalidParameter, match="overlap"):
        uc.create_external_location({"name": "e2", "url": f"{ROOT}/ext/sub",
                                     "credential_name": "Cred"}, ADMIN)


def test_storage_credential_identity_rules(uc):
    with pytest.raises(InvalidParameter, match="exactly one identity"):
        uc.create_storage_credential({"name": "c"}, ADMIN)
    with pytest.raises(InvalidParameter, match="role_arn"):
        uc.create_storage_credential({"name": "c", "aws_iam_role": {}}, ADMIN)
    created = uc.create_storage_credential({"name": "sp", "azure_service_principal": {
        "directory_id": "d", "application_id": "a", "client_secret": "s3cret"}}, ADMIN)
    assert "client_secret" not in created["azure_service_principal"]
    with pytest.raises(PermissionDenied):
        uc.create_storage_credential({"name": "c", "aws_iam_role": {"role_arn": "arn"}}, ALICE)


def test_non_empty_schema_and_credential_are_kept_without_force(uc):
    uc.create_schema({"name": "raw", "catalog_name": "main"}, ADMIN)
    uc.create_volume({"catalog_name": "main", "schema_name": "raw", "name": "v",
                      "volume_type": "MANAGED"}, ADMIN)
    with pytest.raises(InvalidState, match="is not empty"):
        uc.delete_schema("main.raw", ADMIN)
    uc.delete_schema("main.raw", ADMIN, force=True)
    with pytest.raises(NotFound):
        uc.get_volume("main.raw.v")
    _location(uc)
    with pytest.raises(InvalidState, match="dependent external location"):
        uc.delete_storage_credential("cred", ADMIN)


def test_catalog_contents_and_defaults(uc):
    with uc._db.write() as conn:
        catalog = uc._catalog(conn, "sales")
        uc.add_catalog_defaults(conn, catalog, ALICE)
    names = {s["name"]: s for s in uc.list_schemas("sales")}
    assert set(names) == {"default", "information_schema"}
    assert names["information_schema"]["owner"] == "System user"
    with pytest.raises(PermissionDenied, match="system schema"):
        uc.delete_schema("sales.information_schema", ADMIN)
    with uc._db.read() as conn:
        assert uc.catalog_contents(conn, "sales") == 1
    uc.create_volume({"catalog_name": "sales", "schema_name": "default", "name": "v",
                      "volume_type": "MANAGED"}, ALICE)
    uc.update_permissions("volume", "sales.default.v",
                          [{"principal": "analysts", "add": ["READ_VOLUME"]}], ALICE)
    with uc._db.write() as conn:
        uc.rename_catalog_contents(conn, "sales", "revenue")
        conn.execute("UPDATE catalogs SET name = 'revenue' WHERE name = 'sales'")
    assert uc.get_volume("revenue.default.v")["catalog_name"] == "revenue"
    assert uc.permissions("volume", "revenue.default.v") == [
        {"principal": "analysts", "privileges": ["READ_VOLUME"]}]
    with uc._db.write() as conn:
        uc.drop_catalog_contents(conn, "revenue")
        assert uc.catalog_contents(conn, "revenue") == 0
    with pytest.raises(NotFound):
        uc.get_volume("revenue.default.v")


def test_owner_transfer_needs_the_owner_or_an_admin(uc):
    schema = uc.create_schema({"name": "mine", "catalog_name": "sales"}, ALICE)
    assert schema["owner"] == "alice-app"
    with pytest.raises(PermissionDenied):
        uc.update_schema("sales.mine", {"owner": "bob-app"}, BOB)
    with pytest.raises(InvalidParameter, match="Could not find principal"):
        uc.update_schema("sales.mine", {"owner": "ghost"}, ALICE)
    assert uc.update_schema("sales.mine", {"owner": "bob-app"}, ALICE)["owner"] == "bob-app"
    # the catalog's owner still manages what the catalog holds, not its owner
    assert uc.update_schema("sales.mine", {"comment": "c"}, ALICE)["comment"] == "c"
    with pytest.raises(PermissionDenied, match="cannot change its owner"):
        uc.update_schema("sales.mine", {"owner": "alice-app"}, ALICE)
    assert uc.update_schema("sales.mine", {"owner": "analysts"}, ADMIN)["owner"] == "analysts"


def test_grants_add_remove_and_principals(uc):
    uc.create_schema({"name": "raw", "catalog_name": "main"}, ADMIN)
    result = uc.update_permissions("catalog", "MAIN", [
        {"principal": "analysts", "add": ["USE_CATALOG", "SELECT", "READ_VOLUME"]},
        {"principal": "ana@example.com", "add": ["USE_CATALOG"]}], ADMIN)
    assert result == [
        {"principal": "Ana@Example.com", "privileges": ["USE_CATALOG"]},
        {"principal": "analysts", "privileges": ["READ_VOLUME", "SELECT", "USE_CATALOG"]}]
    result = uc.update_permissions("catalog", "main", [
        {"principal": "Ana@Example.com", "remove": ["USE_CATALOG"]},
        {"principal": "analysts", "remove": ["SELECT", "MODIFY"]}], ADMIN)
    assert result == [{"principal": "analysts", "privileges": ["READ_VOLUME", "USE_CATALOG"]}]
    assert uc.permissions("catalog", "main", principal="nobody") == []
    with pytest.raises(InvalidParameter, match="Could not find principal with name ghost"):
        uc.update_permissions("catalog", "main", [{"principal": "ghost", "add": ["SELECT"]}],
                              ADMIN)
    with pytest.raises(NotFound):
        uc.permissions("schema", "main.nope")
    with pytest.raises(InvalidParameter, match="Unsupported securable type"):
        uc.permissions("widget", "main.raw.t")
    with pytest.raises(NotFound, match="Table 'main.raw.t' does not exist"):
        uc.permissions("table", "main.raw.t")  # no area holds tables here
    with pytest.raises(NotFound, match="Share 'feed' does not exist"):
        uc.permissions("share", "feed")


@pytest.mark.parametrize(("securable", "name", "privilege"), [
    ("catalog", "main", "WRITE_FILES"), ("schema", "main.raw", "USE_CATALOG"),
    ("schema", "main.raw", "CREATE_SCHEMA"), ("external_location", "Ext", "READ_VOLUME"),
    ("storage_credential", "cred", "SELECT"),
])
def test_privileges_not_applicable_to_the_securable(uc, securable, name, privilege):
    uc.create_schema({"name": "raw", "catalog_name": "main"}, ADMIN)
    _location(uc)
    with pytest.raises(InvalidParameter, match=f"Privilege {privilege} is not applicable"):
        uc.update_permissions(securable, name, [{"principal": "analysts",
                                                 "add": [privilege]}], ADMIN)


def test_unknown_privilege_is_named_with_a_suggestion(uc):
    with pytest.raises(InvalidParameter, match=r"unknown privilege 'SELEKT'.*Did you mean SELECT"):
        uc.update_permissions("catalog", "main", [{"principal": "analysts",
                                                   "add": ["SELEKT"]}], ADMIN)
    with pytest.raises(InvalidParameter, match="Did you mean USE_CATALOG"):
        uc.update_permissions("catalog", "main", [{"principal": "analysts",
                                                   "add": ["USE CATALOG"]}], ADMIN)


def test_privilege_table_covers_the_area():
    assert set(APPLICABLE) == {"CATALOG", "SCHEMA", "VOLUME", "EXTERNAL_LOCATION",
                               "STORAGE_CREDENTIAL", "CREDENTIAL", "FUNCTION", "TABLE",
                               "METASTORE", "CONNECTION", "SHARE", "RECIPIENT", "PROVIDER",
                               "CLEAN_ROOM"}
    assert APPLICABLE["FUNCTION"] == {"ALL_PRIVILEGES", "APPLY_TAG", "EXECUTE", "MANAGE"}
    assert "READ_VOLUME" in APPLICABLE["CATALOG"] and "SELECT" not in APPLICABLE["VOLUME"]
    assert APPLICABLE["CREDENTIAL"] == {"ACCESS", "ALL_PRIVILEGES", "CREATE_CONNECTION",
                                        "MANAGE"}


def test_effective_permissions_inherit_down(uc):
    uc.create_schema({"name": "raw", "catalog_name": "main"}, ADMIN)
    uc.create_volume({"catalog_name": "main", "schema_name": "raw", "name": "v",
                      "volume_type": "MANAGED"}, ADMIN)
    uc.update_permissions("catalog", "main", [{"principal": "analysts",
                                               "add": ["READ_VOLUME"]}], ADMIN)
    uc.update_permissions("schema", "main.raw", [{"principal": "analysts",
                                                  "add": ["USE_SCHEMA"]}], ADMIN)
    uc.update_permissions("volume", "main.raw.v", [{"principal": "alice-app",
                                                    "add": ["WRITE_VOLUME"]}], ADMIN)
    effective = uc.effective_permissions("volume", "main.raw.v")
    assert effective == [
        {"principal": "alice-app", "privileges": [{"privilege": "WRITE_VOLUME"}]},
        {"principal": "analysts", "privileges": [
            {"privilege": "USE_SCHEMA", "inherited_from_type": "SCHEMA",
             "inherited_from_name": "main.raw"},
            {"privilege": "READ_VOLUME", "inherited_from_type": "CATALOG",
             "inherited_from_name": "main"}]}]
    assert uc.effective_permissions("volume", "main.raw.v", principal="alice-app") == [
        effective[0]]


def test_privileges_let_a_principal_create_and_manage(uc):
    with pytest.raises(PermissionDenied, match="USE_CATALOG and CREATE_SCHEMA"):
        uc.create_schema({"name": "b", "catalog_name": "main"}, BOB)
    uc.update_permissions("catalog", "main", [{"principal": "bob-app",
                                               "add": ["USE_CATALOG", "CREATE_SCHEMA"]}], ADMIN)
    assert uc.create_schema({"name": "b", "catalog_name": "main"}, BOB)["owner"] == "bob-app"
    with pytest.raises(PermissionDenied):
        uc.update_permissions("catalog", "main", [{"principal": "bob-app",
                                                   "add": ["SELECT"]}], BOB)
    uc.update_permissions("catalog", "main", [{"principal": "bob-app", "add": ["MANAGE"]}],
                          ADMIN)
    uc.update_permissions("catalog", "main", [{"principal": "bob-app", "add": ["SELECT"]}], BOB)


def test_bindings_of_credentials_and_locations(uc):
    _location(uc)
    binding = {"workspace_id": 42, "binding_type": "BINDING_TYPE_READ_ONLY"}
    assert uc.update_bindings("external_location", "ext", ADMIN, [binding], []) == [binding]
    assert uc.bindings("external_location", "Ext") == [binding]
    with pytest.raises(InvalidParameter, match="types for CREDENTIAL are BINDING_TYPE_READ_WR"):
        uc.update_bindings("credential", "cred", ADMIN, [binding], [])
    binding = {"workspace_id": 42, "binding_type": "BINDING_TYPE_READ_WRITE"}
    assert uc.update_bindings("credential", "cred", ADMIN, [binding], []) == [binding]
    assert uc.bindings("storage_credential", "CRED") == [binding]
    assert uc.update_bindings("storage_credential", "cred", ADMIN, [], [binding]) == []
    with pytest.raises(PermissionDenied):
        uc.update_bindings("external_location", "ext", BOB, [binding], [])
