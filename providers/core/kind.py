"""One declaration per resource kind, at the end of the module that implements it.

A kind's module (providers/jobs/job.py) writes the input model (pydantic: the schema) and the
provider (the service calls), and ends with the kind's declaration: what a program needs to
declare resources of the kind, bound to that provider.

    KIND = declare(
        name="Job",
        provider=JobProvider,
        outputs={"job_id": int, "url": str, "creator_user_name": str},
        config_key="jobs",
        doc="docs/job.md",
        summary="a job of the workspace",
    )

The registry (providers/core/registry.py) names each kind and its module, and loads a module
only when its kind is looked up, so a provider host serving only jobs loads the job's
module alone.

Everything else derives from the declaration: the resource class (type token
`pulumi-python:dynamic/workspace:<name>`, its outputs as attributes), the program-side args
classes (dataclasses generated from the input model on first use, nested models included,
every field a `pulumi.Input`), the provider's `computed_keys`, the stack-config list key,
the identity fields two items of that list may not share, the references from one list to
another, whether the kind can be imported, its row in the docs table, and what the after-write drill
changes in an item of it (`drill=`, or `action=` for a kind that makes no object).

The provider code travels in a program's requests as the kind's module and name
(`ProviderOf`), which the provider host turns back into the provider.
docs/architecture.md explains the choice.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import importlib
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pydantic
from pulumi.dynamic import ResourceProvider

from providers.core.import_ids import ImportIdRule, no_dot_segments
from providers.core.lifecycle import WorkspaceProvider
from providers.core.resource import WorkspaceResource, deployment_tag

MODULE = "workspace"
TYPE_PREFIX = f"pulumi-python:dynamic/{MODULE}:"


@dataclass(frozen=True)
class Reference:
    """A stack-config key that names an item of another list of the same stack.

    `jobPermissions: [{name: p, job: nightly}]` -> the `job_id` input is the id of the Job
    resource named `nightly` in `workspace:jobs`. The item gives the key or `field` (an
    existing object's id), never both.

    The key in a kind's `references` may be a path to an object nested in the item, its
    last part the key that object holds, `[]` each element of a list:
    `job_clusters[].new_cluster.instance_pool` fills `instance_pool_id` beside it, in every
    job cluster that names a pool (see `nested_holders`).
    """

    target_key: str  # the config list the name points into (e.g. "jobs")
    field: str  # the input it fills (e.g. "job_id")
    # The target's ids fold case (Unity Catalog names): `Lake` and `lake` are one object.
    folds_case: bool = False
    # The key is the field itself (`pipeline_task.pipeline_id`): a value that names an item
    # of the list is a reference to it, any other value is an id as the service gives it,
    # kept as it is (what a user pastes from the service's own output works).
    in_place: bool = False
    # What the field takes from the item named, made from its id (a pipeline's `schema` is
    # the short name of the Schema item's `catalog.schema` id); None: the id itself.
    from_id: Callable[[str], Any] | None = None
    # The output of the item named that the field takes where the service addresses the
    # object by another id than the resource's (a serving endpoint's permissions take its
    # `endpoint_id`, its resource id being its name); None: the resource's id.
    output: str | None = None

    def for_holder(self, holder: Mapping[str, Any]) -> Reference | None:
        """The reference the object holding the key makes (this one)."""
        return self

    def names_item(self, value: Any, names: Mapping[str, Any]) -> bool:
        """Whether `value` names an item of the target list (`names`: config key -> the
        item names of that list). Any value of a reference that is not in place does."""
        if not self.in_place:
            return True
        return isinstance(value, str) and value in names.get(self.target_key, ())

    def value_in(
        self, made: Mapping[str, Mapping[str, Any]], value: Any,
        read: Callable[[str, Any, str], Any] | None = None,
    ) -> Any:
        """What the field takes where the item holds `value`, `made` the stack's resources
        by config key and name: the named resource's id, or its `output` (as `read(config
        key, resource, output)` gives it, where given); or the value as it is where it names
        no item (an in-place reference's id as the service gives it)."""
        if not self.names_item(value, made):
            return value
        target = made[self.target_key][value]
        if self.output:
            return read(self.target_key, target, self.output) if read else getattr(
                target, self.output)
        # The id, not an output such as job_id: an id stays known while its object is
        # updated, so a preview of that update does not show this one replaced.
        return target.id.apply(self.from_id) if self.from_id else target.id


@dataclass(frozen=True)
class ReferenceByType:
    """An id that names an object of the type given beside it, in place
    (`Permissions`' `object_id`, of `object_type`): a value naming an item of the list kept
    for that type is a reference to it; any other value, or another type, an id as it is."""

    field: str
    type_field: str
    # type value -> the config list its objects are declared in
    targets: Mapping[str, str]
    # type value -> the output its objects are addressed by, where not the resource's id
    # (`Reference.output`)
    outputs: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def for_holder(self, holder: Mapping[str, Any]) -> Reference | None:
        object_type = str(holder.get(self.type_field))
        target = self.targets.get(object_type)
        if target is None:
            return None
        return Reference(target, self.field, in_place=True, output=self.outputs.get(object_type))


def dotted_name(holder: Mapping[str, Any], fields: tuple[str, ...]) -> str | None:
    """The dotted name the holder's `fields` give together, outermost first: a volume's
    `catalog_name`, `schema_name`, `name` -> `sales.raw.landing`. A field may hold its own
    parents too (`schema_name: sales.raw`; `name` the full name), which then fill their
    places; None where a part is missing or not text. One field's value is the name whole
    (a user's `ana@example.com`)."""
    if len(fields) == 1:
        value = holder.get(fields[0])
        return value if isinstance(value, str) and value else None
    parts: list[str | None] = [None] * len(fields)
    for place, key in enumerate(fields):
        value = holder.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or not value:
            return None
        given = value.split(".")
        first = place + 1 - len(given)
        if first < 0:
            return None
        parts[first:place + 1] = given
    if any(not part for part in parts):
        return None
    return ".".join(typing.cast(list[str], parts))


@dataclass(frozen=True)
class NameReference:
    """An API name field (the service's own field, in place) that names an object of
    another kind: where the object is one the same stack declares, the item waits for it on
    create and goes before it on delete, exactly as with an item key; any other value stays
    a plain name. The value sent is the name as given either way.

    Matching is by the object's name as the service writes it (the target kind's
    `named_as`), made from the holder's fields: a volume's `schema_name: raw` beside
    `catalog_name: sales` names the Schema `sales.raw`, not an item named `raw`.
    """

    field: str
    # The config lists the name may point into, the first that declares it wins (a
    # principal: groups, users, service principals).
    targets: tuple[str, ...]
    # The holder's fields naming the object's parents, outermost first (`catalog_name` for
    # a schema's name).
    within: tuple[str, ...] = ()
    # The field holds the object's whole name, dotted as it may be (a securable's
    # `full_name`).
    whole: bool = False

    def for_holder(self, holder: Mapping[str, Any]) -> NameReference | None:
        return self

    def name_in(self, holder: Mapping[str, Any]) -> str | None:
        """The object's dotted name as the holder gives it (None: not a name)."""
        return dotted_name(holder, (self.field,) if self.whole else (*self.within, self.field))


@dataclass(frozen=True)
class NameByType:
    """A name field naming an object of the type given beside it (`Grants.full_name` of
    `securable_type`): a `NameReference` into that type's list; another type names nothing
    the stack declares."""

    field: str
    type_field: str
    # type value (lower case, `_` for `-`) -> the config list its objects are declared in
    targets: Mapping[str, str]

    def for_holder(self, holder: Mapping[str, Any]) -> NameReference | None:
        spelled = str(holder.get(self.type_field, "")).strip().lower().replace("-", "_")
        target = self.targets.get(spelled)
        return NameReference(self.field, (target,), whole=True) if target else None


# The principal fields of grants and access lists name a group by its display name, a user
# by its user name, a service principal by its application id.
# An account group (`accountGroups`) is named in the workspace by its display name too, once
# assigned to it: what names principals waits for the workspace's assignments as well.
PRINCIPALS = ("groups", "accountGroups", "users", "servicePrincipals")


def principal_names(holder: str) -> dict[str, NameReference]:
    """The name fields of a principal held at `holder` (an access-list entry, a run-as, as a
    `names` path): `group_name` a Group or an AccountGroup, `user_name` a User,
    `service_principal_name` a ServicePrincipal (its application id)."""
    fields = {"group_name": ("groups", "accountGroups"), "user_name": ("users",),
              "service_principal_name": ("servicePrincipals",)}
    return {f"{holder}.{f}": NameReference(f, targets) for f, targets in fields.items()}


def is_nested(key: str) -> bool:
    """Whether a `references` key is a path into the item, not one of its own keys."""
    return "." in key


def nested_holders(item: Mapping[str, Any], key: str) -> list[tuple[str, dict[str, Any]]]:
    """Every object a nested reference's path reaches in a config item, with its path
    (`job_clusters[0].new_cluster`); parts missing or of another type reach nothing."""
    reached: list[tuple[str, Any]] = [("", item)]
    for part in key.split(".")[:-1]:
        name, each = part.removesuffix("[]"), part.endswith("[]")
        found: list[tuple[str, Any]] = []
        for path, holder in reached:
            value = holder.get(name) if isinstance(holder, Mapping) else None
            where = f"{path}.{name}".lstrip(".")
            if each and isinstance(value, list):
                found += [(f"{where}[{i}]", element) for i, element in enumerate(value)]
            elif not each and value is not None:
                found.append((where, value))
        reached = found
    return [(path, holder) for path, holder in reached if isinstance(holder, dict)]


def with_nested_references(
    inputs: Mapping[str, Any], kind: Kind, value_of: Callable[[Reference | Lookup, Any], Any]
) -> dict[str, Any]:
    """The inputs, each nested reference's key replaced by its field beside it, whose value is
    `value_of(reference, the name given)`; the inputs as they are where there is none."""
    if not kind.nested_references:
        return dict(inputs)
    # Only what a path reaches is copied: other inputs may be Outputs already (an item's own
    # references, resolved first), which are not to be copied.
    reached = {key.split(".", 1)[0].removesuffix("[]") for key in kind.nested_references}
    copied = {k: copy.deepcopy(v) if k in reached else v for k, v in inputs.items()}
    for key, reference in kind.nested_references.items():
        name = key.rsplit(".", 1)[-1]
        for _, holder in nested_holders(copied, key):
            made = reference_for(reference, holder)
            if name in holder and made is not None:
                holder[made.field] = value_of(made, holder.pop(name))
    return copied


def reference_for(
    reference: Reference | ReferenceByType | Lookup, holder: Mapping[str, Any]
) -> Reference | Lookup | None:
    """The reference a key makes in the object holding it (a `ReferenceByType` one of the
    type named beside it); None: that object's key is no reference (a type of no list)."""
    return reference if isinstance(reference, Lookup) else reference.for_holder(holder)


@dataclass(frozen=True)
class Lookup:
    """A stack-config key that names an existing workspace object by something other than
    its id (a cluster by its name); `resolve(connection, value)` finds the id at program
    time (a read, in preview too). The item gives the key or `field`, never both."""

    field: str
    resolve: Callable[[Any, Any], pulumi.Output[Any]]
    expects: type = str


@dataclass(frozen=True)
class Adoption:
    """What taking over a workspace's existing objects of the kind needs beyond its
    inventory and its provider's read of each one (stacks/adoption.py). Every field is
    optional; the defaults adopt every listed object as its import reads it."""

    # (import id, display name) of every object to adopt where that is not the audit's
    # `inventory` (a repo's branch: the repos the audit lists as repos); an entry may add why
    # it is left out, (import id, display name, reason) (a workspace's copy of an account
    # group: the account's kinds adopt it), neither adopted nor reported by the audit.
    objects: Callable[[Any], Iterable[tuple[str, ...]]] | None = None
    # Inputs an item takes from the computed outputs (a principal's application id).
    from_outputs: tuple[str, ...] = ()
    # Settings of the observed spec an item leaves out, each with when: (observed spec,
    # computed outputs) -> True where the value is the service's own (a job's run_as naming
    # its creator) or another kind declares it (a principal's groups: GroupMember items).
    leaves_out: Mapping[str, Callable[[Mapping[str, Any], Mapping[str, Any]], bool]] = field(
        default_factory=dict
    )
    # The SCIM id of the principal an object (by import id) belongs to, where it belongs to
    # one (a principal, its OAuth secret, its membership of a group): the stack's own
    # principal's are never adopted (a destroy would take its own credentials and rights).
    principal_of: Callable[[str], str] | None = None
    # Why the kind is not adopted at all, though importable (what to do instead).
    refused: str | None = None
    # An item field naming by name the object a reference's field names by id, with the
    # output holding that id: (reference field, output). Where adopt adopts that object in
    # the same run, the item names its item instead (a WorkspaceAssignment's `group_name`
    # stands for its `principal_id`, the output `assigned_principal_id`: `account_group:
    # <the accountGroups item>`).
    stands_for: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    # Whether an object (its observed spec) holds a secret input, which the service never
    # returns, so that no item declares it as it is and its candidate says how to set the
    # value; None: every object of a kind with secret inputs does (a Secret's value). A
    # storage credential holds one only where it is a service principal's.
    holds_secret: Callable[[Mapping[str, Any]], bool] | None = None
    # (where the value goes in an item, what it is), for that candidate; None: the kind's
    # first secret input, a Secret's value.
    secret_value: tuple[str, str] | None = None
    # (audit key, import id) of the objects an object holds beside itself, from its id and
    # recorded outputs (a key vault scope's MANAGE for `users`, a principal's declared
    # groups, the securable an additive Grant shares): they are the object's stack's, so
    # neither unmanaged in the audit nor adopted apart.
    makes: Callable[[str, Mapping[str, Any]], Iterable[tuple[str, str]]] | None = None
    # For a kind whose content belongs in a file of the project (`source`): (client, import
    # id, observed spec) -> (the file's path, relative, where adopt puts the content; the
    # content exported). The item names that file as its `source`.
    content: Callable[[Any, str, Mapping[str, Any]], tuple[str, bytes]] | None = None


@dataclass(frozen=True)
class DrillChange:
    """What the after-write drill (tools/drills/after_write.py) changes in a stack-config item
    of the kind, to prove that an update converges when the service fails after applying it.

    `change(item)` gets a copy of the item (its own to alter) and returns the item changed:
    one setting or more another value, its `name` kept, so that the next `up` updates that
    resource in place (or replaces it, where that setting forces one). The drill then checks
    that the workspace holds exactly the changed items. The kinds of the local stack are
    drilled against the emulator, whose initial data the changes may name (another user,
    workspace or branch).
    """

    change: Callable[[dict[str, Any]], dict[str, Any]]

    def changed(self, item: Mapping[str, Any]) -> dict[str, Any]:
        return self.change(copy.deepcopy(dict(item)))


def appended_to(key: str, suffix: str = " (updated)") -> DrillChange:
    """The drill change of a kind whose text setting `key` (a comment, a display name) is
    updated in place: `suffix` appended to it (to nothing where the item leaves it out)."""
    return DrillChange(lambda item: {**item, key: f"{item.get(key) or ''}{suffix}"})


def always(observed: Any, computed: Any) -> bool:
    """An `Adoption.leaves_out` test for a setting no adopted item declares."""
    return True


@dataclass(frozen=True, eq=False)
class Kind:
    name: str
    # The provider class: the service calls of the kind (its module is the kind's module).
    provider: type[WorkspaceProvider]
    # Computed outputs (not inputs), with their Python types: the resource's attributes.
    outputs: Mapping[str, type]
    # Inputs the resource fills in itself from its resource name, never declared by users.
    stamped: Mapping[str, Callable[[str], Any]]
    config_key: str | None
    identity: tuple[str, ...]
    references: Mapping[str, Reference | ReferenceByType | Lookup]
    # Config lists whose resources this kind's resources wait for (job runs after cluster
    # states).
    after: tuple[str, ...]
    importable: bool
    doc: str
    summary: str
    # What `ResourceOptions(import_=...)` takes, in words ("job id"), for the docs.
    import_id: str
    # What the stack program exports of this kind's resources: (output name, value of one
    # resource); the output maps each resource name to that value.
    stack_output: tuple[str, Callable[[Any], Any]] | None
    # Every object of this kind in a workspace, as (id, display name), for the audit of
    # what no stack manages (stacks/audit.py); None: not audited.
    inventory: Callable[[Any], Iterable[tuple[str, str]]] | None
    # For a kind whose objects are mostly not a stack's to own (a volume's files): the
    # objects beside those the stacks manage (given their ids), as (id, display name), the
    # only ones the audit lists; None: the audit lists what `inventory` does.
    inventory_near: Callable[[Any, Iterable[str]], Iterable[tuple[str, str]]] | None = None
    # Inputs and outputs that are always Pulumi secrets (a secret's value and its digest):
    # an input given in plain text is made secret before it leaves the program.
    secrets: tuple[str, ...] = ()
    # Other names of generated args classes, kept for programs written against them.
    arg_aliases: Mapping[str, str] = field(default_factory=dict)
    # Inputs the kind holds to a value where a declaration leaves them out (its model's
    # defaults, which take them from here), so the state records them undeclared. The
    # provider host's no-op test (`_nothing_to_change`) knows them without the model.
    defaults: Mapping[str, Any] = field(default_factory=dict)
    # How `python -m stacks.adopt` takes over existing objects of the kind.
    adoption: Adoption = field(default_factory=Adoption)
    # Inputs the resource has as attributes also where a declaration leaves them out: the
    # kind fills them in (a notebook's language, from its file's extension), and the outputs
    # hold the value it took. Not computed: they are diffed like any input.
    shown: Mapping[str, type] = field(default_factory=dict)
    # What is wrong with an import id of the kind (None: nothing), judged before any
    # request (providers/core/import_ids.py): a numeric id, a workspace path, one URL segment.
    import_id_rule: ImportIdRule = no_dot_segments
    # What the after-write drill changes in an item of the kind; None only for an action.
    drill: DrillChange | None = None
    # What an action does, in words ("runs a job"): a kind that makes no object of its own
    # but acts on the workspace when created or changed, so nothing is left afterwards for
    # an inventory to find, change or delete. None: the kind makes an object.
    action: str | None = None
    # The API name fields of the kind's items that name objects of other kinds (a volume's
    # `catalog_name`, a grant's `principal`), by key as in `references` (a path to a nested
    # holder's field allowed): docs/configuration.md "References".
    names: Mapping[str, NameReference | NameByType] = field(default_factory=dict)
    # How the service writes the name of an object of the kind, from its item's fields,
    # outermost first (a schema: `catalog_name`, `name`); () the kind is named by no field
    # other kinds' name fields give.
    named_as: tuple[str, ...] = ()
    # Whether those names fold case (Unity Catalog's: `Sales` and `sales` are one catalog).
    names_fold_case: bool = False
    # Whether its objects are the account's, not the workspace's: it takes the account
    # connection (a connection with an account id; docs/account.md).
    account_level: bool = False
    resource: type[KindResource] = field(init=False)

    def import_id_problem(self, id_: str) -> str | None:
        """Why `id_` is no import id of this kind (naming what the id is), or None."""
        problem = self.import_id_rule(id_)
        if problem is None:
            return None
        return f"import id {id_!r} ({self.import_id or 'the id'}) {problem}"

    @property
    def item_references(self) -> dict[str, Reference | ReferenceByType | Lookup]:
        """The references a config item holds as its own keys (not nested)."""
        return {k: r for k, r in self.references.items() if not is_nested(k)}

    @property
    def nested_references(self) -> dict[str, Reference | ReferenceByType | Lookup]:
        """The references held by objects nested in a config item, by path."""
        return {k: r for k, r in self.references.items() if is_nested(k)}

    @property
    def implementation(self) -> str:
        """The module that declares and implements the kind (its `KIND`)."""
        return self.provider.__module__

    @property
    def computed_keys(self) -> frozenset[str]:
        """What the kind's outputs hold beside the declared settings: its computed outputs
        and its stamped inputs. Recorded, never diffed."""
        return frozenset(self.outputs) | frozenset(self.stamped)

    @functools.cached_property
    def arg_types(self) -> dict[str, type]:
        """Every generated args class by name (`JobArgs`, `NewClusterArgs`, ...)."""
        made: dict[str, type] = {}
        args_class(self.model, f"{self.name}Args", set(self.stamped), made)
        made.update({alias: made[target] for alias, target in self.arg_aliases.items()})
        return made

    @property
    def args(self) -> type:
        return self.arg_types[f"{self.name}Args"]

    @property
    def type_token(self) -> str:
        return TYPE_PREFIX + self.name

    @property
    def audit_key(self) -> str:
        """`ServicePrincipal` -> `service_principal`: the kind's name in the audit."""
        return "".join(f"_{c.lower()}" if c.isupper() else c for c in self.name).lstrip("_")

    @property
    def model(self) -> type[pydantic.BaseModel]:
        return self.provider.args_model

    def input_names(self) -> list[str]:
        """The inputs a user declares (the model's fields but the stamped ones)."""
        return [n for n in self.model.model_fields if n not in self.stamped]


class KindResource(WorkspaceResource):
    """The resource class every kind's is generated from: `Kind.resource`."""

    kind: typing.ClassVar[Kind]

    def __init__(
        self,
        resource_name: str,
        args: Any,
        connection: pulumi.Input[dict],
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        inputs = to_props(args)
        if not isinstance(inputs, dict):
            raise TypeError(f"{resource_name}: args must be {self.kind.name}Args or a dict")
        for key, make in self.kind.stamped.items():
            inputs[key] = make(resource_name)
        for key in self.kind.secrets:
            if inputs.get(key) is not None:
                inputs[key] = pulumi.Output.secret(inputs[key])
        if self.kind.secrets:
            secret = pulumi.ResourceOptions(additional_secret_outputs=list(self.kind.secrets))
            opts = pulumi.ResourceOptions.merge(secret, opts)
        super().__init__(
            ProviderOf(self.kind),
            resource_name,
            connection,
            inputs,
            outputs=(*self.kind.outputs, *self.kind.shown),
            opts=opts,
        )


class ProviderOf(ResourceProvider):
    """Stands for a kind's provider in the `__provider` a program sends: it pickles as the
    kind's module and name (what every state recorded since declarations exist holds), not
    as the provider's code, and unpickles (in the provider host) as that kind's provider.
    It serves nothing itself."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind

    def __reduce__(self) -> tuple[Callable[[str, str], WorkspaceProvider], tuple[str, str]]:
        return provider_in, (self.kind.implementation, self.kind.name)


def provider_in(implementation: str, kind_name: str) -> WorkspaceProvider:
    """A provider of the kind that the module `implementation` binds (as its `KIND`)."""
    kind = getattr(importlib.import_module(implementation), "KIND", None)
    if not isinstance(kind, Kind) or kind.name != kind_name:
        raise RuntimeError(f"{implementation} does not implement the {kind_name} kind")
    return kind.provider()


def declare(
    *,
    name: str,
    provider: type[WorkspaceProvider],
    doc: str,
    summary: str,
    import_id: str = "",
    outputs: Mapping[str, type] | None = None,
    stamped: Mapping[str, Callable[[str], Any]] | None = None,
    config_key: str | None = None,
    identity: tuple[str, ...] = (),
    references: Mapping[str, Reference | ReferenceByType | Lookup] | None = None,
    after: tuple[str, ...] = (),
    importable: bool = True,
    stack_output: tuple[str, Callable[[Any], Any]] | None = None,
    inventory: Callable[[Any], Iterable[tuple[str, str]]] | None = None,
    inventory_near: Callable[[Any, Iterable[str]], Iterable[tuple[str, str]]] | None = None,
    arg_aliases: Mapping[str, str] | None = None,
    secrets: tuple[str, ...] = (),
    defaults: Mapping[str, Any] | None = None,
    adoption: Adoption | None = None,
    shown: Mapping[str, type] | None = None,
    import_id_rule: ImportIdRule = no_dot_segments,
    drill: DrillChange | None = None,
    action: str | None = None,
    names: Mapping[str, NameReference | NameByType] | None = None,
    named_as: tuple[str, ...] = (),
    names_fold_case: bool = False,
    account_level: bool = False,
) -> Kind:
    if drill is not None and action is not None:
        raise ValueError(
            f"{name}: an action ({action}) leaves no object for the after-write drill to "
            "change: declare drill= or action=, not both"
        )
    for key, reference in (references or {}).items():
        in_place = isinstance(reference, ReferenceByType) or (
            isinstance(reference, Reference) and reference.in_place
        )
        if in_place and key.rsplit(".", 1)[-1] != getattr(reference, "field", None):
            raise ValueError(f"{name}: the in-place reference {key!r} must end in its field")
    for key, named in (names or {}).items():
        if key.rsplit(".", 1)[-1] != named.field:
            raise ValueError(f"{name}: the name field {key!r} must end in its field")
    kind = Kind(
        name=name,
        provider=provider,
        outputs=dict(outputs or {}),
        stamped=dict(stamped or {}),
        config_key=config_key,
        identity=identity,
        references=dict(references or {}),
        after=after,
        importable=importable,
        doc=doc,
        summary=summary,
        import_id=import_id,
        stack_output=stack_output,
        inventory=inventory,
        inventory_near=inventory_near,
        secrets=secrets,
        arg_aliases=dict(arg_aliases or {}),
        defaults=dict(defaults or {}),
        adoption=adoption or Adoption(),
        shown=dict(shown or {}),
        import_id_rule=import_id_rule,
        drill=drill,
        action=action,
        names=dict(names or {}),
        named_as=named_as,
        names_fold_case=names_fold_case,
        account_level=account_level,
    )
    object.__setattr__(kind, "resource", _resource_class(kind))
    provider.computed_keys = kind.computed_keys
    return kind


# Inputs stamped from the resource name: the deployment tag that lets a retried create find
# what it made (jobs), or name one run of one deployment (job runs).
DEPLOYMENT_TAG = {"deployment_tag": deployment_tag}


def _resource_class(kind: Kind) -> type[KindResource]:
    annotations = {
        key: _OUTPUT[python_type] for key, python_type in {**kind.shown, **kind.outputs}.items()
    }
    namespace = {
        "kind": kind,
        "__annotations__": annotations,
        "__doc__": f"{kind.summary[:1].upper()}{kind.summary[1:]}. See {kind.doc}.",
        "__module__": "providers",
        "__qualname__": kind.name,
    }
    return types.new_class(
        kind.name,
        (KindResource,),
        {"module": MODULE, "name": kind.name},
        lambda ns: ns.update(namespace),
    )


# --- args classes generated from input models -------------------------------------------


def args_class(
    model: type[pydantic.BaseModel],
    class_name: str,
    exclude: set[str],
    made: dict[str, type],
) -> type:
    """A dataclass named `class_name` with the model's fields (but `exclude`), each typed
    `pulumi.Input[...]`; required where the model requires it (those come first). Nested
    models get args classes of their own (`<Nested>Args`, the model's name without its
    `Model` suffix), collected in `made`; a nested value may also be given as a dict."""
    if class_name in made:
        return made[class_name]
    made[class_name] = _IN_PROGRESS  # a model nesting itself (a for-each task's task)
    required: list[tuple[str, Any]] = []
    optional: list[tuple[str, Any, Any]] = []
    for field_name, info in model.model_fields.items():
        if field_name in exclude:
            continue
        annotation = _input_annotation(info.annotation, made)
        if info.is_required():
            required.append((field_name, annotation))
        else:
            optional.append((field_name, annotation | None, dataclasses.field(default=None)))
    # Required ones first, so they may also be positional.
    specs: list[tuple[str, Any] | tuple[str, Any, Any]] = [*required, *optional]
    made[class_name] = cls = dataclasses.make_dataclass(
        class_name, specs, namespace={"__doc__": _args_doc(model)}
    )
    cls.__module__ = "providers"
    return cls


# Pulumi's type aliases, subscripted at run time with types only known then.
_INPUT: Any = pulumi.Input
_OUTPUT: Any = pulumi.Output
_SEQUENCE: Any = typing.Sequence
_MAPPING: Any = Mapping


class _IN_PROGRESS:
    """Stands for an args class while its own fields are being made."""


def nested_args_name(model: type[pydantic.BaseModel]) -> str:
    return model.__name__.removesuffix("Model") + "Args"


def _input_annotation(annotation: Any, made: dict[str, type]) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        nested = args_class(annotation, nested_args_name(annotation), set(), made)
        if nested is _IN_PROGRESS:
            return Mapping[str, Any]
        return nested | Mapping[str, Any]
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin in (types.UnionType, typing.Union):
        parts = [_input_annotation(a, made) for a in arguments if a is not type(None)]
        return _union(parts)
    if origin is list and arguments:
        return _INPUT[_SEQUENCE[_input_annotation(arguments[0], made)]]
    if origin is dict and len(arguments) == 2:
        return _INPUT[_MAPPING[str, _input_annotation(arguments[1], made)]]
    if origin is typing.Annotated:
        return _input_annotation(arguments[0], made)
    return _INPUT[annotation]


def _union(parts: list[Any]) -> Any:
    result = parts[0]
    for part in parts[1:]:
        result = result | part
    return result


def _args_doc(model: type[pydantic.BaseModel]) -> str:
    first = (model.__doc__ or "").strip().split("\n\n")[0]
    return f"Program-side arguments of {model.__name__} (generated). {first}".strip()


def to_props(value: Any) -> Any:
    """Args dataclasses to plain props, leaving Pulumi Inputs/Outputs untouched.

    (`dataclasses.asdict` would deep-copy Outputs.) Unset (None) fields are dropped so
    the provider's defaults apply.
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_props(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if getattr(value, f.name) is not None
        }
    if isinstance(value, list | tuple):
        return [to_props(v) for v in value]
    if isinstance(value, dict):
        return {k: to_props(v) for k, v in value.items() if v is not None}
    return value
