"""`databricks fs` on DBFS and on a Unity Catalog volume (the Files API), then `databricks
jobs submit` of a one-time run whose wheel task installs the file just copied: the service's
own CLI uploads, lists, reads and removes files and submits a run, unchanged, against the
emulator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.cli import Cli
from tests.conftest import emulator_fixture
from tests.emulator.support import Api, unique
from workspace_emulator.testing import EmulatorInfo, fetch_token

emulator = emulator_fixture("module")
SHARED_CLUSTER = "0101-120000-shared01"


@pytest.fixture(scope="module")
def volume(emulator: EmulatorInfo) -> str:
    """`/Volumes/<catalog>/s/v` of a managed volume made for the module."""
    api = Api(emulator.base_url, fetch_token(emulator))
    catalog = unique("cli").replace("-", "_")
    for path, body in (("catalogs", {"name": catalog}),
                       ("schemas", {"name": "s", "catalog_name": catalog}),
                       ("volumes", {"name": "v", "catalog_name": catalog, "schema_name": "s",
                                    "volume_type": "MANAGED"})):
        response = api.request("POST", f"/api/2.1/unity-catalog/{path}", json=body)
        assert response.status_code == 200, response.text
    return f"/Volumes/{catalog}/s/v"


def listed_names(cli: Cli, folder: str) -> set[str]:
    return {entry["name"] for entry in cli.ok("fs", "ls", folder)}


def test_fs_copies_lists_reads_and_removes_files_in_dbfs(cli: Cli, tmp_path: Path) -> None:
    local = tmp_path / "ingest.py"
    local.write_text("print('ingest')\n")
    folder = f"dbfs:/cli/{unique('fs')}"
    assert cli.run("fs", "mkdir", folder).returncode == 0
    copied = cli.run("fs", "cp", str(local), f"{folder}/ingest.py")
    assert copied.returncode == 0, copied.stderr
    assert listed_names(cli, folder) == {"ingest.py"}
    assert cli.run("fs", "cat", f"{folder}/ingest.py").stdout == "print('ingest')\n"
    local.write_text("print('ingest, again')\n")
    skipped = cli.run("fs", "cp", str(local), f"{folder}/ingest.py")
    assert "already exists" in skipped.stdout, "a file there is kept without --overwrite"
    assert cli.run("fs", "cat", f"{folder}/ingest.py").stdout == "print('ingest')\n"
    assert cli.run("fs", "cp", "--overwrite", str(local), f"{folder}/ingest.py").returncode == 0
    assert cli.run("fs", "cat", f"{folder}/ingest.py").stdout == "print('ingest, again')\n"
    assert cli.run("fs", "rm", "-r", folder).returncode == 0
    assert cli.run("fs", "ls", folder).returncode != 0


def test_fs_in_a_volume_then_a_submitted_run_installs_the_wheel(
    cli: Cli, volume: str, tmp_path: Path
) -> None:
    wheel = tmp_path / "etl-1.0-py3-none-any.whl"
    wheel.write_bytes(b"PK\x03\x04 the wheel\n")
    target = f"dbfs:{volume}/wheels/{wheel.name}"
    assert cli.run("fs", "mkdir", f"dbfs:{volume}/wheels").returncode == 0
    copied = cli.run("fs", "cp", str(wheel), target)
    assert copied.returncode == 0, copied.stderr
    assert listed_names(cli, f"dbfs:{volume}/wheels") == {wheel.name}
    assert cli.run("fs", "cat", target).stdout == "PK\x03\x04 the wheel\n"

    run = {"run_name": unique("cli-submit"), "tasks": [{
        "task_key": "wheel", "existing_cluster_id": SHARED_CLUSTER,
        "python_wheel_task": {"package_name": "etl", "entry_point": "main"},
        "libraries": [{"whl": f"{volume}/wheels/{wheel.name}"}]}]}
    finished = cli.ok("jobs", "submit", "--json", json.dumps(run))
    assert finished["state"]["result_state"] == "SUCCESS", finished
    assert finished["run_type"] == "SUBMIT_RUN"

    assert cli.run("fs", "rm", target).returncode == 0
    again = cli.run("jobs", "submit", "--json", json.dumps({**run, "run_name": unique("x")}),
                    "-o", "json")
    assert "Library installation failed" in again.stdout + again.stderr, (
        "the same run fails once the wheel is gone")
