"""End-to-end fixtures: the real Pulumi engine running the project's stack program against
a real emulator over HTTP. Each test gets its own emulator, state directory and stack."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from emulator.testing import EmulatorInfo, running_emulator
from providers.client import Connection, WorkspaceClient, client_for
from tools.pulumi_cli import REPO_ROOT, PulumiCli

StackFactory = Callable[..., PulumiCli]


@pytest.fixture()
def emulator() -> Iterator[EmulatorInfo]:
    with running_emulator() as info:
        yield info


def emulator_client(info: EmulatorInfo, wire_form: str = "seed") -> WorkspaceClient:
    """A client of the emulator's platform API, unthrottled, for a test's own checks."""
    return client_for(
        Connection(
            base_url=info.base_url,
            auth_url=info.auth_url,
            tenant_id=info.tenant_id,
            client_id=info.client_id,
            client_secret=info.client_secret,
            resource=info.resource,
            wire_form=wire_form,
            allow_insecure_http=True,
            rate_limit_per_second=0,
        )
    )


def connection_config(info: EmulatorInfo, wire_form: str) -> dict[str, Any]:
    return {
        "workspace:baseUrl": info.base_url,
        "workspace:authUrl": info.auth_url,
        "workspace:tenantId": info.tenant_id,
        "workspace:clientId": info.client_id,
        "workspace:resource": info.resource,
        "workspace:wireForm": wire_form,
        "workspace:allowInsecureHttp": True,
    }


@pytest.fixture()
def workspace_stack(tmp_path: Path, emulator: EmulatorInfo) -> Iterator[StackFactory]:
    """Makes a stack of the project's program (stacks/) in a scratch project directory, so
    its Pulumi.<stack>.yaml and state never touch the checkout. Call it with the
    `workspace:*` objects to declare; call `write_config` on the result to change them."""
    made: list[PulumiCli] = []

    def make(wire_form: str = "seed", secret: str | None = None, **objects: Any) -> PulumiCli:
        project = tmp_path / f"project-{len(made)}"
        project.mkdir()
        (project / "Pulumi.yaml").write_text(
            yaml.safe_dump(
                {
                    "name": "workspace",
                    "main": str(REPO_ROOT / "stacks"),
                    "runtime": {
                        "name": "python",
                        "options": {"virtualenv": str(REPO_ROOT / ".venv")},
                    },
                }
            )
        )
        cli = PulumiCli(
            project_dir=project,
            stack="e2e",
            state_dir=tmp_path / f"state-{len(made)}",
            extra_env={},
        )
        cli.select_or_init()
        cli.set_config(
            "workspace:clientSecret",
            secret if secret is not None else emulator.client_secret,
            secret=True,
        )
        write_config(
            cli,
            {
                **connection_config(emulator, wire_form),
                **{f"workspace:{k}": v for k, v in objects.items()},
            },
        )
        made.append(cli)
        return cli

    yield make


def write_config(cli: PulumiCli, config: dict[str, Any]) -> None:
    path = cli.project_dir / f"Pulumi.{cli.stack}.yaml"
    current = yaml.safe_load(path.read_text()) if path.exists() else None
    document = current or {}
    document.setdefault("config", {}).update(config)
    path.write_text(yaml.safe_dump(document))
