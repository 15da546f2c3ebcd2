"""The committed project file and program entry run unchanged under the pinned engine: the
`local` stack from a directory laid out like a checkout (Pulumi.yaml copied as it is), up,
a no-op up, an audit that finds nothing unmanaged, and destroy: what `make demo`, `make
audit` and `make demo-down` run. The relative plugin path of Pulumi.yaml once broke here
while every test with a generated project file passed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.e2e.conftest import PlatformApi
from tests.e2e.team_support import checkout_like, environment_stack, run_audit
from tools.drills import inventory
from tools.drills.local_stack import local_objects
from workspace_emulator.testing import EmulatorInfo

pytestmark = pytest.mark.engine

CATALOGS = ("finance",)
RULE_SETS = "/api/2.0/preview/accounts/access-control/rule-sets"
MANAGER_ROLE = "roles/servicePrincipal.manager"


def health_gate_at(stack_file: Path, info: EmulatorInfo) -> None:
    """The committed health gate's addresses (the demo's fixed ports) swapped for `info`'s."""
    document = yaml.safe_load(stack_file.read_text())
    document["config"]["workspace:health"].update(
        appUrl=info.app_url, adminUrl=info.admin_url, flowApiBase=info.flow_api_base)
    stack_file.write_text(yaml.safe_dump(document))


def principal_rule_sets(stack_file: Path) -> list[str]:
    """The rule set names of the service principals the stack file declares."""
    config = yaml.safe_load(stack_file.read_text())["config"]
    return [
        f"accounts/{config['workspace:accountId']}/servicePrincipals/{p['application_id']}"
        "/ruleSets/default"
        for p in config["workspace:servicePrincipals"]
    ]


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
    # The stack made its principals: as on the service, their creator (the deployer, here
    # the emulator's bootstrap principal) holds each one's manager role. The audit counts
    # that rule set as the principal's own, not as unmanaged.
    rule_sets = principal_rule_sets(checkout / "Pulumi.local.yaml")
    assert rule_sets
    for name in rule_sets:
        held = PlatformApi(emulator).call("GET", RULE_SETS, params={"name": name, "etag": ""})
        assert held.get("grant_rules") == [{"role": MANAGER_ROLE, "principals": [
            f"servicePrincipals/{emulator.client_id}"]}], name
    # What `make audit` shows after `make demo`: everything the workspace holds is the
    # stack's, made beside one of its objects, or of the initial data it ignores.
    run_audit(stack, expect=0, says="nothing unmanaged")

    stack.destroy()
    assert inventory.take(emulator, CATALOGS) == before
    assert stack.export()["deployment"].get("resources") in (None, [])
