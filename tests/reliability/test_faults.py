"""The whole local stack converges in one `pulumi up` while a fifth of all requests fail
(429 with Retry-After, 500, 503, dropped connections); the emulator then holds exactly the
declared objects and a second up, faults still on, changes nothing.
The side-by-side figures come from `python -m tools.drills.faults` (docs/RELIABILITY.md)."""

from pathlib import Path

import pytest

from tools.drills.faults import FAULT_KINDS, deploy

pytestmark = pytest.mark.engine


def test_local_stack_converges_under_faults(tmp_path: Path) -> None:
    result = deploy(tmp_path, rate=0.2, random_state=11)
    assert result.up_ok, result.up_output[-3000:]
    assert result.problems == []
    assert (result.duplicates, result.orphans, result.lost_permissions) == (0, 0, 0)
    assert result.second_up_no_changes
    # Four provider threads share one fault generator, so the mix varies between runs;
    # at 20% of ~45 requests, none at all would be a broken injector.
    assert sum(result.faults[kind] for kind in FAULT_KINDS) > 0, result.faults
