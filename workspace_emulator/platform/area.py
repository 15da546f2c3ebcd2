"""What an area of the workspace is: one package of platform/areas/ holding its state (the
model), its routes, its tables and its fidelity entries, found through the registry
(platform/areas/__init__.py, `AREAS`).

The type lives here, beside the Workspace and the authentication, rather than in the areas
package: both need it, and every area's routes need the authentication.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from fastapi import APIRouter

from workspace_emulator.identity import IdentityProvider, TokenGrant
from workspace_emulator.platform.directory import Directory
from workspace_emulator.platform.fidelity import Fidelity
from workspace_emulator.storage import Database

State = TypeVar("State")
Wanted = TypeVar("Wanted")

AREAS_MODULE = "workspace_emulator/platform/areas/__init__.py"


@dataclass(frozen=True)
class WorkspaceSettings:
    """What the workspace is, as stored with its data (initial_data.StoredConfig) and as
    the emulator was started."""

    workspace_id: int
    metastore_id: str
    base_url: str
    transition_seconds: float
    # The workspace as an Azure resource: its id, and the address its management tokens
    # are for (platform/workspace_admission.py).
    azure_resource_id: str = ""
    management_resource: str = ""


@dataclass(frozen=True)
class Mount:
    """A router of the area, served under `prefix` (e.g. once per API version)."""

    router: APIRouter
    prefix: str = ""


@dataclass
class AreaContext:
    """What an area's `open` builds its state from: the database (its tables already made),
    the identity provider, the directory, the settings, and the areas opened before it."""

    db: Database
    identity: IdentityProvider
    directory: Directory
    settings: WorkspaceSettings
    opened: dict[str, Any] = field(default_factory=dict)
    # object type -> whether an object of that id exists, of the areas opened so far
    served_objects: dict[str, Callable[[str], bool]] = field(default_factory=dict)
    # object type -> the owner of an object of that id, for the types whose store knows it
    served_owners: dict[str, Callable[[str], tuple[str, str] | None]] = field(
        default_factory=dict)
    served_objects_taken: bool = False

    def state(self, kind: type[Wanted]) -> Wanted:
        """The state of an area opened before this one, found by its class."""
        for state in self.opened.values():
            if isinstance(state, kind):
                return state
        raise LookupError(
            f"no area opened so far holds a {kind.__name__}: list the area that does before "
            f"this one in AREAS ({AREAS_MODULE})")

    def permission_objects(self) -> dict[str, Callable[[str], bool]]:
        """The object types with permissions that the areas opened so far hold
        (`Area.permission_objects`), each with whether an object of that id exists."""
        self.served_objects_taken = True
        return dict(self.served_objects)

    def permission_owners(self) -> dict[str, Callable[[str], tuple[str, str] | None]]:
        """The owner each object of a type has before its permissions are first changed,
        for the types of `permission_objects` whose store knows it."""
        return dict(self.served_owners)


@dataclass(frozen=True)
class InitialData:
    """The initial-data file, for an area to add its objects from, inside the one
    transaction that applies it (initial_data.py)."""

    conn: sqlite3.Connection
    sections: Mapping[str, Any]
    workspace_id: int
    directory: Directory

    def section(self, name: str) -> list[Any]:
        return list(self.sections.get(name, []))


@dataclass(frozen=True)
class Area(Generic[State]):
    """One area of the workspace API. Only `name` is required; an area with no `open`
    holds no state (its routes use other areas')."""

    name: str  # the package's name, and the state's attribute: workspace.<name>
    open: Callable[[AreaContext], State] | None = None
    tables: str = ""  # `CREATE ... IF NOT EXISTS` statements
    routers: tuple[Mount, ...] = ()
    # Where its routers come in the order a request is matched (lower first). FastAPI
    # spends several microseconds on each route it passes over, so the areas clients call
    # most come first; no path is served by two routers (tests/emulator/test_routing.py),
    # so the order changes nothing but the time.
    route_priority: int = 100
    # "<METHOD> <path without /api/<version>>" -> how faithfully it is served (support.py)
    support: Mapping[str, Fidelity] = field(default_factory=dict)
    # what the service has in this area and the emulator answers 404: heading -> operations
    not_served: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # adds the area's objects of the initial-data file
    initial_data: Callable[[State, InitialData], None] | None = None
    # object type of /permissions/<type>/<id> -> whether the state holds that id
    permission_objects: Mapping[str, Callable[[State, str], bool]] = field(
        default_factory=dict)
    # object type -> the owner (kind, name) an object of that id has before its
    # permissions are first changed (its creator), None for none
    permission_owners: Mapping[str, Callable[[State, str], tuple[str, str] | None]] = field(
        default_factory=dict)
    # raises when requests from this address (and workspace id) are refused, before the
    # credentials are looked at (IP access lists)
    refuses_address: Callable[[State, str, int], None] | None = None
    # a token the identity provider does not know, as this area knows it (token, platform
    # resource): personal access tokens
    resolves_token: Callable[[State, str, str], TokenGrant | None] | None = None
