"""The workspace stack: a WorkspaceAuth component and the objects the config declares.

Config (namespace `workspace`, docs/configuration.md): connection settings, then one list
per kind (its `config_key` in providers/core/registry.py), each item with a unique `name`
(the Pulumi resource name) and the kind's arguments as in docs/<kind>.md. An item may name
an item of another list instead of giving its id (a kind's `references`: `job: nightly-etl` for
`job_id`; `instance_pool: etl-pool` inside a job cluster's `new_cluster` for its
`instance_pool_id`), or an existing object by name (`cluster_name`). A service's own name
field naming an object the stack declares (`catalog_name: sales`) orders the item after it
just as an item key does (providers/core/service_names.py). An item with an
`import` id (what `python -m stacks.adopt` writes, docs/adopt.md) declares an existing
object: the next up imports it, writing nothing to the workspace; once it is in the state
the engine ignores the option, so the key stays.

A stack may own a part of the workspace (`workspace:owns`) and name items of the stacks
owning the rest (`workspace:uses`): a reference to an item it does not declare is resolved
from their outputs (docs/split.md).
"""

from typing import Any

import pulumi

from providers.auth.component import WorkspaceAuth
from providers.auth.single_write import guard_declarations
from providers.client import process
from providers.core.kind import Kind, Lookup, Reference, reference_for, with_nested_references
from providers.core.lookup import output_read
from providers.core.registry import kind_for_key, stack_outputs
from providers.core.service_names import NameMatch, StackNames, declaration_order, with_names
from stacks import health
from stacks.config import StackSettings, load_from_engine
from stacks.config_rules import IMPORT_KEY, declared_kinds, stack_keys
from stacks.split import owned_keys, used_stacks
from stacks.used_stacks import ITEMS_OUTPUT, UsedStacks, items_output


def declare(
    kind: Kind,
    settings: StackSettings,
    made: dict[str, dict[str, Any]],
    connection: pulumi.Output[dict],
    names: StackNames,
    used: UsedStacks,
) -> dict[str, Any]:
    """One resource per item of the kind's list, named by the item's `name`."""
    after = [r for key in kind.after for r in made.get(key, {}).values()]
    own_keys = stack_keys(kind)
    resources = {}

    def value_of(reference: Reference | Lookup, name: Any) -> Any:
        if isinstance(reference, Lookup):
            return reference.resolve(connection, name)
        if name not in made.get(reference.target_key, {}) and used.takes(reference):
            return used.resolve(reference, name)  # an item of a used stack (docs/split.md)
        return reference.value_in(made, name, read_output)

    def read_output(key: str, resource: Any, output: str) -> pulumi.Output:
        return output_read(connection, kind_for_key(key).provider(), resource, output)

    def named(match: NameMatch) -> Any:
        # The name as given, known when the item it names has its id: the engine orders
        # the two, and a stack deployed before names were references sees no change.
        key, name = match.target or ("", "")
        target = made.get(key, {}).get(name)
        return match.value if target is None else target.id.apply(lambda _: match.value)

    for item in settings.items(kind.config_key or ""):
        inputs = {k: v for k, v in item.items() if k not in own_keys}
        for key, declared in kind.item_references.items():
            reference = reference_for(declared, item)
            if key in item and reference is not None:
                inputs[reference.field] = value_of(reference, item[key])
        inputs = with_nested_references(inputs, kind, value_of)
        inputs = with_names(inputs, names.matches(kind, item), named)
        resources[item["name"]] = kind.resource(
            item["name"], kind.args(**inputs), connection=connection, opts=options(item, after)
        )
    return resources


def options(item: dict[str, Any], after: list[Any]) -> pulumi.ResourceOptions | None:
    """The item's resource options: what it waits for, and the id it imports (`import`)."""
    import_id = item.get(IMPORT_KEY) if IMPORT_KEY in item else None
    if not after and import_id is None:
        return None
    return pulumi.ResourceOptions(depends_on=after or None, import_=import_id)


# This run's tokens, sessions and rate limits (providers/client/process.py).
process.start()
# Under the single-write mode, the program declares workspace kinds only (docs/state.md).
guard_declarations()
# All of the config is judged before anything is registered: bad config changes nothing.
settings = load_from_engine()
health.gate(settings)  # after everything below is deployed (docs/health.md)
auth = WorkspaceAuth("workspace", settings.auth_args())
# The account's connection, only for a stack with account items (docs/account.md).
account = WorkspaceAuth("account", settings.account_auth_args()) if (
    settings.has_account_items) else None

made: dict[str, dict[str, Any]] = {}
# The kinds of the lists the config declares, and only those, are loaded (a preview of a
# stack of three kinds loads three kinds' modules, not every kind's).
ordered = declaration_order(list(declared_kinds(settings.lists).values()))
names = StackNames(ordered, settings.lists)
used = UsedStacks(used_stacks(settings.values), owned_keys(settings.values))
for kind in ordered:
    if kind.config_key:
        connection = account.connection if account and kind.account_level else auth.connection
        made[kind.config_key] = declare(kind, settings, made, connection, names, used)
        if kind.stack_output:
            name, value = kind.stack_output
            pulumi.export(name, {n: value(r) for n, r in made[kind.config_key].items()})
for key, name in stack_outputs().items():
    if key not in made:
        pulumi.export(name, {})  # a list the stack leaves empty: its output is, as it was

if owned_keys(settings.values) is not None:
    # A stack owning a part of the workspace: its items, for the stacks that use it.
    pulumi.export(ITEMS_OUTPUT, items_output(made))
pulumi.export("workspace_url", settings.values["baseUrl"])
