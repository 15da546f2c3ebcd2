"""Directory, Notebook and WorkspaceFile in one stack under the real engine against the
emulator, with the job that runs the notebook, a JobRun of it and a Permissions entry on the
notebook by path: preview, up (the notebook uploaded from a file of the repository and run),
no content in the state, a no-op up without writes, a run of a missing notebook failing the
up, in-place updates of content, a file moved (replaced), drift found by refresh and undone by
up, destroy (delete_recursive recorded first), and import by path with no diff.

One stack walks through the steps, a test each: a failure names its step, and the steps after
it do not run."""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
import requests

from stacks.pulumi_cli import REPO_ROOT, PulumiCli
from tests.e2e.conftest import (
    TYPE_PREFIX,
    PlatformApi,
    StackFactory,
    assert_no_changes,
    import_stack,
    preview_ops,
    reconfigure,
    refreshed,
    write_config,
    write_objects,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

NOTEBOOK_SOURCE = "stacks/notebooks/nightly_report.py"  # the local stack's notebook
SHARED_CLUSTER = "0101-120000-shared01"
ANALYSTS = "analysts"

# Resource name -> kind, the workspace kinds of the stack.
KINDS = {
    "e2e-folder": "Directory",
    "e2e-report": "Notebook",
    "e2e-query": "Notebook",
    "e2e-settings": "WorkspaceFile",
    "e2e-job": "Job",
    "e2e-run": "JobRun",
    "e2e-report-runners": "Permissions",
    "e2e-missing": "Job",
    "e2e-missing-run": "JobRun",
}


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def declared(folder: str) -> dict[str, list[dict[str, Any]]]:
    return {
        "directories": [{"name": "e2e-folder", "path": folder}],
        "notebooks": [
            # From a file of the repository, its language from the extension, addressed with
            # the /Workspace prefix (recorded without it).
            {"name": "e2e-report", "path": f"/Workspace{folder}/report",
             "source": NOTEBOOK_SOURCE},
            # Inline, in a folder the create makes.
            {"name": "e2e-query", "path": f"{folder}/queries/daily",
             "content_base64": b64("SELECT 1 AS one"), "language": "SQL"},
        ],
        "workspaceFiles": [
            {"name": "e2e-settings", "path": f"{folder}/conf/settings.json",
             "content_base64": b64('{"env": "e2e"}')},
        ],
        "jobs": [
            {"name": "e2e-job", "tasks": [{
                "task_key": "report", "existing_cluster_id": SHARED_CLUSTER,
                "notebook_task": {"notebook_path": f"/Workspace{folder}/report"},
            }]},
        ],
        "jobRuns": [{"name": "e2e-run", "job": "e2e-job", "trigger": "1"}],
        "permissions": [
            {"name": "e2e-report-runners", "notebook_path": f"{folder}/report",
             "access_controls": [{"group_name": ANALYSTS, "permission_level": "CAN_RUN"}]},
        ],
    }


class Workspace(PlatformApi):
    """The workspace's objects below a folder, read over the platform API."""

    def status(self, path: str) -> dict[str, Any] | None:
        """The object at `path`, or None when the service answers that nothing is there (404
        RESOURCE_DOES_NOT_EXIST); any other answer (a 401, a 500, a timeout) fails the test,
        so that "nothing there" is never an error read as absence."""
        response = requests.get(f"{self.info.base_url}/api/2.0/workspace/get-status",
                                headers=self.headers, params={"path": path}, timeout=10)
        if response.status_code == 404:
            assert response.json()["error_code"] == "RESOURCE_DOES_NOT_EXIST", response.text
            return None
        assert response.status_code == 200, response.text
        return response.json()

    def content(self, path: str) -> str:
        exported = self.call("GET", "/api/2.0/workspace/export", params={"path": path})
        return base64.b64decode(exported["content"]).decode()

    def tree(self, folder: str) -> dict[str, str]:
        """path -> object type, of everything below `folder` (and itself)."""
        found = {}
        status = self.status(folder)
        if status is None:
            return {}
        found[folder] = status["object_type"]
        if status["object_type"] == "DIRECTORY":
            listed = self.call("GET", "/api/2.0/workspace/list", params={"path": folder})
            for entry in listed.get("objects", []):
                found.update(self.tree(entry["path"]))
        return found

    def acl(self, object_id: int) -> dict[str, str]:
        answer = self.call("GET", f"/api/2.0/permissions/notebooks/{object_id}")
        return {
            entry["group_name"]: entry["all_permissions"][0]["permission_level"]
            for entry in answer.get("access_control_list", []) if "group_name" in entry
            and not entry["all_permissions"][0].get("inherited")
        }


def ops(stack: PulumiCli) -> dict[str, tuple[str, list[str] | None]]:
    """What the preview changes: `preview_ops` but the resources it leaves the same."""
    return {name: op for name, op in preview_ops(stack, KINDS).items() if op[0] != "same"}


@dataclasses.dataclass
class Lifecycle:
    folder: str
    workspace: Workspace
    stack: PulumiCli
    objects: dict[str, Any]
    ids: dict[str, int] = dataclasses.field(default_factory=dict)


@pytest.fixture(scope="class")
def lifecycle(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Lifecycle:
    folder = f"/Shared/e2e-{uuid.uuid4().hex[:6]}"
    objects = declared(folder)
    stack = workspace_stack(wire_form="public", **objects)
    return Lifecycle(folder, Workspace(emulator), stack, objects)


def object_ids(stack: PulumiCli) -> dict[str, int]:
    outputs = stack.outputs()
    return {**outputs.get("notebooks", {}), **outputs.get("workspace_files", {}),
            **outputs.get("directories", {})}


@pytest.mark.steps
class TestWorkspaceObjectsLifecycle:
    def test_1_preview_lists_the_creates(self, lifecycle: Lifecycle) -> None:
        planned = ops(lifecycle.stack)
        assert {name: op for name, (op, _) in planned.items()} == {
            name: "create" for name in KINDS if "missing" not in name}, "1. preview"
        assert lifecycle.workspace.tree(lifecycle.folder) == {}, "1. preview made something"

    def test_2_up_uploads_runs_and_grants(self, lifecycle: Lifecycle) -> None:
        workspace, folder = lifecycle.workspace, lifecycle.folder
        lifecycle.stack.up()
        assert workspace.tree(folder) == {
            folder: "DIRECTORY",
            f"{folder}/report": "NOTEBOOK",
            f"{folder}/queries": "DIRECTORY",
            f"{folder}/queries/daily": "NOTEBOOK",
            f"{folder}/conf": "DIRECTORY",
            f"{folder}/conf/settings.json": "FILE",
        }, "2. up: the tree"
        source = (REPO_ROOT / NOTEBOOK_SOURCE).read_text()
        assert workspace.content(f"{folder}/report") == source, "2. up: the notebook's source"
        report = workspace.status(f"{folder}/report")
        assert report is not None and report["language"] == "PYTHON"
        outputs = lifecycle.stack.outputs()
        run = outputs["job_runs"]["e2e-run"]
        assert (run["result_state"], run["task_results"]) == ("SUCCESS", {"report": "SUCCESS"})
        lifecycle.ids = object_ids(lifecycle.stack)
        report_id = lifecycle.ids["e2e-report"]
        assert report_id == report["object_id"]
        assert workspace.acl(report_id) == {ANALYSTS: "CAN_RUN"}, "2. up: granted by path"
        # The state knows the content by its digest only.
        state = json.dumps(lifecycle.stack.export())
        assert "datetime.date.today" not in state and "SELECT 1" not in state
        assert b64("SELECT 1 AS one") not in state and b64('{"env": "e2e"}') not in state
        resources = {r["urn"].split("::")[-1]: r for r in lifecycle.stack.export()[
            "deployment"]["resources"] if r["type"].startswith(TYPE_PREFIX)}
        query = resources["e2e-query"]
        assert "content_base64" not in query["inputs"], "2. inline content kept in inputs"
        assert len(query["outputs"]["content_sha256"]) == 64
        assert resources["e2e-report"]["outputs"]["path"] == f"{folder}/report"

    def test_3_a_second_up_changes_nothing(self, lifecycle: Lifecycle) -> None:
        assert_no_changes(lifecycle.stack, lifecycle.workspace.info, "3.")

    def test_4_a_run_of_a_missing_notebook_fails_the_up(self, lifecycle: Lifecycle) -> None:
        with_missing = copy.deepcopy(lifecycle.objects)
        with_missing["jobs"].append({"name": "e2e-missing", "tasks": [{
            "task_key": "ghost", "existing_cluster_id": SHARED_CLUSTER,
            "notebook_task": {"notebook_path": f"{lifecycle.folder}/never-uploaded"}}]})
        with_missing["jobRuns"].append({"name": "e2e-missing-run", "job": "e2e-missing"})
        write_objects(lifecycle.stack, with_missing)
        failed = lifecycle.stack.up(check=False)
        output = failed.stdout + failed.stderr
        assert failed.returncode != 0, "4. the run of a missing notebook succeeded"
        assert f'Unable to access the notebook "{lifecycle.folder}/never-uploaded"' in output
        reconfigure(lifecycle, lifecycle.objects)
        lifecycle.stack.up()  # deletes the job made for the failed run
        assert_no_changes(lifecycle.stack, lifecycle.workspace.info, "4.")

    def test_5_new_content_updates_in_place(self, lifecycle: Lifecycle) -> None:
        updated = copy.deepcopy(lifecycle.objects)
        updated["notebooks"][1]["content_base64"] = b64("SELECT 2 AS two")
        updated["workspaceFiles"][0]["content_base64"] = b64('{"env": "e2e", "v": 2}')
        reconfigure(lifecycle, updated)
        assert ops(lifecycle.stack) == {
            "e2e-query": ("update", None), "e2e-settings": ("update", None),
        }, "5. preview: two in-place updates"
        lifecycle.stack.up()
        folder, workspace = lifecycle.folder, lifecycle.workspace
        assert "SELECT 2 AS two" in workspace.content(f"{folder}/queries/daily")
        assert workspace.content(f"{folder}/conf/settings.json") == '{"env": "e2e", "v": 2}'
        assert object_ids(lifecycle.stack) == lifecycle.ids, "5. up: the same objects"
        assert_no_changes(lifecycle.stack, workspace.info, "5.")

    def test_6_a_moved_file_is_replaced(self, lifecycle: Lifecycle) -> None:
        moved = copy.deepcopy(lifecycle.objects)
        moved["workspaceFiles"][0]["path"] = f"{lifecycle.folder}/conf/settings-v2.json"
        reconfigure(lifecycle, moved)
        assert ops(lifecycle.stack) == {"e2e-settings": ("replace", ["path"])}, "6. preview"
        lifecycle.stack.up()
        tree = lifecycle.workspace.tree(lifecycle.folder)
        assert f"{lifecycle.folder}/conf/settings-v2.json" in tree
        assert f"{lifecycle.folder}/conf/settings.json" not in tree
        assert_no_changes(lifecycle.stack, lifecycle.workspace.info, "6.")

    def test_7_drift_found_by_refresh_and_undone_by_up(self, lifecycle: Lifecycle) -> None:
        workspace, path = lifecycle.workspace, f"{lifecycle.folder}/report"
        workspace.call("POST", "/api/2.0/workspace/import", json={
            "path": path, "format": "SOURCE", "language": "PYTHON", "overwrite": True,
            "content": b64("print('edited in the workspace')\n")})
        read = refreshed(lifecycle.stack)
        changed = {name: op for name, (op, _) in read.items() if op != "same"}
        assert changed == {"e2e-report": "update"}, "7. refresh: the notebook read as changed"
        lifecycle.stack.up()
        source = (REPO_ROOT / NOTEBOOK_SOURCE).read_text()
        assert workspace.content(path) == source, "7. up: the declared content is back"
        assert object_ids(lifecycle.stack)["e2e-report"] == lifecycle.ids["e2e-report"]
        assert_no_changes(lifecycle.stack, workspace.info, "7.")

    def test_8_destroy_after_delete_recursive_is_recorded(self, lifecycle: Lifecycle) -> None:
        # The folders the notebooks' and the file's creates made (queries/, conf/) are no
        # resource's: the folder's delete takes them only with delete_recursive.
        recursive = copy.deepcopy(lifecycle.objects)
        recursive["directories"][0]["delete_recursive"] = True
        reconfigure(lifecycle, recursive)
        assert ops(lifecycle.stack) == {"e2e-folder": ("update", None)}, "8. preview"
        clear_request_log(lifecycle.workspace.info)
        lifecycle.stack.up()
        assert lifecycle.workspace.writes() == [], "8. delete_recursive is the state's alone"
        lifecycle.stack.destroy()
        assert lifecycle.workspace.tree(lifecycle.folder) == {}, "8. destroy"

    def test_9_import_by_path_shows_no_diff(
        self, lifecycle: Lifecycle, emulator: EmulatorInfo, tmp_path: Path
    ) -> None:
        workspace = lifecycle.workspace
        folder = f"/Shared/imported-{uuid.uuid4().hex[:6]}"
        workspace.call("POST", "/api/2.0/workspace/mkdirs", json={"path": f"{folder}/code"})
        source = (REPO_ROOT / NOTEBOOK_SOURCE).read_bytes()
        workspace.call("POST", "/api/2.0/workspace/import", json={
            "path": f"{folder}/code/report", "format": "SOURCE", "language": "PYTHON",
            "content": base64.b64encode(source).decode()})
        workspace.call("POST", "/api/2.0/workspace/import", json={
            "path": f"{folder}/code/requirements.txt", "format": "RAW",
            "content": b64("requests==2.32.3\n")})
        workspace.call("POST", "/api/2.0/workspace/mkdirs", json={"path": f"{folder}/empty"})
        imports = {
            "Directory": {"id": f"{folder}/empty", "args": {"path": f"{folder}/empty"}},
            "Notebook": {"id": f"{folder}/code/report",
                         "args": {"path": f"{folder}/code/report", "source": NOTEBOOK_SOURCE}},
            "WorkspaceFile": {"id": f"{folder}/code/requirements.txt",
                              "args": {"path": f"{folder}/code/requirements.txt",
                                       "content_base64": b64("requests==2.32.3\n")}},
        }
        stack = import_stack(tmp_path, emulator, "public")
        write_config(stack, {"workspace:objects": imports})
        clear_request_log(emulator)
        up = stack.up()
        assert "3 imported" in up.stdout, up.stdout
        assert workspace.writes() == [], "9. import wrote to the workspace"
        stack.preview("--expect-no-changes")
        stack.refresh("--expect-no-changes")
        stack.destroy()
        assert workspace.tree(folder) == {folder: "DIRECTORY", f"{folder}/code": "DIRECTORY"}
