"""Two `pulumi up` of the local stack at once on the shared backend (an S3-compatible object
store), the one holding the lock SIGKILLed while the emulator holds the answer to its first
create (applied, so the state cannot record it): the other up is refused with the engine's lock
message, and the user's recovery converges with no object made twice and none lost. The
random-point trials and their figures come from `python -m tools.drills.concurrent_ups`
(docs/RELIABILITY.md)."""

from pathlib import Path

import pytest

from tools.drills.concurrent_ups import trial
from tools.object_store import ObjectStore

pytestmark = pytest.mark.engine


def test_lock_holder_killed_mid_create_then_recovered(
    tmp_path: Path, object_store: ObjectStore
) -> None:
    result = trial(tmp_path, object_store, random_state=0, total_requests=0,
                   at_first_create=True)
    assert result.refused_with_lock_message and not result.refused_ran_program
    assert result.killed_mid_up
    assert result.locks_left_after_kill == 1  # the killed holder's, in the bucket
    assert result.recovery_steps[0] == "workspace-iac recover"  # the lock, pending ops, refresh
    assert result.recovery_steps[-1] == "pulumi up"
    assert result.converged, result.output
    assert result.problems == []
    assert (result.duplicates, result.lost, result.orphans, result.lost_permissions) == (
        0, 0, 0, 0)
    assert result.pending_after_up == 0
    assert result.second_up_no_changes
