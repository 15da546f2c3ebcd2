"""A stack recorded before the providers moved into domain packages moves over without a
change.

The state is made honestly: the tree of the last commit of the flat layout (`FLAT_LAYOUT`,
taken with `git archive`) deploys the local stack's objects as it declared them (its own
Pulumi.local.yaml: the kinds added since are not in it) with its own program and provider
host. Then this checkout's program and provider host, on the same state and
emulator, preview no change, up without one write, and preview no change after a refresh.
(What such a state holds of the old module paths, the pickled providers of resources on no
`WorkspaceAuth`, is unpickled by this checkout in tests/unit/test_moved_modules.py.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from stacks.config_rules import object_lists
from tests.e2e.conftest import StackFactory
from tests.e2e.previous_code import deployed_by, tree_at
from tests.moved_modules_support import FLAT_LAYOUT
from tools.drills.local_stack import local_objects
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

pytestmark = pytest.mark.engine


def writes(info: EmulatorInfo) -> list[str]:
    return [
        f"{r['method']} {r['path']}"
        for r in request_log(info)
        if r["service"] == "platform" and r["method"] != "GET"
    ]


def objects_of(tree: Path) -> dict[str, Any]:
    """The object lists of the local stack as the code of `tree` declared it (its
    Pulumi.local.yaml: its sources are files of that tree, its kinds the ones it had)."""
    return {key: items for key, items in local_objects(None, tree / "Pulumi.local.yaml").items()
            if key in object_lists()}


def test_a_stack_recorded_by_the_flat_layout_previews_no_changes(
    workspace_stack: StackFactory, emulator: EmulatorInfo, tmp_path: Path
) -> None:
    tree = tree_at(FLAT_LAYOUT, tmp_path / "flat")
    assert (tree / "providers" / "job.py").is_file()  # the flat layout
    stack = workspace_stack(**objects_of(tree))
    deployed_by(stack, tree)
    recorded = [r["urn"] for r in stack.export()["deployment"]["resources"]]
    assert sum(":workspace:" in urn or "::workspace:" in urn for urn in recorded) >= 20

    clear_request_log(emulator)
    stack.preview("--expect-no-changes")
    stack.up("--expect-no-changes")
    assert writes(emulator) == []
    stack.preview("--refresh", "--expect-no-changes")
    assert writes(emulator) == []
    assert sorted(r["urn"] for r in stack.export()["deployment"]["resources"]) == sorted(recorded)
