"""Every kind declares what the after-write drill changes in an item of it (`drill=` in its
`declare(...)`), or that it is an action (`action=`), and each declared change makes a valid
update: tried on the kind's items in the local stack, or else on its docs page's example.
The drill itself runs under the engine (tests/reliability/test_after_write_faults.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from providers.core.kind import Kind
from providers.core.registry import by_config_key, kinds
from stacks.config_rules import problems
from tools.drills.after_write import (
    action_kinds,
    drill_changes,
    drilled_kinds,
    undrilled_kinds,
    updated,
    without_drill_change,
)
from tools.drills.local_stack import NAMESPACE, local_objects, stack_kinds

REPO_ROOT = Path(__file__).resolve().parents[2]
DRILLED = [kind for kind in kinds() if kind.drill is not None]


def test_every_kind_declares_its_drill_change_or_that_it_is_an_action() -> None:
    assert without_drill_change() == []


def test_the_actions_are_the_cluster_state_the_job_run_and_the_pipeline_update() -> None:
    assert action_kinds() == ("clusterStates", "pipelineUpdates", "jobRuns")
    assert {kind.name for kind in kinds() if kind.action} == {
        "ClusterState", "JobRun", "PipelineUpdate"
    }


def test_the_drill_changes_every_object_kind_of_the_local_stack() -> None:
    assert undrilled_kinds() == ()
    actions = {key for key, kind in by_config_key().items() if kind.action is not None}
    assert drilled_kinds() == tuple(key for key in stack_kinds() if key not in actions)
    assert set(drill_changes()) == {kind.config_key for kind in DRILLED}


def example_config(kind: Kind) -> dict[str, Any]:
    """The stack-config lists where the kind's items are tried: the local stack's (every
    kind it declares), or else the first YAML example of the kind's docs page that declares
    its list (with the lists it references)."""
    if kind.config_key in stack_kinds():
        return local_objects(kinds=None)
    key = f"{NAMESPACE}:{kind.config_key}:"
    page = (REPO_ROOT / kind.doc).read_text()
    for block in re.findall(r"```yaml\n(.*?)```", page, re.S):
        if re.search(rf"^{re.escape(key)}", block, re.M):
            return {k.removeprefix(f"{NAMESPACE}:"): v for k, v in yaml.safe_load(block).items()}
    raise AssertionError(
        f"{kind.name}: no item to try its drill change on: declare one in Pulumi.local.yaml "
        f"or in a YAML example of {kind.doc}"
    )


@pytest.mark.parametrize("kind", DRILLED, ids=lambda kind: kind.name)
def test_the_drill_change_is_a_valid_update_of_the_same_resources(kind: Kind) -> None:
    key = kind.config_key
    assert key is not None and by_config_key()[key] is kind
    values = example_config(kind)
    items = values[key]
    changed = updated({key: items})[key]
    assert [item["name"] for item in changed] == [item["name"] for item in items]
    assert changed != items
    assert values[key] == items  # the change works on a copy
    # The changed list breaks no rule the declared one keeps (both lack the connection, and
    # the local stack's secrets are read decrypted).
    assert problems({**values, key: changed}) == problems(values)


def test_the_update_of_a_kind_without_a_change_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"^no drill change declared for jobRuns: "):
        updated({"jobs": [], "jobRuns": [{"name": "smoke", "job": "nightly-etl"}]})
