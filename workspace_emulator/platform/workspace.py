"""The workspace the platform serves: its settings, the identity provider, the directory of
principals, and the state of each area as an attribute named after it (`workspace.jobs`,
`workspace.ip_access_lists`: platform/areas/). platform/opening.py builds it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from workspace_emulator.identity import IdentityProvider, TokenGrant
from workspace_emulator.platform.area import Area, WorkspaceSettings
from workspace_emulator.platform.directory import Directory


class Workspace:
    def __init__(self, settings: WorkspaceSettings, identity: IdentityProvider,
                 directory: Directory, opened: Sequence[tuple[Area[Any], Any]]) -> None:
        self.settings = settings
        self.workspace_id = settings.workspace_id
        self.base_url = settings.base_url
        self.azure_resource_id = settings.azure_resource_id
        self.management_resource = settings.management_resource
        self.identity = identity
        self.directory = directory
        # Each area with its state, in the registry's order.
        self.opened: tuple[tuple[Area[Any], Any], ...] = tuple(opened)
        # What every authenticated request asks of the areas (platform/auth.py).
        self.address_checks: tuple[Callable[[str, int], None], ...] = tuple(
            partial(area.refuses_address, state) for area, state in opened
            if area.refuses_address is not None)
        self.token_resolvers: tuple[Callable[[str, str], TokenGrant | None], ...] = tuple(
            partial(area.resolves_token, state) for area, state in opened
            if area.resolves_token is not None)
        for area, state in opened:
            if area.open is None:
                continue
            if hasattr(self, area.name):
                raise ValueError(f"area {area.name!r}: the workspace has an attribute of "
                                 "that name already")
            setattr(self, area.name, state)

    if TYPE_CHECKING:
        # An area's state, set above: typed as Any, the areas being found at run time.
        def __getattr__(self, name: str) -> Any: ...
