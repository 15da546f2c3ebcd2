"""The items of the stacks a split stack uses (`workspace:uses`, docs/split.md), as its
references need them: a name this stack does not declare is looked up in those stacks'
outputs (each kind's stack output: `clusters`, `cluster_policies`, `jobs`, ...)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi

from providers.core.kind import Reference
from providers.core.registry import by_config_key
from stacks.errors import NAMESPACE, ConfigError


class UsedStacks:
    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self._references: dict[str, pulumi.StackReference] = {}

    def reference(self, name: str) -> pulumi.StackReference:
        if name not in self._references:
            self._references[name] = pulumi.StackReference(f"used-{name}", stack_name=name)
        return self._references[name]

    def resolve(self, reference: Reference, item: Any) -> pulumi.Output[Any]:
        """The id of the item named `item` in the list `reference` points into, as the first
        used stack that exports it has it."""
        kind = by_config_key()[reference.target_key]
        if not kind.stack_output or not self.names:
            raise ConfigError(
                f"{NAMESPACE}:{reference.target_key}: no item named {item!r} in this stack, "
                f"and no stack of {NAMESPACE}:uses exports {reference.target_key}")
        output = kind.stack_output[0]
        exported = [self.reference(name).get_output(output) for name in self.names]

        def found(maps: list[Any]) -> Any:
            for exports in maps:
                if isinstance(exports, dict) and item in exports:
                    value = exports[item]
                    return reference.from_id(value) if reference.from_id else value
            raise ConfigError(
                f"{NAMESPACE}:{reference.target_key}: no item named {item!r} in this stack nor "
                f"in the `{output}` output of {', '.join(self.names)} ({NAMESPACE}:uses)")

        return pulumi.Output.all(*exported).apply(found)
