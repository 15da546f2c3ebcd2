"""The deploy command and the drift report on one small stack against the emulator, run
as the workflows run them (`workspace-iac deploy`, `workspace-iac drift`;
.github/workflows/deploy.yml and drift.yml): the deploy's summary, a clean stack reporting
nothing, then a grant widened and a secret scope deleted outside the stack, each reported
with what it is (the field, who loses what access) and nothing written to the workspace or
the state by the report; the next deploy sets both back and the report is clean again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from stacks.pulumi_cli import REPO_ROOT, PulumiCli
from tests.e2e.conftest import PlatformApi, StackFactory
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = [pytest.mark.engine, pytest.mark.steps]

COMMAND = str(Path(sys.executable).parent / "workspace-iac")
OBJECTS: dict[str, Any] = {
    "secretScopes": [{"name": "drift-kept"}, {"name": "drift-gone"}],
    "grants": [{
        "name": "main-catalog", "securable_type": "catalog", "full_name": "main",
        "privilege_assignments": [{"principal": "data-engineers", "privileges": ["USE_CATALOG"]}],
    }],
}
GRANTS = "/api/2.1/unity-catalog/permissions/catalog/main"


def command(cli: PulumiCli, *args: str) -> subprocess.CompletedProcess[str]:
    """`workspace-iac <args>` on the stack, as a workflow step runs it."""
    return subprocess.run(
        [COMMAND, *args, "--stack", cli.stack, "--project-dir", str(cli.project_dir),
         "--state-dir", str(cli.state_dir)],
        capture_output=True, text=True, cwd=REPO_ROOT, env=cli.env(), timeout=600,
    )


class TestDeployThenDrift:
    cli: PulumiCli

    def test_deploy_summarises_the_up_as_the_preview_does(
        self, workspace_stack: StackFactory, tmp_path: Path
    ) -> None:
        type(self).cli = workspace_stack(**OBJECTS)
        summary = tmp_path / "summary.md"
        result = command(self.cli, "deploy", "--summary", str(summary))
        assert result.returncode == 0, result.stdout + result.stderr
        assert summary.read_text() == result.stdout
        lines = result.stdout.splitlines()
        assert lines[:3] == ["### Pulumi up: `e2e`", "", "**4 to create** (0 unchanged)"]
        assert "| `+` create | `main-catalog` | Grants |  |" in lines
        assert {"drift-kept", "drift-gone", "main-catalog"} == {
            r["urn"].rsplit("::", 1)[-1] for r in self.cli.export()["deployment"]["resources"]
            if "dynamic/workspace:" in r["urn"]}

    def test_deploy_refuses_the_preview_principal(self) -> None:
        result = subprocess.run(
            [COMMAND, "deploy", "--stack", "e2e", "--project-dir", str(self.cli.project_dir)],
            capture_output=True, text=True,
            env={**self.cli.env(), "WORKSPACE_SIGN_IN_AS": "preview"},
        )
        assert result.returncode == 2 and result.stdout == ""
        assert "WORKSPACE_SIGN_IN_AS=preview" in result.stderr
        assert "deploying principal (workspace:clientId)" in result.stderr

    def test_a_clean_stack_reports_nothing_and_exits_0(
        self, emulator: EmulatorInfo, tmp_path: Path
    ) -> None:
        body = tmp_path / "issue.md"
        result = command(self.cli, "drift", "--json", "--issue-body", str(body))
        assert result.returncode == 0, result.stdout + result.stderr
        report = json.loads(result.stdout)
        assert report["drift"] is False and report["resources"] == []
        assert report["checked"] == 3
        assert body.read_text() == (
            "### Drift: `e2e`\n\n"
            "No drift: the workspace holds what the stack recorded (3 resources checked).\n\n"
            "<!-- workspace-iac drift: e2e -->\n"
        )

    def test_changes_outside_the_stack_are_reported_by_field_and_access(
        self, emulator: EmulatorInfo, tmp_path: Path
    ) -> None:
        api = PlatformApi(emulator)
        api.call("PATCH", GRANTS, json={"changes": [
            {"principal": "analysts", "add": ["USE_CATALOG", "SELECT"]},
            {"principal": "data-engineers", "add": ["CREATE_SCHEMA"]},
        ]})
        api.call("POST", "/api/2.0/secrets/scopes/delete", json={"scope": "drift-gone"})
        state_before = self.cli.export()
        clear_request_log(emulator)

        body = tmp_path / "issue.md"
        result = command(self.cli, "drift", "--json", "--issue-body", str(body))
        assert result.returncode == 1, result.stdout + result.stderr
        report = json.loads(result.stdout)
        assert report["drift"] is True and report["pending"] == []
        by_name = {r["name"]: r for r in report["resources"]}
        assert sorted(by_name) == ["drift-gone", "main-catalog"]
        assert by_name["drift-gone"] | {"urn": None} == {
            "name": "drift-gone", "kind": "SecretScope", "urn": None, "state": "deleted",
            "fields": [], "access": [], "warnings": []}
        grants = by_name["main-catalog"]
        assert (grants["kind"], grants["state"]) == ("Grants", "changed")
        assert grants["fields"] == [
            {"path": "privilege_assignments[analysts]",
             "workspace": ["SELECT", "USE_CATALOG"], "stack": None},
            {"path": "privilege_assignments[data-engineers]",
             "workspace": ["CREATE_SCHEMA", "USE_CATALOG"], "stack": ["USE_CATALOG"]},
        ]
        assert grants["access"] == [
            {"who": "analysts", "loses": ["SELECT", "USE_CATALOG"]},
            {"who": "data-engineers", "loses": ["CREATE_SCHEMA"]},
        ]
        assert grants["warnings"] == [
            "grants on catalog main: analysts (SELECT, USE_CATALOG) lose(s) every direct "
            "privilege: not declared in privilege_assignments"]

        # Read only: nothing written to the workspace, the state as it was.
        assert api.writes() == []
        assert self.cli.export() == state_before

        assert body.read_text() == (
            "### Drift: `e2e`\n\n"
            "**2 resources changed outside the stack.** The next `pulumi up` of the stack sets "
            "each back to what it declares: make the change in the stack's config instead, or "
            "undo it in the workspace.\n\n"
            "| Resource | Kind | Outside the stack (workspace → stack) |\n"
            "|---|---|---|\n"
            "| `drift-gone` | SecretScope | deleted outside the stack: the next up creates it "
            "again |\n"
            "| `main-catalog` | Grants | `privilege_assignments[analysts]`: removed (was 2 items)"
            "<br>`privilege_assignments[data-engineers]`: 2 items → 1 item |\n\n"
            "**Who loses what access at the next up**\n\n"
            "- `main-catalog`: analysts loses SELECT, USE\\_CATALOG\n"
            "- `main-catalog`: data-engineers loses CREATE\\_SCHEMA\n"
            "- `main-catalog`: grants on catalog main: analysts (SELECT, USE\\_CATALOG) "
            "lose(s) every direct privilege: not declared in privilege\\_assignments\n\n"
            "<!-- workspace-iac drift: e2e -->\n"
        )

    def test_the_next_deploy_sets_it_back_and_the_report_is_clean_again(
        self, emulator: EmulatorInfo, tmp_path: Path
    ) -> None:
        deployed = command(self.cli, "deploy")
        assert deployed.returncode == 0, deployed.stdout + deployed.stderr
        # The up refreshes first: the drift is read, then set back.
        lines = deployed.stdout.splitlines()
        assert lines[2] == "**1 to create, 1 to update** (4 unchanged)"
        assert "| `+` create | `drift-gone` | SecretScope |  |" in lines
        assert ("| `~` update | `main-catalog` | Grants | `privilege_assignments[analysts]`: "
                "removed (was 2 items)<br>`privilege_assignments[data-engineers]`: 2 items → "
                "1 item |") in lines
        api = PlatformApi(emulator)
        assert api.call("GET", GRANTS)["privilege_assignments"] == [
            {"principal": "data-engineers", "privileges": ["USE_CATALOG"]}]
        assert "drift-gone" in {s["name"] for s in
                                api.call("GET", "/api/2.0/secrets/scopes/list")["scopes"]}
        body = tmp_path / "issue.md"
        clean = command(self.cli, "drift", "--issue-body", str(body))
        assert clean.returncode == 0, clean.stdout + clean.stderr
        assert body.read_text().splitlines()[2] == (
            "No drift: the workspace holds what the stack recorded (3 resources checked).")
