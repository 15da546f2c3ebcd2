"""Shared fixtures of the provider tests: one emulator per session, the bootstrap
principal's connection props in both wire forms, the create a diff test starts from, and a
fresh secret scope."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from providers.client import WorkspaceClient
from providers.core.lifecycle import WorkspaceProvider
from providers.secrets.secret_scopes_api import SecretScopesApi
from tests.conftest import emulator_connection, emulator_fixture
from tests.providers.support import client_of
from workspace_emulator.testing import EmulatorInfo

emulator = emulator_fixture("session")


@pytest.fixture(params=["legacy", "public"])
def connection(request: pytest.FixtureRequest, emulator: EmulatorInfo) -> dict[str, Any]:
    """The props of a `providers.client.Connection` for the bootstrap principal."""
    return emulator_connection(emulator, request.param).to_props()


@pytest.fixture
def client(connection: dict[str, Any]) -> WorkspaceClient:
    """A plain client on the same connection, to look at the emulator beside the provider."""
    return client_of(connection)


@pytest.fixture
def created(
    provider: WorkspaceProvider, props: dict[str, Any]
) -> tuple[str, dict[str, Any] | None]:
    """(id, outputs) of the module's `props` created through its `provider`."""
    result = provider.create(props)
    return result.id, result.outs


@pytest.fixture
def created_then_deleted(
    provider: WorkspaceProvider, props: dict[str, Any]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(id, outputs) of the module's `props` created through its `provider`, deleted after
    the test."""
    result = provider.create(props)
    assert result.outs is not None
    yield result.id, result.outs
    provider.delete(result.id, result.outs)


@pytest.fixture
def scope(client: WorkspaceClient) -> str:
    """The name of a secret scope made for the test."""
    name = f"s-{uuid.uuid4().hex[:10]}"
    SecretScopesApi(client).create(name)
    return name
