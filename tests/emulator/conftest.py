"""Fixtures of the emulator tests: one shared emulator, an authenticated HTTP client."""

from __future__ import annotations

import pytest

from emulator.testing import EmulatorInfo, fetch_token
from tests.conftest import emulator_fixture
from tests.emulator.support import Api

emulator = emulator_fixture("session")


@pytest.fixture(scope="session")
def api(emulator: EmulatorInfo) -> Api:
    """The bootstrap service principal (a workspace admin)."""
    return Api(emulator.base_url, fetch_token(emulator))
