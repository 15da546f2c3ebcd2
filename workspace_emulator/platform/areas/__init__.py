"""The registry of the workspace's areas: one package each (platform/area.py says what an
area is), listed here once. The list's order is the order they are opened in (an area may
use the state of those before it) and apply the initial data in; the order requests are
matched against their routes is each area's `route_priority`.

Adding an area: a package `platform/areas/<name>/` whose `__init__.py` defines
`AREA = Area(name="<name>", ...)`, and its name below (workspace_emulator/README.md,
"Adding an area").
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from workspace_emulator.platform.area import Area

AREAS: tuple[str, ...] = (
    "scim",
    "access_control",  # the rule sets of the scim area's principals
    "cluster_policies",
    "instance_pools",
    "clusters",  # its policies' and pools'
    "git_credentials",
    "repos",  # clones of private remotes need the caller's Git credential
    "workspace_objects",  # the repos in its tree
    "jobs",  # the clusters their tasks name, the notebooks they run, run_as's rule sets
    "catalogs",
    "unity_catalog",  # below and beside the catalogs
    "ip_access_lists",
    "workspace_conf",  # the IP access lists' switch among its keys
    "sql_warehouses",
    "secret_scopes",
    "secrets",
    "object_permissions",  # the objects of the areas above
    "personal_tokens",
    "service_principal_secrets",
)


@cache
def registered_areas() -> tuple[Area[Any], ...]:
    """Every area of AREAS, in order (imports each package)."""
    found = []
    for name in AREAS:
        area = importlib.import_module(f"{__name__}.{name}").AREA
        if not isinstance(area, Area) or area.name != name:
            raise TypeError(f"{__name__}.{name}.AREA must be an Area named {name!r}")
        found.append(area)
    return tuple(found)
