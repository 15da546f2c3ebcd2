"""End-to-end fixtures: the real Pulumi engine running the project's stack program against
a real emulator over HTTP.

The fixtures are class-scoped: a test function outside a class gets its own emulator, state
directory and stack (pytest makes a class-scoped fixture per function there), and a class
of steps (`@pytest.mark.steps`, see tests/conftest.py) shares one emulator through all its
steps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml

from emulator.testing import EmulatorInfo
from stacks.config_rules import object_lists
from tests.conftest import emulator_fixture
from tools.drills.local_stack import scratch_stack
from tools.pulumi_cli import REPO_ROOT, PulumiCli

StackFactory = Callable[..., PulumiCli]
STACK = "e2e"

# The object lists of the project's `local` stack (Pulumi.local.yaml), by kind.
LOCAL_OBJECTS: dict[str, Any] = {
    key.removeprefix("workspace:"): value
    for key, value in yaml.safe_load((REPO_ROOT / "Pulumi.local.yaml").read_text())[
        "config"
    ].items()
    if key.removeprefix("workspace:") in object_lists()
}

emulator = emulator_fixture("class")


@pytest.fixture(scope="class")
def workspace_stack(
    tmp_path_factory: pytest.TempPathFactory, emulator: EmulatorInfo
) -> StackFactory:
    """Makes a stack of the project's program (stacks/) in a scratch project directory, so
    its Pulumi.<stack>.yaml and state never touch the checkout. Call it with the
    `workspace:*` objects to declare; call `write_config` on the result to change them."""

    def make(wire_form: str = "seed", secret: str | None = None, **objects: Any) -> PulumiCli:
        return scratch_stack(
            tmp_path_factory.mktemp("stack"),
            emulator,
            objects=objects,
            stack=STACK,
            secret=secret,
            wire_form=wire_form,
        )

    return make


def write_config(cli: PulumiCli, config: dict[str, Any]) -> None:
    """Merges `config` into the stack's settings file (other keys are kept)."""
    path = cli.project_dir / f"Pulumi.{cli.stack}.yaml"
    current = yaml.safe_load(path.read_text()) if path.exists() else None
    document = current or {}
    document.setdefault("config", {}).update(config)
    path.write_text(yaml.safe_dump(document))
