"""JobPermissions deployed before Permissions existed (when it was a provider of its own)
moves over to this checkout's code without a change: the tree of the branch point (`git
archive`) deploys the local stack's jobs and their permissions as they were then, with its
own program and provider host; then this checkout's, on the same state and emulator, update
the provider alone, write nothing, refresh to the same id and access controls, and preview
no change. In the public form and the legacy one, by the name the old code knows (its
deprecated alias `seed`): the legacy form's variant runs on the modern leg (docs/testing.md,
"Test legs")."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.e2e.conftest import (
    TYPE_PREFIX,
    StackFactory,
    platform_writes,
    upgrade_updates_the_provider_alone,
)
from tests.e2e.previous_code import deployed_by, tree_at
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

# The branch point: JobPermissions as its own provider, before it became Permissions'.
BEFORE_PERMISSIONS = "103d270"


@pytest.mark.parametrize("wire_form", [
    pytest.param("seed", marks=pytest.mark.modern_leg),  # "seed": deprecated, as it was
    "public",
])
def test_job_permissions_deployed_before_are_no_change(
    workspace_stack: StackFactory, emulator: EmulatorInfo, tmp_path: Path, wire_form: str
) -> None:
    tree = tree_at(BEFORE_PERMISSIONS, tmp_path / "old")
    config = yaml.safe_load((tree / "Pulumi.local.yaml").read_text())["config"]
    objects = {"jobs": config["workspace:jobs"],
               "jobPermissions": config["workspace:jobPermissions"]}
    stack = workspace_stack(wire_form=wire_form, **objects)
    deployed_by(stack, tree)
    [before] = [r for r in stack.export()["deployment"]["resources"]
                if r["type"] == TYPE_PREFIX + "JobPermissions"]

    clear_request_log(emulator)
    upgrade_updates_the_provider_alone(stack)
    assert platform_writes(emulator) == [], "the same type token, inputs and id: nothing to do"
    stack.preview("--expect-no-changes")
    stack.refresh()
    [after] = [r for r in stack.export()["deployment"]["resources"]
               if r["type"] == TYPE_PREFIX + "JobPermissions"]
    assert (after["id"], after["outputs"]["access_controls"]) == (
        before["id"], before["outputs"]["access_controls"])
    stack.preview("--expect-no-changes")
    stack.destroy()
