"""A team's own dynamic provider beside the package's kinds, under the real engine against
the emulator (both legs: MODERN_E2E of the Makefile).

The package's provider host runs under the name of Pulumi's plugin for dynamic providers, so
it serves the team's resources too (through Pulumi's own host, providers/core/host.py), and a
WorkspaceAuth's provider must not alias the default provider they use: before, the second
run of such a program failed with a duplicate resource alias.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from providers.client import WorkspaceClient
from providers.jobs.jobs_api import JobsApi
from stacks import single_write
from stacks.pulumi_cli import REPO_ROOT, PulumiCli, inline_where_needed, project_settings
from tests.conftest import emulator_client
from tests.e2e.conftest import DECLARED_AT, changed_steps, platform_writes, write_config
from tests.e2e.previous_code import running_code_of, tree_at
from tools.drills.local_stack import connection_config
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

EXAMPLE = REPO_ROOT / "examples" / "own-program"
TWO_WORKSPACES = Path(__file__).parent / "programs" / "two_workspaces"
# A cluster the emulator's workspace comes with.
CLUSTER_ID = "0101-120000-shared01"
ANNOUNCEMENT = "pulumi-python:dynamic:Resource"
# The main branch before the package served other dynamic providers beside its own.
PREVIOUS_RELEASE = "6c98cdfab0d947a7d35521e9b9eb467b00fcfd37"
SIGNATURE = "the analytics team"


def use_program(cli: PulumiCli, main: Path) -> None:
    """The stack runs the program at `main` from now on."""
    (cli.project_dir / "Pulumi.yaml").write_text(
        yaml.safe_dump(project_settings("my-workspace", main=main))
    )
    cli.program = inline_where_needed(main)


def program_stack(tmp_path: Path, info: EmulatorInfo, main: Path) -> PulumiCli:
    """A stack of the program at `main`, its project and state under `tmp_path`, signed in to
    the emulator; this checkout's package and provider host serve it."""
    project = tmp_path / "project"
    project.mkdir()
    cli = PulumiCli(project, "dev", tmp_path / "state")
    use_program(cli, main)
    cli.select_or_init()
    connection = {
        key: value for key, value in connection_config(info, "public").items()
        if key != "workspace:wireForm"  # the program's own default
    }
    write_config(cli, {
        **connection,
        "workspace:clusterId": CLUSTER_ID,
        "my-workspace:announcementsDir": str(tmp_path / "announcements"),
        "my-workspace:signature": SIGNATURE,
    })
    cli.set_config("workspace:clientSecret", info.client_secret, secret=True)
    return cli


def announce(cli: PulumiCli, *items: dict[str, str]) -> None:
    write_config(cli, {"my-workspace:announcements": list(items)})


def resources(cli: PulumiCli, type_suffix: str) -> list[dict[str, Any]]:
    return [r for r in cli.export()["deployment"]["resources"] if r["type"].endswith(type_suffix)]


def by_urn(resources: list[dict[str, Any]]) -> dict[str, Any]:
    """A state's resources by URN, without where the code declared them, each secret's
    ciphertext (a new nonce at every write) and the WorkspaceAuth's token expiry (a new
    token's at every sign-in that finds none cached: informational, never an input)."""
    return {
        r["urn"]: without_ciphertexts(
            {k: without_token_expiry(v) if k == "outputs" else v
             for k, v in r.items() if k not in DECLARED_AT}
        )
        for r in resources
    }


def without_token_expiry(outputs: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in outputs.items() if k != "token_expires_on"}


def without_ciphertexts(value: Any) -> Any:
    if isinstance(value, dict):
        if "ciphertext" in value:
            return "[secret]"
        return {key: without_ciphertexts(item) for key, item in value.items()}
    if isinstance(value, list):
        return [without_ciphertexts(item) for item in value]
    return value


def configured_by_the_sdk() -> bool:
    """Whether this leg's Pulumi SDK configures dynamic providers (`ResourceProvider.configure`
    came after 3.79)."""
    from pulumi.dynamic import ResourceProvider

    return hasattr(ResourceProvider, "configure")


def test_a_teams_own_provider_beside_the_workspace_kinds(
    tmp_path: Path, emulator: EmulatorInfo
) -> None:
    cli = program_stack(tmp_path, emulator, EXAMPLE)
    folder = tmp_path / "announcements"
    announce(cli, {"name": "report-time", "channel": "analytics", "message": "at 07:00"},
             {"name": "on-call", "channel": "oncall", "message": "page the data team"})

    # Create: the stack, WorkspaceAuth, its provider, the scope, the job and the team's two
    # resources (the engine counts no default provider).
    up = cli.up()
    assert "7 created" in up.stdout, up.stdout
    signed = configured_by_the_sdk()
    expected = "at 07:00" + (f"\n-- {SIGNATURE}" if signed else "")
    assert (folder / "analytics.txt").read_text() == expected
    assert (folder / "oncall.txt").read_text().startswith("page the data team")
    client: WorkspaceClient = emulator_client(emulator, wire_form="public")
    job_id = cli.outputs()["job_id"]
    tasks = JobsApi(client).get(job_id)["settings"]["tasks"]
    assert sorted(t["task_key"] for t in tasks) == ["publish", "report"]
    # The team's resources keep their provider code in their state, as under Pulumi's host.
    team = resources(cli, ANNOUNCEMENT)
    assert len(team) == 2 and all("__provider" in r["inputs"] for r in team)
    assert all(r["provider"].split("::")[-2] == "default" for r in team)

    # No changes: the second run is the one a duplicate alias broke.
    clear_request_log(emulator)
    cli.preview("--expect-no-changes")
    assert cli.up("--expect-no-changes", check=False).returncode == 0
    assert platform_writes(emulator) == []

    # Update in place, then replace (another channel), then delete.
    announce(cli, {"name": "report-time", "channel": "analytics", "message": "at 08:00"},
             {"name": "on-call", "channel": "oncall", "message": "page the data team"})
    assert changed_steps(cli) == [("update", ANNOUNCEMENT)]
    cli.up()
    assert (folder / "analytics.txt").read_text().startswith("at 08:00")

    announce(cli, {"name": "report-time", "channel": "reports", "message": "at 08:00"},
             {"name": "on-call", "channel": "oncall", "message": "page the data team"})
    assert changed_steps(cli) == [("replace", ANNOUNCEMENT)]
    cli.up()
    assert not (folder / "analytics.txt").exists()
    assert (folder / "reports.txt").read_text().startswith("at 08:00")

    announce(cli, {"name": "report-time", "channel": "reports", "message": "at 08:00"})
    assert changed_steps(cli) == [("delete", ANNOUNCEMENT)]
    cli.up()
    assert not (folder / "oncall.txt").exists()
    cli.preview("--expect-no-changes")

    # A refresh reads the team's resources through Pulumi's host, and changes nothing.
    cli.refresh()
    cli.preview("--expect-no-changes")
    assert [r["id"] for r in resources(cli, ANNOUNCEMENT)] == ["reports"]

    cli.destroy()
    assert sorted(p.name for p in folder.iterdir()) == []
    assert client.get("/api/2.0/jobs/list", {"name": "daily-report"}).get("jobs", []) == []
    scopes = client.get("/api/2.0/secrets/scopes/list").get("scopes", [])
    assert "team-secrets" not in {s["name"] for s in scopes}


def test_two_workspaces_and_a_teams_provider_in_one_program(
    tmp_path: Path, emulator: EmulatorInfo
) -> None:
    """Two WorkspaceAuth components (here both on the one emulator, as two principals' would
    be), a scope through each, and a team's resource on the default provider."""
    cli = program_stack(tmp_path, emulator, TWO_WORKSPACES)
    cli.up()
    state = cli.export()["deployment"]["resources"]
    providers = sorted(r["urn"].split("::")[-1] for r in state
                       if r["type"].endswith("pulumi:providers:pulumi-python"))
    assert providers == ["default", "first", "second"]
    scopes = {r["outputs"]["name"]: r["provider"].split("::")[-2] for r in state
              if r["type"].endswith("workspace:SecretScope")}
    assert scopes == {"first-scope": "first", "second-scope": "second"}
    assert json.loads((tmp_path / "announcements" / "both.txt").read_text()) == [
        "first-scope", "second-scope"
    ]
    clear_request_log(emulator)
    cli.preview("--expect-no-changes")
    assert cli.up("--expect-no-changes", check=False).returncode == 0
    assert platform_writes(emulator) == []
    cli.destroy()
    assert not (tmp_path / "announcements" / "both.txt").exists()


def without_secret_outputs_list(record: dict[str, Any]) -> dict[str, Any]:
    """A workspace kind's record as this release writes it: no `additionalSecretOutputs`."""
    if not record.get("type", "").startswith("pulumi-python:dynamic/workspace:"):
        return record
    return {k: v for k, v in record.items() if k != "additionalSecretOutputs"}


def test_a_stack_recorded_by_the_previous_release_previews_no_changes(
    tmp_path: Path, emulator: EmulatorInfo
) -> None:
    """The example as the previous release had it (a scope and a job), deployed by that
    release's code, then the same program on this checkout's package: no changes, and then
    the team's own provider joins it without a duplicate alias."""
    tree = tree_at(PREVIOUS_RELEASE, tmp_path / "previous")
    previous_example = tree / "examples" / "own-program"
    cli = program_stack(tmp_path, emulator, previous_example)
    with running_code_of(cli, tree, previous_example):
        assert "5 created" in cli.up().stdout
    recorded = by_urn(cli.export()["deployment"]["resources"])

    clear_request_log(emulator)
    cli.preview("--expect-no-changes")
    assert cli.up("--expect-no-changes", check=False).returncode == 0
    assert platform_writes(emulator) == []
    now = by_urn(cli.export()["deployment"]["resources"])
    # Each record as it was, but for the secret outputs this release no longer names (the
    # entries shrink: tests/e2e/test_state_size.py).
    assert {urn: now[urn] for urn in recorded
            if now[urn] != without_secret_outputs_list(recorded[urn])} == {}
    assert now.keys() == recorded.keys()

    use_program(cli, EXAMPLE)
    up = cli.up()
    assert "+ 1 created" in up.stdout and "~ 1 updated" in up.stdout, up.stdout  # the job
    cli.preview("--expect-no-changes")
    cli.destroy()


def test_the_single_write_mode_refuses_a_teams_own_provider(
    tmp_path: Path, emulator: EmulatorInfo
) -> None:
    """A team's own resource has no create that adopts what an interrupted run made: in the
    single-write mode the program refuses to declare it, and a stack whose state holds one
    is refused the mode (docs/state.md). The workspace objects the engine created before the
    refusal (declared first) are recorded nowhere, and the next up adopts them."""
    cli = program_stack(tmp_path, emulator, EXAMPLE)
    announce(cli, {"name": "report-time", "channel": "analytics", "message": "at 07:00"})
    cli.single_write = True
    clear_request_log(emulator)
    refused = cli.up(check=False)
    output = refused.stdout + refused.stderr
    assert refused.returncode != 0
    assert f"resource 'report-time' ({ANNOUNCEMENT}): the single-write mode" in output, output
    assert not (tmp_path / "announcements" / "analytics.txt").exists()
    assert [r for r in cli.export()["deployment"].get("resources") or []
            if r["type"] == ANNOUNCEMENT] == []

    cli.single_write = False
    cli.up()
    client: WorkspaceClient = emulator_client(emulator, wire_form="public")
    scopes = client.get("/api/2.0/secrets/scopes/list").get("scopes", [])
    assert [s["name"] for s in scopes].count("team-secrets") == 1
    assert len(client.get("/api/2.0/jobs/list", {"name": "daily-report"}).get("jobs", [])) == 1
    with pytest.raises(single_write.SingleWriteRefused,
                       match=rf"resource 'report-time' \({ANNOUNCEMENT}\)"):
        single_write.enable(cli)
    assert not cli.single_write
