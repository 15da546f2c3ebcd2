"""Unity Catalog metastores at the workspace level (model.py): the metastores, their
assignment to workspaces and the current workspace's metastore. Opened after the catalogs
and unity_catalog areas: a metastore's catalogs are the catalogs area's, its root
credential the unity_catalog area's storage credential; new catalogs join the metastore
this workspace is assigned to."""

from __future__ import annotations

import sqlite3

from workspace_emulator.platform.area import Area, AreaContext, InitialData, Mount
from workspace_emulator.platform.areas.unity_catalog.catalogs.model import Catalogs
from workspace_emulator.platform.areas.unity_catalog.metastores import routes
from workspace_emulator.platform.areas.unity_catalog.metastores.model import TABLES, Metastores
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.model import UnityCatalog
from workspace_emulator.platform.fidelity import stateful


class _Contents:
    """What a metastore holds, as the catalogs and unity_catalog areas know it."""

    def __init__(self, catalogs: Catalogs, unity_catalog: UnityCatalog) -> None:
        self._catalogs = catalogs
        self._unity_catalog = unity_catalog

    def catalogs_in(self, conn: sqlite3.Connection, metastore_id: str) -> list[str]:
        return self._catalogs.catalogs_in(conn, metastore_id)

    def drop_catalog(self, conn: sqlite3.Connection, name: str) -> None:
        self._catalogs.drop_catalog(conn, name)

    def storage_credential_named_by_id(self, conn: sqlite3.Connection, credential_id: str
                                       ) -> str | None:
        return self._unity_catalog.storage_credential_named_by_id(conn, credential_id)


def _open(context: AreaContext) -> Metastores:
    unity_catalog = context.state(UnityCatalog)
    metastores = Metastores(context.db, context.directory, context.settings.workspace_id,
                            context.settings.metastore_id, unity_catalog.metastore_root)
    catalogs = context.state(Catalogs)
    metastores.contents = _Contents(catalogs, unity_catalog)
    catalogs.current_metastore = metastores.current_id
    # A data directory made before metastores were objects: its initial metastore, assigned.
    with context.db.write() as conn:
        if conn.execute("SELECT 1 FROM metastores").fetchone() is None:
            metastores.add_initial_metastore(conn, {})
    return metastores


def _add_initial(metastores: Metastores, initial: InitialData) -> None:
    metastores.add_initial_metastore(initial.conn, dict(initial.sections["workspace"]))


AREA = Area(
    name="metastores",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=80,
    support={
        "POST /unity-catalog/metastores": stateful(
            "admins; name, region (westeurope unless given), storage_root (abfss, s3, gs); "
            "one region may hold several"),
        "GET /unity-catalog/metastores": stateful("every metastore; one page"),
        "GET /unity-catalog/metastores/{metastore_id}": stateful(""),
        "PATCH /unity-catalog/metastores/{metastore_id}": stateful(
            "new_name, owner, delta sharing scope, token lifetime and organization, "
            "storage_root_credential_id (a storage credential's id)"),
        "DELETE /unity-catalog/metastores/{metastore_id}": stateful(
            "admins; refused while it holds catalogs unless force, which deletes them; its "
            "assignments go with it"),
        "PUT /unity-catalog/workspaces/{workspace_id}/metastore": stateful(
            "a known workspace; replaces its assignment; default_catalog_name required"),
        "PATCH /unity-catalog/workspaces/{workspace_id}/metastore": stateful(
            "metastore_id, default_catalog_name of an existing assignment"),
        "DELETE /unity-catalog/workspaces/{workspace_id}/metastore": stateful(
            "metastore_id must be the one assigned"),
        "GET /unity-catalog/current-metastore-assignment": stateful(
            "this workspace's; 404 when none"),
        "GET /unity-catalog/metastore_summary": stateful("this workspace's metastore"),
    },
    initial_data=_add_initial,
)
