"""Fixtures of the emulator tests: one shared emulator, an authenticated HTTP client."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from emulator.testing import EmulatorInfo, fetch_token, running_emulator
from tests.emulator.support import Api


@pytest.fixture(scope="session")
def emulator() -> Iterator[EmulatorInfo]:
    with running_emulator() as info:
        yield info


@pytest.fixture(scope="session")
def api(emulator: EmulatorInfo) -> Api:
    """The bootstrap service principal (a workspace admin)."""
    return Api(emulator.base_url, fetch_token(emulator))
