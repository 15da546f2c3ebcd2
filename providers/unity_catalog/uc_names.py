"""What the Unity Catalog kinds (Catalog, Schema, Volume) share: the service's naming rules,
full names, storage URLs, owners, and the judgement of what an interrupted create left.

Names. The service stores catalog, schema and volume names in lower case and finds them
whatever the case asked for, so a declared `Sales` is the service's `sales`: names are
folded here, before any comparison. A name holds no `.`, space, `/` or control character
and has at most 255 characters. A schema's full name is `catalog.schema`, a volume's
`catalog.schema.volume`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator

from providers.client import AlreadyExists, InvalidState, WorkspaceError
from providers.core.create_or_adopt import create_or_adopt
from providers.core.validators import not_blank
from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.unity_catalog.schemas_api import SchemasApi
from providers.unity_catalog.volumes_api import VolumesApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

MAX_NAME = 255
FORBIDDEN = frozenset(". /")
INFORMATION_SCHEMA = "information_schema"
DEFAULT_SCHEMA = "default"
# Catalogs the service makes and keeps itself (never created, changed or deleted by a
# stack, nor listed by the audit).
SERVICE_CATALOG_TYPES = frozenset({"SYSTEM_CATALOG", "INTERNAL_CATALOG"})
SERVICE_CATALOGS = frozenset({"system", "hive_metastore", "samples", "__databricks_internal"})


def is_service_catalog(catalog: Mapping[str, Any]) -> bool:
    """A catalog the service makes and keeps itself (`system`, `hive_metastore`, ...)."""
    return (
        catalog.get("catalog_type") in SERVICE_CATALOG_TYPES
        or str(catalog.get("name", "")).lower() in SERVICE_CATALOGS
    )


def catalog_names(client: Any) -> Iterator[str]:
    """Every catalog a stack can manage (the service's own left out): the audit's."""
    for catalog in CatalogsApi(client).list():
        if not is_service_catalog(catalog):
            yield str(catalog["name"])


def schema_full_names(client: Any, catalogs: Iterable[str] | None = None) -> Iterator[str]:
    """Every schema of those catalogs (or of `catalogs`, names already listed) but their
    `information_schema` (the service's own): one list call per catalog."""
    for catalog in catalog_names(client) if catalogs is None else catalogs:
        for schema in SchemasApi(client).list(catalog):
            if schema.get("name") != INFORMATION_SCHEMA:
                yield str(schema.get("full_name") or f"{catalog}.{schema['name']}")


def volume_full_names(client: Any, schemas: Iterable[str] | None = None) -> Iterator[str]:
    """Every volume of those schemas (or of `schemas`, full names already listed): one list
    call per schema."""
    for schema in schema_full_names(client) if schemas is None else schemas:
        catalog, name = schema.split(".", 1)
        for volume in VolumesApi(client).list(catalog, name):
            yield str(volume.get("full_name") or f"{schema}.{volume['name']}")


def name_problem(value: str) -> str | None:
    """Why `value` is not a name the service takes for a catalog, schema or volume."""
    if not value:
        return "must not be empty"
    if len(value) > MAX_NAME:
        return f"has {len(value)} characters; a name has at most {MAX_NAME}"
    bad = sorted({c for c in value if c in FORBIDDEN or ord(c) < 32 or ord(c) == 127})
    if bad:
        shown = ", ".join(repr(c) for c in bad)
        return f"{value!r} holds {shown}: a name holds no '.', space, '/' or control character"
    return None


def object_name(value: str) -> str:
    """A catalog's, schema's or volume's own name, folded to lower case as the service does."""
    problem = name_problem(value)
    if problem:
        raise ValueError(problem)
    return value.lower()


def dotted_name(levels: tuple[int, ...]) -> AfterValidator:
    """A name of one of `levels` parts (`(1, 2)`: `schema` or `catalog.schema`), each part
    a valid name, folded to lower case."""
    shapes = {1: "name", 2: "catalog.schema", 3: "catalog.schema.volume"}

    def check(value: str) -> str:
        parts = value.split(".")
        if len(parts) not in levels:
            wanted = " or ".join(f"`{shapes[n]}`" if n > 1 else "a plain name" for n in levels)
            raise ValueError(f"{value!r} has {len(parts)} parts; give {wanted}")
        for part in parts:
            problem = name_problem(part)
            if problem:
                raise ValueError(f"{value!r}: {problem}" if len(parts) > 1 else problem)
        return value.lower()

    return AfterValidator(check)


Name = Annotated[str, AfterValidator(object_name)]
NotBlank = Annotated[str, AfterValidator(not_blank)]


def storage_url(value: str) -> str:
    """A cloud storage URL (`abfss://container@account.dfs.core.windows.net/path`,
    `s3://bucket/path`, `gs://bucket/path`), without a trailing `/` (the service drops it)."""
    scheme, sep, rest = value.partition("://")
    if not sep or not scheme or not rest.strip("/") or any(c.isspace() for c in value):
        raise ValueError(
            f"{value!r} is not a storage URL (e.g. abfss://container@account.dfs.core."
            "windows.net/path, s3://bucket/path or gs://bucket/path)"
        )
    return value.rstrip("/")


StorageUrl = Annotated[str, AfterValidator(storage_url)]


def text_map(value: dict[str, str] | None) -> dict[str, str] | None:
    """An empty map is none: the same as leaving it out."""
    return value or None


def observed_owner(found: Mapping[str, Any], declared: str | None) -> str | None:
    """The owner the service shows, in the declared spelling where the service matched a
    user name without regard to case (`Bob@example.com` is the service's `bob@example.com`)."""
    owner = found.get("owner")
    if (
        isinstance(owner, str)
        and declared is not None
        and "@" in declared
        and owner.lower() == declared.lower()
    ):
        return declared
    return owner


def observed_url(value: Any) -> str | None:
    return value.rstrip("/") if isinstance(value, str) and value else None


def made_by_caller(client: WorkspaceClient, found: Mapping[str, Any]) -> bool:
    """Whether the object was made by the principal this client signs in as (where both
    are told: a personal token names no principal here, and an object may not say)."""
    caller = client.connection.client_id
    creator = found.get("created_by")
    if not caller or not isinstance(creator, str) or not creator:
        return True
    return creator.lower() == caller.lower()


def holds_as_made(found: Mapping[str, Any], spec: Mapping[str, Any], keys: tuple[str, ...]
                  ) -> bool:
    """Whether `found` holds each of the create body's `keys` the spec declares, as the
    create would have made it."""
    for key in keys:
        if key not in spec:
            continue
        value = found.get(key)
        if key in ("storage_root", "storage_location"):
            value = observed_url(value)
        if value != spec[key]:
            return False
    return True


def is_not_empty(error: WorkspaceError) -> bool:
    """Whether the service refused a delete because the object holds something."""
    return isinstance(error, InvalidState) or (
        error.status == 400 and "not empty" in error.message.lower()
    )


def needs_force_destroy(error: WorkspaceError, what: str, name: str, holds: str) -> None:
    """Says, in the service's refusal of a delete, what to do: `force_destroy`."""
    error.message += (
        f" ({what} {name!r} holds {holds}: set force_destroy: true on the {what.title()} and "
        f"run `pulumi up` before deleting it to delete it with everything it holds, or delete "
        "its contents first)"
    )
    error.args = (str(error),)


def created_or_left_over(what: str, name: str, create: Callable[[], Mapping[str, Any]],
                         left_over: Callable[[], Mapping[str, Any] | None]) -> Mapping[str, Any]:
    """The object `create` made, or the one an interrupted create of this resource left
    (`left_over`); where another holds the name, the service's refusal says how to import
    it."""
    try:
        made, _adopted = create_or_adopt(create, left_over)
    except AlreadyExists as error:
        left = left_over()
        if left is None:
            error.message += (
                f" (a {what} {name!r} exists that this stack did not make: to manage it, "
                f"import it: `import: {name}` on its item, or ResourceOptions(import_=...))"
            )
            error.args = (str(error),)
            raise
        return left
    return made


# What an update sends to clear a setting the config no longer declares: an update leaves
# out what it is not sent, and takes an empty comment or map as none.
CLEARED: dict[str, Any] = {"comment": "", "properties": {}, "options": {}}
# The settings no update clears (an owner, an isolation mode, a read-only flag): left out of
# the config, they stay as the service has them (`WorkspaceProvider.kept_when_left_out`).
KEPT_WHEN_LEFT_OUT = frozenset({
    "owner", "isolation_mode", "read_only", "enable_predictive_optimization", "fallback",
})


def cleared(recorded: Mapping[str, Any], spec: Mapping[str, Any],
            update_fields: Iterable[str]) -> dict[str, Any]:
    """The update that clears each setting recorded (so declared before) that the spec no
    longer declares."""
    return {key: CLEARED[key] for key in update_fields
            if key in CLEARED and key in recorded and key not in spec}


def converged(area: Any, name: str, found: Mapping[str, Any], spec: Mapping[str, Any],
              update_fields: tuple[str, ...],
              shown: Callable[[Mapping[str, Any], str], Any] = lambda found, key: found.get(key),
              recorded: Mapping[str, Any] | None = None,
              ) -> Mapping[str, Any]:
    """Sends what the spec declares and the object lacks (the owner last) through `area`
    (its client area: `update`, `get`), and clears what `recorded` (the last deployment's
    spec) declared and the spec no longer does; the object as the service then shows it."""
    changes = {key: spec[key] for key in update_fields
               if key in spec and shown(found, key) != spec[key]}
    changes.update({key: value for key, value in cleared(recorded or {}, spec,
                                                          update_fields).items()
                    if shown(found, key) not in (None, value)})
    owner = spec.get("owner")
    if changes:
        found = area.update(name, changes) or area.get(name)
    if owner is not None and observed_owner(found, owner) != owner:
        found = area.update(name, {"owner": owner}) or area.get(name)
    return found
