"""Unity Catalog under the real engine against the emulator, in the public wire form: one
stack with a catalog, two schemas, a managed and an external volume, a storage credential,
an external location, and grants on each level (Grants on the catalog, a schema, a volume
and the location; a Grant on the credential).

The steps (issue 34): up, then an up that changes and writes nothing; a privilege removed
from config revoked by one PATCH and nothing else; a grant made outside the stack to an
undeclared principal removed by Grants and kept by Grant, the preview naming who loses
what, beside a declared privilege revoked outside the stack, which the refreshed preview
shows and the up restores; every kind imported by its id by a second stack, with no write
and no change after; destroy in dependency order, refused for a catalog holding a schema
the stack does not know until `force_destroy` is recorded. Engine runs are few: one run
shows two facts where it can. Beside them, a CatalogBinding and Grants of a service
credential made through the /credentials API."""

from __future__ import annotations

import copy
import dataclasses
import json
import uuid
from typing import Any

import pytest
from databricks.sdk import WorkspaceClient as SdkClient
from databricks.sdk.service import catalog as uc

from stacks.pulumi_cli import PulumiCli
from tests.e2e.conftest import (
    TYPE_PREFIX,
    StackFactory,
    assert_no_changes,
    platform_writes,
    reconfigure,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log, fetch_token

pytestmark = pytest.mark.engine

UC = "/api/2.1/unity-catalog"
CONNECTOR = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/data-platform/"
    "providers/Microsoft.Databricks/accessConnectors/uc-e2e"
)
BOB = "bob@example.com"
ENGINEERS, ANALYSTS, USERS = "data-engineers", "analysts", "users"


def declared(suffix: str) -> dict[str, list[dict[str, Any]]]:
    """The stack's objects: every name carries `suffix`."""
    cat, cred, loc = f"uc_e2e_{suffix}", f"cred-{suffix}", f"loc-{suffix}"
    url = f"abfss://e2e@emulatedstorage.dfs.core.windows.net/{suffix}"
    return {
        "catalogs": [{"name": cat, "comment": "e2e catalog", "properties": {"team": "e2e"}}],
        "schemas": [
            {"name": f"{cat}.raw", "catalog": cat, "comment": "as it lands"},
            {"name": f"{cat}.curated", "catalog": cat},
        ],
        "volumes": [
            {"name": f"{cat}.raw.files", "schema": f"{cat}.raw", "volume_type": "MANAGED"},
            {"name": f"{cat}.curated.exports", "schema": f"{cat}.curated",
             "volume_type": "EXTERNAL", "storage_location": f"{url}/exports"},
        ],
        "storageCredentials": [
            {"name": cred, "azure_managed_identity": {"access_connector_id": CONNECTOR}},
        ],
        "externalLocations": [
            {"name": loc, "url": url, "storage_credential": cred, "comment": "e2e files"},
        ],
        "grants": [
            {"name": "catalog-grants", "securable_type": "catalog", "full_name": cat,
             "privilege_assignments": [
                 {"principal": USERS, "privileges": ["USE_CATALOG"]},
                 {"principal": ANALYSTS, "privileges": ["USE_CATALOG", "SELECT"]},
             ]},
            {"name": "raw-grants", "securable_type": "schema", "full_name": f"{cat}.raw",
             "privilege_assignments": [
                 {"principal": ENGINEERS, "privileges": ["USE_SCHEMA", "CREATE_TABLE"]},
             ]},
            {"name": "files-grants", "securable_type": "volume", "full_name": f"{cat}.raw.files",
             "privilege_assignments": [
                 {"principal": ENGINEERS, "privileges": ["READ_VOLUME", "WRITE_VOLUME"]},
                 {"principal": ANALYSTS, "privileges": ["READ_VOLUME"]},
             ]},
            {"name": "location-grants", "securable_type": "external_location",
             "full_name": loc,
             "privilege_assignments": [
                 {"principal": ENGINEERS, "privileges": ["READ_FILES", "WRITE_FILES"]},
             ]},
        ],
        "principalGrants": [
            {"name": "credential-engineers", "securable_type": "storage_credential",
             "full_name": cred, "principal": ENGINEERS,
             "privileges": ["CREATE_EXTERNAL_TABLE"]},
        ],
    }


# Config key -> the import id of one of its items (step 4).
IMPORT_IDS = {
    "catalogs": lambda item: item["name"],
    "schemas": lambda item: item["name"],
    "volumes": lambda item: item["name"],
    "storageCredentials": lambda item: item["name"],
    "externalLocations": lambda item: item["name"],
    "grants": lambda item: f"{item['securable_type']}/{item['full_name']}",
    "principalGrants": lambda item: (
        f"{item['securable_type']}/{item['full_name']}/{item['principal']}"
    ),
}


@dataclasses.dataclass
class Scenario:
    info: EmulatorInfo
    sdk: SdkClient
    suffix: str
    objects: dict[str, Any]
    stack: PulumiCli
    factory: StackFactory

    @property
    def catalog(self) -> str:
        return str(self.objects["catalogs"][0]["name"])

    def names(self, key: str) -> list[str]:
        return [item["name"] for item in self.objects[key]]

    def grants(self, securable_type: str, full_name: str) -> dict[str, list[str]]:
        """principal -> its direct privileges, as the service shows them."""
        found = self.sdk.grants.get(securable_type, full_name).privilege_assignments or []
        return {
            str(a.principal): sorted(str(p.value) for p in a.privileges or []) for a in found
        }

    def declared_grants(self) -> dict[tuple[str, str], dict[str, list[str]]]:
        """(securable type, full name) -> principal -> privileges, as the config declares
        them (the Grants items; the Grant item's principal beside them)."""
        wanted: dict[tuple[str, str], dict[str, list[str]]] = {}
        for item in self.objects["grants"]:
            wanted[(item["securable_type"], item["full_name"])] = {
                a["principal"]: sorted(a["privileges"]) for a in item["privilege_assignments"]
            }
        for item in self.objects["principalGrants"]:
            wanted.setdefault((item["securable_type"], item["full_name"]), {})[
                item["principal"]] = sorted(item["privileges"])
        return wanted


@pytest.fixture(scope="class")
def scenario(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Scenario:
    suffix = uuid.uuid4().hex[:6]
    objects = declared(suffix)
    sdk = SdkClient(host=emulator.base_url, token=fetch_token(emulator))
    stack = workspace_stack(wire_form="public", **objects)
    return Scenario(emulator, sdk, suffix, objects, stack, workspace_stack)


def preview_with_diagnostics(stack: PulumiCli, *flags: str) -> tuple[dict[str, str], str]:
    """`pulumi preview --json` of the workspace kinds: ({resource name: op}, the warnings,
    which the provider host sends the engine as warnings of their resource)."""
    document = json.loads(stack.preview("--json", *flags).stdout)
    ops = {
        step["urn"].split("::")[-1]: step["op"]
        for step in document.get("steps", [])
        if step["urn"].split("::")[-2].startswith(TYPE_PREFIX)
    }
    warnings = "\n".join(
        d.get("message", "") for d in document.get("diagnostics", [])
        if d.get("severity") == "warning"
    )
    return ops, warnings


@pytest.mark.steps
class TestUnityCatalog:
    def test_1_up_then_a_second_up_changes_and_writes_nothing(self, scenario: Scenario) -> None:
        scenario.stack.up()
        sdk, cat = scenario.sdk, scenario.catalog
        assert sdk.catalogs.get(cat).comment == "e2e catalog", "1. catalog"
        schemas = {s.name for s in sdk.schemas.list(cat)}
        assert {"raw", "curated"} <= schemas, f"1. schemas: {schemas}"
        external = sdk.volumes.read(f"{cat}.curated.exports")
        assert external.volume_type == uc.VolumeType.EXTERNAL, "1. external volume"
        assert sdk.volumes.read(f"{cat}.raw.files").volume_type == uc.VolumeType.MANAGED
        for (securable_type, full_name), wanted in scenario.declared_grants().items():
            assert scenario.grants(securable_type, full_name) == wanted, (
                f"1. grants on {securable_type} {full_name}")
        assert_no_changes(scenario.stack, scenario.info, "1.")

    def test_2_a_privilege_removed_from_config_is_revoked_alone(
        self, scenario: Scenario
    ) -> None:
        objects = copy.deepcopy(scenario.objects)
        analysts = objects["grants"][0]["privilege_assignments"][1]
        analysts["privileges"] = ["USE_CATALOG"]
        reconfigure(scenario, objects)
        clear_request_log(scenario.info)
        scenario.stack.up()
        assert platform_writes(scenario.info) == [
            f"PATCH {UC}/permissions/catalog/{scenario.catalog}"
        ], "2. one PATCH of the catalog's grants, nothing else written"
        assert scenario.grants("catalog", scenario.catalog) == {
            USERS: ["USE_CATALOG"], ANALYSTS: ["USE_CATALOG"]}, "2. SELECT revoked"

    def test_3_outside_grants_and_a_revoked_privilege_in_a_refreshed_preview(
        self, scenario: Scenario
    ) -> None:
        sdk, cat = scenario.sdk, scenario.catalog
        credential = scenario.objects["storageCredentials"][0]["name"]
        add = uc.PermissionsChange
        # An undeclared principal granted outside the stack on a Grants securable and on
        # the Grant's; a declared privilege revoked.
        sdk.grants.update("catalog", cat, changes=[
            add(principal=BOB, add=[uc.Privilege.USE_CATALOG])])
        sdk.grants.update("storage_credential", credential, changes=[
            add(principal=BOB, add=[uc.Privilege.READ_FILES])])
        sdk.grants.update("volume", f"{cat}.raw.files", changes=[
            add(principal=ENGINEERS, remove=[uc.Privilege.WRITE_VOLUME])])

        ops, warnings = preview_with_diagnostics(scenario.stack, "--refresh")
        changed = {name: op for name, op in ops.items() if op not in ("same", "refresh")}
        assert changed == {"catalog-grants": "update", "files-grants": "update"}, (
            f"3. refreshed preview: {ops}")
        assert f"{BOB} (USE_CATALOG) lose(s) every direct privilege" in warnings, warnings
        assert f"catalog {cat}" in warnings and credential not in warnings, warnings

        clear_request_log(scenario.info)
        scenario.stack.up("--refresh")
        assert sorted(platform_writes(scenario.info)) == [
            f"PATCH {UC}/permissions/catalog/{cat}",
            f"PATCH {UC}/permissions/volume/{cat}.raw.files",
        ], "3. up: the two securables' grants alone"
        assert BOB not in scenario.grants("catalog", cat), "3. Grants removed bob"
        assert scenario.grants("storage_credential", credential) == {
            ENGINEERS: ["CREATE_EXTERNAL_TABLE"], BOB: ["READ_FILES"]}, "3. Grant kept bob"
        assert scenario.grants("volume", f"{cat}.raw.files")[ENGINEERS] == [
            "READ_VOLUME", "WRITE_VOLUME"], "3. the revoked privilege restored"

    def test_4_import_of_each_kind_by_its_id_previews_no_changes(
        self, scenario: Scenario
    ) -> None:
        imported = copy.deepcopy(scenario.objects)
        for key, items in imported.items():
            for item in items:
                item["import"] = IMPORT_IDS[key](item)
        # A second stack declares the same objects, each with its id (`import:`, as adoption
        # writes them). The engine refuses an import whose declared inputs differ from what
        # the read finds, so an up that imports all twelve writing nothing, then an up with
        # no changes, is import with no diff. (Bob's grant on the credential, outside the
        # Grant's principal, is no concern of it.)
        importer = scenario.factory(wire_form="public", **imported)
        clear_request_log(scenario.info)
        up = importer.up()
        count = sum(len(items) for items in imported.values())
        assert f"{count} imported" in up.stdout, up.stdout
        assert platform_writes(scenario.info) == [], "4. import wrote to the workspace"
        assert_no_changes(importer, scenario.info, "4. after import")

    def test_5_destroy_in_dependency_order_force_destroy_for_a_non_empty_catalog(
        self, scenario: Scenario
    ) -> None:
        sdk, cat = scenario.sdk, scenario.catalog
        sdk.schemas.create("outsider", cat)
        clear_request_log(scenario.info)
        refused = scenario.stack.run("destroy", "--yes", "--skip-preview", "--stack",
                                     scenario.stack.stack, check=False)
        assert refused.returncode != 0, refused.stdout
        assert "force_destroy" in refused.stdout and "outsider" in refused.stdout, (
            refused.stdout)
        first = platform_writes(scenario.info)
        assert sdk.catalogs.get(cat).name == cat, "5. the catalog stays"
        assert {s.name for s in sdk.schemas.list(cat)} >= {"outsider"}

        left = {r["urn"].split("::")[-1]: r["urn"]
                for r in scenario.stack.export()["deployment"]["resources"]
                if r["type"].startswith(TYPE_PREFIX)}
        # What the catalog waits for stays with it: the location and its credential.
        assert sorted(left) == sorted([cat, *scenario.names("externalLocations"),
                                       *scenario.names("storageCredentials")]), left

        # force_destroy recorded by an up of the catalog alone (the rest, deleted, stays so).
        objects = copy.deepcopy(scenario.objects)
        objects["catalogs"][0]["force_destroy"] = True
        reconfigure(scenario, objects)
        clear_request_log(scenario.info)
        scenario.stack.up("--target", left[cat])
        assert platform_writes(scenario.info) == [], "5. recording force_destroy wrote"
        scenario.stack.destroy()
        deletes = first + platform_writes(scenario.info)
        assert_dependency_order(deletes, scenario)
        assert cat not in {c.name for c in sdk.catalogs.list()}, "5. catalog gone"
        names = {c.name for c in sdk.storage_credentials.list()}
        assert scenario.names("storageCredentials")[0] not in names, "5. credential gone"
        names = {x.name for x in sdk.external_locations.list()}
        assert scenario.names("externalLocations")[0] not in names, "5. location gone"


def assert_dependency_order(writes: list[str], scenario: Scenario) -> None:
    """Each object's delete (a grant's: its PATCH) comes after those of what depends on
    it: grants, then volumes, schemas, the catalog; the external volume before its
    location, the location before its credential."""
    cat = scenario.catalog
    cred, loc = scenario.names("storageCredentials")[0], scenario.names("externalLocations")[0]

    def at(entry: str) -> int:
        matches = [i for i, w in enumerate(writes) if w == entry]
        assert matches, f"5. no {entry!r} in {writes}"
        return matches[-1]

    grants = [at(f"PATCH {UC}/permissions/{t}/{n}") for t, n in (
        ("catalog", cat), ("schema", f"{cat}.raw"), ("volume", f"{cat}.raw.files"),
        ("external_location", loc), ("storage_credential", cred))]
    volumes = [at(f"DELETE {UC}/volumes/{cat}.raw.files"),
               at(f"DELETE {UC}/volumes/{cat}.curated.exports")]
    schemas = [at(f"DELETE {UC}/schemas/{cat}.raw"), at(f"DELETE {UC}/schemas/{cat}.curated")]
    catalog = at(f"DELETE {UC}/catalogs/{cat}")
    location = at(f"DELETE {UC}/external-locations/{loc}")
    credential = at(f"DELETE {UC}/storage-credentials/{cred}")
    assert max(grants) < min(volumes) and max(volumes) < min(schemas), writes
    assert max(schemas) < catalog, writes
    assert volumes[1] < location < credential and max(grants) < location, writes


HOME_WORKSPACE, OTHER_WORKSPACE = 1234567890123456, 2345678901234567


def test_a_service_credential_is_bound_granted_and_given_back(
    workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    """A CatalogBinding and Grants of a service credential (securable_type `credential`,
    made outside the stack through the /credentials API): the up isolates it, binds the two
    declared workspaces and grants its privileges, a second up writes nothing, destroy
    unbinds them, opens it again and revokes the grants."""
    sdk = SdkClient(host=emulator.base_url, token=fetch_token(emulator))
    name = f"svc-{uuid.uuid4().hex[:6]}"
    sdk.credentials.create_credential(
        name, purpose=uc.CredentialPurpose.SERVICE,
        azure_managed_identity=uc.AzureManagedIdentity(access_connector_id=CONNECTOR))
    stack = workspace_stack(wire_form="public", catalogBindings=[{
        "name": "service-credential", "securable_type": "credential", "securable_name": name,
        "bindings": [{"workspace_id": HOME_WORKSPACE}, {"workspace_id": OTHER_WORKSPACE}]}],
        grants=[{"name": "service-credential-grants", "securable_type": "credential",
                 "full_name": name, "privilege_assignments": [
                     {"principal": ENGINEERS, "privileges": ["ACCESS", "CREATE_CONNECTION"]},
                     {"principal": ANALYSTS, "privileges": ["MANAGE"]}]}])
    stack.up()
    granted = sdk.grants.get("credential", name).privilege_assignments or []
    assert {str(a.principal): sorted(str(p.value) for p in a.privileges or [])
            for a in granted} == {ENGINEERS: ["ACCESS", "CREATE_CONNECTION"],
                                  ANALYSTS: ["MANAGE"]}
    isolated = uc.IsolationMode.ISOLATION_MODE_ISOLATED
    assert sdk.credentials.get_credential(name).isolation_mode == isolated
    bound = {b.workspace_id for b in sdk.workspace_bindings.get_bindings("credential", name)}
    assert bound == {HOME_WORKSPACE, OTHER_WORKSPACE}
    assert_no_changes(stack, emulator, "credential binding")
    stack.destroy()
    opened = uc.IsolationMode.ISOLATION_MODE_OPEN
    assert sdk.credentials.get_credential(name).isolation_mode == opened
    assert not list(sdk.workspace_bindings.get_bindings("credential", name))
    assert not sdk.grants.get("credential", name).privilege_assignments
    sdk.credentials.delete_credential(name)
