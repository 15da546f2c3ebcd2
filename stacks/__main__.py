"""The workspace stack: a WorkspaceAuth component and the objects the config declares.

Config (namespace `workspace`, docs/configuration.md): connection settings, then one list
per kind (its `config_key` in providers/core/registry.py), each item with a unique `name`
(the Pulumi resource name) and the kind's arguments as in docs/<kind>.md. An item may name
an item of another list instead of giving its id (a kind's `references`: `job: nightly-etl` for
`job_id`; `instance_pool: etl-pool` inside a job cluster's `new_cluster` for its
`instance_pool_id`), or an existing object by name (`cluster_name`). An item with an
`import` id (what `python -m stacks.adopt` writes, docs/adopt.md) declares an existing
object: the next up imports it, writing nothing to the workspace; once it is in the state
the engine ignores the option, so the key stays.
"""

from typing import Any

import pulumi

from providers.auth.component import WorkspaceAuth
from providers.auth.single_write import guard_declarations
from providers.client import process
from providers.core.kind import Kind, Lookup, Reference, reference_for, with_nested_references
from providers.core.lookup import output_read
from providers.core.registry import by_config_key, kinds
from stacks import health
from stacks.config import StackSettings, load_from_engine
from stacks.config_rules import IMPORT_KEY, stack_keys


def declare(
    kind: Kind,
    settings: StackSettings,
    made: dict[str, dict[str, Any]],
    connection: pulumi.Output[dict],
) -> dict[str, Any]:
    """One resource per item of the kind's list, named by the item's `name`."""
    after = [r for key in kind.after for r in made.get(key, {}).values()]
    own_keys = stack_keys(kind)
    resources = {}

    def value_of(reference: Reference | Lookup, name: Any) -> Any:
        if isinstance(reference, Lookup):
            return reference.resolve(connection, name)
        return reference.value_in(made, name, read_output)

    def read_output(key: str, resource: Any, output: str) -> pulumi.Output:
        return output_read(connection, by_config_key()[key].provider(), resource, output)

    for item in settings.items(kind.config_key or ""):
        inputs = {k: v for k, v in item.items() if k not in own_keys}
        for key, declared in kind.item_references.items():
            reference = reference_for(declared, item)
            if key in item and reference is not None:
                inputs[reference.field] = value_of(reference, item[key])
        inputs = with_nested_references(inputs, kind, value_of)
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

made: dict[str, dict[str, Any]] = {}
for kind in kinds():
    if kind.config_key:
        made[kind.config_key] = declare(kind, settings, made, auth.connection)
        if kind.stack_output:
            name, value = kind.stack_output
            pulumi.export(name, {n: value(r) for n, r in made[kind.config_key].items()})

pulumi.export("workspace_url", settings.values["baseUrl"])
