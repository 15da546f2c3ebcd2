"""The local stack (one object of every object kind it declares) is created,
updated and deleted, each in one `pulumi up`, while the emulator applies a share of the
platform requests and then answers them 500 or 503 or drops the connection: no object is made
twice, none is lost or left behind, every update lands, and a second up (faults still on)
changes nothing. The figures over several random states come from
`python -m tools.drills.after_write` (docs/RELIABILITY.md)."""

from pathlib import Path

import pytest

from tools.drills.after_write import (
    STEPS,
    action_kinds,
    drill,
    drilled_kinds,
    undrilled_kinds,
    updated,
)
from tools.drills.local_stack import local_objects, stack_kinds

pytestmark = pytest.mark.engine


def test_the_drill_deploys_and_changes_every_kind_it_drills() -> None:
    objects = local_objects(kinds=drilled_kinds())
    assert list(objects) == list(drilled_kinds())
    # Every object kind of the local stack has a change (its kind declares it); only actions
    # (job runs, pipeline updates) are left out.
    assert undrilled_kinds() == ()
    assert set(stack_kinds()) - set(drilled_kinds()) == set(stack_kinds()) & set(action_kinds())
    assert {"jobRuns", "pipelineUpdates"} <= set(action_kinds())
    assert len(objects) >= 26
    changed = updated(objects)
    assert [kind for kind in objects if changed[kind] == objects[kind]] == []


def test_create_update_delete_converge_under_after_write_faults(tmp_path: Path) -> None:
    run = drill(tmp_path, rate=0.4, random_state=5)
    assert [step.step for step in run.steps] == list(STEPS), run.steps[-1].output
    for step in run.steps:
        assert step.up_ok, f"{step.step}: {step.output}"
        assert step.problems == [], f"{step.step}: {step.problems}"
        assert (step.duplicates, step.orphans, step.lost) == (0, 0, 0), step.step
        assert step.second_up_no_changes, f"{step.step}: {step.output}"
    # Provider threads share one fault generator, so the mix varies between runs; at 40% of
    # ~150 platform requests, no write faulted at all would be a broken injector.
    assert sum(sum(step.faulted_writes.values()) for step in run.steps) > 0
