"""Shared fixtures of the provider tests: one emulator per session, and the bootstrap
principal's connection props in both wire forms."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from emulator.testing import EmulatorInfo, running_emulator
from providers.client import Connection, WorkspaceClient, client_for


@pytest.fixture(scope="session")
def emulator() -> Iterator[EmulatorInfo]:
    with running_emulator() as info:
        yield info


@pytest.fixture(params=["seed", "public"])
def connection(request: pytest.FixtureRequest, emulator: EmulatorInfo) -> dict[str, Any]:
    """The props of a `providers.client.Connection` for the bootstrap principal."""
    return Connection(
        base_url=emulator.base_url,
        auth_url=emulator.auth_url,
        tenant_id=emulator.tenant_id,
        client_id=emulator.client_id,
        client_secret=emulator.client_secret,
        resource=emulator.resource,
        wire_form=request.param,
        allow_insecure_http=True,
        rate_limit_per_second=0,
    ).to_props()


@pytest.fixture
def client(connection: dict[str, Any]) -> WorkspaceClient:
    """A plain client on the same connection, to look at the emulator beside the provider."""
    return client_for(Connection.from_props(connection))
