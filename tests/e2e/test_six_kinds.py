"""All six kinds in one stack under the real engine against the emulator, in both wire forms:
preview, up, a no-op up without writes, in-place updates, replacements, drift found by
refresh and undone by up, objects deleted out of band, and a destroy that leaves the initial data.

One stack per wire form walks through the steps, a test each (a class per wire form): a
failure names its step, and the steps after it do not run."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from stacks.pulumi_cli import PulumiCli
from tests.e2e.conftest import (
    PROVIDER_TYPE,
    PlatformApi,
    StackFactory,
    assert_no_changes,
    changed_steps,
    platform_writes,
    preview_steps,
    refreshed,
    write_config,
    write_objects,
)
from workspace_emulator.platform.models.job_settings import to_public_form
from workspace_emulator.testing import EmulatorInfo, clear_request_log, initial_applications

pytestmark = pytest.mark.engine

REPO_ID = 3000000000000001  # /Repos/iac/data-pipelines, on main initially
MODELS_REPO_ID = 3000000000000002  # /Repos/iac/ml-models, on main initially
OTHER_WORKSPACE = "2345678901234567"
THIRD_WORKSPACE = "3456789012345678"
JOB_NAME = "e2e-etl"
KEYVAULT = {
    "resource_id": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/dp"
    "/providers/Microsoft.KeyVault/vaults/dp-e2e-kv",
    "dns_name": "https://dp-e2e-kv.vault.azure.net/",
}

# Resource name -> kind, one of each.
KINDS = {
    "reporting": "ServicePrincipal",
    "e2e-scope": "SecretScope",
    JOB_NAME: "Job",
    "e2e-etl-access": "JobPermissions",
    "pipelines": "RepoBranch",
    "finance": "CatalogBinding",
}


def job_item(wire_form: str) -> dict[str, Any]:
    """The job in the nesting that matches the wire form: the specification's nesting for
    the legacy form, the public service's for the public form."""
    public: dict[str, Any] = {
        "name": JOB_NAME,
        "new_cluster": {
            "spark_version": "13.3.x-scala2.12",
            "node_type_id": "Standard_DS3_v2",
            "autoscale": {"min_workers": 1, "max_workers": 2},
            "init_scripts": [{"dbfs": {"destination": "dbfs:/init/deps.sh"}}],
            "cluster_log_conf": {"dbfs": {"destination": "dbfs:/mnt/logs/e2e"}},
            "spark_env_vars": {"ENVIRONMENT": "e2e"},
        },
        "libraries": [
            {"pypi": {"package": "requests==2.32.3"}},
            {"pypi": {"package": "pandas==2.2.2"}},
        ],
        "timeout_seconds": 3600,
        "max_retries": 1,
        "spark_python_task": {"python_file": "dbfs:/jobs/etl.py", "parameters": ["--full"]},
    }
    if wire_form == "public":
        return public
    cluster = public["new_cluster"]
    for field in ("timeout_seconds", "max_retries", "spark_python_task", "libraries"):
        cluster[field] = public.pop(field)
    cluster["cluster_log_conf"]["spark_env_vars"] = cluster.pop("spark_env_vars")
    return public


def declared(wire_form: str, apps: list[dict[str, str]]) -> dict[str, list[dict[str, Any]]]:
    return {
        "servicePrincipals": [
            {
                "name": "reporting",
                "application_id": apps[0]["client_id"],
                "display_name": "reporting",
                "entitlements": ["workspace-access"],
                "groups": ["100000000000004"],
            }
        ],
        "secretScopes": [{"name": "e2e-scope"}],
        "jobs": [{"name": JOB_NAME, **job_item(wire_form)}],
        "jobPermissions": [
            {
                "name": "e2e-etl-access",
                "job": JOB_NAME,
                "access_controls": [
                    {"group_name": "data-engineers", "permission_level": "CAN_MANAGE_RUN"},
                    {"group_name": "analysts", "permission_level": "CAN_VIEW"},
                ],
            }
        ],
        "repoBranches": [
            {"name": "pipelines", "repo_path": "/Repos/iac/data-pipelines", "branch": "develop"}
        ],
        "catalogBindings": [
            {
                "name": "finance",
                "catalog_name": "finance",
                "bindings": [{"workspace_id": OTHER_WORKSPACE}],
            }
        ],
    }


# --- the emulator, read directly ---------------------------------------------------------


class Workspace(PlatformApi):
    """The objects of the six kinds, read over the platform API."""

    def jobs(self) -> list[dict[str, Any]]:
        return self.call("GET", "/api/2.0/jobs/list").get("jobs", [])

    def job_named(self, name: str) -> dict[str, Any]:
        found = [j for j in self.jobs() if j["settings"].get("name") == name]
        assert len(found) == 1, f"expected one job named {name!r}, found {len(found)}"
        job_id = found[0]["job_id"]
        settings = self.call("GET", "/api/2.0/jobs/get", params={"job_id": job_id})["settings"]
        return {"job_id": job_id, **to_public_form(single_task_view(settings))}

    def principals(self) -> dict[str, dict[str, Any]]:
        listed = self.call("GET", "/api/2.0/preview/scim/v2/ServicePrincipals")
        return {
            p["applicationId"]: {
                "display_name": p.get("displayName"),
                "entitlements": sorted(e["value"] for e in p.get("entitlements") or []),
                "groups": sorted(g["value"] for g in p.get("groups") or []),
            }
            for p in listed.get("Resources") or []
        }

    def principal_id(self, application_id: str) -> str:
        listed = self.call("GET", "/api/2.0/preview/scim/v2/ServicePrincipals")
        return next(p["id"] for p in listed["Resources"] if p["applicationId"] == application_id)

    def scopes(self) -> dict[str, dict[str, str] | None]:
        """Scope name -> its key vault (None for a plain scope)."""
        listed = self.call("GET", "/api/2.0/secrets/scopes/list")["scopes"]
        return {s["name"]: s.get("keyvault_metadata") for s in listed}

    def permissions(self, job_id: int) -> dict[str, str]:
        """Direct (not inherited) entries: principal name -> level."""
        acl = self.call("GET", f"/api/2.0/permissions/jobs/{job_id}")["access_control_list"]
        entries = {}
        for item in acl:
            name = item.get("group_name") or item.get("user_name")
            name = name or item.get("service_principal_name")
            for permission in item["all_permissions"]:
                if not permission.get("inherited"):
                    entries[name] = permission["permission_level"]
        return entries

    def branches(self) -> dict[int, str]:
        branches: dict[int, str] = {}
        params: dict[str, str] = {}
        while True:
            page = self.call("GET", "/api/2.0/repos", params=params)
            branches.update({r["id"]: r["branch"] for r in page["repos"]})
            if not page.get("next_page_token"):
                return branches
            params = {"next_page_token": page["next_page_token"]}

    def catalogs(self) -> dict[str, dict[str, Any]]:
        listed = self.call("GET", "/api/2.1/unity-catalog/catalogs")["catalogs"]
        return {
            c["name"]: {"isolation_mode": c["isolation_mode"], "bindings": self.bindings(c["name"])}
            for c in listed
        }

    def bindings(self, catalog: str) -> dict[str, str]:
        listed = self.call("GET", f"/api/2.1/unity-catalog/bindings/catalog/{catalog}")
        return {str(b["workspace_id"]): b["binding_type"] for b in listed.get("bindings") or []}

    def snapshot(self) -> dict[str, Any]:
        """Everything the stack may touch, for comparing with the workspace before the stack."""
        assert not self.call("GET", "/api/2.0/jobs/list")["has_more"]
        return {
            "jobs": self.jobs(),
            "principals": self.principals(),
            "scopes": self.scopes(),
            "branches": self.branches(),
            "catalogs": self.catalogs(),
        }


# --- the engine's answers ------------------------------------------------------------------


def steps(stack: PulumiCli) -> dict[str, dict[str, Any]]:
    return preview_steps(stack, KINDS)


def ops(stack: PulumiCli) -> dict[str, str]:
    return {name: step["op"] for name, step in steps(stack).items()}


def single_task_view(settings: dict[str, Any]) -> dict[str, Any]:
    """A one-task job's settings with its task's fields at job level, as the single-task
    shape this stack declares has them (Jobs 2.2 and the public form keep them in the task)."""
    tasks = settings.get("tasks")
    if not tasks:
        return settings
    [task] = tasks
    flat = {k: v for k, v in settings.items() if k != "tasks"}
    flat.update({k: v for k, v in task.items() if k != "task_key"})
    return flat


# --- the scenario ----------------------------------------------------------------------------


@dataclasses.dataclass
class Lifecycle:
    """One stack of the six kinds, and what each step hands on to the next."""

    wire_form: str
    workspace: Workspace
    before: dict[str, Any]  # the workspace before the stack
    apps: list[dict[str, str]]
    stack: PulumiCli
    objects: dict[str, Any]  # as declared now
    job: dict[str, Any] = dataclasses.field(default_factory=dict)  # as last read


@pytest.fixture(scope="class")
def lifecycle(
    class_wire_form: str, workspace_stack: StackFactory, emulator: EmulatorInfo
) -> Lifecycle:
    workspace = Workspace(emulator)
    before = workspace.snapshot()
    apps = initial_applications()
    objects = declared(class_wire_form, apps)
    stack = workspace_stack(wire_form=class_wire_form, **objects)
    return Lifecycle(class_wire_form, workspace, before, apps, stack, objects)


@pytest.mark.steps
class SixKindsLifecycle:
    """The steps, in order, of one stack in the wire form `wire_form` (a subclass each)."""

    wire_form: str

    def test_1_preview_lists_the_creates(self, lifecycle: Lifecycle) -> None:
        workspace, stack = lifecycle.workspace, lifecycle.stack
        assert ops(stack) == {name: "create" for name in KINDS}, "1. preview: six creates"
        assert workspace.snapshot() == lifecycle.before, "1. preview changed the workspace"

    def test_2_up_makes_the_objects_as_declared(self, lifecycle: Lifecycle) -> None:
        workspace, apps, wire_form = lifecycle.workspace, lifecycle.apps, lifecycle.wire_form
        lifecycle.stack.up()
        job = workspace.job_named(JOB_NAME)
        assert job["max_retries"] == 1 and job["timeout_seconds"] == 3600, "2. up: job settings"
        assert job["new_cluster"]["spark_env_vars"] == {"ENVIRONMENT": "e2e"}, "2. up: job env"
        # The specification nests libraries in new_cluster; the public service has them at
        # job level. Each form's body keeps them where its form has them.
        libraries = (job["new_cluster"] if wire_form == "legacy" else job).get("libraries") or []
        assert sorted(lib["pypi"]["package"] for lib in libraries) == [
            "pandas==2.2.2",
            "requests==2.32.3",
        ], f"2. up: job libraries where the {wire_form} form has them, got {job}"
        assert workspace.principals()[apps[0]["client_id"]] == {
            "display_name": "reporting",
            "entitlements": ["workspace-access"],
            "groups": ["100000000000004"],
        }, "2. up: service principal"
        assert "e2e-scope" in workspace.scopes(), "2. up: scope"
        permissions = workspace.permissions(job["job_id"])
        assert permissions["data-engineers"] == "CAN_MANAGE_RUN", "2. up: permissions"
        assert permissions["analysts"] == "CAN_VIEW", "2. up: permissions"
        assert workspace.branches()[REPO_ID] == "develop", "2. up: branch"
        assert workspace.catalogs()["finance"] == {
            "isolation_mode": "ISOLATED",
            "bindings": {OTHER_WORKSPACE: "BINDING_TYPE_READ_WRITE"},
        }, "2. up: catalog binding"

    def test_3_a_second_up_changes_nothing(self, lifecycle: Lifecycle) -> None:
        assert_no_changes(lifecycle.stack, lifecycle.workspace.info, "3.")

    def test_3b_nor_does_the_other_wire_form(self, lifecycle: Lifecycle) -> None:
        # Whichever nesting and spelling the service echoes, refresh reads the same objects
        # and up has nothing to do.
        stack, wire_form = lifecycle.stack, lifecycle.wire_form
        info = lifecycle.workspace.info
        other_form = "public" if wire_form == "legacy" else "legacy"
        for form in (other_form, wire_form):
            write_config(stack, {"workspace:wireForm": form})
            # Another connection is an update of the provider alone, which writes nothing.
            assert changed_steps(stack) == [("update", PROVIDER_TYPE)], f"3b. {form}"
            clear_request_log(info)
            stack.up()
            assert platform_writes(info) == [], f"3b. the up to the {form} form wrote"
            read = refreshed(stack)
            assert {name: op for name, (op, _) in read.items()} == {
                name: "same" for name in KINDS
            }, f"3b. refresh in the {form} form reads every object unchanged"
            assert_no_changes(stack, info, "3b.")

    def test_4a_a_job_update_changes_nothing_else(self, lifecycle: Lifecycle) -> None:
        # An updatable field of each kind (a scope has none) is updated in place; the job
        # alone first: its permissions refer to it, yet are not changed by its update.
        updated = copy.deepcopy(lifecycle.objects)
        updated["servicePrincipals"][0]["entitlements"] = [
            "databricks-sql-access",
            "workspace-access",
        ]
        job_settings = updated["jobs"][0]
        (job_settings["new_cluster"] if lifecycle.wire_form == "legacy" else job_settings)[
            "max_retries"
        ] = 3
        lifecycle.objects = updated
        write_objects(lifecycle.stack, {"jobs": updated["jobs"]})
        assert ops(lifecycle.stack) == {JOB_NAME: "update"}, (
            "4. preview: a job update changes nothing else"
        )

    def test_4b_preview_one_in_place_update_per_kind(self, lifecycle: Lifecycle) -> None:
        stack, updated = lifecycle.stack, lifecycle.objects
        updated["jobPermissions"][0]["access_controls"][1]["permission_level"] = "CAN_MANAGE_RUN"
        updated["repoBranches"][0]["branch"] = "release/2024.06"
        updated["catalogBindings"][0]["bindings"].append(
            {"workspace_id": THIRD_WORKSPACE, "binding_type": "BINDING_TYPE_READ_ONLY"}
        )
        write_objects(stack, updated)
        preview = steps(stack)
        expected_changes = {
            "reporting": "entitlements",
            JOB_NAME: "new_cluster" if lifecycle.wire_form == "legacy" else "max_retries",
            "e2e-etl-access": "access_controls",
            "pipelines": "branch",
            "finance": "bindings",
        }
        assert {n: s["op"] for n, s in preview.items()} == {
            name: "update" for name in expected_changes
        }, "4. preview: one in-place update per kind, nothing else"
        for name, key in expected_changes.items():
            old, new = preview[name]["oldState"]["inputs"], preview[name]["newState"]["inputs"]
            changed = {k for k in set(old) | set(new) if old.get(k) != new.get(k)}
            assert changed == {key}, f"4. preview: {name} changes {changed}, expected {key}"

    def test_4c_up_updates_in_place(self, lifecycle: Lifecycle) -> None:
        workspace, apps = lifecycle.workspace, lifecycle.apps
        lifecycle.stack.up()
        job = workspace.job_named(JOB_NAME)
        assert job["max_retries"] == 3, "4. up: job updated"
        assert workspace.principals()[apps[0]["client_id"]]["entitlements"] == [
            "databricks-sql-access",
            "workspace-access",
        ], "4. up: principal updated"
        assert workspace.permissions(job["job_id"])["analysts"] == "CAN_MANAGE_RUN", "4. up"
        assert workspace.branches()[REPO_ID] == "release/2024.06", "4. up: branch updated"
        assert workspace.catalogs()["finance"]["bindings"] == {
            OTHER_WORKSPACE: "BINDING_TYPE_READ_WRITE",
            THIRD_WORKSPACE: "BINDING_TYPE_READ_ONLY",
        }, "4. up: binding added"
        assert_no_changes(lifecycle.stack, workspace.info, "4.")

    def test_5a_preview_replacements(self, lifecycle: Lifecycle) -> None:
        # Replacing fields: a principal's application id, a scope's backend, a catalog's
        # name, the repo. (A scope's name is its resource name in this stack: another name
        # is another resource.)
        replaced = copy.deepcopy(lifecycle.objects)
        replaced["servicePrincipals"][0]["application_id"] = lifecycle.apps[1]["client_id"]
        replaced["secretScopes"][0]["keyvault"] = KEYVAULT
        replaced["catalogBindings"][0]["catalog_name"] = "sandbox"
        replaced["repoBranches"][0] = {
            "name": "pipelines",
            "repo_id": str(MODELS_REPO_ID),
            "branch": "experiment",
        }
        lifecycle.objects = replaced
        write_objects(lifecycle.stack, replaced)
        preview = steps(lifecycle.stack)
        assert {n: (s["op"], s.get("replaceReasons")) for n, s in preview.items()} == {
            "reporting": ("replace", ["application_id"]),
            "e2e-scope": ("replace", ["keyvault"]),
            "finance": ("replace", ["catalog_name"]),
            "pipelines": ("replace", ["repo_id", "repo_path"]),
        }, "5. preview: four replacements"

    def test_5b_up_replaces(self, lifecycle: Lifecycle) -> None:
        workspace, apps = lifecycle.workspace, lifecycle.apps
        lifecycle.stack.up()
        principals = workspace.principals()
        assert apps[0]["client_id"] not in principals, "5. up: old principal removed"
        assert principals[apps[1]["client_id"]]["entitlements"] == [
            "databricks-sql-access",
            "workspace-access",
        ], "5. up: new principal"
        assert workspace.scopes()["e2e-scope"] == KEYVAULT, "5. up: scope now backed by a vault"
        catalogs = workspace.catalogs()
        assert catalogs["finance"] == lifecycle.before["catalogs"]["finance"], (
            "5. up: finance restored"
        )
        assert catalogs["sandbox"]["isolation_mode"] == "ISOLATED", "5. up: sandbox isolated"
        assert set(catalogs["sandbox"]["bindings"]) == {OTHER_WORKSPACE, THIRD_WORKSPACE}, "5. up"
        branches = workspace.branches()
        assert branches[REPO_ID] == "main", "5. up: the first repo's branch restored"
        assert branches[MODELS_REPO_ID] == "experiment", "5. up: the other repo's branch set"
        assert_no_changes(lifecycle.stack, workspace.info, "5.")

    def test_6a_refresh_reads_out_of_band_changes(self, lifecycle: Lifecycle) -> None:
        workspace, stack = lifecycle.workspace, lifecycle.stack
        job = workspace.job_named(JOB_NAME)
        drifted = {k: v for k, v in job.items() if k != "job_id"}
        drifted["timeout_seconds"] = 60
        workspace.call(
            "POST", "/api/2.0/jobs/reset", json={"job_id": job["job_id"], "new_settings": drifted}
        )
        workspace.call(
            "PATCH",
            f"/api/2.0/permissions/jobs/{job['job_id']}",
            json={
                "access_control_list": [{"group_name": "analysts", "permission_level": "CAN_VIEW"}]
            },
        )
        workspace.call("POST", f"/api/2.0/repos/{MODELS_REPO_ID}", json={"branch": "main"})
        workspace.call(
            "PATCH", "/api/2.1/unity-catalog/catalogs/sandbox", json={"isolation_mode": "OPEN"}
        )
        workspace.call(
            "PATCH",
            "/api/2.1/unity-catalog/bindings/catalog/sandbox",
            json={"unassign_workspaces": [OTHER_WORKSPACE]},
        )
        principal_id = workspace.principal_id(lifecycle.apps[1]["client_id"])
        workspace.call(
            "PATCH",
            f"/api/2.0/preview/scim/v2/ServicePrincipals/{principal_id}",
            json={
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
                "Operations": [{"op": "replace", "path": "displayName", "value": "renamed"}],
            },
        )
        read = refreshed(stack)
        assert {name: op for name, (op, _) in read.items()} == {
            "reporting": "update",
            "e2e-scope": "same",
            JOB_NAME: "update",
            "e2e-etl-access": "update",
            "pipelines": "update",
            "finance": "update",
        }, "6. refresh: the five drifted objects are read as changed, the scope not"
        assert read["reporting"][1]["display_name"] == "renamed", "6. refresh: principal"
        assert single_task_view(read[JOB_NAME][1])["timeout_seconds"] == 60, (
            "6. refresh: job timeout"
        )
        assert {"group_name": "analysts", "permission_level": "CAN_VIEW"} in read[
            "e2e-etl-access"
        ][1]["access_controls"], "6. refresh: permission entry"
        assert read["pipelines"][1]["branch"] == "main", "6. refresh: branch"
        assert read["finance"][1]["isolation_mode"] == "OPEN", "6. refresh: isolation"
        assert [b["workspace_id"] for b in read["finance"][1]["bindings"]] == [
            THIRD_WORKSPACE
        ], "6. refresh: binding removed"
        assert {n: s["op"] for n, s in steps(stack).items()} == {
            "reporting": "update",
            JOB_NAME: "update",
            "e2e-etl-access": "update",
            "pipelines": "update",
            "finance": "update",
        }, "6. preview after refresh: the five drifted objects update"

    def test_6b_up_restores_the_declared_values(self, lifecycle: Lifecycle) -> None:
        workspace = lifecycle.workspace
        lifecycle.stack.up()
        job = lifecycle.job = workspace.job_named(JOB_NAME)
        assert job["timeout_seconds"] == 3600, "6. up: job timeout restored"
        assert workspace.permissions(job["job_id"])["analysts"] == "CAN_MANAGE_RUN", "6. up"
        assert workspace.branches()[MODELS_REPO_ID] == "experiment", "6. up: branch restored"
        assert workspace.catalogs()["sandbox"] == {
            "isolation_mode": "ISOLATED",
            "bindings": {
                OTHER_WORKSPACE: "BINDING_TYPE_READ_WRITE",
                THIRD_WORKSPACE: "BINDING_TYPE_READ_ONLY",
            },
        }, "6. up: isolation and binding restored"
        assert (
            workspace.principals()[lifecycle.apps[1]["client_id"]]["display_name"] == "reporting"
        ), "6. up"
        assert_no_changes(lifecycle.stack, workspace.info, "6.")

    def test_7a_refresh_drops_objects_deleted_out_of_band(self, lifecycle: Lifecycle) -> None:
        workspace, stack = lifecycle.workspace, lifecycle.stack
        workspace.call("POST", "/api/2.0/jobs/delete", json={"job_id": lifecycle.job["job_id"]})
        workspace.call("POST", "/api/2.0/secrets/scopes/delete", json={"scope": "e2e-scope"})
        principal_id = workspace.principal_id(lifecycle.apps[1]["client_id"])
        workspace.call("DELETE", f"/api/2.0/preview/scim/v2/ServicePrincipals/{principal_id}")
        dropped = {name for name, (op, _) in refreshed(stack).items() if op == "delete"}
        assert dropped == {"reporting", JOB_NAME, "e2e-etl-access", "e2e-scope"}, "7. refresh"
        assert {n: s["op"] for n, s in steps(stack).items()} == {
            "reporting": "create",
            JOB_NAME: "create",
            "e2e-etl-access": "create",
            "e2e-scope": "create",
        }, "7. preview after refresh: the deleted objects are created again"

    def test_7b_up_makes_them_again(self, lifecycle: Lifecycle) -> None:
        workspace = lifecycle.workspace
        lifecycle.stack.up()
        job = workspace.job_named(JOB_NAME)
        assert workspace.permissions(job["job_id"])["analysts"] == "CAN_MANAGE_RUN", "7. up"
        assert "e2e-scope" in workspace.scopes(), "7. up: scope made again"
        assert lifecycle.apps[1]["client_id"] in workspace.principals(), (
            "7. up: principal added again"
        )
        assert_no_changes(lifecycle.stack, workspace.info, "7.")

    def test_8_destroy_leaves_the_workspace_as_before(self, lifecycle: Lifecycle) -> None:
        lifecycle.stack.destroy()
        assert lifecycle.workspace.snapshot() == lifecycle.before, (
            "8. destroy: the workspace is back to its initial data"
        )


@pytest.mark.modern_leg  # the legacy form on the modern engine: docs/testing.md, "Test legs"
class TestSixKindsInTheLegacyForm(SixKindsLifecycle):
    wire_form = "legacy"


class TestSixKindsInThePublicForm(SixKindsLifecycle):
    wire_form = "public"
