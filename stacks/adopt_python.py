"""`python -m stacks.adopt --python FILE`: the adopted objects as a Python module a team's own
program imports (docs/adopt.md, "A team's own program").

The module declares the same objects as the config items would, with the package's kinds
and `ResourceOptions(import_=...)`, a reference by resource name becoming the id of the
resource the module declares, at the item's top level (`'job_id': made['jobs']['etl'].id`)
and inside its nested objects (a job cluster's `'instance_pool_id':
made['instancePools']['etl-pool'].id`):

    import adopted
    auth = WorkspaceAuth("workspace", auth_args)
    made = adopted.declare(auth.connection)   # {config key: {resource name: resource}}
"""

from __future__ import annotations

import pprint
from collections.abc import Mapping
from typing import Any

from providers.client.connection import check_url_shape
from providers.core.kind import Kind, Lookup, Reference, reference_for, with_nested_references
from stacks.config_rules import IMPORT_KEY, stack_keys

HEADER = '''"""The objects `python -m stacks.adopt` adopted from the workspace at WORKSPACE_URL
(generated: {count} object(s)).

Each is declared as the workspace holds it and imported by id: the first `pulumi up` of a
program that calls `declare` imports them all and writes nothing to the workspace; the
preview after it shows no changes. Change a declaration to change its object.
"""

from typing import Any

import pulumi

import providers

WORKSPACE_URL = {url}


def declare(connection: pulumi.Input[dict]) -> dict[str, dict[str, Any]]:
    """Declares every adopted object; returns them by config list and resource name."""
    made: dict[str, dict[str, Any]] = {{{lists}}}
'''


def module_text(additions: Mapping[str, list[dict[str, Any]]], kinds: Mapping[str, Kind],
                workspace_url: str) -> str:
    """The module declaring `additions` (config key -> adopt's items, in the registry's
    order: a kind after those it references). Every string of the workspace's goes into
    the module as a Python literal (`repr`), never into its text: no name, id or URL can
    end a string and run code on import; the URL is the checked, normalised one."""
    count = sum(len(items) for items in additions.values())
    lists = ", ".join(f"{key!r}: {{}}" for key in additions)
    url = check_url_shape(workspace_url, field="baseUrl")
    lines = [HEADER.format(url=repr(url), count=count, lists=lists)]
    names = {key: {item["name"] for item in items} for key, items in additions.items()}
    for key, items in additions.items():
        for item in items:
            lines.append(_declaration(kinds[key], key, item, names))
    lines.append("    return made\n")
    return "\n".join(lines)


def _declaration(
    kind: Kind, key: str, item: Mapping[str, Any], names: Mapping[str, set[str]]
) -> str:
    own = stack_keys(kind)

    def id_of(reference: Reference | Lookup, name: Any) -> Any:
        """The id of the module's own resource a nested reference names (every nested
        reference of the kinds is one to another list), or an in-place one's id as it is."""
        assert isinstance(reference, Reference), reference
        return _Id(reference, name) if reference.names_item(name, names) else name

    declared = with_nested_references(item, kind, id_of)
    for name, reference in kind.item_references.items():
        made = reference_for(reference, item)
        if isinstance(made, Reference) and name in item:
            declared[made.field] = id_of(made, item[name])
    entries = [
        f"{name!r}: {_literal(value)}" for name, value in declared.items() if name not in own
    ]
    args = "{\n" + "".join(f"            {entry},\n" for entry in entries) + "        }"
    return (
        f"    made[{key!r}][{item['name']!r}] = providers.{kind.name}(\n"
        f"        {item['name']!r},\n"
        f"        providers.{kind.name}Args(**{args}),\n"
        f"        connection=connection,\n"
        f"        opts=pulumi.ResourceOptions(import_={str(item[IMPORT_KEY])!r}),\n"
        f"    )\n"
    )


class _Id:
    """Stands in a literal for the id of a resource the module declares: its repr is the
    expression (`made['instancePools']['etl-pool'].id`)."""

    def __init__(self, reference: Reference, name: Any) -> None:
        self.expression = f"made[{reference.target_key!r}][{name!r}].{reference.output or 'id'}"

    def __repr__(self) -> str:
        return self.expression


def _literal(value: Any) -> str:
    text = pprint.pformat(value, width=80, sort_dicts=False)
    return text.replace("\n", "\n            ")
