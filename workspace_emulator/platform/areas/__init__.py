"""The registry of the workspace's areas: one package each (platform/area.py says what an
area is), listed here once. The list's order is the order they are opened in (an area may
use the state of those before it) and apply the initial data in; the order requests are
matched against their routes is each area's `route_priority`.

The areas are grouped by API domain, with the providers' domain names (identity, access,
secrets, workspace, compute, sql, jobs, unity_catalog, pipelines, dashboards, serving,
applications, ml). Adding an area: a package `platform/areas/<domain>/<name>/` whose
`__init__.py` defines `AREA = Area(name="<name>", ...)`, and its `<domain>.<name>` below
(workspace_emulator/README.md, "Adding an area").
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from workspace_emulator.platform.area import Area

AREAS: tuple[str, ...] = (
    "identity.scim",
    "identity.access_control",  # the rule sets of the scim area's principals
    "identity.accounts",  # the account of the scim area, its principals in the directory
    "compute.cluster_policies",
    "compute.instance_pools",
    "compute.clusters",  # its policies' and pools'
    "workspace.git_credentials",
    "workspace.repos",  # clones of private remotes need the caller's Git credential
    "workspace.workspace_objects",  # the repos in its tree
    "workspace.dbfs",
    "unity_catalog.catalogs",
    "unity_catalog.unity_catalog",  # below and beside the catalogs
    "unity_catalog.files",  # in its volumes
    "unity_catalog.tables",  # tables and functions in its schemas
    "unity_catalog.sharing",  # shares, recipients and providers beside its catalogs
    # The catalogs' metastores, their root credentials (storage credentials) and their
    # assignment to workspaces.
    "unity_catalog.metastores",
    "unity_catalog.connections",  # in this workspace's metastore; named by foreign catalogs
    "pipelines.pipelines",  # the notebooks and files they load, the schemas they publish to
    # The clusters their tasks name, the notebooks they run, run_as's rule sets, the files
    # their libraries and init scripts name (in volumes, DBFS, the workspace).
    "jobs.jobs",
    "workspace.ip_access_lists",
    "workspace.workspace_conf",  # the IP access lists' switch among its keys
    "workspace.typed_settings",
    "workspace.notification_destinations",
    "sql.sql_warehouses",
    "sql.queries",  # on its warehouses, in the workspace tree's folders
    "sql.alerts",  # on its queries
    "dashboards.lakeview",  # on its warehouses, in the workspace tree's folders
    "secrets.secret_scopes",
    "secrets.secrets",
    "ml.registered_models",  # in the unity_catalog area's schemas
    "ml.experiments",  # in the workspace_objects area's folders
    "serving.serving_endpoints",
    "applications.apps",  # deployed from the workspace objects' folders
    "access.object_permissions",  # the objects of the areas above
    "identity.personal_tokens",
    "identity.service_principal_secrets",
)


@cache
def registered_areas() -> tuple[Area[Any], ...]:
    """Every area of AREAS, in order (imports each package)."""
    found = []
    for path in AREAS:
        name = path.rsplit(".", 1)[-1]
        area = importlib.import_module(f"{__name__}.{path}").AREA
        if not isinstance(area, Area) or area.name != name:
            raise TypeError(f"{__name__}.{path}.AREA must be an Area named {name!r}")
        found.append(area)
    return tuple(found)
