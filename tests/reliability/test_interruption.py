"""Interrupted deployments converge: the `pulumi` process SIGKILLed, or the emulator
SIGKILLed and restarted, the moment the first create of the local stack is acknowledged
(the stack's state cannot record it yet). The seeded random-point trials and their figures
come from `python -m tools.drills.interruption` (docs/RELIABILITY.md)."""

from pathlib import Path

import pytest

from tools.drills.interruption import emulator_kill_trial, pulumi_kill_trial

pytestmark = pytest.mark.engine



def test_pulumi_killed_mid_create_then_resumed(tmp_path: Path) -> None:
    trial = pulumi_kill_trial(tmp_path, seed=0, total_requests=0,
                              at_first_create=True)
    assert trial.killed_mid_up
    assert trial.recovery_steps[0] == "pulumi cancel --yes"  # the file backend's stale lock
    assert trial.converged, trial.output
    assert trial.problems == []
    assert (trial.duplicates, trial.orphans, trial.lost_permissions) == (0, 0, 0)
    assert trial.pending_after_up == 0
    assert trial.second_up_no_changes


def test_emulator_killed_mid_create_then_restarted(tmp_path: Path) -> None:
    trial = emulator_kill_trial(tmp_path, seed=0, total_requests=0,
                                at_first_create=True)
    assert trial.killed_mid_up
    assert trial.acknowledged_lost == 0
    assert trial.converged, trial.output
    assert trial.problems == []
    assert (trial.duplicates, trial.orphans, trial.lost_permissions) == (0, 0, 0)
    assert trial.second_up_no_changes
