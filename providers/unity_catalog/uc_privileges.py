"""Unity Catalog securables and the privileges each takes: the rule Grants and Grant check
before any call, as data.

The service refuses a privilege that does not apply to the securable it is granted on. The
table below says which apply, per securable type the kinds serve: a privilege granted on a
container reaches what it contains, so a catalog takes the privileges of its schemas and
volumes too (SELECT, READ_VOLUME on a catalog are accepted, as the service accepts them).
Every name the service knows is `KNOWN` (the official SDK's `catalog.Privilege`); a name
outside it is refused as unknown, with the nearest known one when one is close.

The emulator keeps its own copy of the rule (workspace_emulator/platform/areas/
unity_catalog/privileges.py): the providers never import the emulator.
tests/unit/test_uc_privileges.py holds the two equal, and KNOWN equal to the SDK's enum.
"""

from __future__ import annotations

import difflib
import re

# Every privilege name the service knows.
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

# What a schema passes on to the objects in it (tables, views, functions, models, volumes).
_IN_A_SCHEMA = frozenset({
    "ALL_PRIVILEGES", "APPLY_TAG", "BROWSE", "CREATE_FUNCTION", "CREATE_MATERIALIZED_VIEW",
    "CREATE_MODEL", "CREATE_TABLE", "CREATE_VOLUME", "EXECUTE", "EXTERNAL_USE_SCHEMA",
    "MANAGE", "MODIFY", "READ_VOLUME", "REFRESH", "SELECT", "USE_SCHEMA", "WRITE_VOLUME",
})

# securable type (as the permissions path spells it) -> the privileges it takes.
APPLICABLE: dict[str, frozenset[str]] = {
    "catalog": _IN_A_SCHEMA | {"CREATE_SCHEMA", "USE_CATALOG"},
    "schema": _IN_A_SCHEMA,
    "volume": frozenset({"ALL_PRIVILEGES", "APPLY_TAG", "MANAGE", "READ_VOLUME",
                         "WRITE_VOLUME"}),
    "external_location": frozenset({
        "ALL_PRIVILEGES", "BROWSE", "CREATE_EXTERNAL_TABLE", "CREATE_EXTERNAL_VOLUME",
        "CREATE_FOREIGN_SECURABLE", "CREATE_MANAGED_STORAGE", "EXTERNAL_USE_LOCATION",
        "MANAGE", "READ_FILES", "WRITE_FILES"}),
    "storage_credential": frozenset({
        "ALL_PRIVILEGES", "CREATE_EXTERNAL_LOCATION", "CREATE_EXTERNAL_TABLE", "MANAGE",
        "READ_FILES", "WRITE_FILES"}),
    # A service credential: the row the Databricks Terraform provider's grants reference
    # gives it (docs/resources/grants.md, "Service credential grants"). The path's
    # `credential` also resolves a storage credential's name; the kinds declare those as
    # `storage_credential`, so that one securable has one id.
    "credential": frozenset({"ACCESS", "ALL_PRIVILEGES", "CREATE_CONNECTION", "MANAGE"}),
    # A function, and a registered model: the grants API reaches a model under the type
    # `function` (EXECUTE lets a principal load the model's versions).
    "function": frozenset({"ALL_PRIVILEGES", "APPLY_TAG", "EXECUTE", "MANAGE"}),
    # A table, and a view or a materialized view: the service grants all three as `table`
    # (REFRESH applies to a materialized view).
    "table": frozenset({"ALL_PRIVILEGES", "APPLY_TAG", "BROWSE", "MANAGE", "MODIFY",
                        "REFRESH", "SELECT"}),
    # The metastore, by its id: what may be made in it and the Delta Sharing rights.
    "metastore": frozenset({
        "CREATE_CATALOG", "CREATE_CLEAN_ROOM", "CREATE_CONNECTION",
        "CREATE_EXTERNAL_LOCATION", "CREATE_PROVIDER", "CREATE_RECIPIENT",
        "CREATE_SERVICE_CREDENTIAL", "CREATE_SHARE", "CREATE_STORAGE_CREDENTIAL",
        "MANAGE_ALLOWLIST", "SET_SHARE_PERMISSION", "USE_MARKETPLACE_ASSETS",
        "USE_PROVIDER", "USE_RECIPIENT", "USE_SHARE"}),
    "connection": frozenset({"ALL_PRIVILEGES", "CREATE_FOREIGN_CATALOG", "MANAGE",
                             "USE_CONNECTION"}),
    # A share: SELECT is granted to a recipient (named as the principal).
    "share": frozenset({"MANAGE", "SELECT"}),
    "recipient": frozenset({"MANAGE"}),
    "provider": frozenset({"MANAGE"}),
    "clean_room": frozenset({"BROWSE", "EXECUTE_CLEAN_ROOM_TASK", "MANAGE",
                             "MODIFY_CLEAN_ROOM"}),
}
# How a message names a securable type where its path spelling would mislead, and what it
# adds when a privilege does not apply.
_LABELS = {"credential": "service credential", "function": "function (a registered model)",
           "table": "table (a view, a materialized view)"}
# How the expected shape of a full name names the securable.
_NAMED = {"function": "function (a registered model)",
          "table": "table (a view, a materialized view)"}
_HINTS = {"credential": " (a storage credential's grants are declared with securable_type "
                        "storage_credential)"}
# Other spellings of a type, as the SDK's SecurableType and the SQL GRANT name them: each
# stands for the type the permissions path takes (so one securable has one id).
ALIASES = {"view": "table", "materialized_view": "table", "registered_model": "function",
           "model": "function", "service_credential": "credential"}
SECURABLE_TYPES = tuple(APPLICABLE)

# How many dot-separated parts a securable's full name has; the types not listed: one name.
NAME_PARTS = {"catalog": 1, "schema": 2, "volume": 3, "function": 3, "table": 3}
# The types whose names the service stores in lower case (the others keep their case and
# are matched without regard to it).
FOLDED = frozenset(NAME_PARTS)
_PART = re.compile(r"[^\s./\x00-\x1f\x7f]{1,255}")
# A metastore is named by its id (the UUID `databricks metastores current` prints).
_METASTORE_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def securable_type_of(value: str) -> str:
    """`CATALOG`, `external-location` -> `catalog`, `external_location`; else ValueError."""
    spelled = value.strip().lower().replace("-", "_").replace(" ", "_")
    spelled = ALIASES.get(spelled, spelled)
    if spelled not in APPLICABLE:
        raise ValueError(f"must be one of {', '.join(SECURABLE_TYPES)}; got {value!r}")
    return spelled


def full_name_of(securable_type: str, value: str) -> str:
    """The securable's full name as the service keys it (lower case where it folds), or
    ValueError saying the expected shape."""
    if securable_type == "metastore":
        if not _METASTORE_ID.fullmatch(value.lower()):
            raise ValueError(
                "a metastore is named by its id, a UUID such as "
                f"12345678-1234-1234-1234-123456789abc (not its name); got {value!r}"
            )
        return value.lower()
    parts = value.split(".")
    expected = NAME_PARTS.get(securable_type, 1)
    shape = ".".join(("catalog", "schema", securable_type)[:expected]) \
        if securable_type in FOLDED else "its name"
    if len(parts) != expected or not all(_PART.fullmatch(p) for p in parts):
        raise ValueError(
            f"a {_NAMED.get(securable_type, securable_type.replace('_', ' '))} is named "
            f"{shape}: each part 1 to 255 "
            f"characters without '.', '/', spaces or control characters; got {value!r}"
        )
    return value.lower() if securable_type in FOLDED else value


def privilege_problem(privilege: str, securable_type: str) -> str | None:
    """Why `privilege` cannot be granted on a securable of that type, or None."""
    if privilege not in KNOWN:
        spelled = privilege.strip().upper().replace(" ", "_").replace("-", "_")
        close = [spelled] if spelled in KNOWN else difflib.get_close_matches(
            spelled, sorted(KNOWN), n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        return f"unknown privilege {privilege!r}{hint}"
    allowed = APPLICABLE[securable_type]
    if privilege not in allowed:
        label = _LABELS.get(securable_type, securable_type.replace("_", " "))
        takes = ", ".join(sorted(allowed))
        hint = _HINTS.get(securable_type, "")
        if privilege not in APPLICABLE["storage_credential"]:
            hint = ""
        return f"{privilege} does not apply to a {label}; it takes {takes}{hint}"
    return None


def principal_key(principal: str) -> str:
    """What the service matches a principal by: a user's name (an email address) without
    regard to case, a group's name and a service principal's application id as written."""
    return principal.lower() if "@" in principal else principal
