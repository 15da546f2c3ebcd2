"""The single-write mode (stacks/single_write.py, providers/auth/single_write.py): each
engine gets the variables it reads, a team turns the mode on or off by config or variable,
and a stack holding resources of other providers is refused with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from providers.auth import single_write as program_side
from providers.core.kind import TYPE_PREFIX
from stacks import single_write
from stacks.pulumi_cli import PulumiCli, engine_variables

STACK = "urn:pulumi:dev::workspace::pulumi:pulumi:Stack::workspace-dev"


def resource(type_: str, name: str, custom: bool = True) -> dict:
    return {"type": type_, "urn": f"urn:pulumi:dev::workspace::{type_}::{name}", "custom": custom}


def deployment(*resources: dict) -> dict:
    return {"deployment": {"resources": [resource("pulumi:pulumi:Stack", "s", False),
                                         *resources]}}


def test_the_program_side_prefix_is_the_kinds_prefix() -> None:
    assert program_side.WORKSPACE_TYPE_PREFIX == TYPE_PREFIX


def test_each_engine_gets_the_variables_it_reads(monkeypatch, tmp_path: Path) -> None:
    assert engine_variables("classic") == {
        "PULUMI_SKIP_CHECKPOINTS": "true", "PULUMI_EXPERIMENTAL": "true"}
    # The modern engine reads PULUMI_SKIP_CHECKPOINTS without PULUMI_EXPERIMENTAL.
    assert engine_variables("modern") == {"PULUMI_SKIP_CHECKPOINTS": "true"}
    monkeypatch.delenv("PULUMI_SKIP_CHECKPOINTS", raising=False)
    monkeypatch.setattr("stacks.pulumi_cli.engine_bin_dir", lambda: tmp_path)
    cli = PulumiCli(tmp_path, "dev", tmp_path / "state")
    assert "PULUMI_SKIP_CHECKPOINTS" not in cli.env()
    cli.single_write = True
    assert cli.env()["PULUMI_SKIP_CHECKPOINTS"] == "true"
    assert cli.env("up")["PULUMI_SKIP_CHECKPOINTS"] == "true"


def test_a_preview_is_never_in_the_mode(monkeypatch, tmp_path: Path) -> None:
    """The 3.79 engine, skipping its checkpoints, saves what `preview --refresh` read: a
    preview (the drift report's, the pull request's) would write the state
    (tests/e2e/test_service_credential.py step 4 saw it)."""
    monkeypatch.delenv("PULUMI_SKIP_CHECKPOINTS", raising=False)
    monkeypatch.setattr("stacks.pulumi_cli.engine_bin_dir", lambda: tmp_path)
    cli = PulumiCli(tmp_path, "dev", tmp_path / "state", single_write=True)
    assert "PULUMI_SKIP_CHECKPOINTS" not in cli.env("preview")
    assert "PULUMI_EXPERIMENTAL" not in cli.env("preview")
    for writing in ("up", "destroy", "refresh", "import"):
        assert cli.env(writing)["PULUMI_SKIP_CHECKPOINTS"] == "true", writing
    # Nor where the caller's environment has it (a command run by one in the mode).
    monkeypatch.setenv("PULUMI_SKIP_CHECKPOINTS", "true")
    assert "PULUMI_SKIP_CHECKPOINTS" not in PulumiCli(tmp_path, "dev", tmp_path / "s").env(
        "preview")


def write_config(project: Path, config: dict) -> None:
    (project / "Pulumi.dev.yaml").write_text(yaml.safe_dump({"config": config}))


def test_a_team_turns_it_on_by_config_and_the_variable_wins(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv(single_write.MODE_VARIABLE, raising=False)
    assert not single_write.requested(tmp_path, "dev")
    assert single_write.requested(tmp_path, "dev", default=True)
    write_config(tmp_path, {"workspace:singleWrite": True})
    assert single_write.requested(tmp_path, "dev")
    write_config(tmp_path, {"workspace:singleWrite": "false"})
    assert not single_write.requested(tmp_path, "dev", default=True)
    monkeypatch.setenv(single_write.MODE_VARIABLE, "true")
    assert single_write.requested(tmp_path, "dev")
    monkeypatch.setenv(single_write.MODE_VARIABLE, "sometimes")
    with pytest.raises(single_write.SingleWriteRefused,
                       match="WORKSPACE_IAC_SINGLE_WRITE: 'sometimes' is neither true nor false"):
        single_write.requested(tmp_path, "dev")


def test_a_state_of_workspace_kinds_providers_and_components_is_accepted() -> None:
    assert single_write.refusal_for(deployment(
        resource("pulumi:providers:pulumi-python", "workspace"),
        resource("workspace:auth:WorkspaceAuth", "workspace", custom=False),
        resource(f"{TYPE_PREFIX}Job", "etl"),
    )) is None


def test_a_state_with_another_providers_resource_is_refused_with_the_reason() -> None:
    why = single_write.refusal_for(deployment(
        resource(f"{TYPE_PREFIX}Job", "etl"),
        resource("aws:s3/bucket:Bucket", "logs"),
        resource("pulumi-python:dynamic:Resource", "mine"),
    ))
    assert why is not None
    assert "resource 'logs' (aws:s3/bucket:Bucket)" in why
    assert "resource 'mine' (pulumi-python:dynamic:Resource)" in why
    assert "could be made twice or lost" in why
    assert "etl" not in why
