"""The listings the audit and adopt share for the kinds whose objects sit under others: the
securables whose direct grants are adopted as Grants items (every level of Unity Catalog,
each parent listed once)."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest

from providers.core.registry import kind_named
from providers.workspace.workspace_objects import one_tree_walk, walked_objects

# The fake client stands for the areas (tests/fake_areas.py).
pytestmark = pytest.mark.usefixtures("fake_areas")


class Calls(Counter):
    """How many times each stand-in list or read was called."""

    def answer(self, name: str, value: Any) -> Any:
        self[name] += 1
        return value


def unity_catalog(grants: dict[tuple[str, str], list[dict[str, Any]]]) -> tuple[Any, Calls]:
    """A stand-in client with two catalogs of its own and the service's `system`, their
    schemas (each with an `information_schema`) and volumes, and the `grants` given."""
    calls = Calls()
    schemas = {"main": ["default", "sales", "information_schema"], "lab": ["information_schema"],
               "system": ["access"]}
    volumes = {("main", "sales"): ["landing", "exports"]}
    models = {("main", "sales"): "churn"}
    tables = {("table", "main", "sales"): ["orders"], ("function", "main", "sales"): ["net"]}
    client = SimpleNamespace(
        catalogs=SimpleNamespace(list=lambda: calls.answer("catalogs", [
            {"name": "main"}, {"name": "lab"},
            {"name": "system", "catalog_type": "SYSTEM_CATALOG"}])),
        schemas=SimpleNamespace(list=lambda catalog: calls.answer(
            f"schemas {catalog}", [{"name": n} for n in schemas[catalog]])),
        volumes=SimpleNamespace(list=lambda catalog, schema: calls.answer(
            f"volumes {catalog}.{schema}",
            [{"name": n, "full_name": f"{catalog}.{schema}.{n}"}
             for n in volumes.get((catalog, schema), [])])),
        storage_credentials=SimpleNamespace(list=lambda: calls.answer("credentials",
                                                                        [{"name": "cred"}])),
        credentials=SimpleNamespace(list=lambda purpose: calls.answer(
            f"credentials {purpose}", [{"name": "Svc"}] if purpose == "SERVICE" else [])),
        external_locations=SimpleNamespace(list=lambda: calls.answer("locations", [])),
        models=SimpleNamespace(list=lambda catalog: calls.answer(
            f"models {catalog}", [{"full_name": f"{catalog}.{schema}.{name}"}
                                  for (c, schema), name in models.items() if c == catalog])),
        schema_objects=SimpleNamespace(list=lambda kind, catalog, schema: calls.answer(
            f"{kind}s {catalog}.{schema}", [f"{catalog}.{schema}.{n}"
                                            for n in tables.get((kind, catalog, schema), [])])),
        sharing=SimpleNamespace(list=lambda kind: calls.answer(
            f"{kind}s", ["orders_feed"] if kind == "share" else [])),
        grants=SimpleNamespace(get=lambda securable_type, name: calls.answer(
            "grants", grants.get((securable_type, name), []))),
    )
    return client, calls


READERS = [{"principal": "analysts", "privileges": ["SELECT"]}]


def test_grants_are_listed_on_schemas_and_volumes_with_one_list_call_per_parent() -> None:
    client, calls = unity_catalog({
        ("catalog", "main"): READERS,
        ("schema", "main.sales"): READERS,
        ("volume", "main.sales.exports"): READERS,
        ("storage_credential", "cred"): READERS,
        ("credential", "Svc"): READERS,
        ("function", "main.sales.churn"): READERS,
        ("table", "main.sales.orders"): READERS,
        ("function", "main.sales.net"): READERS,
        ("share", "orders_feed"): READERS,
    })
    listed = list(kind_named("Grants").inventory(client))  # type: ignore[misc]
    assert listed == [
        ("catalog/main", "catalog main"),
        ("schema/main.sales", "schema main.sales"),
        ("table/main.sales.orders", "table main.sales.orders"),
        ("function/main.sales.net", "function main.sales.net"),
        ("volume/main.sales.exports", "volume main.sales.exports"),
        ("storage_credential/cred", "storage_credential cred"),
        ("credential/Svc", "credential Svc"),
        ("function/main.sales.churn", "function main.sales.churn"),
        ("share/orders_feed", "share orders_feed"),
    ]
    # Each parent listed once; the service's catalog's schemas and every
    # information_schema are not walked; one grants read per securable.
    assert calls["catalogs"] == 1
    assert {k: v for k, v in calls.items()
            if k.startswith(("schemas", "volumes", "tables", "functions"))} == {
        "schemas main": 1, "schemas lab": 1,
        "volumes main.default": 1, "volumes main.sales": 1,
        "tables main.default": 1, "tables main.sales": 1,
        "functions main.default": 1, "functions main.sales": 1,
    }
    # The metastore's shares, recipients and providers, one list each.
    assert (calls["shares"], calls["recipients"], calls["providers"]) == (1, 1, 1)
    # Service credentials are listed once, by their purpose (storage ones have their list).
    assert calls["credentials SERVICE"] == 1 and "credentials STORAGE" not in calls
    # Registered models (the grants API's `function`), one list per catalog of the stack's.
    assert {k: v for k, v in calls.items() if k.startswith("models")} == {
        "models main": 1, "models lab": 1}
    # catalogs, schemas, tables, functions, volumes, credentials, a model, a share
    securables = 3 + 2 + 1 + 1 + 2 + 1 + 1 + 1 + 1
    assert calls["grants"] == securables


def test_securables_without_direct_grants_are_not_listed() -> None:
    client, _ = unity_catalog({("schema", "main.default"): []})
    assert list(kind_named("Grants").inventory(client)) == []  # type: ignore[misc]


# --- notebooks, files and folders ----------------------------------------------------------


def workspace_tree(paths: dict[str, str]) -> tuple[Any, Calls]:
    """A stand-in client whose tree holds `paths` (path -> object type), the top-level
    folders every workspace has included."""
    calls = Calls()
    tree = {"/Users": "DIRECTORY", "/Shared": "DIRECTORY", "/Repos": "DIRECTORY", **paths}

    def listing(folder: str) -> list[dict[str, Any]]:
        prefix = folder.rstrip("/") + "/"
        return calls.answer(folder, [
            {"path": path, "object_type": kind} for path, kind in tree.items()
            if path.startswith(prefix) and "/" not in path[len(prefix):]])

    return SimpleNamespace(workspace_objects=SimpleNamespace(list=listing)), calls


TREE = {
    "/Shared/etl": "DIRECTORY",
    "/Shared/etl/daily": "NOTEBOOK",
    "/Shared/etl/settings.json": "FILE",
    "/Shared/etl/empty": "DIRECTORY",
    "/Shared/pipelines": "REPO",
    "/Team": "DIRECTORY",
    "/Team/inbox": "DIRECTORY",
    "/Users/ann@example.com": "DIRECTORY",
    "/Users/ann@example.com/scratch": "NOTEBOOK",
    "/Repos/ann": "DIRECTORY",
    "/Repos/ann/project": "REPO",
}


def listed_paths(kind_name: str) -> list[str]:
    client, _ = workspace_tree(TREE)
    return [path for path, _ in kind_named(kind_name).inventory(client)]  # type: ignore[misc]


def test_notebooks_and_files_are_listed_outside_home_folders_and_repos() -> None:
    assert listed_paths("Notebook") == ["/Shared/etl/daily"]
    assert listed_paths("WorkspaceFile") == ["/Shared/etl/settings.json"]


def test_only_empty_folders_are_listed_the_others_being_made_by_what_they_hold() -> None:
    """`/Shared` is every workspace's, `/Shared/etl` and `/Team` hold something; a Git
    folder is no folder of a stack's, wherever it is."""
    assert listed_paths("Directory") == ["/Shared/etl/empty", "/Team/inbox"]


def test_the_walk_lists_each_folder_once_and_never_a_home_folder_or_repos() -> None:
    client, calls = workspace_tree(TREE)
    list(kind_named("Notebook").inventory(client))  # type: ignore[misc]
    assert dict(calls) == {"/": 1, "/Shared": 1, "/Shared/etl": 1, "/Shared/etl/empty": 1,
                           "/Team": 1, "/Team/inbox": 1}


def test_within_one_tree_walk_the_three_kinds_share_one_walk() -> None:
    client, calls = workspace_tree(TREE)
    with one_tree_walk():
        listed = {name: [path for path, _ in kind_named(name).inventory(client)]  # type: ignore[misc]
                  for name in ("Notebook", "WorkspaceFile", "Directory")}
    assert listed == {"Notebook": ["/Shared/etl/daily"],
                      "WorkspaceFile": ["/Shared/etl/settings.json"],
                      "Directory": ["/Shared/etl/empty", "/Team/inbox"]}
    assert set(calls.values()) == {1}
    # Outside the block, a listing walks afresh: what it lists is never an earlier walk's.
    list(kind_named("Notebook").inventory(client))  # type: ignore[misc]
    assert set(calls.values()) == {2}



def test_the_walk_keeps_every_folder_with_its_id_for_the_access_lists() -> None:
    """What the Permissions listing reads the lists of: each folder walked once, holding
    something or not (`/Shared` too), never `/`, a home folder or /Repos."""
    ids = {path: str(number) for number, path in enumerate(sorted(TREE), start=1)}
    client, _ = workspace_tree(TREE)
    listing = client.workspace_objects.list
    client.workspace_objects.list = lambda folder: [
        {**entry, "object_id": int(ids.get(entry["path"], 99))} for entry in listing(folder)]
    folders = [(w.path, w.object_id, w.empty) for w in walked_objects(client)
               if w.object_type == "DIRECTORY"]
    assert sorted(folders) == [("/Shared", "99", False), ("/Shared/etl", ids["/Shared/etl"], False),
                               ("/Shared/etl/empty", ids["/Shared/etl/empty"], True),
                               ("/Team", ids["/Team"], False),
                               ("/Team/inbox", ids["/Team/inbox"], True)]

# --- access-control rule sets ------------------------------------------------------------

ACCOUNT = "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"


MANAGER = "roles/servicePrincipal.manager"
DEPLOYER = {"id": "9", "applicationId": "deployer-app", "userName": "deployer-app"}


def rule_sets(account_id: str | None, more: dict[str, list[dict[str, Any]]] | None = None,
              me: dict[str, Any] | None = None) -> tuple[Any, Calls]:
    """A stand-in client of two principals (app-1 holding a user rule, app-2 none) and the
    `more` given, signed in as `me` (the stack's deployer by default)."""
    calls = Calls()
    rules = {"app-1": [{"role": "roles/servicePrincipal.user", "principals": ["groups/g"]}],
             "app-2": [], **(more or {})}
    principals = [{"id": "1", "applicationId": "app-1", "displayName": "etl"},
                  {"id": "2", "applicationId": "app-2", "displayName": "reports"}]
    principals += [{"id": str(10 + i), "applicationId": app, "displayName": app}
                   for i, app in enumerate(more or {})]

    def get_rule_set(name: str) -> dict[str, Any]:
        application = name.split("/")[3]
        return calls.answer("rule set", {"name": name, "etag": "e",
                                         "grant_rules": rules[application]})

    return SimpleNamespace(
        account_id=account_id,
        access_control=SimpleNamespace(get_rule_set=get_rule_set),
        service_principals=SimpleNamespace(list=lambda: calls.answer("principals", principals)),
        me=lambda: calls.answer("me", me or DEPLOYER),
    ), calls


def test_rule_sets_with_rules_are_listed_by_name_one_read_per_principal() -> None:
    client, calls = rule_sets(ACCOUNT)
    listed = list(kind_named("AccessControlRuleSet").inventory(client))  # type: ignore[misc]
    assert listed == [(f"accounts/{ACCOUNT}/servicePrincipals/app-1/ruleSets/default", "etl")]
    assert dict(calls) == {"principals": 1, "rule set": 2}


def test_a_rule_set_holding_only_its_creators_rule_is_the_principals_own() -> None:
    """The service gives a principal's creator its manager role: where the creator is the
    principal the audit signs in as (the stack's, which creates the stack's principals) and
    that rule is all the rule set holds, it came with the principal and is not listed. Any
    other rule, or the rule of another creator, is listed as before."""
    client, calls = rule_sets(ACCOUNT, {
        "made-by-stack": [{"role": MANAGER, "principals": ["servicePrincipals/deployer-app"]}],
        "made-by-hand": [{"role": MANAGER, "principals": ["users/ann@example.com"]}],
        "and-a-user-role": [
            {"role": MANAGER, "principals": ["servicePrincipals/deployer-app"]},
            {"role": "roles/servicePrincipal.user", "principals": ["groups/g"]}],
        "two-managers": [{"role": MANAGER, "principals": [
            "groups/admins", "servicePrincipals/deployer-app"]}],
    })
    listed = [name.split("/")[3] for name, _ in
              kind_named("AccessControlRuleSet").inventory(client)]  # type: ignore[misc]
    assert listed == ["app-1", "made-by-hand", "and-a-user-role", "two-managers"]
    assert calls["me"] == 1  # asked once, only for the single-manager rule sets


def test_a_user_signing_in_is_named_as_a_user() -> None:
    made_by_ann = {"by-ann": [{"role": MANAGER, "principals": ["users/ann@example.com"]}]}
    ann = {"id": "7", "userName": "ann@example.com"}
    client, _ = rule_sets(ACCOUNT, made_by_ann, me=ann)
    listed = [name for name, _ in kind_named("AccessControlRuleSet").inventory(client)]  # type: ignore[misc]
    assert [name.split("/")[3] for name in listed] == ["app-1"]
    client, _ = rule_sets(ACCOUNT, made_by_ann)  # the deployer is not its creator
    listed = [name for name, _ in kind_named("AccessControlRuleSet").inventory(client)]  # type: ignore[misc]
    assert [name.split("/")[3] for name in listed] == ["app-1", "by-ann"]


def test_without_the_account_no_rule_set_is_listed_nor_read() -> None:
    client, calls = rule_sets(None)
    assert list(kind_named("AccessControlRuleSet").inventory(client)) == []  # type: ignore[misc]
    assert not calls


def test_the_stacks_own_principals_rule_set_belongs_to_it() -> None:
    """`principal_of` gives the application id, one of the names of the principal the
    stack signs in as (stacks.adoption leaves its objects out)."""
    principal_of = kind_named("AccessControlRuleSet").adoption.principal_of
    assert principal_of is not None
    assert principal_of(f"accounts/{ACCOUNT}/servicePrincipals/app-1/ruleSets/default") == "app-1"
