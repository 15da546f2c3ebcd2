"""Helpers shared by the provider tests."""

from typing import Any

from providers.client import Connection, WorkspaceClient, client_for
from providers.lifecycle import WorkspaceProvider


def failures(provider: WorkspaceProvider, props: dict[str, Any]) -> dict[str, str]:
    """The provider's check failures, keyed by the field they name."""
    return {f.property: f.reason for f in provider.check({}, props).failures}


def client_of(connection: dict[str, Any]) -> WorkspaceClient:
    """The client of a provider's connection props."""
    return client_for(Connection.from_props(connection))
