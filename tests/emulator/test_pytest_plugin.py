"""The emulator's pytest plugin (workspace_emulator/pytest_plugin.py), as this project's own
installation registers it: its fixtures hand out what WorkspaceAuth and a stack's config
need, the fresh one starts from the initial data, and the plugin loads cheaply."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from providers import WorkspaceAuthArgs
from providers.client import Connection, WireForm, client_for
from stacks.config import connection_args
from stacks.config_rules import problems
from stacks.pulumi_cli import REPO_ROOT
from workspace_emulator import pytest_plugin
from workspace_emulator.extra import INSTALL, EmulatorExtraMissing, require_emulator_extra
from workspace_emulator.testing import EmulatorInfo

FIXTURES = ("workspace_emulator", "workspace_emulator_options", "fresh_workspace_emulator")
SCRATCH_SCOPE = "plugin-scratch"

pytestmark = pytest.mark.usefixtures("fresh_client_caches")


def test_the_entry_point_registers_the_plugin(request: pytest.FixtureRequest) -> None:
    assert request.config.pluginmanager.get_plugin("workspace_emulator") is pytest_plugin


def test_no_fixture_of_the_projects_tests_shadows_the_plugins() -> None:
    # A function of that name, or one assigned (`emulator = emulator_fixture("session")`).
    definition = re.compile(
        rf"^\s*(?:async\s+)?def\s+({'|'.join(FIXTURES)})\b|^({'|'.join(FIXTURES)})\s*=",
        re.MULTILINE,
    )
    defined = [
        f"{path.relative_to(REPO_ROOT)}: {match.group(0).strip()}"
        for path in (REPO_ROOT / "tests").rglob("*.py")
        for match in definition.finditer(path.read_text())
    ]
    assert defined == []


def test_auth_args_are_workspace_auths_and_reach_the_workspace(
    workspace_emulator: EmulatorInfo,
) -> None:
    args = workspace_emulator.auth_args()
    assert set(args) <= {f.name for f in dataclasses.fields(WorkspaceAuthArgs)}
    # The validation WorkspaceAuth's credential check applies, then a call as the principal.
    connection = Connection.model_validate(args)
    assert connection.wire_form.value == "public"
    clusters = client_for(connection).get("/api/2.0/clusters/list")["clusters"]
    assert clusters


@pytest.mark.parametrize("wire_form", [form.value for form in WireForm])
def test_stack_config_is_what_the_stack_program_reads(
    workspace_emulator: EmulatorInfo, wire_form: str
) -> None:
    config = workspace_emulator.stack_config(wire_form=wire_form)
    values = {key.removeprefix("workspace:"): entry.value for key, entry in config.items()}
    secrets = {key.removeprefix("workspace:") for key, entry in config.items() if entry.secret}

    assert secrets == {"clientSecret"}
    assert problems(values, secrets) == []
    secret = {"client_secret": workspace_emulator.client_secret}
    assert connection_args(values, secret) == WorkspaceAuthArgs(
        **workspace_emulator.auth_args(wire_form=wire_form)
    )
    assert set(workspace_emulator.stack_config(namespace="team")) == {
        key.replace("workspace:", "team:") for key in config
    }


@pytest.mark.steps
class TestFreshWorkspace:
    def test_a_test_changes_the_session_emulator(self, workspace_emulator: EmulatorInfo) -> None:
        client = client_for(Connection.model_validate(workspace_emulator.auth_args()))
        client.post("/api/2.0/secrets/scopes/create", {"scope": SCRATCH_SCOPE})
        assert SCRATCH_SCOPE in scope_names(workspace_emulator)

    def test_the_next_starts_from_the_initial_data(
        self, fresh_workspace_emulator: EmulatorInfo, workspace_emulator: EmulatorInfo
    ) -> None:
        assert fresh_workspace_emulator is workspace_emulator
        assert SCRATCH_SCOPE not in scope_names(fresh_workspace_emulator)


def scope_names(info: EmulatorInfo) -> set[str]:
    client = client_for(Connection.model_validate(info.auth_args()))
    scopes = client.get("/api/2.0/secrets/scopes/list").get("scopes", [])
    return {scope["name"] for scope in scopes}


def test_loading_the_plugin_imports_nothing_of_the_emulator() -> None:
    loaded = subprocess.run(
        [sys.executable, "-c",
         "import sys, workspace_emulator.pytest_plugin\n"
         "print(' '.join(sorted(m for m in ('fastapi', 'uvicorn', 'requests',"
         " 'workspace_emulator.testing', 'providers') if m in sys.modules)))"],
        check=True, capture_output=True, text=True, cwd=Path(__file__).parent,
    ).stdout.split()
    assert loaded == []


def test_without_the_extra_the_emulator_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else find_spec(name)
    )
    with pytest.raises(EmulatorExtraMissing) as raised:
        require_emulator_extra()
    assert str(raised.value) == (
        "the workspace emulator cannot run without uvicorn, which the package's `emulator` "
        f"extra installs: {INSTALL}"
    )
    assert INSTALL == "pip install 'workspace-iac[emulator]'"
