"""Adoption, kind by kind: an existing workspace object as the stack-config item that declares
it exactly as it is (issue 33; `python -m stacks.adopt` writes the items, this module makes
them).

For each object a kind lists (its `inventory`, the audit's, or `Kind.adoption.objects`), the
kind's provider reads it as an import does (`read_object(client, id, {})`: the observed
state in spec form), and the item is built from that:

- the kind's declared inputs only (`Kind.input_names()`: no computed outputs, no stamped
  inputs), plus the inputs the kind takes from its outputs (`Adoption.from_outputs`: a
  principal's application id), in the model's field order;
- without what the kind leaves out (`Adoption.leaves_out`: a value the service fills in
  itself, such as a job's run_as naming its creator, or a setting another kind declares,
  such as a principal's groups, which are GroupMember items);
- without any value whose absence means the same thing: a field at its model default is
  dropped, at any depth, where the kind's normal form (`provider.spec`) of the item is the
  same without it (an ALLOW list's `enabled: true`, a binding's READ_WRITE).

Every item is then verified (`declares_exactly`): the kind's checks accept it, its normal
form is the observed state (but what the kind leaves out), and the kind's own `diff`
against what the import records finds no change, both as the import's preview judges it
(nothing declared before) and as every later preview does (the item declared before). An
item that fails is no item: the candidate carries a problem naming the fields and what the
user must do. Nothing is ever dropped silently.

Kind by kind (a summary: the knowledge is in each kind's declaration, `KIND` at the end of
its module):

- ServicePrincipal: its application id (an output the item declares), display name,
  entitlements; `active` only when false; its groups are left to its GroupMember items.
- ServicePrincipalSecret: the principal and the lifetime; the value, shown once at creation,
  is not in the state after an import (the stack output has none).
- SecretScope: its name and key vault (the initial MANAGE principal is its `users` ACL).
- Secret: never an item (the value): the candidate says how to declare it.
- SecretAcl: scope, principal, permission.
- Job: every setting the service returns in the normal form (`job_diff.canonical`: keyed
  lists by key, documented defaults and empty values left out), but a run_as naming the
  creator (what the service fills in).
- JobPermissions / Permissions (clusters, cluster policies, instance pools, Git folders, SQL
  warehouses by `<type>/<id>`; notebooks, folders and workspace files by path,
  `notebook_path:<path>`, ...): the direct entries but the owner's (Permissions also the
  owner, where the type has one); objects with no entry beyond what the service puts
  there itself (the owner, the creator's CAN_MANAGE) are not listed.
- CatalogBinding: catalogs isolated or bound: the mode where OPEN, and the bindings.
- StorageCredential: as read, but one of a service principal, whose client secret is never
  answered: its candidate says how to set it, as a Secret's (`Adoption.holds_secret`).
- ClusterPolicy: its fields; a family's policy leaves out the family's merged definition.
- Cluster: its spec, libraries, pinned where true; not its state (where it is now, not a
  setting), nor elastic disk where on, nor a driver node type that is the worker's.
- Group, GroupMember, Repo, IpAccessList: what the import reads, without defaults.
- Notebook, WorkspaceFile: the path and `source`, a file of the project holding the content
  exported (`Adoption.content`; stacks/adopt_content.py writes it): the item is verified
  against that file, staged (`staged`), so its digest is the object's.
- Directory: the path of an empty folder (a folder holding anything is made by what it
  holds, and not listed).

What is not adopted, and why: `not_adoptable()` names each kind with its reason (the
actions; RepoBranch, whose branch its Repo item declares), and `SERVICE_OWN` lists the
objects the service makes itself, which `listed` leaves out with their reason. A secret's
value is never read back: its candidate says how to declare it (`secret_problem`). An
object whose other settings or exported content hold what looks like a credential (a key
in `spark_conf`, a token in a task's parameters or a notebook) gets no item either: adopt
would write it into files the team commits (stacks/credential_scan.py says where, never
the value, and how to move it into a secret scope).
"""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic

from providers.client import WorkspaceClient, WorkspaceError, is_gone
from providers.core.kind import Kind, Reference, nested_holders, reference_for
from providers.core.lifecycle import WorkspaceProvider
from providers.core.registry import kinds
from providers.workspace.workspace_objects import source_roots
from stacks import credential_scan
from stacks.config_rules import IMPORT_KEY
from stacks.errors import NAMESPACE

# Objects the service (or the emulator, standing for it) makes for itself, which the kinds'
# inventories leave out (so the audit never reports them either), and why.
SERVICE_OWN: tuple[str, ...] = (
    "the `admins` and `users` groups (Group): the workspace's own",
    "every principal's membership of `users` (GroupMember): the service adds each one",
    "the built-in cluster policies (ClusterPolicy: Personal Compute, Power User Compute, "
    "Shared Compute, Legacy Shared Compute, Job Compute): the service makes them in every "
    "workspace",
    "job clusters (Cluster): they come and go with their runs",
    "inherited permissions (JobPermissions, Permissions: the admins' CAN_MANAGE from the "
    "workspace root) and an object's owner: an object's permissions are adopted where it has "
    "a direct entry besides the owner's, and the owner of a job is never declared",
    "open catalogs without workspace bindings (CatalogBinding): every catalog's state before "
    "anyone binds it",
    "the service's own catalogs (Catalog: `system`, `hive_metastore`, `samples`, system and "
    "internal catalog types) and every catalog's `information_schema` (Schema)",
    "what the service puts on an object's access-control list itself (Permissions): the "
    "creator's CAN_MANAGE (the creator the listing names, a cluster's, a policy's or a "
    "pool's; where it names none, the principal the stack signs in as) and `users` "
    "managing /Shared; a list is adopted, every direct entry of it, where it holds more",
    "the permissions of object types the client cannot list (models, experiments, serving "
    "and vector search endpoints, apps, SQL queries, alerts and dashboards): declare them by "
    "hand, Permissions `<type>/<id>`",
)
# What `listed` leaves out besides: objects of the principal the stack signs in as (itself,
# its OAuth secrets, its group memberships), where the workspace tells who that is (SCIM Me).
OWN_PRINCIPAL = (
    "belongs to the principal the stack signs in as: adopted, a destroy would delete the "
    "stack's own credentials or rights"
)

# What an item must say so that the engine can read the adopted object's secret value, per
# field: the service returns a secret's value to no one a stack could rely on.
SECRET_VALUE_HINT = "string_value (or bytes_value: the bytes in base64)"


@dataclass(frozen=True)
class Candidate:
    kind: Kind
    # What ResourceOptions(import_=...) takes for this kind (kind.import_id's form).
    import_id: str
    # The object's human name (for resource names and progress).
    display_name: str
    # The config item's kind inputs (no `name`, no `import`), in the API's own shape,
    # without the values the service fills in by default; None: cannot be adopted.
    item: dict[str, Any] | None
    # Why not, and exactly what the user must do.
    problem: str | None
    # Input field -> the import id of the object it points at, for each of the kind's
    # references (`{"job_id": "123"}` of JobPermissions; `{"scope": "etl"}` of a Secret).
    references: dict[str, str]
    # The files of the project the item names (`source`), by path relative to adopt's
    # content folder, with the content exported (a notebook's, a workspace file's).
    files: Mapping[str, bytes] = field(default_factory=dict)


# --- which kinds ----------------------------------------------------------------------


def refusal(kind: Kind) -> str | None:
    """Why no object of `kind` is adopted, or None where its objects are."""
    if kind.action is not None:
        return f"an action ({kind.action}), not an object: nothing to import"
    if not kind.importable:
        return "cannot be imported: its resources are actions, not objects"
    if not kind.config_key:
        return "has no list in the stack config to declare it in"
    if kind.adoption.refused:
        return kind.adoption.refused
    if listing_of(kind) is None:
        return (
            "its objects cannot be listed: declare each one by hand with its import id "
            f"({kind.import_id or 'its id'})"
        )
    return None


def adoptable_kinds() -> list[Kind]:
    """Every registered kind whose existing objects are adopted, in the registry's order
    (the stack program's: a kind after the kinds it references)."""
    return [kind for kind in kinds() if refusal(kind) is None]


def not_adoptable() -> dict[str, str]:
    """Every registered kind that is not adopted, by name, with the reason."""
    return {kind.name: reason for kind in kinds() if (reason := refusal(kind)) is not None}


def listing_of(kind: Kind) -> Any:
    return kind.adoption.objects or kind.inventory


# --- which objects ---------------------------------------------------------------------


@dataclass(frozen=True)
class Listed:
    import_id: str
    display_name: str
    # Why it is the service's own and not adopted; None: adopt it.
    left_out: str | None


def listed(client: WorkspaceClient, kind: Kind) -> Iterator[Listed]:
    """Every object of the kind the workspace lists (the service's own are not listed:
    `SERVICE_OWN`), each with why it is left out, if it is (`OWN_PRINCIPAL`)."""
    listing = listing_of(kind)
    if listing is None:
        return
    principal_of = kind.adoption.principal_of
    signed_in = _signed_in_names(client) if principal_of is not None else frozenset()
    # An entry may carry why the kind leaves it out (a workspace's copy of an account group).
    for import_id, name, *why in listing(client):
        reason = why[0] if why else None
        if principal_of is not None and principal_of(str(import_id)) in signed_in:
            reason = OWN_PRINCIPAL
        yield Listed(str(import_id), str(name or import_id), reason)


def client_for(client: WorkspaceClient, kind: Kind) -> WorkspaceClient | None:
    """The client the kind's objects are read through: the account's connection
    (`client.account`, which the audit and adopt make from the stack's config) for a kind
    of the account, None where there is none; the workspace's for every other kind."""
    return client.account if kind.account_level else client


def candidates(client: WorkspaceClient, kind: Kind) -> Iterator[Candidate]:
    """Every object of that kind in the workspace but the service's own and the stack's own
    principal's (`listed`), each read once and turned into a verified item or a problem."""
    for found in listed(client, kind):
        if found.left_out is None:
            candidate = candidate_of(client, kind, found.import_id, found.display_name)
            if candidate is not None:
                yield candidate


def candidate_of(
    client: WorkspaceClient, kind: Kind, import_id: str, display_name: str
) -> Candidate | None:
    """The candidate of one object; None where it went between the listing and the read.
    An object that cannot be read (the principal may not see it) is a candidate with the
    service's answer as its problem: never dropped silently, and the rest still adopted.
    An id that breaks the kind's rule (a listed name `..`) is refused before any read."""
    id_problem = kind.import_id_problem(import_id)
    if id_problem is not None:
        problem = (f"{id_problem}: it cannot be imported; leave it out "
                   f"(`{NAMESPACE}:auditIgnore` {kind.audit_key}:<its name>) or rename it")
        return Candidate(kind, import_id, display_name, None, problem, {})
    provider = kind.provider()
    reader = client_for(client, kind)
    if reader is None:  # not listed without the account's connection: nothing to read
        return None
    try:
        found = provider.read_object(reader, import_id, {})
    except WorkspaceError as error:
        if is_gone(error):
            return None
        problem = (
            f"could not be read ({error}): give the principal the stack signs in as the "
            f"right to read it and adopt again, or leave it out (`{NAMESPACE}:auditIgnore` "
            f"{kind.audit_key}:{import_id})"
        )
        return Candidate(kind, import_id, display_name, None, problem, {})
    if found is None:
        return None
    observed, computed = found
    try:
        files = exported_files(client, kind, import_id, observed)
    except (WorkspaceError, ValueError) as error:
        if isinstance(error, WorkspaceError) and is_gone(error):
            return None
        problem = f"its content could not be exported ({error}): adopt it again later"
        return Candidate(kind, import_id, display_name, None, problem, {})
    with staged(files) as source:
        item = item_of(kind, observed, computed, source)
        references = references_of(kind, item) | stood_for(kind, item, computed)
        differing = differences(kind, item, observed, computed)
    if _secret_inputs(kind) and holds_secret(kind, observed):
        return Candidate(
            kind, import_id, display_name, None, secret_problem(kind, item, import_id),
            references,
        )
    leaked = credential_scan.in_settings(item, skip=kind.secrets)
    leaked_files = {name: in_file for name, content in files.items()
                    if (in_file := credential_scan.in_content(content))}
    if leaked or leaked_files:
        problem = credential_scan.credential_problem(
            leaked, leaked_files, kind.audit_key, import_id)
        return Candidate(kind, import_id, display_name, None, problem, references)
    if differing:
        return Candidate(
            kind,
            import_id,
            display_name,
            None,
            inexpressible_problem(kind, import_id, differing),
            references,
        )
    return Candidate(kind, import_id, display_name, item, None, references, files)


def exported_files(
    client: WorkspaceClient, kind: Kind, import_id: str, observed: Mapping[str, Any]
) -> dict[str, bytes]:
    """The object's content as the file its item names (`Adoption.content`), if it has one."""
    export = kind.adoption.content
    if export is None:
        return {}
    name, content = export(client, import_id, observed)
    return {name: content}


@contextmanager
def staged(files: Mapping[str, bytes]) -> Iterator[str | None]:
    """The exported content as files of a scratch project, where the item's `source` is
    read while it is made and verified; the `source` (None: no files)."""
    if not files:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="adopt-content-") as scratch:
        for name, content in files.items():
            path = Path(scratch, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        with source_roots(Path(scratch)):
            yield next(iter(files))


# --- the item ----------------------------------------------------------------------------


def item_of(
    kind: Kind, observed: Mapping[str, Any], computed: Mapping[str, Any],
    source: str | None = None,
) -> dict:
    """The config item (kind inputs only) declaring the observed object (see the module's
    docstring), its content from the project file `source` where it has one; not
    verified."""
    taken = set(kind.adoption.from_outputs)
    names = [n for n in kind.input_names() if n not in kind.computed_keys or n in taken]
    leaves_out = {
        key
        for key, when in kind.adoption.leaves_out.items()
        if key in observed and when(observed, computed)
    }
    item: dict[str, Any] = {}
    for name in names:
        if name in taken and computed.get(name) is not None:
            item[name] = copy.deepcopy(computed[name])
        elif name in observed and observed[name] is not None and name not in leaves_out:
            item[name] = copy.deepcopy(observed[name])
        elif name == "source" and source is not None:
            item[name] = source
    return without_defaults(kind, item)


def without_defaults(kind: Kind, item: dict[str, Any]) -> dict[str, Any]:
    """`item` without the fields, at any depth, that hold their model's default and whose
    absence the kind's normal form does not tell apart (an item never carries a value whose
    absence means the same)."""
    provider = kind.provider()
    base = _normal_form(provider, item)
    if base is None:
        return item
    for path in list(_at_default(kind.model, item, ())):
        trial = _without(item, path)
        if _normal_form(provider, trial) == base:
            item = trial
    return item


def _normal_form(provider: WorkspaceProvider, item: Mapping[str, Any]) -> Any:
    if provider.input_failures(item):
        return None
    try:
        return provider.spec(provider.args_model.model_validate(item))
    except (pydantic.ValidationError, ValueError):
        return None


def _at_default(
    model: type[pydantic.BaseModel], value: Mapping[str, Any], path: tuple[Any, ...]
) -> Iterator[tuple[Any, ...]]:
    """Paths of the fields of `value` (validated by `model`) that hold the field's default,
    deepest first, so a parent is tried after its children."""
    for name, item in value.items():
        info = model.model_fields.get(name)
        if info is None:
            continue
        nested = _nested_model(info.annotation)
        if nested is not None:
            if isinstance(item, Mapping):
                yield from _at_default(nested, item, (*path, name))
            elif isinstance(item, list):
                for index, entry in enumerate(item):
                    if isinstance(entry, Mapping):
                        yield from _at_default(nested, entry, (*path, name, index))
        if not info.is_required():
            default = info.get_default(call_default_factory=True)
            if default is not None and _same(item, _plain(default)):
                yield (*path, name)


def _nested_model(annotation: Any) -> type[pydantic.BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return annotation
    for argument in getattr(annotation, "__args__", ()):
        found = _nested_model(argument)
        if found is not None:
            return found
    return None


def _plain(value: Any) -> Any:
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _without(item: Mapping[str, Any], path: tuple[Any, ...]) -> dict[str, Any]:
    trimmed = copy.deepcopy(dict(item))
    node: Any = trimmed
    for part in path[:-1]:
        node = node[part]
    del node[path[-1]]
    return trimmed


def _same(a: Any, b: Any) -> bool:
    return _canonical(a) == _canonical(b)


def _canonical(value: Any) -> str:
    """`value` as JSON where a number is one value whatever its spelling: a model's float
    field holds -1.0 where the service answers -1 (an Azure spot bid), and JSON, the wire
    and the kinds' diffs make no difference between them."""
    return json.dumps(_numbers_by_value(value), sort_keys=True, default=str)


def _numbers_by_value(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {key: _numbers_by_value(v) for key, v in value.items()}
    if isinstance(value, list | tuple):
        return [_numbers_by_value(v) for v in value]
    return value


def references_of(kind: Kind, item: Mapping[str, Any]) -> dict[str, str]:
    """Input field -> import id of the object it names, for each of the kind's references
    to another list (that object's import id is the field's value in every kind); a field
    of a nested object by its path in the item (`job_clusters[0].new_cluster.
    instance_pool_id` of a job, for its `job_clusters[].new_cluster.instance_pool`)."""
    found = {}
    for declared in kind.item_references.values():
        reference = reference_for(declared, item)
        if isinstance(reference, Reference) and item.get(reference.field) is not None:
            found[reference.field] = str(item[reference.field])
    for key, declared in kind.nested_references.items():
        for path, holder in nested_holders(item, key):
            reference = reference_for(declared, holder)
            if isinstance(reference, Reference) and holder.get(reference.field) is not None:
                found[f"{path}.{reference.field}"] = str(holder[reference.field])
    return found


def stood_for(
    kind: Kind, item: Mapping[str, Any], computed: Mapping[str, Any]
) -> dict[str, str]:
    """Reference field -> import id of the object an item field names by name in its stead
    (`Adoption.stands_for`: an assignment's `group_name`, the group's id its output)."""
    return {
        field: str(computed[output])
        for name, (field, output) in kind.adoption.stands_for.items()
        if item.get(name) is not None and computed.get(output) is not None
    }


# --- verification ------------------------------------------------------------------------


def declares_exactly(
    kind: Kind,
    item: Mapping[str, Any],
    observed: Mapping[str, Any],
    computed: Mapping[str, Any] | None = None,
) -> bool:
    """Whether `item` declares the object whose read (an import's) is `observed` (and
    `computed`, its outputs) so that the import and every preview after it show no change.
    Without `computed`, the inputs the item takes from the outputs (`from_outputs`) are
    taken as the object's."""
    if computed is None:
        computed = {k: item[k] for k in kind.adoption.from_outputs if k in item}
    return not differences(kind, item, observed, computed)


def differences(
    kind: Kind,
    item: Mapping[str, Any],
    observed: Mapping[str, Any],
    computed: Mapping[str, Any],
) -> list[str]:
    """What keeps `item` from declaring the observed object exactly, field by field (empty:
    it does): the kind's check failures, the fields whose normal form is not the observed
    one (but those the kind leaves out), and the fields the kind's diff names."""
    provider = kind.provider()
    failures = provider.input_failures(item)
    if failures:
        return sorted({f"{f.property}: {f.reason}" for f in failures})
    desired = provider.spec(provider.args_model.model_validate(item))
    left_out = set(kind.adoption.leaves_out)
    found = {
        key
        for key in set(desired) | set(observed)
        if not _same(desired.get(key), observed.get(key))
        and not (key not in desired and key in left_out)
    }
    # The kind's own judgement, as the engine asks it: the import's preview (nothing
    # declared before) and every preview after it (the item declared before).
    recorded = {**observed, **computed}
    for old_inputs in ({}, item):
        result = provider.diff("adopted", recorded, dict(item), old_inputs=old_inputs)
        if result.changes:
            found |= set(result.changed_keys) or {"(the kind's diff)"}
    return sorted(found)


# --- problems ----------------------------------------------------------------------------


def inexpressible_problem(kind: Kind, import_id: str, fields: list[str]) -> str:
    named = ", ".join(fields)
    return (
        f"a setting the {kind.name} kind cannot express: {named}. Change it in the workspace "
        f"to a value the kind declares (docs: {kind.doc}) and adopt again, or leave the "
        f"object to be managed outside the stack (`{NAMESPACE}:auditIgnore` "
        f"{kind.audit_key}:{import_id})"
    )


def _secret_inputs(kind: Kind) -> list[str]:
    """The kind's inputs that are secrets (a Secret's value): never read back."""
    return [f for f in kind.secrets if f in kind.model.model_fields]


def holds_secret(kind: Kind, observed: Mapping[str, Any]) -> bool:
    """Whether the object holds a secret input (`Adoption.holds_secret`)."""
    test = kind.adoption.holds_secret
    return test is None or test(observed)


def _secret_value(kind: Kind) -> tuple[str, str]:
    """(where the secret value goes in an item, what it is)."""
    return kind.adoption.secret_value or (
        next(iter(_secret_inputs(kind)), "value"), SECRET_VALUE_HINT
    )


def secret_problem(kind: Kind, item: Mapping[str, Any], import_id: str) -> str:
    """What the user does to adopt a secret whose value the service does not return. The
    item shown carries the import id: without it the up would create the object again,
    writing the value (or, for a credential, a second one)."""
    key = kind.config_key or kind.name
    field, what = _secret_value(kind)
    shown = json.dumps({IMPORT_KEY: import_id, **item}, sort_keys=False)
    scope = (
        " (or `secret_scope:` naming the scope's item instead of `scope`)" if "scope" in item
        else ""
    )
    naming = _naming(kind, item)
    return (
        f"the service never returns a secret's value, so no item can declare it as it is. "
        f"{naming}{'add' if naming else 'Add'} {shown}{_with_name(kind, item)} to "
        f"{NAMESPACE}:{key} yourself{scope}, then set its "
        f"value, which is stored encrypted: `pulumi config set --secret --path "
        f"'{NAMESPACE}:{key}[<i>].{field}' <value>` (<i>: the item's index in the list; "
        f"{what}). The next `pulumi up` imports it and shows no change where the value is "
        f"the one it holds."
    )


def _named_by_setting(kind: Kind) -> bool:
    """Whether the kind's `name` setting is also its items' resource name (a storage
    credential's, a Git credential's): the user cannot choose that name."""
    return "name" in kind.model.model_fields


def _naming(kind: Kind, item: Mapping[str, Any]) -> str:
    """What to do first where the item's resource name is a setting the object lacks: any
    name given in the config would be a change of it, and the import would fail."""
    if not _named_by_setting(kind) or item.get("name"):
        return ""
    return (
        f"It has no `name` either, and a {kind.name}'s `name` setting is its resource name "
        f"in {NAMESPACE}:{kind.config_key or kind.name}: give it one in the workspace first "
        f"(docs: {kind.doc}), then "
    )


def _with_name(kind: Kind, item: Mapping[str, Any]) -> str:
    if not _named_by_setting(kind):
        return " with a `name`"
    if item.get("name"):
        return " (its `name`, the object's own, is its resource name too)"
    return " with that `name`"


def secret_value_command(kind: Kind, index: int, field: str | None = None) -> str:
    """The exact command that sets the secret value of item `index` of the kind's list."""
    key = kind.config_key or kind.name
    field = field or _secret_value(kind)[0]
    return f"pulumi config set --secret --path '{NAMESPACE}:{key}[{index}].{field}' <value>"


# --- the stack's own principal -----------------------------------------------------------


def _signed_in_names(client: WorkspaceClient) -> frozenset[str]:
    """What names the principal the client signs in as, where the workspace says: its SCIM
    id (principals, memberships, OAuth secrets) and its application id or user name (a
    secret ACL's principal, such as the MANAGE one the service gives a scope's creator)."""
    try:
        me = client.me()
    except WorkspaceError:
        return frozenset()
    names = (me.get(key) for key in ("id", "applicationId", "userName"))
    return frozenset(str(name) for name in names if name)
