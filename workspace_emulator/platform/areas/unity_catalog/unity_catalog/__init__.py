"""Unity Catalog below and beside the catalogs: schemas, volumes, storage and service
credentials, external locations, grants and effective grants (model.py), the privileges
each securable type takes (privileges.py), their routes and the workspace bindings of every
bindable securable (routes.py). Opened after the catalogs area, which it gives what a catalog's
create, rename and delete need of the schemas under it."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.unity_catalog.catalogs.model import Catalogs
from workspace_emulator.platform.areas.unity_catalog.unity_catalog import routes
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.model import TABLES, UnityCatalog
from workspace_emulator.platform.fidelity import stateful


def _open(context: AreaContext) -> UnityCatalog:
    unity_catalog = UnityCatalog(context.db, context.directory, context.settings.metastore_id)
    context.state(Catalogs).contents = unity_catalog
    return unity_catalog


AREA = Area(
    name="unity_catalog",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=75,
    support={
        "POST /unity-catalog/schemas": stateful("the catalog must exist; name stored lower "
                                                "case; storage_root under a location"),
        "GET /unity-catalog/schemas": stateful("a catalog's schemas; one page"),
        "GET /unity-catalog/schemas/{full_name}": stateful("catalog.schema, any case"),
        "PATCH /unity-catalog/schemas/{full_name}": stateful(
            "new_name (volumes and grants follow), owner, comment, properties"),
        "DELETE /unity-catalog/schemas/{full_name}": stateful(
            "refused while it holds volumes unless force"),
        "POST /unity-catalog/volumes": stateful(
            "the schema must exist; EXTERNAL under an external location, no overlap"),
        "GET /unity-catalog/volumes": stateful("a schema's volumes; one page"),
        "GET /unity-catalog/volumes/{name}": stateful("catalog.schema.volume, any case"),
        "PATCH /unity-catalog/volumes/{name}": stateful("new_name, owner, comment"),
        "DELETE /unity-catalog/volumes/{name}": stateful("its grants go with it"),
        "POST /unity-catalog/storage-credentials": stateful(
            "admins; exactly one identity; secrets never answered"),
        "GET /unity-catalog/storage-credentials": stateful("one page"),
        "GET /unity-catalog/storage-credentials/{name}": stateful(""),
        "PATCH /unity-catalog/storage-credentials/{name}": stateful(
            "new_name (its locations follow), owner, isolation_mode, identity"),
        "DELETE /unity-catalog/storage-credentials/{name}": stateful(
            "refused while locations use it unless force"),
        "POST /unity-catalog/credentials": stateful(
            "purpose SERVICE or STORAGE (a storage credential); admins; one identity (a "
            "service credential: AWS role, Azure managed identity or GCP service account); "
            "names unique among both purposes"),
        "GET /unity-catalog/credentials": stateful("both purposes or one (purpose); one page"),
        "GET /unity-catalog/credentials/{name}": stateful("any case"),
        "PATCH /unity-catalog/credentials/{name}": stateful(
            "new_name, owner, comment, isolation_mode, identity; read_only for STORAGE only"),
        "DELETE /unity-catalog/credentials/{name}": stateful(
            "a storage credential refused while locations use it unless force"),
        "POST /unity-catalog/external-locations": stateful(
            "the credential must exist; urls may not overlap"),
        "GET /unity-catalog/external-locations": stateful("one page"),
        "GET /unity-catalog/external-locations/{name}": stateful(""),
        "PATCH /unity-catalog/external-locations/{name}": stateful(
            "url (force while used), credential, owner, isolation_mode, new_name"),
        "DELETE /unity-catalog/external-locations/{name}": stateful(
            "refused while a volume or root is under it unless force"),
        "GET /unity-catalog/permissions/{securable_type}/{full_name}": stateful(
            "direct grants; principal filter; catalog, schema, table (views and "
            "materialized views too), function (a function, or a registered model), volume, "
            "external_location, storage_credential, credential (a service credential, or a "
            "storage credential by its name), metastore (by its id), connection (any "
            "well-formed name until connections are held), share, recipient, provider"),
        "PATCH /unity-catalog/permissions/{securable_type}/{full_name}": stateful(
            "changes add/remove; privileges checked per securable type; principals must "
            "exist (a share's SELECT goes to a recipient by name)"),
        "GET /unity-catalog/effective-permissions/{securable_type}/{full_name}": stateful(
            "inherited from schema and catalog, marked; the others' are their direct ones"),
        "GET /unity-catalog/bindings/{securable_type}/{name}": stateful(
            "catalog, external_location, storage_credential, credential"),
        "PATCH /unity-catalog/bindings/{securable_type}/{name}": stateful(
            "add/remove bindings; known workspaces only; a credential read-write only; kept "
            "whatever the isolation mode"),
    },
    not_served={
        "Unity Catalog credential validation and temporary service credentials": (
            "POST /unity-catalog/validate-credentials",
            "POST /unity-catalog/temporary-service-credentials")},
)
