"""`python -m stacks.adopt` under the real engine against the emulator (docs/adopt.md), in
the public wire form and the legacy one (jobs differ: Jobs 2.2 and 2.0).

Objects made through the workspace's API outside any stack (a multi-task job and one more,
the first one's permissions, a scope with an ACL and a secret, a group with a member) are
adopted into a scratch stack's config: a dry run first, which changes nothing; then the
items, with references by name and the file's comment kept. One `pulumi up` imports them
with no write to the workspace, and the preview after it shows no changes. One adopted
job's task edited in the config: the preview names exactly that field and the up changes
exactly that. Adopting again adds nothing; a broken config is refused before anything is
written; the secret, whose value the service never returns, is reported with its reason;
and the audit reports nothing of those objects unmanaged but that secret. Then a whole
workspace filled like a team's through the official SDK (tools/fill_workspace.py), at once.
"""

from __future__ import annotations

import copy
import dataclasses
import shutil
import subprocess
import uuid
from typing import Any

import pytest
import yaml

from providers.client import WorkspaceClient
from providers.client.wire import WireForm
from providers.identity.groups_api import GroupsApi
from providers.jobs.job_permissions_api import job_permissions_api
from providers.jobs.jobs_api import JOBS_PATHS, JobsApi
from providers.secrets.secret_scopes_api import SecretScopesApi
from providers.secrets.secrets_api import SecretsApi
from stacks.pulumi_cli import REPO_ROOT, PulumiCli
from tests.conftest import emulator_client
from tests.e2e.conftest import StackFactory, changed_steps, platform_writes, write_config
from tests.e2e.team_support import (
    audit_report,
    config_items,
    own_program,
    own_program_stack,
    refused_objects,
    run_adopt,
)
from tests.fill_support import FilledWorkspace
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

JOB_TYPE = "pulumi-python:dynamic/workspace:Job"
ANALYSTS = "100000000000004"  # a group of the emulator's initial data
CLUSTER = "0101-120000-shared01"
COMMENT = "# Kept by adopt: a comment of the team's own."


@dataclasses.dataclass
class Workspace:
    """The scratch stack, the emulator's client, and what was made by hand."""

    stack: PulumiCli
    client: WorkspaceClient
    prefix: str
    etl_job: int
    report_job: int
    scope: str
    group_id: str
    stack_wire_form: str = "public"

    @property
    def settings_path(self) -> Any:
        return self.stack.project_dir / f"Pulumi.{self.stack.stack}.yaml"

    def config(self) -> dict[str, Any]:
        return yaml.safe_load(self.settings_path.read_text())["config"]

    def items(self, key: str) -> list[dict[str, Any]]:
        return config_items(self.stack, key)

    def adopt(self, *flags: str, expect: int, says: str = "") -> subprocess.CompletedProcess[str]:
        return run_adopt(self.stack, "--match", f"*:{self.prefix}*", *flags,
                         expect=expect, says=says)


def etl_settings(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "max_concurrent_runs": 1,
        "tags": {"team": "data-platform"},
        "tasks": [
            {"task_key": "ingest", "existing_cluster_id": CLUSTER, "max_retries": 2,
             "spark_python_task": {"python_file": "dbfs:/jobs/ingest.py",
                                   "parameters": ["--date", "today"]}},
            {"task_key": "report", "depends_on": [{"task_key": "ingest"}],
             "existing_cluster_id": CLUSTER,
             "notebook_task": {"notebook_path": "/Shared/report"}},
        ],
    }


@pytest.fixture(scope="class")
def workspace(
    class_wire_form: str, workspace_stack: StackFactory, emulator: EmulatorInfo
) -> Workspace:
    stack = workspace_stack(wire_form=class_wire_form)
    path = stack.project_dir / f"Pulumi.{stack.stack}.yaml"
    path.write_text(path.read_text().replace("config:\n", f"{COMMENT}\nconfig:\n", 1))
    client = emulator_client(emulator, class_wire_form)
    prefix = f"adopt-{uuid.uuid4().hex[:6]}"
    etl_job = JobsApi(client).create(etl_settings(f"{prefix}-etl"))
    report_job = JobsApi(client).create({
        "name": f"{prefix}-report",
        "tasks": [{"task_key": "main", "existing_cluster_id": CLUSTER,
                   "notebook_task": {"notebook_path": "/Shared/weekly"}}],
    })
    job_permissions_api(client).update(
        etl_job, [{"group_name": "analysts", "permission_level": "CAN_VIEW"}]
    )
    scope = f"{prefix}-scope"
    SecretScopesApi(client).create(scope)
    SecretsApi(client).put_acl(scope, "analysts", "READ")
    SecretsApi(client).put(scope, "token", string_value="s3cr3t-by-hand")
    group = GroupsApi(client).create(
        {"displayName": f"{prefix}-group", "members": [{"value": ANALYSTS}]}
    )
    return Workspace(stack, client, prefix, etl_job, report_job, scope, str(group["id"]),
                     class_wire_form)


@pytest.mark.steps
class TestAdoptWhatScriptsMade:
    """In the public wire form; the legacy one below (jobs differ: Jobs 2.0's paths)."""

    wire_form = "public"

    def test_1_a_dry_run_prints_the_items_and_changes_nothing(self, workspace: Workspace) -> None:
        before = workspace.settings_path.read_text()
        # The secret cannot be adopted.
        result = workspace.adopt("--dry-run", expect=1, says="1 object(s) cannot be adopted")
        assert workspace.settings_path.read_text() == before
        printed = yaml.safe_load(result.stdout)["config"]
        assert {i["name"] for i in printed["workspace:jobs"]} == {
            f"{workspace.prefix}-etl", f"{workspace.prefix}-report"}
        assert "would add" in result.stderr and "read" in result.stderr

    def test_2_adopt_writes_items_with_references_by_name(self, workspace: Workspace) -> None:
        result = workspace.adopt(expect=1, says="1 object(s) cannot be adopted")
        prefix = workspace.prefix
        # Progress on stderr, per kind.
        assert "adopt: jobs: " in result.stderr and "read" in result.stderr
        jobs = {i["name"]: i for i in workspace.items("jobs")}
        assert set(jobs) == {f"{prefix}-etl", f"{prefix}-report"}
        etl = jobs[f"{prefix}-etl"]
        assert etl["import"] == str(workspace.etl_job)
        assert {t["task_key"] for t in etl["tasks"]} == {"ingest", "report"}
        (permissions,) = workspace.items("jobPermissions")
        assert permissions["job"] == f"{prefix}-etl" and "job_id" not in permissions
        assert permissions["import"] == str(workspace.etl_job)
        (scope,) = workspace.items("secretScopes")
        assert (scope["name"], scope["import"]) == (workspace.scope, workspace.scope)
        acls = workspace.items("secretAcls")
        assert acls and all(a["secret_scope"] == workspace.scope for a in acls)
        assert "analysts" in {a["principal"] for a in acls}
        (group,) = workspace.items("groups")
        assert group["import"] == workspace.group_id
        members = workspace.items("groupMembers")
        assert [m["group"] for m in members] == [group["name"]]
        assert workspace.items("secrets") == []  # its value is never returned
        # The refused one, with its reason and what to do.
        assert f"{workspace.scope}/token" in result.stdout
        assert "pulumi config set --secret --path" in result.stdout
        assert "1 object(s) cannot be adopted" in result.stdout
        # The file's own comment stays; the secret's value is nowhere.
        text = workspace.settings_path.read_text()
        assert text.startswith(COMMENT) or f"\n{COMMENT}\n" in text
        assert "s3cr3t-by-hand" not in text + result.stdout + result.stderr

    def test_3_up_imports_them_with_no_write(
        self, workspace: Workspace, emulator: EmulatorInfo
    ) -> None:
        added = sum(
            len(workspace.items(key))
            for key in ("jobs", "jobPermissions", "secretScopes", "secretAcls", "groups",
                        "groupMembers")
        )
        clear_request_log(emulator)
        up = workspace.stack.up()
        assert f"{added} imported" in up.stdout, up.stdout
        assert platform_writes(emulator) == []

    def test_4_the_next_preview_shows_no_changes(self, workspace: Workspace) -> None:
        workspace.stack.preview("--expect-no-changes")

    def test_5_one_task_edited_is_that_change_alone(
        self, workspace: Workspace, emulator: EmulatorInfo
    ) -> None:
        before = JobsApi(workspace.client).get(workspace.etl_job)["settings"]
        jobs = workspace.items("jobs")
        edited = copy.deepcopy(jobs)
        (etl,) = [j for j in edited if j["name"] == f"{workspace.prefix}-etl"]
        (ingest,) = [t for t in etl["tasks"] if t["task_key"] == "ingest"]
        ingest["max_retries"] = 5
        write_config(workspace.stack, {"workspace:jobs": edited})
        assert changed_steps(workspace.stack) == [("update", JOB_TYPE)]
        diff = workspace.stack.preview("--diff").stdout
        changes = [line.strip() for line in diff.splitlines() if "=>" in line]
        assert len(changes) == 1 and "max_retries" in changes[0], diff
        assert "2 => 5" in " ".join(changes[0].split()), diff

        clear_request_log(emulator)
        workspace.stack.up()
        jobs_path = JOBS_PATHS[WireForm(workspace.stack_wire_form)]
        assert platform_writes(emulator) == [f"POST {jobs_path}/update"]
        after = JobsApi(workspace.client).get(workspace.etl_job)["settings"]
        expected = copy.deepcopy(before)
        (task,) = [t for t in expected["tasks"] if t["task_key"] == "ingest"]
        task["max_retries"] = 5
        assert after == expected
        workspace.stack.preview("--expect-no-changes")

    def test_6_adopting_again_adds_nothing(self, workspace: Workspace) -> None:
        before = workspace.settings_path.read_text()
        # The secret, still.
        again = workspace.adopt(expect=1, says="1 object(s) cannot be adopted")
        assert "added 0 item(s)" in again.stdout, again.stdout
        assert workspace.settings_path.read_text() == before

    def test_7_a_broken_config_is_refused_before_anything_is_written(
        self, workspace: Workspace
    ) -> None:
        path = workspace.settings_path
        original = path.read_text()
        jobs = workspace.items("jobs")
        broken = [*jobs, {"name": jobs[0]["name"], "tasks": []}]
        write_config(workspace.stack, {"workspace:jobs": broken, "workspace:jobz": []})
        before = path.read_text()
        refused = run_adopt(workspace.stack, expect=2, says="fix them first, nothing was written")
        assert "workspace:jobz: unknown key (did you mean 'jobs'?)" in refused.stderr
        assert f"'{jobs[0]['name']}' is declared twice" in refused.stderr
        assert path.read_text() == before
        path.write_text(original)

    def test_8_the_audit_reports_only_what_adopt_could_not_take(
        self, workspace: Workspace
    ) -> None:
        report = audit_report(workspace.stack)
        ours = {
            (o["kind"], o["id"])
            for o in report["unmanaged"]
            if workspace.prefix in o["id"] or workspace.prefix in o["name"]
            or o["id"] in (str(workspace.etl_job), str(workspace.report_job), workspace.group_id)
        }
        assert ours == {("secret", f"{workspace.scope}/token")}


@pytest.mark.modern_leg  # the legacy form on the modern engine: docs/testing.md, "Test legs"
class TestAdoptWhatScriptsMadeLegacy(TestAdoptWhatScriptsMade):
    wire_form = "legacy"


def test_a_whole_workspace_is_taken_over_with_no_write(
    filled_workspace: FilledWorkspace, workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    """A workspace filled like a team's through the official SDK (tools/fill_workspace.py:
    objects of every kind, multi-task jobs with every family of settings, permissions,
    nested groups, scopes with ACLs and secrets) besides the emulator's initial objects,
    adopted at once: one up imports it all writing nothing, the next preview shows no
    changes, the audit reports just what adopt could not take, and adopting again adds
    nothing."""
    stack = workspace_stack(wire_form="public")
    # The initial data's notebook is adopted with its content, into an ignored scratch
    # folder of the checkout (where the stack program reads `source` files), removed after.
    content_dir = f"build/e2e-adopt/whole-{uuid.uuid4().hex[:6]}"
    try:
        taken_over(stack, emulator, filled_workspace, content_dir)
    finally:
        shutil.rmtree(REPO_ROOT / content_dir, ignore_errors=True)


def taken_over(stack: PulumiCli, emulator: EmulatorInfo, filled_workspace: FilledWorkspace,
               content_dir: str) -> None:
    # Exit 1: the filled workspace holds secrets, whose values cannot be adopted.
    assert filled_workspace.filled.ids("Secret")
    adopted = run_adopt(stack, "--content-dir", content_dir, expect=1)
    assert (REPO_ROOT / content_dir / "Shared/examples/quickstart.py").is_file()
    refused = refused_objects(adopted.stdout)
    # What cannot be adopted is a secret's value (the service never returns it), each
    # named with the command that sets it.
    assert {kind for kind, _ in refused} <= {"secret"}, adopted.stdout
    assert {("secret", id_) for id_ in filled_workspace.filled.ids("Secret")} <= refused
    clear_request_log(emulator)
    up = stack.up()
    assert "imported" in up.stdout, up.stdout
    assert platform_writes(emulator) == []
    stack.preview("--expect-no-changes")
    report = audit_report(stack)
    assert {(o["kind"], o["id"]) for o in report["unmanaged"]} == refused
    run_adopt(stack, "--content-dir", content_dir, expect=1, says="added 0 item(s)")


def test_a_teams_own_program_imports_the_python_module(
    tmp_path: Any, workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    """`adopt --python FILE` writes a module declaring the objects with the package's kinds
    and `ResourceOptions(import_=...)`: a team's own project that calls it imports them with
    no write, then previews no changes. The stack's config is not touched."""
    client = emulator_client(emulator, "public")
    prefix = f"own-{uuid.uuid4().hex[:6]}"
    job_id = JobsApi(client).create(etl_settings(f"{prefix}-etl"))
    job_permissions_api(client).update(
        job_id, [{"group_name": "analysts", "permission_level": "CAN_VIEW"}]
    )
    SecretScopesApi(client).create(f"{prefix}-scope")
    stack = workspace_stack(wire_form="public")  # adopt signs in as this stack does
    settings = (stack.project_dir / f"Pulumi.{stack.stack}.yaml").read_text()
    program = own_program(tmp_path / "program")
    module = program / "adopted.py"
    run_adopt(stack, "--match", f"*:{prefix}*", "--python", str(module), expect=0)
    assert (stack.project_dir / f"Pulumi.{stack.stack}.yaml").read_text() == settings
    text = module.read_text()
    assert f"import_='{job_id}'" in text
    assert "'job_id': made['jobs']" in text  # the permissions name the module's own job

    own = own_program_stack(tmp_path, program, emulator)
    clear_request_log(emulator)
    up = own.up()
    assert f"{text.count('import_=')} imported" in up.stdout, up.stdout
    assert platform_writes(emulator) == []
    own.preview("--expect-no-changes")
