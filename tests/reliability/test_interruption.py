"""Interrupted deployments converge: the `pulumi` process SIGKILLed while the answer to
the local stack's first create is held (the create applied, so the stack's state cannot
record it), or the emulator SIGKILLed and restarted the moment it acknowledges one. After a
killed `pulumi`, one command recovers the stack (`workspace-iac recover`, stacks/recover.py),
in the default mode and in the single-write mode (stacks/single_write.py). The random-point
trials and their figures come from `python -m tools.drills.interruption`
(docs/RELIABILITY.md)."""

from pathlib import Path

import pytest

from tools.drills import interrupt, inventory
from tools.drills.interruption import (
    emulator_kill_trial,
    pulumi_kill_trial,
    reference_platform_requests,
)
from tools.drills.local_stack import connection_config, scratch_stack, write_stack_config
from workspace_emulator.testing import running_emulator

pytestmark = pytest.mark.engine


def test_pulumi_killed_mid_create_then_resumed(tmp_path: Path) -> None:
    trial = pulumi_kill_trial(tmp_path, random_state=0, total_requests=0,
                              at_first_create=True)
    assert trial.killed_mid_up
    assert trial.made_but_unrecorded >= 1  # the acknowledged create, unknown to the state
    assert trial.recovery_steps[0] == interrupt.RECOVER_STEP  # one command, then the up
    assert "  removed the stale lock (`pulumi cancel --yes`)" in trial.recovery_steps
    assert trial.converged, trial.output
    assert trial.problems == []
    assert (trial.duplicates, trial.orphans, trial.lost_permissions) == (0, 0, 0)
    assert trial.pending_after_up == 0
    assert trial.second_up_no_changes


def test_single_write_up_killed_mid_create_recovered_by_one_command(tmp_path: Path) -> None:
    """In the single-write mode the killed up recorded nothing (the engine writes the state
    at the end only), so the one command has no pending operation to clear; the next up
    adopts what the killed one made."""
    trial = pulumi_kill_trial(tmp_path, random_state=0, total_requests=0,
                              at_first_create=True, single_write=True)
    assert trial.kind == "pulumi-single-write"
    assert trial.killed_mid_up
    assert trial.resources_recorded_after_kill == 0  # no checkpoint during the up
    assert trial.made_but_unrecorded >= 1
    assert trial.pending_after_crash == 0
    assert trial.recovery_steps[0] == interrupt.RECOVER_STEP
    assert trial.recovery_steps[-1] == "pulumi up"
    assert trial.converged, trial.output
    assert trial.problems == []
    assert (trial.duplicates, trial.lost, trial.orphans, trial.lost_permissions) == (0, 0, 0, 0)
    assert trial.second_up_no_changes and trial.preview_no_changes


@pytest.mark.parametrize("random_state", [3, 8])
def test_single_write_up_killed_at_a_random_point_recovered_by_one_command(
        tmp_path: Path, random_state: int) -> None:
    """A few of the drill's random-point trials in the single-write mode (the full run:
    `python -m tools.drills.interruption --single-write-trials N`)."""
    total = reference_platform_requests(tmp_path / "reference")
    trial = pulumi_kill_trial(tmp_path / "trial", random_state, total, single_write=True)
    assert trial.pending_after_crash == 0
    assert trial.converged, trial.output
    assert trial.problems == []
    assert (trial.duplicates, trial.lost, trial.orphans, trial.lost_permissions) == (0, 0, 0, 0)
    assert trial.second_up_no_changes and trial.preview_no_changes


def test_emulator_killed_mid_create_then_restarted(tmp_path: Path) -> None:
    trial = emulator_kill_trial(tmp_path, random_state=0, total_requests=0,
                                at_first_create=True)
    assert trial.killed_mid_up
    assert trial.acknowledged_lost == 0
    assert trial.converged, trial.output
    assert trial.problems == []
    assert (trial.duplicates, trial.orphans, trial.lost_permissions) == (0, 0, 0)
    assert trial.second_up_no_changes


def test_checkpoint_cut_short_is_restored_from_its_backup(tmp_path: Path) -> None:
    """When the kill truncates the checkpoint file itself (seen once in the random-point drill),
    the previous checkpoint, `<stack>.json.bak`, is put back and the next up converges."""
    with running_emulator() as info:
        stack = scratch_stack(tmp_path, info, objects={"secretScopes": [{"name": "kept"}]})
        stack.up()
        write_stack_config(stack, {**connection_config(info), "workspace:secretScopes": [
            {"name": "kept"}, {"name": "added"}]})
        stack.up()  # the .bak now holds the state with "kept" only
        checkpoint = stack.state_dir / ".pulumi" / "stacks" / "workspace" / "local.json"
        checkpoint.write_bytes(b"")
        assert interrupt.checkpoint_broken(stack)

        recovery, result = interrupt.resume(stack)
        assert recovery.checkpoint_restored
        assert result.returncode == 0, result.stdout + result.stderr
        assert inventory.take(info).scopes.count("added") == 1  # adopted, not made twice
        stack.up("--expect-no-changes")
