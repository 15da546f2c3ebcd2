"""End-to-end fixtures: the real Pulumi engine running the project's stack program against
a real emulator over HTTP.

The fixtures are class-scoped: a test function outside a class gets its own emulator, state
directory and stack (pytest makes a class-scoped fixture per function there), and a class
of steps (`@pytest.mark.steps`, see tests/conftest.py) shares one emulator through all its
steps."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import pytest
import requests
import yaml

from stacks.config_rules import object_lists
from stacks.pulumi_cli import REPO_ROOT, PulumiCli, inline_where_needed, project_settings
from tests.conftest import emulator_fixture
from tools.drills.local_stack import (
    connection_config,
    local_objects,
    scratch_stack,
    with_secret_inputs_encrypted,
)
from workspace_emulator.testing import EmulatorInfo, auth_headers, clear_request_log, request_log

StackFactory = Callable[..., PulumiCli]
STACK = "e2e"

# The object lists of the project's `local` stack (Pulumi.local.yaml), by kind, secret
# values decrypted (a scratch stack's settings file holds them encrypted again).
LOCAL_OBJECTS: dict[str, Any] = {
    key: value for key, value in local_objects(kinds=None).items() if key in object_lists()
}

# The program that declares objects by their import ids (tests of imports).
IMPORT_PROGRAM = Path(__file__).parent / "import_program"

emulator = emulator_fixture("class")


@pytest.fixture(scope="class")
def workspace_stack(
    tmp_path_factory: pytest.TempPathFactory, emulator: EmulatorInfo
) -> StackFactory:
    """Makes a stack of the project's program (stacks/) in a scratch project directory, so
    its Pulumi.<stack>.yaml and state never touch the checkout. Call it with the
    `workspace:*` objects to declare; call `write_config` on the result to change them.
    Its runs are in the single-write mode (docs/state.md): the scenarios judge what a run
    leaves, not the checkpoints on the way, which tests/reliability drills in the default
    mode; the engine then writes the state once per run instead of after every step."""

    def make(wire_form: str = "legacy", secret: str | None = None, **objects: Any) -> PulumiCli:
        return scratch_stack(
            tmp_path_factory.mktemp("stack"),
            emulator,
            objects=objects,
            stack=STACK,
            secret=secret,
            wire_form=wire_form,
            single_write=True,
        )

    return make


@pytest.fixture(scope="class")
def class_wire_form(request: pytest.FixtureRequest) -> str:
    """The wire form of a class of steps that runs in each form: the class's `wire_form`
    (a subclass per form)."""
    return request.cls.wire_form


def write_config(cli: PulumiCli, config: dict[str, Any]) -> None:
    """Merges `config` into the stack's settings file (other keys are kept)."""
    path = cli.project_dir / f"Pulumi.{cli.stack}.yaml"
    current = yaml.safe_load(path.read_text()) if path.exists() else None
    document = current or {}
    document.setdefault("config", {}).update(config)
    path.write_text(yaml.safe_dump(with_secret_inputs_encrypted(cli, document)))


def write_objects(cli: PulumiCli, objects: dict[str, Any]) -> None:
    """Declares `objects` (object lists by `workspace:*` key without its prefix) in the stack's
    settings file; lists not named keep what they were."""
    write_config(cli, {f"workspace:{key}": value for key, value in objects.items()})


# --- the engine's answers, the workspace kinds only ---------------------------------------

TYPE_PREFIX = "pulumi-python:dynamic/workspace:"
# Where the program declared a resource, as newer engines record it (the declaring call's
# path, line and stack): it moves with the code and says nothing of what the resource holds.
DECLARED_AT = ("sourcePosition", "stackTrace")


# The type of the provider a WorkspaceAuth component registers.
PROVIDER_TYPE = "workspace:auth:WorkspaceAuth$pulumi:providers:pulumi-python"


def changed_steps(cli: PulumiCli) -> list[tuple[str, str]]:
    """(op, type) of each step of `pulumi preview --json` that is not "same"."""
    steps = json.loads(cli.preview("--json").stdout).get("steps", [])
    return sorted(
        (step["op"], step["urn"].split("::")[-2]) for step in steps if step["op"] != "same"
    )


def upgrade_updates_the_provider_alone(stack: PulumiCli) -> None:
    """The first deployment of a stack by this version, which an earlier one deployed: the
    WorkspaceAuth's provider updates alone, since a connection setting's default changed
    (`rate_limit_per_second`: the former fixed ceiling of 20 calls per second, 0 now, the
    client adapting to the service's 429s); no resource changes."""
    assert changed_steps(stack) == [("update", PROVIDER_TYPE)]
    stack.up()


class Declared(Protocol):
    """A scenario's stack and the objects its config declares."""

    stack: PulumiCli
    objects: dict[str, Any]


def reconfigure(scenario: Declared, objects: dict[str, Any]) -> None:
    """The scenario's stack declares `objects` from now on (its config and its record)."""
    scenario.objects = objects
    write_objects(scenario.stack, objects)


def changed_in_preview(stack: PulumiCli, *flags: str) -> dict[str, str]:
    """{resource name: op} of the workspace kinds a `pulumi preview` would change."""
    document = json.loads(stack.preview("--json", *flags).stdout)
    return {
        step["urn"].split("::")[-1]: step["op"]
        for step in document.get("steps", [])
        if step["urn"].split("::")[-2].startswith(TYPE_PREFIX)
        and step["op"] not in ("same", "refresh")
    }


def preview_ops(cli: PulumiCli, kinds: dict[str, str]) -> dict[str, tuple[str, list[str] | None]]:
    """(op, sorted replace reasons) of each resource `pulumi preview` steps, by name
    (`preview_steps`)."""
    return {name: (step["op"], step.get("replaceReasons"))
            for name, step in preview_steps(cli, kinds).items()}


def preview_steps(cli: PulumiCli, kinds: dict[str, str]) -> dict[str, dict[str, Any]]:
    """The steps of `pulumi preview --json` by resource name, workspace kinds only; each
    resource must be one of `kinds` (name -> kind) and of its kind. A replacement's several
    steps collapse into one whose op is "replace" (its replaceReasons sorted)."""
    by_name: dict[str, dict[str, Any]] = {}
    for step in json.loads(cli.preview("--json").stdout).get("steps", []):
        kind, name = step["urn"].split("::")[-2:]
        if not kind.startswith(TYPE_PREFIX):
            continue
        op = step["op"]
        if op in ("create-replacement", "delete-replaced", "replace"):
            op = "replace"
        merged = by_name.setdefault(name, {**step, "op": op})
        reasons = merged.get("replaceReasons") or step.get("replaceReasons")
        merged["replaceReasons"] = sorted(reasons) if reasons else reasons
        assert kind == TYPE_PREFIX + kinds[name], f"{name} is a {kind}"
    return by_name


def refreshed(cli: PulumiCli) -> dict[str, tuple[str, dict[str, Any]]]:
    """`pulumi refresh` as {resource name: (op, outputs read)} of the workspace kinds; op is
    "same", "update" (read as changed) or "delete" (read as gone)."""
    found = {}
    for line in cli.refresh("--json").stdout.splitlines():
        event = json.loads(line).get("resOutputsEvent")
        if event and event["metadata"]["type"].startswith(TYPE_PREFIX):
            metadata = event["metadata"]
            outputs = (metadata.get("new") or {}).get("outputs") or {}
            found[metadata["urn"].split("::")[-1]] = (metadata["op"], outputs)
    return found


# --- the emulator, read directly ------------------------------------------------------------


def platform_writes(info: EmulatorInfo) -> list[str]:
    """The writes to the platform API in the emulator's request log, as "METHOD path" (a
    HEAD, the Files API's metadata, is a read); a sign-in at the workspace's OAuth token
    endpoint (`POST /oidc/v1/token`: oauth-m2m, github-oidc) writes nothing."""
    return [
        f"{r['method']} {r['path']}"
        for r in request_log(info)
        if r["service"] == "platform" and r["method"] not in ("GET", "HEAD")
        and not r["path"].startswith("/oidc/")
    ]


def assert_no_changes(cli: PulumiCli, info: EmulatorInfo, step: str) -> None:
    """A second `pulumi up` changes nothing and writes nothing to the workspace."""
    clear_request_log(info)
    result = cli.up("--expect-no-changes", check=False)
    assert result.returncode == 0, f"{step}: a second up changed something:\n{result.stdout}"
    assert platform_writes(info) == [], f"{step}: the no-op up wrote to the workspace"


class PlatformApi:
    """Direct HTTP to the emulator's platform API, as an operator would make it."""

    def __init__(self, info: EmulatorInfo) -> None:
        self.info = info
        self.headers = auth_headers(info)

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = requests.request(
            method, f"{self.info.base_url}{path}", headers=self.headers, timeout=10, **kwargs
        )
        response.raise_for_status()
        return response.json() if response.content else {}

    def status_code(self, path: str) -> int:
        """The status a GET of `path` answers (404: no such object)."""
        return requests.get(f"{self.info.base_url}{path}", headers=self.headers,
                            timeout=10).status_code

    def writes(self) -> list[str]:
        return platform_writes(self.info)

    def file(self, path: str) -> bytes | None:
        """The bytes of the file at a volume path, read over the Files API; None if none."""
        response = requests.get(f"{self.info.base_url}/api/2.0/fs/files{path}",
                                headers=self.headers, timeout=10)
        if response.status_code == 404:
            return None
        response.raise_for_status()
        return response.content


def import_stack(tmp_path: Path, info: EmulatorInfo, wire_form: str) -> PulumiCli:
    """A stack of the import program (import_program/), signed in to `info` in `wire_form`."""
    project = tmp_path / "project"
    project.mkdir()
    settings = project_settings("imports", IMPORT_PROGRAM)
    (project / "Pulumi.yaml").write_text(yaml.safe_dump(settings))
    cli = PulumiCli(
        project_dir=project,
        stack="e2e",
        state_dir=tmp_path / "state",
        extra_env={},
        program=inline_where_needed(IMPORT_PROGRAM),
    )
    cli.select_or_init()
    cli.set_config("workspace:clientSecret", info.client_secret, secret=True)
    write_config(cli, connection_config(info, wire_form))
    return cli


def summary_of(preview_json: str) -> str:
    """Runs the summary as the workflow does: `workspace-iac summary < preview.json`."""
    result = subprocess.run(
        [str(Path(sys.executable).parent / "workspace-iac"), "summary", "--stack", "e2e"],
        input=preview_json,
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        check=True,
    )
    return result.stdout
