"""The health gate and the audit command under the real engine against the emulator.

Health: preview reads nothing; up reads the sample resource, its metrics and the flow root
group and exports them; a second up re-checks without changes; a threshold the metrics
exceed fails up with a message naming metric, field, observed and limit, and the deployed
resources stay. Audit: objects made out of band are listed as unmanaged, the objects of
every stack of the project are not; exit codes 1, 0 once all are ignored, 2 on error."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
import requests

from stacks import audit
from stacks.pulumi_cli import PulumiCli
from tests.e2e.conftest import StackFactory, write_config
from tests.e2e.team_support import run_audit
from tools.drills.local_stack import connection_config
from workspace_emulator.testing import EmulatorInfo, auth_headers, clear_request_log, request_log

pytestmark = pytest.mark.engine

COMPANION_SERVICES = {"app", "admin", "flow"}
REPORTING_APP = "da574234-e5b2-4774-83f7-ea6a8b63f956"  # an initial app, not yet a principal
JOB: dict[str, Any] = {
    "existing_cluster_id": "0101-120000-shared01",
    "spark_python_task": {"python_file": "dbfs:/jobs/audit.py"},
}


def health_config(info: EmulatorInfo, thresholds: list[dict]) -> dict:
    return {
        "appUrl": info.app_url,
        "adminUrl": info.admin_url,
        "flowApiBase": info.flow_api_base,
        "thresholds": thresholds,
    }


def scope_names(info: EmulatorInfo) -> set[str]:
    response = requests.get(
        f"{info.base_url}/api/2.0/secrets/scopes/list", headers=auth_headers(info), timeout=10
    )
    response.raise_for_status()
    return {scope["name"] for scope in response.json().get("scopes", [])}


def test_health_gate_passes_exports_and_fails_on_threshold(
    workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    passing = [
        {"metric": "runTest", "field": "p99", "max": 5.0},
        {"metric": "runTest", "field": "count", "min": 1},
    ]
    stack = workspace_stack(
        secretScopes=[{"name": "health-scope"}], health=health_config(emulator, passing)
    )

    clear_request_log(emulator)
    preview = stack.preview()
    assert "health" in preview.stdout
    assert not COMPANION_SERVICES & {r["service"] for r in request_log(emulator)}

    stack.up()
    calls = [(r["service"], r["path"]) for r in request_log(emulator)]
    # The gate reads only once the stack's objects are deployed.
    assert calls.index(("platform", "/api/2.0/secrets/scopes/create")) < calls.index(
        ("app", "/my-resource")
    )
    health = stack.outputs()["health"]
    assert health["root_group"]["name"] == "NiFi Flow" and health["root_group"]["id"]
    run_test = health["metrics"]["runTest"]
    assert run_test["count"] >= 1 and run_test["duration_units"] == "seconds"
    assert health["sample_value"] >= 1
    assert [c["passed"] for c in health["checks"]] == [True, True]
    assert health["checks"][0]["observed"] == run_test["p99"]
    flow_calls = [r for r in request_log(emulator) if r["service"] == "flow"]
    assert [r["path"] for r in flow_calls][-2:] == [
        "/nifi-api/access/token",
        "/nifi-api/process-groups/root",
    ]

    again = stack.up("--expect-no-changes")
    # --expect-no-changes fails the up on any resource change; the gate re-read anyway.
    assert " unchanged" in again.stdout and "updated" not in again.stdout
    assert stack.outputs()["health"]["sample_value"] > health["sample_value"]

    # count only grows, so a max of 0 fails deterministically.
    failing = [*passing, {"metric": "runTest", "field": "count", "max": 0}]
    write_config(stack, {"workspace:health": health_config(emulator, failing)})
    result = stack.up(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "health gate failed" in output
    assert "runTest.count = " in output and "exceeds max 0" in output
    assert emulator.client_secret not in output
    assert "health-scope" in scope_names(emulator)

    bad = [{"metric": "runTest", "field": "p100", "max": 1}]
    write_config(stack, {"workspace:health": health_config(emulator, bad)})
    result = stack.preview(check=False)
    assert result.returncode != 0
    assert "workspace:health.thresholds[0].field" in result.stdout + result.stderr

    write_config(
        stack,
        {
            "workspace:health": health_config(emulator, passing),
            "workspace:flowPassword": "typed-in-plain-text",
        },
    )
    result = stack.up(check=False)
    assert result.returncode != 0
    assert "workspace:flowPassword: stored in plain text" in result.stdout + result.stderr


@dataclasses.dataclass
class Audited:
    """Two stacks of the project deployed on the workspace, and objects made by hand."""

    stack: PulumiCli
    hand_job_id: str
    report: dict[str, Any] = dataclasses.field(default_factory=dict)  # the JSON report


@pytest.fixture(scope="class")
def audited(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Audited:
    stack = workspace_stack(
        secretScopes=[{"name": "managed-scope"}],
        jobs=[{"name": "managed-job", **JOB}],
        servicePrincipals=[
            {"name": "reporting", "application_id": REPORTING_APP, "display_name": "reporting"}
        ],
    )
    stack.up()
    # A second stack of the same project and backend, on the same workspace.
    second = PulumiCli(stack.project_dir, "e2e-second", stack.state_dir, stack.extra_env)
    second.select_or_init()
    second.set_config("workspace:clientSecret", emulator.client_secret, secret=True)
    write_config(
        second,
        {
            **connection_config(emulator, "legacy"),
            "workspace:secretScopes": [{"name": "second-stack-scope"}],
        },
    )
    second.up()
    headers = auth_headers(emulator)
    requests.post(
        f"{emulator.base_url}/api/2.0/secrets/scopes/create",
        headers=headers,
        json={"scope": "made-by-hand"},
        timeout=10,
    ).raise_for_status()
    hand_job = requests.post(
        f"{emulator.base_url}/api/2.0/jobs/create",
        headers=headers,
        json={"name": "hand-made-job", **JOB},
        timeout=10,
    )
    hand_job.raise_for_status()
    return Audited(stack, str(hand_job.json()["job_id"]))


@pytest.mark.steps
class TestAuditListsUnmanagedObjectsOnly:
    def test_1_the_json_report(self, audited: Audited, emulator: EmulatorInfo) -> None:
        result = run_audit(audited.stack, "--json", expect=1)
        report = audited.report = json.loads(result.stdout)
        unmanaged = {(o["kind"], o["name"]) for o in report["unmanaged"]}
        assert {("secret_scope", "made-by-hand"), ("job", "hand-made-job")} <= unmanaged
        assert {o["id"] for o in report["unmanaged"] if o["kind"] == "job"} == {audited.hand_job_id}
        assert (
            not {
                ("secret_scope", "managed-scope"),
                ("job", "managed-job"),
                ("service_principal", "reporting"),
            }
            & unmanaged
        )
        assert ("secret_scope", "second-stack-scope") not in unmanaged
        assert report["stacks"] == ["e2e", "e2e-second"]
        counts = report["managed_counts"]
        assert set(counts) == set(audit.audited_kinds())  # every kind the audit lists
        assert {kind: count for kind, count in counts.items() if count} == {
            "job": 1, "service_principal": 1, "secret_scope": 2}
        assert emulator.client_secret not in result.stdout + result.stderr

    def test_2_the_table(self, audited: Audited) -> None:
        table = run_audit(audited.stack, expect=1)
        assert "made-by-hand" in table.stdout and "hand-made-job" in table.stdout
        rows = [line.split() for line in table.stdout.splitlines()]
        listed = {(row[0], row[2]) for row in rows if len(row) >= 3}
        # The managed scope and job are not listed (an ACL of that scope is an object of its
        # own kind, `secret_acl`, which the stack does not declare).
        assert not {("secret_scope", "managed-scope"), ("job", "managed-job")} & listed

    def test_3_all_ignored_exits_0(self, audited: Audited) -> None:
        everything = [f"{o['kind']}:{o['id']}" for o in audited.report["unmanaged"]]
        run_audit(audited.stack, *(f"--ignore={pattern}" for pattern in everything), expect=0,
                  says="nothing unmanaged")

    def test_4_an_unknown_stack_exits_2(self, audited: Audited) -> None:
        run_audit(audited.stack, stack_name="no-such-stack", expect=2, says="no-such-stack")
