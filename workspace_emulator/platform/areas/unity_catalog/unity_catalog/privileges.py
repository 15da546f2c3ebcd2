"""Which Unity Catalog privileges may be granted on which securable type.

The emulator's table, decided from the public privilege reference of the service (the
privileges that apply to each securable object) and the `Privilege` enum of the official
SDK: a privilege granted on a container applies to what it contains, so the catalog and
schema rows carry the privileges of their schemas and volumes too (`READ_VOLUME` on a
catalog is accepted, as the service accepts it). A privilege of the SDK's enum outside its
securable's row is refused as not applicable; a name outside the enum is refused as unknown,
with the nearest known name when one is close.
"""

from __future__ import annotations

import difflib

from workspace_emulator.errors import InvalidParameter

# Every privilege name the service knows (the SDK's `catalog.Privilege`).
KNOWN = frozenset({
    "ACCESS", "ALL_PRIVILEGES", "APPLY_TAG", "BROWSE", "CREATE", "CREATE_CATALOG",
    "CREATE_CLEAN_ROOM", "CREATE_CONNECTION", "CREATE_EXTERNAL_LOCATION",
    "CREATE_EXTERNAL_TABLE", "CREATE_EXTERNAL_VOLUME", "CREATE_FOREIGN_CATALOG",
    "CREATE_FOREIGN_SECURABLE", "CREATE_FUNCTION", "CREATE_MANAGED_STORAGE",
    "CREATE_MATERIALIZED_VIEW", "CREATE_MODEL", "CREATE_PROVIDER", "CREATE_RECIPIENT",
    "CREATE_SCHEMA", "CREATE_SERVICE_CREDENTIAL", "CREATE_SHARE", "CREATE_STORAGE_CREDENTIAL",
    "CREATE_TABLE", "CREATE_VIEW", "CREATE_VOLUME", "EXECUTE", "EXECUTE_CLEAN_ROOM_TASK",
    "EXTERNAL_USE_LOCATION", "EXTERNAL_USE_SCHEMA", "MANAGE", "MANAGE_ALLOWLIST", "MODIFY",
    "MODIFY_CLEAN_ROOM", "READ_FILES", "READ_METADATA", "READ_PRIVATE_FILES", "READ_VOLUME",
    "REFRESH", "SELECT", "SET_SHARE_PERMISSION", "USAGE", "USE_CATALOG", "USE_CONNECTION",
    "USE_MARKETPLACE_ASSETS", "USE_PROVIDER", "USE_RECIPIENT", "USE_SCHEMA", "USE_SHARE",
    "WRITE_FILES", "WRITE_PRIVATE_FILES", "WRITE_VOLUME",
})

# What a schema grants to the objects in it (tables, views, functions, models, volumes).
_SCHEMA_LEVEL = frozenset({
    "ALL_PRIVILEGES", "APPLY_TAG", "BROWSE", "CREATE_FUNCTION", "CREATE_MATERIALIZED_VIEW",
    "CREATE_MODEL", "CREATE_TABLE", "CREATE_VOLUME", "EXECUTE", "EXTERNAL_USE_SCHEMA",
    "MANAGE", "MODIFY", "READ_VOLUME", "REFRESH", "SELECT", "USE_SCHEMA", "WRITE_VOLUME",
})

# The securable types of this area (upper case, as the SDK's `SecurableType`), each with the
# privileges that may be granted on it.
APPLICABLE: dict[str, frozenset[str]] = {
    "CATALOG": _SCHEMA_LEVEL | {"CREATE_SCHEMA", "USE_CATALOG"},
    "SCHEMA": _SCHEMA_LEVEL,
    "VOLUME": frozenset({"ALL_PRIVILEGES", "APPLY_TAG", "MANAGE", "READ_VOLUME",
                         "WRITE_VOLUME"}),
    "EXTERNAL_LOCATION": frozenset({
        "ALL_PRIVILEGES", "BROWSE", "CREATE_EXTERNAL_TABLE", "CREATE_EXTERNAL_VOLUME",
        "CREATE_FOREIGN_SECURABLE", "CREATE_MANAGED_STORAGE", "EXTERNAL_USE_LOCATION",
        "MANAGE", "READ_FILES", "WRITE_FILES"}),
    "STORAGE_CREDENTIAL": frozenset({
        "ALL_PRIVILEGES", "CREATE_EXTERNAL_LOCATION", "CREATE_EXTERNAL_TABLE", "MANAGE",
        "READ_FILES", "WRITE_FILES"}),
    # A service credential (the permissions path spells it `credential`). Its row is the
    # one the Databricks Terraform provider's grants reference gives for a service
    # credential (docs/resources/grants.md, "Service credential grants"); the service's own
    # "Manage service credentials" page names ACCESS as what lets a principal use one.
    "CREDENTIAL": frozenset({"ACCESS", "ALL_PRIVILEGES", "CREATE_CONNECTION", "MANAGE"}),
    # A function, and a registered model: the grants API reaches a model as a `function`
    # (the service's privilege reference: EXECUTE lets a principal load a model's versions).
    "FUNCTION": frozenset({"ALL_PRIVILEGES", "APPLY_TAG", "EXECUTE", "MANAGE"}),
    # A table, a view or a materialized view: the service grants the three as TABLE.
    "TABLE": frozenset({"ALL_PRIVILEGES", "APPLY_TAG", "BROWSE", "MANAGE", "MODIFY",
                        "REFRESH", "SELECT"}),
    # The metastore (by its id): what may be made in it, and the Delta Sharing rights.
    "METASTORE": frozenset({
        "CREATE_CATALOG", "CREATE_CLEAN_ROOM", "CREATE_CONNECTION",
        "CREATE_EXTERNAL_LOCATION", "CREATE_PROVIDER", "CREATE_RECIPIENT",
        "CREATE_SERVICE_CREDENTIAL", "CREATE_SHARE", "CREATE_STORAGE_CREDENTIAL",
        "MANAGE_ALLOWLIST", "SET_SHARE_PERMISSION", "USE_MARKETPLACE_ASSETS",
        "USE_PROVIDER", "USE_RECIPIENT", "USE_SHARE"}),
    "CONNECTION": frozenset({"ALL_PRIVILEGES", "CREATE_FOREIGN_CATALOG", "MANAGE",
                             "USE_CONNECTION"}),
    # A share's SELECT goes to a recipient (the grant's principal is the recipient's name).
    "SHARE": frozenset({"MANAGE", "SELECT"}),
    "RECIPIENT": frozenset({"MANAGE"}),
    "PROVIDER": frozenset({"MANAGE"}),
    "CLEAN_ROOM": frozenset({"BROWSE", "EXECUTE_CLEAN_ROOM_TASK", "MANAGE",
                             "MODIFY_CLEAN_ROOM"}),
}
# How a refusal names a securable type where its path spelling would mislead.
_LABELS = {"CREDENTIAL": "service credential"}


def check_privilege(privilege: object, securable_type: str, full_name: str, where: str) -> str:
    """The privilege, if it may be granted on that securable; else 400 naming it."""
    if not isinstance(privilege, str) or privilege not in KNOWN:
        hint = ""
        if isinstance(privilege, str):
            spelled = privilege.strip().upper().replace(" ", "_")
            close = ([spelled] if spelled in KNOWN
                     else difflib.get_close_matches(spelled, sorted(KNOWN), n=1))
            if close:
                hint = f" Did you mean {close[0]}?"
        raise InvalidParameter(f"{where}: unknown privilege {privilege!r}.{hint}")
    if privilege not in APPLICABLE[securable_type]:
        raise InvalidParameter(
            f"Privilege {privilege} is not applicable to this entity "
            f"[{full_name}:{securable_type}]. Privileges that apply to a "
            f"{_LABELS.get(securable_type, securable_type.lower().replace('_', ' '))}: "
            f"{', '.join(sorted(APPLICABLE[securable_type]))}.")
    return privilege
