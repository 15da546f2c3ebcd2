"""VolumeFile in one stack (with the catalog, schema and volume it is uploaded into) under the
real engine against the emulator, in the public wire form: up uploads the project's file, a
no-op up writes nothing, another source file is an upload over the file (nothing else
changes), a file changed outside the stack is drift that `refresh` shows and `up` undoes,
destroy leaves the workspace as before, and a file imported by its path shows no diff.

One stack walks through the steps, a test each: a failure names its step, and the steps
after it do not run."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import io
import uuid
from pathlib import Path
from typing import Any

import pytest

from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.unity_catalog.files_api import FilesApi
from providers.unity_catalog.schemas_api import SchemasApi
from providers.unity_catalog.volumes_api import VolumesApi
from stacks.pulumi_cli import PulumiCli
from tests.conftest import emulator_client
from tests.e2e.conftest import (
    PlatformApi,
    StackFactory,
    assert_no_changes,
    import_stack,
    platform_writes,
    preview_ops,
    reconfigure,
    refreshed,
    write_config,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

REPO_ROOT = Path(__file__).resolve().parents[2]
FIRST, SECOND = "stacks/notebooks/nightly_report.py", "README.md"


def sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def declared(catalog: str) -> dict[str, list[dict[str, Any]]]:
    return {
        "catalogs": [{"name": catalog}],
        "schemas": [{"name": f"{catalog}.jobs", "catalog": catalog}],
        "volumes": [{"name": f"{catalog}.jobs.artifacts", "schema": f"{catalog}.jobs",
                     "volume_type": "MANAGED"}],
        "volumeFiles": [{"name": "e2e-script", "source": FIRST,
                         "path": f"/Volumes/{catalog}/jobs/artifacts/scripts/report.py"}],
    }


class Workspace(PlatformApi):
    """The catalogs, read directly (the file: `PlatformApi.file`)."""

    def catalogs(self) -> list[str]:
        listed = self.call("GET", "/api/2.1/unity-catalog/catalogs").get("catalogs") or []
        return sorted(c["name"] for c in listed)


@dataclasses.dataclass
class Lifecycle:
    catalog: str
    workspace: Workspace
    before: list[str]
    stack: PulumiCli
    objects: dict[str, Any]

    @property
    def path(self) -> str:
        return str(self.objects["volumeFiles"][0]["path"])

    @property
    def kinds(self) -> dict[str, str]:
        """Resource name -> kind."""
        return {self.catalog: "Catalog", f"{self.catalog}.jobs": "Schema",
                f"{self.catalog}.jobs.artifacts": "Volume", "e2e-script": "VolumeFile"}


@pytest.fixture(scope="class")
def lifecycle(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Lifecycle:
    catalog = f"vf_{uuid.uuid4().hex[:6]}"
    workspace = Workspace(emulator)
    objects = declared(catalog)
    stack = workspace_stack(wire_form="public", **objects)
    return Lifecycle(catalog, workspace, workspace.catalogs(), stack, objects)


@pytest.mark.steps
class TestVolumeFile:
    def test_1_up_uploads_the_projects_file(self, lifecycle: Lifecycle) -> None:
        lifecycle.stack.up()
        content = (REPO_ROOT / FIRST).read_bytes()
        assert lifecycle.workspace.file(lifecycle.path) == content, "1. uploaded"
        outputs = lifecycle.stack.outputs()
        assert outputs["volume_files"]["e2e-script"] == lifecycle.path, "1. outputs"
        state = lifecycle.stack.export()["deployment"]["resources"]
        recorded = next(r for r in state if r["urn"].endswith("::e2e-script"))["outputs"]
        assert recorded["content_sha256"] == sha256(content), "1. the digest recorded"
        assert content.decode() not in str(state), "1. the content is kept out of the state"

    def test_2_a_second_up_changes_nothing(self, lifecycle: Lifecycle) -> None:
        assert_no_changes(lifecycle.stack, lifecycle.workspace.info, "2.")

    def test_3_another_source_uploads_over_the_file_alone(self, lifecycle: Lifecycle) -> None:
        updated = copy.deepcopy(lifecycle.objects)
        updated["volumeFiles"][0]["source"] = SECOND
        reconfigure(lifecycle, updated)
        ops = preview_ops(lifecycle.stack, lifecycle.kinds)
        assert {name: op for name, op in ops.items() if op[0] != "same"} == {
            "e2e-script": ("update", None)}, "3. preview: the file alone"
        clear_request_log(lifecycle.workspace.info)
        lifecycle.stack.up()
        writes = platform_writes(lifecycle.workspace.info)
        # The directories made (mkdir -p) and the file uploaded: nothing else.
        assert writes == [f"PUT /api/2.0/fs/directories{lifecycle.path.rsplit('/', 1)[0]}",
                          f"PUT /api/2.0/fs/files{lifecycle.path}"], f"3. writes: {writes}"
        assert lifecycle.workspace.file(lifecycle.path) == (REPO_ROOT / SECOND).read_bytes()
        assert_no_changes(lifecycle.stack, lifecycle.workspace.info, "3.")

    def test_4_a_file_changed_outside_is_drift_that_up_undoes(self, lifecycle: Lifecycle
                                                              ) -> None:
        client = emulator_client(lifecycle.workspace.info, "public")
        FilesApi(client).upload(lifecycle.path, lambda: io.BytesIO(b"edited elsewhere"),
                                overwrite=True)
        read = refreshed(lifecycle.stack)
        assert read["e2e-script"][0] == "update", "4. refresh"
        assert read["e2e-script"][1]["content_sha256"] == sha256(b"edited elsewhere")
        lifecycle.stack.up()
        assert lifecycle.workspace.file(lifecycle.path) == (REPO_ROOT / SECOND).read_bytes()
        assert_no_changes(lifecycle.stack, lifecycle.workspace.info, "4.")

    def test_5_destroy_leaves_the_workspace_as_before(self, lifecycle: Lifecycle) -> None:
        lifecycle.stack.destroy()
        assert lifecycle.workspace.catalogs() == lifecycle.before, "5. destroy"

    def test_6_import_by_path_shows_no_diff(
        self, lifecycle: Lifecycle, emulator: EmulatorInfo, tmp_path: Path
    ) -> None:
        client = emulator_client(emulator, "public")
        catalog = f"vf_{uuid.uuid4().hex[:6]}"
        CatalogsApi(client).create({"name": catalog})
        SchemasApi(client).create({"name": "jobs", "catalog_name": catalog})
        VolumesApi(client).create({"catalog_name": catalog, "schema_name": "jobs",
                                   "name": "artifacts", "volume_type": "MANAGED"})
        path = f"/Volumes/{catalog}/jobs/artifacts/report.py"
        FilesApi(client).upload(path, lambda: io.BytesIO((REPO_ROOT / FIRST).read_bytes()),
                                overwrite=False)
        stack = import_stack(tmp_path, emulator, "public")
        write_config(stack, {"workspace:objects": {
            "VolumeFile": {"id": path, "args": {"path": path, "source": FIRST}}}})
        clear_request_log(emulator)
        up = stack.up()
        assert "1 imported" in up.stdout, up.stdout
        assert lifecycle.workspace.writes() == [], "6. import wrote to the workspace"
        stack.preview("--expect-no-changes")
        stack.refresh("--expect-no-changes")
        stack.destroy()
        assert lifecycle.workspace.file(path) is None, "6. destroy: the file"
