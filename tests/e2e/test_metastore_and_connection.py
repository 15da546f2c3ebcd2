"""Metastores and connections under the real engine against the emulator, in one stack: a
metastore, this workspace assigned to it with a default catalog, a storage credential made
its root credential (MetastoreDataAccess), a Postgres connection whose password is secret
config, and a foreign catalog on the connection (named by its item).

The steps: up, then an up that writes nothing; one up changes the metastore's owner, the
connection's owner and the default catalog in place; the default catalog moved outside the
stack shows in `preview --refresh` and the up puts it back; a second stack imports each
kind by its id with no write and no change after; destroy, in order (the catalog, the
connection, the assignment, the metastore). The password never appears in the exported
state."""

from __future__ import annotations

import copy
import dataclasses
import uuid
from typing import Any

import pytest

from stacks.pulumi_cli import PulumiCli
from tests.e2e.conftest import (
    PlatformApi,
    StackFactory,
    assert_no_changes,
    changed_in_preview,
    platform_writes,
    write_objects,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

UC = "/api/2.1/unity-catalog"
WORKSPACE_ID = 1234567890123456
PASSWORD = "pg-Pa55word-never-in-state"
CONNECTOR = ("/subscriptions/0/resourceGroups/rg/providers/Microsoft.Databricks/"
             "accessConnectors/root")


def declared(suffix: str) -> dict[str, list[dict[str, Any]]]:
    metastore, credential = f"primary-{suffix}", f"root_{suffix}"
    connection, catalog = f"orders_db_{suffix}", f"orders_{suffix}"
    return {
        "metastores": [{"name": metastore, "region": "northeurope",
                        "storage_root": f"abfss://metastore@lake.dfs.core.windows.net/{suffix}",
                        "owner": "admins"}],
        "metastoreAssignments": [{"name": "this-workspace", "workspace_id": WORKSPACE_ID,
                                  "metastore_id": metastore, "default_catalog_name": catalog}],
        "storageCredentials": [{"name": credential, "azure_managed_identity": {
            "access_connector_id": CONNECTOR}}],
        "metastoreDataAccess": [{"name": "primary-root", "metastore_id": metastore,
                                 "storage_root_credential_id": credential}],
        # The password is set apart, as secret config (`declare`).
        "connections": [{"name": connection, "connection_type": "POSTGRESQL", "options": {
            "host": "orders.example.com", "port": "5432", "user": "reader"},
            "comment": "the orders database"}],
        "catalogs": [{"name": catalog, "connection_name": connection,
                      "options": {"database": "orders"}}],
    }


def declare(stack: PulumiCli, objects: dict[str, Any], secret: str = PASSWORD) -> None:
    """The objects as the stack's config, the connection's password as secret config, as
    docs/connection.md says to give it."""
    write_objects(stack, objects)
    stack.run("config", "set", "--stack", stack.stack, "--secret", "--path", "--",
              "workspace:connections[0].options.password", secret)


class Workspace(PlatformApi):
    def current(self) -> dict[str, Any]:
        return dict(self.call("GET", f"{UC}/current-metastore-assignment"))


@dataclasses.dataclass
class Scenario:
    info: EmulatorInfo
    workspace: Workspace
    objects: dict[str, Any]
    stack: PulumiCli
    factory: StackFactory

    def item(self, key: str) -> dict[str, Any]:
        [item] = self.objects[key]
        return dict(item)

    @property
    def ids(self) -> dict[str, Any]:
        return dict(self.stack.outputs())


@pytest.fixture(scope="class")
def scenario(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Scenario:
    objects = declared(uuid.uuid4().hex[:6])
    stack = workspace_stack(wire_form="public")
    declare(stack, objects)
    return Scenario(emulator, Workspace(emulator), objects, stack, workspace_stack)


@pytest.mark.steps
class TestMetastoreAndConnectionInOneStack:
    def test_1_up_makes_each_object_as_declared_then_writes_nothing(
        self, scenario: Scenario
    ) -> None:
        scenario.stack.up()
        workspace, ids = scenario.workspace, scenario.ids
        metastore_id = ids["metastores"][scenario.item("metastores")["name"]]
        current = workspace.current()
        catalog = scenario.item("catalogs")["name"]
        assert (current["workspace_id"], current["metastore_id"],
                current["default_catalog_name"]) == (WORKSPACE_ID, metastore_id, catalog), "1."
        metastore = workspace.call("GET", f"{UC}/metastores/{metastore_id}")
        credential = workspace.call(
            "GET", f"{UC}/storage-credentials/{scenario.item('storageCredentials')['name']}")
        assert metastore["storage_root_credential_id"] == credential["id"], "1. root credential"
        connection = workspace.call(
            "GET", f"{UC}/connections/{scenario.item('connections')['name']}")
        assert connection["metastore_id"] == metastore_id, "1. in the assigned metastore"
        found = workspace.call("GET", f"{UC}/catalogs/{catalog}")
        assert (found["catalog_type"], found["connection_name"], found["metastore_id"]) == (
            "FOREIGN_CATALOG", connection["name"], metastore_id), "1. the foreign catalog"
        exported = scenario.stack.run("stack", "export", "--stack", scenario.stack.stack).stdout
        assert PASSWORD not in exported, "1. the password in the state"
        assert_no_changes(scenario.stack, scenario.info, "1.")

    def test_2_owners_and_the_default_catalog_change_in_place_in_one_up(
        self, scenario: Scenario
    ) -> None:
        objects = copy.deepcopy(scenario.objects)
        objects["metastores"][0]["owner"] = "data-engineers"
        objects["connections"][0]["owner"] = "data-engineers"
        objects["metastoreAssignments"][0]["default_catalog_name"] = "main"
        scenario.objects = objects
        declare(scenario.stack, objects)
        assert changed_in_preview(scenario.stack) == {
            objects["metastores"][0]["name"]: "update", "this-workspace": "update",
            objects["connections"][0]["name"]: "update"}, "2. in place"
        clear_request_log(scenario.info)
        scenario.stack.up()
        assert not [w for w in platform_writes(scenario.info)
                    if w.startswith(("POST", "DELETE", "PUT"))], "2. nothing made or deleted"
        metastore_id = scenario.ids["metastores"][objects["metastores"][0]["name"]]
        assert scenario.workspace.call("GET", f"{UC}/metastores/{metastore_id}")[
            "owner"] == "data-engineers", "2. the metastore's owner"
        assert scenario.workspace.current()["default_catalog_name"] == "main", "2."
        assert_no_changes(scenario.stack, scenario.info, "2.")

    def test_3_a_default_catalog_moved_outside_shows_in_a_refreshed_preview_and_is_put_back(
        self, scenario: Scenario
    ) -> None:
        scenario.workspace.call("PATCH", f"{UC}/workspaces/{WORKSPACE_ID}/metastore",
                                json={"default_catalog_name": "elsewhere"})
        assert changed_in_preview(scenario.stack, "--refresh") == {
            "this-workspace": "update"}, "3."
        scenario.stack.up("--refresh")
        assert scenario.workspace.current()["default_catalog_name"] == "main", "3. put back"
        assert_no_changes(scenario.stack, scenario.info, "3.")

    def test_4_a_second_stack_imports_each_kind_by_id_with_no_write_and_no_change(
        self, scenario: Scenario
    ) -> None:
        ids = scenario.ids
        metastore = scenario.item("metastores")
        metastore_id = ids["metastores"][metastore["name"]]
        credential = scenario.workspace.call(
            "GET", f"{UC}/storage-credentials/{scenario.item('storageCredentials')['name']}")
        connection, catalog = scenario.item("connections"), scenario.item("catalogs")
        imported = {
            "metastores": [{**metastore, "import": metastore_id}],
            "metastoreAssignments": [{**scenario.item("metastoreAssignments"),
                                      "metastore_id": metastore_id,
                                      "import": str(WORKSPACE_ID)}],
            "metastoreDataAccess": [{"name": "primary-root", "metastore_id": metastore_id,
                                     "storage_root_credential_id": credential["id"],
                                     "import": metastore_id}],
            "connections": [{**connection, "import": connection["name"]}],
            "catalogs": [{**catalog, "import": catalog["name"]}],
        }
        importer = scenario.factory(wire_form="public")
        clear_request_log(scenario.info)
        declare(importer, imported)
        up = importer.up()
        assert "5 imported" in up.stdout, up.stdout
        assert platform_writes(scenario.info) == [], "4. the import wrote to the workspace"
        assert_no_changes(importer, scenario.info, "4. after the import")
        exported = importer.run("stack", "export", "--stack", importer.stack).stdout
        assert PASSWORD not in exported, "4. the password in the importer's state"

    def test_5_destroy_removes_every_object_in_order(self, scenario: Scenario) -> None:
        ids, workspace = scenario.ids, scenario.workspace
        metastore_id = ids["metastores"][scenario.item("metastores")["name"]]
        clear_request_log(scenario.info)
        scenario.stack.destroy()
        deletes = [w.split(" ", 1)[1] for w in platform_writes(scenario.info)
                   if w.startswith("DELETE")]
        order = [f"{UC}/catalogs/{scenario.item('catalogs')['name']}",
                 f"{UC}/connections/{scenario.item('connections')['name']}",
                 f"{UC}/workspaces/{WORKSPACE_ID}/metastore", f"{UC}/metastores/{metastore_id}"]
        # A catalog holding its `default` schema is asked twice (the schema deleted between).
        assert list(dict.fromkeys(p for p in deletes if p in order)) == order, "5. in order"
        assert workspace.status_code(f"{UC}/catalogs/{scenario.item('catalogs')['name']}") == 404
        assert workspace.status_code(
            f"{UC}/connections/{scenario.item('connections')['name']}") == 404, "5."
        assert workspace.status_code(f"{UC}/current-metastore-assignment") == 404, "5. unassigned"
        assert workspace.status_code(f"{UC}/metastores/{metastore_id}") == 404, "5. the metastore"
