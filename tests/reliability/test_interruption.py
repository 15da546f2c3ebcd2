"""Interrupted deployments converge: the `pulumi` process SIGKILLed while the answer to
the local stack's first create is held (the create applied, so the stack's state cannot
record it), or the emulator SIGKILLed and restarted the moment it acknowledges one. The
random-point trials and their figures come from `python -m tools.drills.interruption`
(docs/RELIABILITY.md)."""

from pathlib import Path

import pytest

from tools.drills import interrupt, inventory
from tools.drills.interruption import emulator_kill_trial, pulumi_kill_trial
from tools.drills.local_stack import connection_config, scratch_stack, write_stack_config
from workspace_emulator.testing import running_emulator

pytestmark = pytest.mark.engine


def test_pulumi_killed_mid_create_then_resumed(tmp_path: Path) -> None:
    trial = pulumi_kill_trial(tmp_path, random_state=0, total_requests=0,
                              at_first_create=True)
    assert trial.killed_mid_up
    assert trial.made_but_unrecorded >= 1  # the acknowledged create, unknown to the state
    assert "pulumi cancel --yes" in trial.recovery_steps  # the file backend's stale lock
    assert trial.converged, trial.output
    assert trial.problems == []
    assert (trial.duplicates, trial.orphans, trial.lost_permissions) == (0, 0, 0)
    assert trial.pending_after_up == 0
    assert trial.second_up_no_changes


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
