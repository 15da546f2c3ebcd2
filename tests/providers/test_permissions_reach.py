"""Permissions at full reach, against the emulator: token and password usage
(`authorization`), objects addressed by workspace path (resolved through get-status, the id
found an output), the SQL objects and Lakeview dashboards, each type's levels judged before
any call; the lookup from a path to an object id."""

from __future__ import annotations

import base64
import copy
import uuid
from typing import Any

import pytest
import responses

from providers.access.acl import direct_entries
from providers.access.permissions import PermissionsProvider
from providers.client import WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.lookups import LookupFailed, find_workspace_object
from providers.workspace.workspace_paths_api import WorkspacePathsApi
from tests.providers.support import failures

ANALYSTS_RUN = {"group_name": "analysts", "permission_level": "CAN_RUN"}
ANALYSTS_USE = {"group_name": "analysts", "permission_level": "CAN_USE"}
ENGINEERS_USE = {"group_name": "data-engineers", "permission_level": "CAN_USE"}
QUERY = "a1b2c3d4-0001-4e5f-8a9b-0c1d2e3f4a51"
DASHBOARD = "01ef0a1b2c3d4e5f60718293a4b5c6d7"
REPO_PATH = "/Repos/analytics/dashboards"  # initial data, id 3000000000000003

provider: Any = PermissionsProvider()


def props(connection: dict[str, Any], *entries: dict, **address: Any) -> dict[str, Any]:
    return {**address, "access_controls": copy.deepcopy(list(entries)),
            CONNECTION_KEY: connection}


def levels_on(client: WorkspaceClient, object_type: str, object_id: str) -> dict:
    answer = client.permissions(object_type).get(object_id)
    return {p: e["permission_level"] for p, e in direct_entries(answer).items()}


def new_notebook(client: WorkspaceClient) -> str:
    """A notebook at a new path under /Workspace/Shared; its path."""
    folder = f"/Workspace/Shared/perm-{uuid.uuid4().hex[:8]}"
    client.post("/api/2.0/workspace/mkdirs", {"path": folder})
    put_notebook(client, f"{folder}/etl")
    return f"{folder}/etl"


def put_notebook(client: WorkspaceClient, path: str) -> None:
    content = base64.b64encode(b"print('hello')\n").decode()
    client.post("/api/2.0/workspace/import", {
        "path": path, "content": content, "format": "SOURCE", "language": "PYTHON",
        "overwrite": True,
    })


# --- check ---------------------------------------------------------------------------

BAD = [
    ({"authorization": "tokens", "object_type": "clusters", "object_id": "1-2-3"}, "(inputs)"),
    ({"object_type": "authorization", "object_id": "tokens"}, "object_type"),
    ({"authorization": "keys"}, "authorization"),
    ({"notebook_path": "Shared/etl"}, "notebook_path"),
    ({"notebook_path": "/Workspace/Shared/../etl"}, "notebook_path"),
    ({"directory_path": "/Workspace/Shared/"}, "directory_path"),
    ({"notebook_path": "/a", "repo_path": "/Repos/x/y"}, "(inputs)"),
    ({"object_type": "clusters"}, "(inputs)"),
    ({"object_id": "123"}, "(inputs)"),
    ({}, "(inputs)"),
]


@pytest.mark.parametrize(("address", "field"), BAD)
def test_check_names_the_bad_address_without_a_call(connection, address, field):
    news = props(connection, ANALYSTS_RUN, **address)
    with responses.RequestsMock():
        assert list(failures(provider, news)) == [field]


@pytest.mark.parametrize(("address", "good", "bad"), [
    ({"authorization": "tokens"}, "CAN_USE", "CAN_MANAGE"),
    ({"authorization": "passwords"}, "CAN_USE", "CAN_VIEW"),
    ({"object_type": "sql/queries", "object_id": QUERY}, "CAN_RUN", "CAN_READ"),
    ({"object_type": "sql/alerts", "object_id": QUERY}, "CAN_VIEW", "CAN_USE"),
    ({"object_type": "sql/dashboards", "object_id": QUERY}, "CAN_EDIT", "CAN_READ"),
    ({"object_type": "dashboards", "object_id": DASHBOARD}, "CAN_READ", "CAN_VIEW"),
    ({"object_type": "sql/warehouses", "object_id": "5a1e2b3c4d5e6f70"}, "CAN_MONITOR",
     "CAN_RUN"),
    ({"object_type": "instance-pools", "object_id": "0101-120000-pool0001"}, "CAN_ATTACH_TO",
     "CAN_USE"),
    ({"notebook_path": "/Workspace/Shared/etl"}, "CAN_RUN", "CAN_USE"),
    ({"directory_path": "/Workspace/Shared"}, "CAN_READ", "CAN_VIEW"),
    ({"workspace_file_path": "/Workspace/Shared/a.py"}, "CAN_EDIT", "CAN_USE"),
    ({"repo_path": REPO_PATH}, "CAN_MANAGE", "CAN_ATTACH_TO"),
])
def test_each_types_levels_are_judged_before_any_call(connection, address, good, bad):
    entry = {"group_name": "analysts"}
    with responses.RequestsMock():
        assert failures(provider, props(
            connection, {**entry, "permission_level": good}, **address)) == {}
        reason = failures(provider, props(
            connection, {**entry, "permission_level": bad}, **address))[
            "access_controls.0.permission_level"]
    assert good in reason


def test_token_usage_has_no_owner(connection):
    news = {**props(connection, ANALYSTS_USE, authorization="tokens"),
            "owner": {"user_name": "alice@example.com"}}
    assert "owner" in failures(provider, news)


# --- token usage -------------------------------------------------------------------------


def test_token_usage_lifecycle_and_import(connection, client):
    news = props(connection, ANALYSTS_USE, authorization="tokens")
    made = provider.create(news)
    assert made.id == "authorization/tokens"
    assert made.outs["authorization"] == "tokens" and "object_type" not in made.outs
    assert levels_on(client, "authorization", "tokens")[("group_name", "analysts")] == "CAN_USE"
    assert provider.read(made.id, made.outs).outs == made.outs

    imported = provider.read(made.id, {CONNECTION_KEY: connection})
    assert not provider.diff(made.id, imported.outs, news, old_inputs={}).changes
    assert provider.diff(made.id, made.outs, props(
        connection, ANALYSTS_USE, authorization="passwords")).replaces == ["authorization"]

    changed = props(connection, ENGINEERS_USE, authorization="tokens")
    provider.update(made.id, made.outs, changed)
    assert set(levels_on(client, "authorization", "tokens")) == {("group_name", "data-engineers")}
    provider.delete(made.id, changed)
    assert levels_on(client, "authorization", "tokens") == {}


# --- the SQL objects and Lakeview dashboards -----------------------------------------------


@pytest.mark.parametrize(("object_type", "object_id", "entry"), [
    ("sql/queries", QUERY, ANALYSTS_RUN),
    ("dashboards", DASHBOARD, {"group_name": "analysts", "permission_level": "CAN_READ"}),
])
def test_sql_objects_and_dashboards(connection, client, object_type, object_id, entry):
    news = props(connection, entry, object_type=object_type, object_id=object_id)
    made = provider.create(news)
    assert made.id == f"{object_type}/{object_id}"
    assert made.outs["access_controls"] == [entry]
    imported = provider.read(made.id, {CONNECTION_KEY: connection})
    assert imported.outs["object_type"] == object_type
    assert not provider.diff(made.id, imported.outs, news, old_inputs={}).changes
    provider.delete(made.id, made.outs)
    assert levels_on(client, object_type, object_id) == {}


# --- by workspace path -------------------------------------------------------------------


def test_a_notebook_by_path(connection, client):
    path = new_notebook(client)
    news = props(connection, ANALYSTS_RUN, notebook_path=path)
    made = provider.create(news)
    assert made.id == f"notebook_path:{path}"
    object_id = str(WorkspacePathsApi(client).status(path)["object_id"])
    assert made.outs["resolved_object_type"] == "notebooks"
    assert made.outs["resolved_object_id"] == object_id
    assert made.outs["notebook_path"] == path and "object_id" not in made.outs
    assert levels_on(client, "notebooks", object_id) == {("group_name", "analysts"): "CAN_RUN"}
    assert provider.read(made.id, made.outs).outs == made.outs

    imported = provider.read(made.id, {CONNECTION_KEY: connection})
    assert not provider.diff(made.id, imported.outs, news, old_inputs={}).changes
    moved = props(connection, ANALYSTS_RUN, notebook_path=path + "-2")
    assert provider.diff(made.id, made.outs, moved).replaces == ["notebook_path"]

    # The notebook put there anew is another object: the refresh shows the entry gone, and
    # the next up gives it back.
    client.post("/api/2.0/workspace/delete", {"path": path})
    put_notebook(client, path)
    read = provider.read(made.id, made.outs)
    assert read.outs["access_controls"] == []
    assert read.outs["resolved_object_id"] != object_id
    assert provider.diff(made.id, read.outs, news).changed_keys == ["access_controls"]
    provider.update(made.id, read.outs, news)
    new_id = read.outs["resolved_object_id"]
    assert levels_on(client, "notebooks", new_id) == {("group_name", "analysts"): "CAN_RUN"}

    provider.delete(made.id, made.outs)
    assert levels_on(client, "notebooks", new_id) == {}
    client.post("/api/2.0/workspace/delete", {"path": path})
    assert provider.read(made.id, made.outs).id is None  # the path is gone: so is this
    provider.delete(made.id, made.outs)


def test_a_repo_and_a_folder_by_path(connection, client):
    made = provider.create(props(connection, ANALYSTS_RUN, repo_path=REPO_PATH))
    assert made.outs["resolved_object_id"] == "3000000000000003"
    provider.delete(made.id, made.outs)
    folder = new_notebook(client).rsplit("/", 1)[0]
    made = provider.create(props(connection, ANALYSTS_RUN, directory_path=folder))
    assert made.outs["resolved_object_type"] == "directories"
    provider.delete(made.id, made.outs)


def test_a_path_of_another_kind_is_named_with_the_field_to_use(connection, client):
    folder = new_notebook(client).rsplit("/", 1)[0]
    with pytest.raises(ValueError, match="declare it as directory_path"):
        provider.create(props(connection, ANALYSTS_RUN, notebook_path=folder))


# --- the lookup ------------------------------------------------------------------------


def test_the_lookup_finds_a_paths_object_id(client):
    path = new_notebook(client)
    found = find_workspace_object(client, path=path)
    assert found["object_type"] == "NOTEBOOK" and found["permissions_type"] == "notebooks"
    assert found["object_id"] == int(WorkspacePathsApi(client).status(path)["object_id"])
    assert find_workspace_object(client, path=REPO_PATH)["object_id"] == 3000000000000003
    with pytest.raises(LookupFailed, match="no workspace object at path"):
        find_workspace_object(client, path=path + "-missing")
