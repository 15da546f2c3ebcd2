"""What the state holds per workspace resource under the real engine: bound to the
WorkspaceAuth component's provider, no resource keeps the connection (its secret) nor the
provider code, so an entry is at most 1 KiB more than the floor's on the same engine (a
dynamic resource whose provider does nothing: bench/programs/floor), whatever the engine
itself records per resource (newer engines add timestamps and source positions). Refresh,
update, destroy work without them, and a state recorded with them (as before) is no change:
a no-op up writes nothing to the service, and the keys leave the state at that up (inputs)
and the next refresh (outputs)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest
import yaml
from pulumi.dynamic.dynamic import serialize_provider

from providers.client import Connection
from providers.core.lifecycle import CONNECTION_KEY, PROVIDER_KEY
from providers.core.registry import kind_named
from stacks.pulumi_cli import REPO_ROOT, PulumiCli, inline_where_needed, project_settings
from tests.conftest import emulator_client
from tests.e2e.conftest import DECLARED_AT, TYPE_PREFIX, StackFactory, write_config
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

pytestmark = pytest.mark.engine

PLUMBING = (CONNECTION_KEY, PROVIDER_KEY)
MAX_BYTES_OVER_FLOOR = 1024
# Each resource's budget, bytes over the floor's entry (negative: under it).
BYTES_OVER_FLOOR_BY_RESOURCE = {"size-scope": -150, "size-etl-access": 50, "size-etl": 500}
FLOOR_PROGRAM = REPO_ROOT / "bench" / "programs" / "floor"
FLOOR_TYPE = "pulumi-python:dynamic:Resource"
# How a deployment file spells a secret (`pulumi stack export --show-secrets`).
SECRET_SIG = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}


def job(num_workers: int) -> dict[str, Any]:
    cluster = {"spark_version": "13.3.x-scala2.12", "node_type_id": "n", "num_workers": num_workers}
    task = {"python_file": "dbfs:/jobs/size.py"}
    return {"name": "size-etl", "new_cluster": cluster, "spark_python_task": task}


def objects(num_workers: int = 1) -> dict[str, Any]:
    return {
        "secretScopes": [{"name": "size-scope"}],
        "jobs": [job(num_workers)],
        "jobPermissions": [
            {
                "name": "size-etl-access",
                "job": "size-etl",
                "access_controls": [{"group_name": "analysts", "permission_level": "CAN_VIEW"}],
            }
        ],
    }


def workspace_resources(deployment: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        r
        for r in deployment["deployment"].get("resources") or []
        if r["type"].startswith(TYPE_PREFIX)
    ]


def plumbing_in(deployment: dict[str, Any], section: str) -> list[str]:
    """`<resource>.<key>` for each connection or provider code found in that section."""
    return [
        f"{r['urn'].rsplit('::', 1)[-1]}.{key}"
        for r in workspace_resources(deployment)
        for key in PLUMBING
        if key in (r.get(section) or {})
    ]


def entry_bytes(resource: dict[str, Any]) -> int:
    """Compact JSON, as the bench counts it (bench/deploy_cost.py), of what the resource
    records; not where the program declared it (`DECLARED_AT`: pulumi 3.272 records every
    frame of the declaring call, so a stack program's entry grew by its deeper frames beside
    the floor's)."""
    recorded = {k: v for k, v in resource.items() if k not in DECLARED_AT}
    return len(json.dumps(recorded, separators=(",", ":")))


def floor_entry_bytes(workdir: Path, count: int = 3) -> float:
    """The mean state entry of the floor's resources, deployed on the engine of this run."""
    project = workdir / "project"
    project.mkdir(parents=True)
    (project / "Pulumi.yaml").write_text(
        yaml.safe_dump(project_settings("floor", FLOOR_PROGRAM))
    )
    floor = PulumiCli(
        project,
        "floor",
        workdir / "state",
        # The provider host imports the floor's provider module from the program's directory.
        extra_env={"PYTHONPATH": str(FLOOR_PROGRAM)},
        program=inline_where_needed(FLOOR_PROGRAM),
    )
    floor.select_or_init()
    floor.set_config("bench:count", str(count))
    floor.up()
    entries = [
        entry_bytes(r) for r in floor.export()["deployment"]["resources"]
        if r["type"] == FLOOR_TYPE
    ]
    floor.destroy()
    assert len(entries) == count
    return statistics.mean(entries)


def platform_writes(info: EmulatorInfo) -> list[str]:
    return [
        f"{r['method']} {r['path']}"
        for r in request_log(info)
        if r["service"] == "platform" and r["method"] != "GET"
    ]


def scope_names(info: EmulatorInfo) -> set[str]:
    client = emulator_client(info)
    return {s["name"] for s in client.get("/api/2.0/secrets/scopes/list").get("scopes", [])}


def as_recorded_before(stack: PulumiCli, tmp_path: Path) -> None:
    """Puts the connection and the provider code back into every workspace resource's
    inputs and outputs, as secrets, the way states were recorded before."""
    exported = json.loads(stack.run("stack", "export", "--show-secrets").stdout)
    provider = next(
        r
        for r in exported["deployment"]["resources"]
        if r["type"].startswith("pulumi:providers:") and not r["urn"].endswith("::default")
    )
    connection = {
        key: json.loads(value["plaintext"]) if isinstance(value, dict) else value
        for key, value in provider["inputs"].items()
        if key in Connection.model_fields
    }
    assert connection["client_secret"]
    for resource in workspace_resources(exported):
        code = serialize_provider(kind_named(resource["type"].removeprefix(TYPE_PREFIX)).provider())
        for section in ("inputs", "outputs"):
            resource[section][CONNECTION_KEY] = {**SECRET_SIG, "plaintext": json.dumps(connection)}
            resource[section][PROVIDER_KEY] = {**SECRET_SIG, "plaintext": json.dumps(code)}
    path = tmp_path / "recorded-before.json"
    path.write_text(json.dumps(exported))
    stack.run("stack", "import", "--file", str(path))


def test_the_state_keeps_no_connection_and_old_states_shrink(
    workspace_stack: StackFactory, emulator: EmulatorInfo, tmp_path: Path
) -> None:
    stack = workspace_stack(**objects())
    stack.up()

    state = stack.export()
    assert len(workspace_resources(state)) == 3
    assert plumbing_in(state, "inputs") == [] and plumbing_in(state, "outputs") == []
    floor = floor_entry_bytes(tmp_path / "floor")
    over_floor = {
        r["urn"].rsplit("::", 1)[-1]: entry_bytes(r) - floor for r in workspace_resources(state)
    }
    print(f"state entry bytes over the floor's {floor:.0f}: {over_floor}")
    assert max(over_floor.values()) <= MAX_BYTES_OVER_FLOOR, (floor, over_floor)
    for name, budget in BYTES_OVER_FLOOR_BY_RESOURCE.items():
        assert over_floor[name] <= budget, (name, floor, over_floor)
    # Bound, a resource holds no connection nor provider code, and names none secret.
    assert [r["urn"] for r in workspace_resources(state) if "additionalSecretOutputs" in r] == []
    assert emulator.client_secret not in json.dumps(state)

    # Refresh and a no-op preview need nothing from the state; an update gets through.
    stack.refresh("--expect-no-changes")
    stack.preview("--expect-no-changes")
    write_config(stack, {f"workspace:{k}": v for k, v in objects(num_workers=2).items()})
    updated = stack.up()
    assert "1 updated" in updated.stdout, updated.stdout
    state = stack.export()
    assert plumbing_in(state, "outputs") == [] and plumbing_in(state, "inputs") == []

    # A state recorded with the connection and the provider code: no change, no writes.
    as_recorded_before(stack, tmp_path)
    old = stack.export()
    assert len(plumbing_in(old, "inputs")) == len(plumbing_in(old, "outputs")) == 6
    assert emulator.client_secret not in json.dumps(old)
    stack.preview("--expect-no-changes")
    clear_request_log(emulator)
    stack.up("--expect-no-changes")
    assert platform_writes(emulator) == []
    after_up = stack.export()
    assert plumbing_in(after_up, "inputs") == []
    assert len(plumbing_in(after_up, "outputs")) == 6  # a no-op leaves the outputs as recorded
    stack.refresh()
    assert plumbing_in(stack.export(), "outputs") == []
    stack.preview("--expect-no-changes")

    assert "size-scope" in scope_names(emulator)
    stack.destroy()
    assert workspace_resources(stack.export()) == []
    assert "size-scope" not in scope_names(emulator)
