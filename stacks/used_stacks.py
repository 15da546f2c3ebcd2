"""The items of the stacks a split stack uses (`workspace:uses`, docs/split.md), as its
references need them: a stack that owns a part of a workspace (`workspace:owns`) exports the
id of every item it declares (`items`: config key -> name -> id), and a reference of a stack
that uses it to an item it does not declare itself is looked up there."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import pulumi

from providers.core.kind import Reference
from stacks.errors import NAMESPACE, ConfigError

ITEMS_OUTPUT = "items"


def items_output(made: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """What a split stack exports for the stacks that use it: each item's id."""
    return {key: {name: resource.id for name, resource in resources.items()}
            for key, resources in made.items() if resources}


class UsedStacks:
    def __init__(self, names: Sequence[str], owned: Collection[str] | None) -> None:
        self.names = list(names)
        self.owned = owned  # the config keys this stack owns; None: every one
        self._references: dict[str, pulumi.StackReference] = {}

    def takes(self, reference: Reference) -> bool:
        """Whether a name this stack does not declare may be an item of a used stack: the
        list is another stack's part."""
        return bool(self.names) and self.owned is not None \
            and reference.target_key not in self.owned

    def reference(self, name: str) -> pulumi.StackReference:
        if name not in self._references:
            self._references[name] = pulumi.StackReference(f"uses-{name}", stack_name=name)
        return self._references[name]

    def resolve(self, reference: Reference, item: Any) -> pulumi.Output[Any]:
        """What the field takes for the item named `item` of a used stack (its id, or what the
        reference makes of it); an in-place reference naming no such item keeps its value
        (an id as the service gives it), any other fails naming the stacks searched."""
        key = reference.target_key
        exported = [self.reference(name).get_output(ITEMS_OUTPUT) for name in self.names]

        def found(maps: list[Any]) -> Any:
            for exports in maps:
                ids = (exports or {}).get(key) if isinstance(exports, dict) else None
                if isinstance(ids, dict) and item in ids:
                    if reference.output:
                        raise ConfigError(
                            f"{NAMESPACE}:{key}: {item!r} is an item of a used stack, and this "
                            f"reference takes its `{reference.output}`: give that value instead")
                    return reference.from_id(ids[item]) if reference.from_id else ids[item]
            if reference.in_place:
                return item
            raise ConfigError(
                f"{NAMESPACE}:{key}: no item named {item!r} in this stack nor among the "
                f"{key} of {', '.join(self.names)} ({NAMESPACE}:uses)")

        return pulumi.Output.all(*exported).apply(found)
