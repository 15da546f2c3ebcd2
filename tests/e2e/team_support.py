"""What the team-workflow tests share: a scratch directory laid out like a checkout (so the
docs' and the workflow's commands run there as written), an environment stack made from
a committed Pulumi.<env>.yaml pointed at the emulator, and the steps of the pull-request
workflow read from .github/workflows/preview.yml and run with bash; and the project's own
commands on a stack: `workspace-iac audit` and `adopt`, and a team's program calling what
`adopt --python` wrote."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from stacks.pulumi_cli import REPO_ROOT, PulumiCli, inline_where_needed, project_settings
from tests.e2e.conftest import write_config
from tools.drills.local_stack import NAMESPACE, account_config, connection_config
from workspace_emulator.testing import EmulatorInfo

WORKFLOW = REPO_ROOT / ".github" / "workflows" / "preview.yml"
# What a checkout's commands reach: the packages, the engine's tools, the virtualenv.
CHECKOUT_LINKS = ("__main__.py", "providers", "stacks", "tools", "workspace_emulator", ".venv")


# The keys that say how a stack signs in (the address and the tuning stay).
SIGN_IN_KEYS = ("authType", "authUrl", "tenantId", "clientId", "resource", "profile",
                "previewClientId", "azureWorkspaceResourceId")


def checkout_like(directory: Path) -> Path:
    """`directory` with the project file and links to the checkout's packages and
    virtualenv: `pulumi`, `tools/engine/ensure.sh` and `.venv/bin/python -m ...` work there
    as in a clone, while stack files and state stay in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO_ROOT / "Pulumi.yaml", directory / "Pulumi.yaml")
    for name in CHECKOUT_LINKS:
        if name == "stacks":
            _stacks_with_own_notebooks(directory / name)
        else:
            (directory / name).symlink_to(REPO_ROOT / name)
    return directory


def _stacks_with_own_notebooks(stacks: Path) -> None:
    """The stack program's modules linked, the files it uploads (its folders that are no
    Python package: notebooks, wheels, queries, dashboards, apps) copied: a `source` must
    be a file of the project, and one that links out of it is refused (docs/notebook.md)."""
    stacks.mkdir()
    for entry in (REPO_ROOT / "stacks").iterdir():
        if entry.is_dir() and not (entry / "__init__.py").exists():
            if entry.name != "__pycache__":
                shutil.copytree(entry, stacks / entry.name)
        else:
            (stacks / entry.name).symlink_to(entry)


def environment_stack(checkout: Path, environment: str, info: EmulatorInfo,
                      backend_url: str | None = None,
                      extra_env: Mapping[str, str] | None = None) -> PulumiCli:
    """The committed Pulumi.<environment>.yaml with its workspace swapped for the emulator's
    (the objects and the wire form kept), as a new stack with the passphrase provider and
    the client secret set as a secret: "To bring up an environment" of docs/environments.md."""
    document = yaml.safe_load((REPO_ROOT / f"Pulumi.{environment}.yaml").read_text())
    wire_form = document["config"]["workspace:wireForm"]
    # How the committed stack signs in is the real workspace's business: the emulator's
    # bootstrap principal deploys here (a test that previews in CI adds previewClientId).
    for key in SIGN_IN_KEYS:
        document["config"].pop(f"workspace:{key}", None)
    document["config"].update(connection_config(info, wire_form))
    if f"{NAMESPACE}:accountId" in document["config"]:  # the account around it: the emulator's
        document["config"].update(account_config(info))
    (checkout / f"Pulumi.{environment}.yaml").write_text(yaml.safe_dump(document))
    cli = PulumiCli(project_dir=checkout, stack=environment,
                    state_dir=checkout / ".pulumi-state", extra_env=dict(extra_env or {}),
                    backend_url=backend_url)
    cli.run("stack", "init", environment, "--secrets-provider", "passphrase")
    cli.set_config("workspace:clientSecret", info.client_secret, secret=True)
    return cli


# --- the pull-request workflow ---------------------------------------------------------------

EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")
CONDITION = re.compile(r"^matrix\.(\w+)\s*(==|!=)\s*'([^']*)'$")


def workflow_job(name: str) -> dict[str, Any]:
    return yaml.safe_load(WORKFLOW.read_text())["jobs"][name]


def expand(text: str, context: Mapping[str, Mapping[str, str]]) -> str:
    """`${{ matrix.stack }}`, `${{ vars.NAME }}`, `${{ secrets.NAME }}` from `context`
    (a name the context lacks expands to "", as on the runner)."""

    def value(match: re.Match[str]) -> str:
        scope, _, name = match.group(1).partition(".")
        if scope not in context:
            raise ValueError(f"the test runner knows no `{match.group(1)}`")
        return context[scope].get(name, "")

    return EXPRESSION.sub(value, text)


def applies(step: Mapping[str, Any], matrix: Mapping[str, str]) -> bool:
    """A step's `if:` for one matrix entry: `always()`, `matrix.<key> ==|!= '<value>'`,
    joined by `&&` (what the workflow uses)."""
    for term in str(step.get("if", "always()")).split("&&"):
        term = term.strip()
        if term == "always()":
            continue
        match = CONDITION.match(term)
        if match is None:
            raise ValueError(f"the test runner cannot judge `if: {step['if']}`")
        key, operator, expected = match.groups()
        if (matrix[key] == expected) != (operator == "=="):
            return False
    return True


def run_workflow_steps(job: str, names: list[str], workdir: Path,
                       context: Mapping[str, Mapping[str, str]],
                       env: Mapping[str, str]) -> dict[str, subprocess.CompletedProcess[str]]:
    """Runs the `run:` scripts of the steps of `job` whose names start with one of `names`,
    in order and when their `if:` holds for `context["matrix"]`, with bash in `workdir` and
    the job's and the step's `env:` expanded over `env`. Returns each run step's result."""
    definition = workflow_job(job)
    job_env = {k: expand(str(v), context) for k, v in definition.get("env", {}).items()}
    results: dict[str, subprocess.CompletedProcess[str]] = {}
    for step in definition["steps"]:
        name = step.get("name", "")
        if "run" not in step or not any(name.startswith(n) for n in names):
            continue
        if not applies(step, context["matrix"]):
            continue
        step_env = {k: expand(str(v), context) for k, v in step.get("env", {}).items()}
        results[name] = subprocess.run(
            ["bash", "-e", "-c", step["run"]], cwd=workdir,
            env={**os.environ, **env, **job_env, **step_env},
            capture_output=True, text=True, timeout=900,
        )
    return results


# The project's command (docs/command.md), as this virtualenv installs it.
COMMAND = str(Path(sys.executable).parent / "workspace-iac")

# The exit statuses of `workspace-iac adopt` and `workspace-iac audit` (their --help): 0
# all adopted or nothing unmanaged, 1 objects listed (refused, or unmanaged), 2 an error on
# one `<tool>: ` line. A crash also exits 1: its traceback tells it from a listing.
DONE, LISTED, ERROR = 0, 1, 2
TRACEBACK = "Traceback (most recent call last)"
REFUSED_COUNT = re.compile(r"^(\d+) object\(s\) cannot be adopted$", re.MULTILINE)
UNMANAGED_COUNT = re.compile(r"^(\d+) unmanaged object\(s\)$", re.MULTILINE)


def exited(result: subprocess.CompletedProcess[str], tool: str, expect: int,
           says: str = "") -> str:
    """Checks that `tool` exited with `expect`, without a traceback, `says` in its output
    (an error's own line, which an error's caller must name); returns the output."""
    output = f"{result.stdout}\n{result.stderr}"
    assert TRACEBACK not in output, output
    assert result.returncode == expect, output
    if expect == ERROR:
        assert says, f"the test of a {tool} error names what the error says"
        assert result.stderr.startswith(f"{tool}: "), output
    assert says in output, output
    return output


def run_tool(tool: str, stack: PulumiCli, *args: str) -> subprocess.CompletedProcess[str]:
    """`workspace-iac <tool>` (what `make <tool>` runs) in the stack's project directory,
    on its state."""
    return subprocess.run(
        [COMMAND, tool, "--state-dir", str(stack.state_dir), *args],
        cwd=stack.project_dir, env=stack.env(), capture_output=True, text=True, timeout=600,
    )


def run_audit(
    stack: PulumiCli, *flags: str, expect: int, says: str = "", stack_name: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`workspace-iac audit` (what `make audit` runs) on the stack's project and state
    (another stack of it by name), which must exit with `expect` and say `says`; an exit 0
    or 1 must also say so in its report ("nothing unmanaged", or the objects counted)."""
    result = run_tool("audit", stack, "--stack", stack_name or stack.stack, *flags)
    output = exited(result, "audit", expect, says)
    if "--json" in flags and expect != ERROR:
        assert bool(json.loads(result.stdout)["unmanaged"]) == (expect == LISTED), output
    elif expect == LISTED:
        assert UNMANAGED_COUNT.search(result.stdout), output
    elif expect == DONE:
        assert "nothing unmanaged" in result.stdout.splitlines(), output
    return result


def run_adopt(
    stack: PulumiCli, *flags: str, expect: int, says: str = ""
) -> subprocess.CompletedProcess[str]:
    """`workspace-iac adopt` on the stack's project and state, which must exit with
    `expect` and say `says`: exit 1 with its table of refused objects and their count, exit
    0 with none."""
    result = run_tool("adopt", stack, "--stack", stack.stack, *flags)
    output = exited(result, "adopt", expect, says)
    counted = REFUSED_COUNT.search(output)
    if expect == LISTED:
        assert counted and int(counted[1]) == len(refused_objects(output)) > 0, output
    elif expect == DONE:
        assert counted is None and not refused_objects(output), output
    return result


def audit_report(stack: PulumiCli) -> dict[str, Any]:
    """The audit's JSON report; its exit status must be the report's: 1 when it lists
    unmanaged objects, else 0."""
    result = run_tool("audit", stack, "--stack", stack.stack, "--json")
    assert TRACEBACK not in result.stderr, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    exited(result, "audit", LISTED if report["unmanaged"] else DONE)
    return report


# A team's own program: its WorkspaceAuth, and the module `adopt --python` wrote beside it.
OWN_PROGRAM = """\
import importlib.util
import pathlib

from providers import WorkspaceAuth
from stacks.config import auth_args

spec = importlib.util.spec_from_file_location(
    "adopted", pathlib.Path(__file__).with_name("adopted.py")
)
adopted = importlib.util.module_from_spec(spec)
spec.loader.exec_module(adopted)
adopted.declare(WorkspaceAuth("workspace", auth_args()).connection)
"""


def own_program(directory: Path) -> Path:
    """A team's own program in `directory`: OWN_PROGRAM, which declares what
    `adopt --python <directory>/adopted.py` writes."""
    directory.mkdir()
    (directory / "__main__.py").write_text(OWN_PROGRAM)
    return directory


def own_program_stack(tmp_path: Path, program: Path, info: EmulatorInfo) -> PulumiCli:
    """A stack of the team's own project running `program`, signed in to `info` in the
    public wire form, its state apart from every other stack's."""
    project = tmp_path / "own"
    project.mkdir()
    (project / "Pulumi.yaml").write_text(yaml.safe_dump(project_settings("team-own", program)))
    own = PulumiCli(project_dir=project, stack="e2e", state_dir=tmp_path / "own-state",
                    extra_env={}, program=inline_where_needed(program))
    own.select_or_init()
    own.set_config("workspace:clientSecret", info.client_secret, secret=True)
    write_config(own, connection_config(info, "public"))
    return own


def config_items(stack: PulumiCli, key: str) -> list[dict[str, Any]]:
    """The items of `workspace:<key>` in the stack's settings file, as adopt left them."""
    path = stack.project_dir / f"Pulumi.{stack.stack}.yaml"
    config = yaml.safe_load(path.read_text())["config"]
    return config.get(f"workspace:{key}") or []


def refused_objects(output: str) -> set[tuple[str, str]]:
    """(kind, id) of each object adopt's report says it cannot adopt."""
    lines = output.splitlines()
    if not any(line.startswith("KIND ") for line in lines):
        return set()
    start = next(i for i, line in enumerate(lines) if line.startswith("KIND "))
    rows = []
    for line in lines[start + 1:]:
        if line.endswith("object(s) cannot be adopted"):
            break
        kind, id_ = line.split()[:2]
        rows.append((kind, id_))
    return set(rows)
