"""Fixtures of the emulator tests: one shared emulator, an authenticated HTTP client, and a
shared emulator on a manual clock (reset to its initial data before each test that uses
it) for the time-based states: cluster moves, job runs, token expiry."""

from __future__ import annotations

import pytest

from tests.conftest import emulator_fixture
from tests.emulator.support import Api
from workspace_emulator.testing import EmulatorInfo, fetch_token, reset_workspace

# A state move or a run takes this long on the manual clock: a test advances it.
MANUAL_TRANSITION_SECONDS = 60

emulator = emulator_fixture("session")
manual_clock_emulator = emulator_fixture(
    "session", clock="manual", transition_seconds=MANUAL_TRANSITION_SECONDS)


@pytest.fixture(scope="session")
def api(emulator: EmulatorInfo) -> Api:
    """The bootstrap service principal (a workspace admin)."""
    return Api(emulator.base_url, fetch_token(emulator))


@pytest.fixture
def manual(manual_clock_emulator: EmulatorInfo) -> EmulatorInfo:
    """The manual-clock emulator, back at its initial data (the clock stays where it is)."""
    reset_workspace(manual_clock_emulator)
    return manual_clock_emulator


@pytest.fixture
def manual_api(manual: EmulatorInfo) -> Api:
    """The bootstrap principal on the manual-clock emulator, with a token of the clock's
    current time."""
    return Api(manual.base_url, fetch_token(manual))
