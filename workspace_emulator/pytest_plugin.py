"""pytest fixtures of a running emulator, for a team testing its own Pulumi program
(docs/testing-your-program.md). The package registers this module as a pytest plugin (the
`pytest11` entry point `workspace_emulator`), so installing `workspace-iac[emulator]` is all a
test needs:

    from providers import WorkspaceAuthArgs

    def test_something(workspace_emulator):
        args = WorkspaceAuthArgs(**workspace_emulator.auth_args())
        config = workspace_emulator.stack_config()   # {"workspace:baseUrl": (value, secret)...}

`workspace_emulator` is one emulator for the test session (an `EmulatorInfo`, see
workspace_emulator/testing.py); `fresh_workspace_emulator` is the same one, returned to its
initial data (and its faults turned off) before the test. Override the session fixture
`workspace_emulator_options` to start it with other options (`{"transition_seconds": 1}`:
the keyword flags of `running_emulator`).

Importing this module imports nothing of the emulator itself: the plugin loads in every
pytest run of an environment that has the package, with or without the extra; a test that
uses a fixture without the extra fails saying what to install.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from workspace_emulator.extra import missing_extra

if TYPE_CHECKING:
    from workspace_emulator.testing import EmulatorInfo


@pytest.fixture(scope="session")
def workspace_emulator_options() -> dict[str, Any]:
    """The options of the session's emulator; none but the test defaults (free ports, in
    memory, immediate state transitions)."""
    return {}


@pytest.fixture(scope="session")
def workspace_emulator(workspace_emulator_options: dict[str, Any]) -> Iterator[EmulatorInfo]:
    """One emulator for the session, stopped at its end."""
    problem = missing_extra()
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    from workspace_emulator.testing import running_emulator

    with running_emulator(**workspace_emulator_options) as info:
        yield info


@pytest.fixture
def fresh_workspace_emulator(workspace_emulator: EmulatorInfo) -> EmulatorInfo:
    """The session's emulator with its initial data and no faults (tokens already issued and
    a manual clock's time are kept)."""
    from workspace_emulator.testing import reset_workspace, set_faults

    set_faults(workspace_emulator)
    reset_workspace(workspace_emulator)
    return workspace_emulator
