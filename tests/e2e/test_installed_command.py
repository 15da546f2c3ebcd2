"""`workspace-iac` as a team runs it (docs/command.md): a wheel of the checkout installed
into a fresh virtualenv with its dependencies and nothing of the checkout, run from project
directories outside the checkout against the emulator. (pip installs the dependencies from
the package index, at the versions constraints.txt pins, as `make setup` does.)

One project is config-driven (the package's stack program, run by a one-line __main__.py):
`check` judges its stack file offline, `audit` lists what the workspace holds that no stack
manages, `adopt --dry-run` prints the items it would add and changes nothing. The other is a
team's own program: `adopt --python` writes the module it declares; the program, run by the
engine from the same virtualenv (its language host and the package's provider host),
imports those objects with no write to the workspace, and the audit then reports none of
them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from providers.client import WorkspaceClient
from providers.jobs.jobs_api import JobsApi
from providers.secrets.secret_scopes_api import SecretScopesApi
from stacks.pulumi_cli import LOCAL_PASSPHRASE, REPO_ROOT, engine_bin_dir
from tests.checkout import copy_checkout
from tests.conftest import emulator_client
from tests.e2e.conftest import platform_writes
from tests.e2e.team_support import OWN_PROGRAM
from tools.drills.local_stack import connection_config
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

CLUSTER = "0101-120000-shared01"  # a cluster of the emulator's initial data
# The package's stack program, as a config-driven project outside a checkout runs it.
STACK_PROGRAM = 'import runpy\n\nrunpy.run_module("stacks", run_name="__main__")\n'


@dataclass(frozen=True)
class Installed:
    venv: Path

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    def env(self) -> dict[str, str]:
        """A team's shell: the virtualenv's commands and a Pulumi CLI on PATH, a passphrase;
        nothing that points at this checkout or at another backend."""
        env = {
            key: value for key, value in os.environ.items()
            if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")
            and not key.startswith("PULUMI_")
        }
        env["PATH"] = os.pathsep.join([str(self.bin), str(engine_bin_dir()), "/usr/bin", "/bin"])
        env["PULUMI_CONFIG_PASSPHRASE"] = LOCAL_PASSPHRASE
        env["PULUMI_SKIP_UPDATE_CHECK"] = "true"
        return env

    def run(self, project: Path, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(argv, cwd=project, env=self.env(), capture_output=True,
                              text=True, timeout=600)

    def command(self, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
        """`workspace-iac ARGS` run in `project`, the way a team runs it."""
        return self.run(project, str(self.bin / "workspace-iac"), *args)

    def pulumi(self, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
        """The Pulumi CLI in `project`, its state where the command keeps it by default
        (the project's .pulumi-state)."""
        state = project / ".pulumi-state"
        state.mkdir(exist_ok=True)
        result = subprocess.run(
            ["pulumi", "--non-interactive", *args], cwd=project,
            env={**self.env(), "PULUMI_BACKEND_URL": state.as_uri(),
                 "PULUMI_HOME": str(state / ".pulumi-home")},
            capture_output=True, text=True, timeout=600,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        return result


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel of a copy of the checkout, installed into a fresh virtualenv (no system
    site packages, no path entry) with the dependencies it declares, at the versions the
    project pins."""
    tmp = tmp_path_factory.mktemp("installed-command")
    wheels = tmp / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check",
         "--no-deps", "--wheel-dir", str(wheels), str(copy_checkout(tmp / "workspace-iac"))],
        cwd=tmp, check=True, capture_output=True, timeout=600,
    )
    [wheel] = wheels.glob("workspace_iac-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
         "--disable-pip-version-check", "-c", str(REPO_ROOT / "constraints.txt"), str(wheel)],
        cwd=tmp, check=True, capture_output=True, timeout=600,
    )
    shutil.rmtree(tmp / "workspace-iac")  # nothing of the checkout is left to reach
    return Installed(venv)


def project(directory: Path, name: str, venv: Path, program: str) -> Path:
    """A Pulumi project outside the checkout: its program, and a Pulumi.yaml whose runtime
    and provider plugin are the virtualenv's (as examples/own-program's)."""
    directory.mkdir(parents=True)
    (directory / "__main__.py").write_text(program)
    (directory / "Pulumi.yaml").write_text(yaml.safe_dump({
        "name": name,
        "runtime": {"name": "python", "options": {"virtualenv": str(venv)}},
        "plugins": {"providers": [{"name": "pulumi-python", "path": str(venv / "bin")}]},
    }))
    return directory


@dataclass
class Team:
    installed: Installed
    info: EmulatorInfo
    client: WorkspaceClient
    prefix: str
    job_id: str
    scope: str
    config_project: Path
    own_project: Path

    @property
    def made(self) -> set[tuple[str, str, str]]:
        """(kind, id, name) of the objects made outside any stack."""
        return {("job", self.job_id, f"{self.prefix}-etl"),
                ("secret_scope", self.scope, self.scope)}

    def stack_file(self, project: Path) -> Path:
        return project / "Pulumi.dev.yaml"


@pytest.fixture(scope="class")
def team(tmp_path_factory: pytest.TempPathFactory, installed: Installed,
         emulator: EmulatorInfo) -> Team:
    """Two projects outside the checkout, each with a `dev` stack on the emulator, and a job
    and a secret scope made in the workspace by hand."""
    client = emulator_client(emulator, "public")
    prefix = f"cmd-{uuid.uuid4().hex[:6]}"
    job_id = JobsApi(client).create({
        "name": f"{prefix}-etl",
        "tasks": [{"task_key": "main", "existing_cluster_id": CLUSTER,
                   "notebook_task": {"notebook_path": "/Shared/etl"}}],
    })
    scope = f"{prefix}-scope"
    SecretScopesApi(client).create(scope)
    root = tmp_path_factory.mktemp("team")
    made = []
    for name, program in (("team-config", STACK_PROGRAM), ("team-own", OWN_PROGRAM)):
        directory = project(root / name, name, installed.venv, program)
        installed.pulumi(directory, "stack", "init", "dev", "--secrets-provider", "passphrase")
        installed.pulumi(directory, "config", "set", "--secret", "workspace:clientSecret",
                         emulator.client_secret)
        for key, value in connection_config(emulator, "public").items():
            installed.pulumi(directory, "config", "set", key, json.dumps(value)
                             if isinstance(value, bool) else str(value))
        made.append(directory)
    return Team(installed, emulator, client, prefix, str(job_id), scope, *made)


def unmanaged_of(report: Mapping[str, Any], prefix: str) -> set[tuple[str, str, str]]:
    return {(o["kind"], o["id"], o["name"]) for o in report["unmanaged"]
            if o["name"].startswith(prefix)}


@pytest.mark.steps
class TestTheInstalledCommand:
    def test_1_it_runs_from_the_virtualenv_alone(self, team: Team) -> None:
        """The command, its packages and its Python are the virtualenv's; the checkout is
        neither the current directory nor on the path."""
        program = (
            "import importlib.util, json, sys, providers, stacks\n"
            "print(json.dumps({'path': sys.path, 'stacks': stacks.__file__,\n"
            "  'providers': providers.__file__,\n"
            "  'dev_only': [n for n in ('tools', 'bench', 'tests')\n"
            "               if importlib.util.find_spec(n)]}))\n"
        )
        said = json.loads(team.installed.run(
            team.config_project, str(team.installed.bin / "python"), "-c", program).stdout)
        assert not team.config_project.is_relative_to(REPO_ROOT)
        assert Path(said["stacks"]).is_relative_to(team.installed.venv), said
        assert Path(said["providers"]).is_relative_to(team.installed.venv), said
        assert said["dev_only"] == []
        reaching = [p for p in said["path"] if p and Path(p).resolve().is_relative_to(REPO_ROOT)]
        assert reaching == []
        help_text = team.installed.command(team.config_project, "--help")
        assert help_text.returncode == 0, help_text.stderr
        usage = " ".join(help_text.stdout.split("\n\n")[0].split())  # as wrapped to any width
        assert usage == ("usage: workspace-iac [-h] "
                         "{check,audit,adopt,summary,deploy,drift,fleet,guardrails,recover} ...")

    def test_2_check_judges_the_projects_stack_files_offline(
        self, team: Team, tmp_path: Path
    ) -> None:
        checked = team.installed.command(team.config_project, "check")
        assert (checked.returncode, checked.stdout, checked.stderr) == (
            0, "Pulumi.dev.yaml: ok\n", "")
        broken = tmp_path / "Pulumi.broken.yaml"
        settings = yaml.safe_load(team.stack_file(team.config_project).read_text())
        settings["config"]["workspace:jobz"] = []
        broken.write_text(yaml.safe_dump(settings))
        refused = team.installed.command(team.config_project, "check", str(broken))
        assert (refused.returncode, refused.stdout) == (
            1, f"{broken}: workspace:jobz: unknown key (did you mean 'jobs'?)\n")

    def test_3_audit_lists_what_no_stack_manages(self, team: Team) -> None:
        audited = team.installed.command(team.config_project, "audit", "--stack", "dev",
                                         "--json")
        assert audited.returncode == 1, audited.stderr  # unmanaged objects found
        report = json.loads(audited.stdout)
        assert report["workspace_url"] == team.info.base_url.rstrip("/")
        assert report["stacks"] == ["dev"]
        assert unmanaged_of(report, team.prefix) == team.made

    def test_4_adopt_dry_run_prints_the_items_and_changes_nothing(self, team: Team) -> None:
        before = team.stack_file(team.config_project).read_text()
        adopted = team.installed.command(team.config_project, "adopt", "--stack", "dev",
                                         "--match", f"*:{team.prefix}*", "--dry-run")
        assert adopted.returncode == 0, adopted.stderr
        assert team.stack_file(team.config_project).read_text() == before
        printed = yaml.safe_load(adopted.stdout)["config"]
        assert {key: [(i["name"], i["import"]) for i in items]
                for key, items in printed.items()} == {
            "workspace:jobs": [(f"{team.prefix}-etl", team.job_id)],
            "workspace:secretScopes": [(team.scope, team.scope)],
        }
        assert ("would add 2 item(s) to Pulumi.dev.yaml: 1 secretScopes, 1 jobs"
                in adopted.stderr.splitlines())
        assert not (team.config_project / "workspace").exists()

    def test_5_adopt_python_writes_the_module_a_teams_program_imports(
        self, team: Team
    ) -> None:
        own = team.own_project
        before = team.stack_file(own).read_text()
        adopted = team.installed.command(own, "adopt", "--stack", "dev", "--match",
                                         f"*:{team.prefix}*", "--python", "adopted.py")
        assert adopted.returncode == 0, adopted.stdout + adopted.stderr
        assert adopted.stdout.splitlines()[1] == (
            "added 2 item(s) to adopted.py: 1 secretScopes, 1 jobs")
        assert team.stack_file(own).read_text() == before
        text = (own / "adopted.py").read_text()
        assert f"import_='{team.job_id}'" in text and f"import_='{team.scope}'" in text

        clear_request_log(team.info)
        up = team.installed.pulumi(own, "up", "--yes", "--skip-preview", "--stack", "dev")
        assert "2 imported" in up.stdout, up.stdout
        assert platform_writes(team.info) == []
        team.installed.pulumi(own, "preview", "--stack", "dev", "--expect-no-changes")

        audited = team.installed.command(own, "audit", "--stack", "dev", "--json")
        report = json.loads(audited.stdout)
        assert unmanaged_of(report, team.prefix) == set(), audited.stderr
        assert report["managed_counts"]["job"] == 1
        assert report["managed_counts"]["secret_scope"] == 1
