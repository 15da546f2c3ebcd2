"""The committed project file and program entry run unchanged under the pinned engine: the
`local` stack from a directory laid out like a checkout (Pulumi.yaml copied as it is), up,
a no-op up, an audit that finds nothing unmanaged, and destroy: what `make demo`, `make
audit` and `make demo-down` run. The relative plugin path of Pulumi.yaml once broke here
while every test with a generated project file passed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.e2e.team_support import checkout_like, environment_stack, run_audit
from tools.drills import inventory
from tools.drills.local_stack import local_objects
from workspace_emulator.testing import EmulatorInfo

pytestmark = pytest.mark.engine

CATALOGS = ("finance",)


def health_gate_at(stack_file: Path, info: EmulatorInfo) -> None:
    """The committed health gate's addresses (the demo's fixed ports) swapped for `info`'s."""
    document = yaml.safe_load(stack_file.read_text())
    document["config"]["workspace:health"].update(
        appUrl=info.app_url, adminUrl=info.admin_url, flowApiBase=info.flow_api_base)
    stack_file.write_text(yaml.safe_dump(document))


def test_committed_project_up_noop_and_destroy(tmp_path: Path, emulator: EmulatorInfo) -> None:
    checkout = checkout_like(tmp_path / "checkout")
    stack = environment_stack(checkout, "local", emulator)
    health_gate_at(checkout / "Pulumi.local.yaml", emulator)
    before = inventory.take(emulator, CATALOGS)

    stack.up()
    verdict = inventory.judge(before, inventory.take(emulator, CATALOGS), local_objects(kinds=None),
                              "workspace/local/")
    assert verdict.problems == []
    stack.up("--expect-no-changes")
    # What `make audit` shows after `make demo`: everything the workspace holds is the
    # stack's, made beside one of its objects, or of the initial data it ignores.
    audited = run_audit(stack)
    assert audited.returncode == 0 and "nothing unmanaged" in audited.stdout, audited.stdout

    stack.destroy()
    assert inventory.take(emulator, CATALOGS) == before
    assert stack.export()["deployment"].get("resources") in (None, [])
