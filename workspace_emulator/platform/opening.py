"""Opening the workspace: the directory, then each registered area in the registry's order,
each given the areas opened before it."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from workspace_emulator.identity import IdentityProvider
from workspace_emulator.platform import directory
from workspace_emulator.platform.area import Area, AreaContext, WorkspaceSettings
from workspace_emulator.platform.areas import registered_areas
from workspace_emulator.platform.workspace import Workspace
from workspace_emulator.storage import Database


def open_workspace(db: Database, identity: IdentityProvider, settings: WorkspaceSettings,
                   areas: Sequence[Area[Any]] | None = None) -> Workspace:
    areas = registered_areas() if areas is None else areas
    # Every table first: a state may count the changes to another area's (changes_to).
    db.create_tables(directory.TABLES)
    for area in areas:
        db.create_tables(area.tables)
    context = AreaContext(db, identity,
                          directory.Directory(db, identity.application_display_name), settings)
    opened: list[tuple[Area[Any], Any]] = []
    for area in areas:
        state = area.open(context) if area.open is not None else None
        if area.permission_objects and context.served_objects_taken:
            raise ValueError(
                f"area {area.name!r} holds objects with permissions but is opened after the "
                "area that serves permissions took them: list it earlier in AREAS")
        for object_type, exists in area.permission_objects.items():
            context.served_objects[object_type] = partial(exists, state)
        for object_type, owner in area.permission_owners.items():
            context.served_owners[object_type] = partial(owner, state)
        context.opened[area.name] = state
        opened.append((area, state))
    return Workspace(settings, identity, context.directory, opened)
