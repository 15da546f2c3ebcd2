"""The API's own name fields order a stack under the real engine against the emulator (issue
44): the Unity Catalog stack (a catalog, a schema, a volume, a storage credential and an
external location on it, grants by full name to a group the stack declares) written in the
service's field names only (`catalog_name`, `schema_name`, `credential_name`, `full_name`,
`principal`), no item key.

The steps: it goes up in one `up`, each object after what it names (the state records the
dependency), and a second up changes and writes nothing; a stack deployed by the code before
names were references, with item keys, previews no changes under this code, as it is and
rewritten in field names; destroy deletes in order (the service refuses a catalog holding a
schema, a credential an external location uses)."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path
from typing import Any

import pytest
from databricks.sdk import WorkspaceClient as SdkClient
from databricks.sdk.errors import NotFound

from stacks.pulumi_cli import PulumiCli
from tests.e2e.conftest import TYPE_PREFIX, StackFactory, assert_no_changes, reconfigure
from tests.e2e.previous_code import deployed_by, tree_at
from workspace_emulator.testing import EmulatorInfo, clear_request_log, fetch_token

pytestmark = pytest.mark.engine

# The last commit before API name fields were references.
BEFORE_NAMES = "2d72025d8804adef55343f824afada6b5104226b"
CONNECTOR = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/data-platform/"
    "providers/Microsoft.Databricks/accessConnectors/uc-names"
)


def by_field_names(suffix: str) -> dict[str, list[dict[str, Any]]]:
    """The stack in the API's field names: every name carries `suffix`."""
    cat, cred, loc, group = f"names_{suffix}", f"cred-{suffix}", f"loc-{suffix}", f"team-{suffix}"
    url = f"abfss://names@emulatedstorage.dfs.core.windows.net/{suffix}"
    return {
        "groups": [{"name": group, "display_name": group}],
        "catalogs": [{"name": cat, "comment": "names"}],
        "schemas": [{"name": "raw", "catalog_name": cat}],
        "volumes": [{"name": "files", "catalog_name": cat, "schema_name": "raw",
                     "volume_type": "MANAGED"}],
        "storageCredentials": [
            {"name": cred, "azure_managed_identity": {"access_connector_id": CONNECTOR}}],
        "externalLocations": [{"name": loc, "url": url, "credential_name": cred}],
        "grants": [
            {"name": "catalog-grants", "securable_type": "catalog", "full_name": cat,
             "privilege_assignments": [{"principal": group, "privileges": ["USE_CATALOG"]}]},
            {"name": "files-grants", "securable_type": "volume", "full_name": f"{cat}.raw.files",
             "privilege_assignments": [{"principal": group, "privileges": ["READ_VOLUME"]}]},
            {"name": "location-grants", "securable_type": "external_location",
             "full_name": loc,
             "privilege_assignments": [{"principal": group, "privileges": ["READ_FILES"]}]},
        ],
    }


def by_item_keys(suffix: str) -> dict[str, list[dict[str, Any]]]:
    """The same stack as it is written today with item keys where the kinds have them."""
    objects = by_field_names(suffix)
    cat = objects["catalogs"][0]["name"]
    cred = objects["storageCredentials"][0]["name"]
    objects["schemas"] = [{"name": "raw", "catalog": cat}]
    objects["volumes"] = [{"name": "files", "catalog": cat, "schema": "raw",
                           "volume_type": "MANAGED"}]
    location = objects["externalLocations"][0]
    del location["credential_name"]
    location["storage_credential"] = cred
    return objects


@dataclasses.dataclass
class Scenario:
    info: EmulatorInfo
    sdk: SdkClient
    objects: dict[str, Any]
    stack: PulumiCli
    factory: StackFactory

    @property
    def catalog(self) -> str:
        return str(self.objects["catalogs"][0]["name"])


@pytest.fixture(scope="class")
def scenario(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Scenario:
    objects = by_field_names(uuid.uuid4().hex[:6])
    sdk = SdkClient(host=emulator.base_url, token=fetch_token(emulator))
    return Scenario(emulator, sdk, objects, workspace_stack(wire_form="public", **objects),
                    workspace_stack)


def dependencies(stack: PulumiCli) -> dict[str, set[str]]:
    """Resource name -> the names of the workspace resources it depends on, as recorded."""
    resources = stack.export()["deployment"]["resources"]
    name_of = {r["urn"]: r["urn"].rsplit("::", 1)[-1] for r in resources}
    return {
        name_of[r["urn"]]: {name_of[u] for u in r.get("dependencies", []) if u in name_of}
        for r in resources if r["type"].startswith(TYPE_PREFIX)
    }


@pytest.mark.steps
class TestApiFieldNames:
    def test_1_the_stack_in_field_names_goes_up_in_one_up_in_order(
        self, scenario: Scenario
    ) -> None:
        scenario.stack.up()
        sdk, cat = scenario.sdk, scenario.catalog
        assert sdk.volumes.read(f"{cat}.raw.files").full_name == f"{cat}.raw.files"
        group = scenario.objects["groups"][0]["name"]
        location = scenario.objects["externalLocations"][0]
        assert sdk.external_locations.get(location["name"]).credential_name == (
            location["credential_name"])
        found = sdk.grants.get("volume", f"{cat}.raw.files").privilege_assignments or []
        assert [(a.principal, [str(p.value) for p in a.privileges or []]) for a in found] == [
            (group, ["READ_VOLUME"])]
        recorded = dependencies(scenario.stack)
        assert {cat} <= recorded["raw"], recorded["raw"]
        assert {cat, "raw"} <= recorded["files"], recorded["files"]
        assert {location["credential_name"]} <= recorded[location["name"]]
        assert {"files", group} <= recorded["files-grants"], recorded["files-grants"]
        assert {location["name"], group} <= recorded["location-grants"]
        assert_no_changes(scenario.stack, scenario.info, "1.")

    def test_2_a_stack_deployed_with_item_keys_before_previews_no_changes_in_field_names(
        self, scenario: Scenario, tmp_path: Path
    ) -> None:
        suffix = uuid.uuid4().hex[:6]
        tree = tree_at(BEFORE_NAMES, tmp_path / "before")
        stack = scenario.factory(wire_form="public", **by_item_keys(suffix))
        deployed_by(stack, tree)

        clear_request_log(scenario.info)
        stack.preview("--expect-no-changes")
        rewritten = Scenario(scenario.info, scenario.sdk, by_item_keys(suffix), stack,
                             scenario.factory)
        reconfigure(rewritten, by_field_names(suffix))
        stack.preview("--expect-no-changes")
        stack.destroy()

    def test_3_destroy_deletes_in_order(self, scenario: Scenario) -> None:
        scenario.stack.destroy()
        with pytest.raises(NotFound):
            scenario.sdk.catalogs.get(scenario.catalog)
        with pytest.raises(NotFound):
            scenario.sdk.storage_credentials.get(
                scenario.objects["storageCredentials"][0]["name"])
