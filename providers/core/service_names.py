"""Which items of a stack the API name fields of its other items name (`Kind.names`).

A stack's config may name another object by the service's own field (a volume's
`catalog_name: sales`, a grant's `principal: analysts`) as well as by item key (`catalog:
sales-catalog`). Where the name is that of an object the same stack declares, the holder is
ordered after it like an item key's holder (`StackNames.matches`); any other name stays a
plain name. Names are matched as the service writes them (`Kind.named_as`, built from the
target item's fields and its item keys), never by item name: `schema_name: raw` beside
`catalog_name: sales` names the Schema whose name is `sales.raw`, in no other catalog.

The stack program (stacks/__main__.py), the offline check and its `--explain`
(stacks/config_rules.py, stacks/check.py) and the docs' tables (tools/kinds_table.py) use
this one resolution.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from providers.core.kind import (
    Kind,
    NameReference,
    Reference,
    ReferenceByType,
    dotted_name,
    nested_holders,
    reference_for,
)


@dataclass(frozen=True)
class NameMatch:
    """One name field of an item: what it holds and the item it names (None: a plain name,
    sent as it is and ordered after nothing)."""

    path: str  # the holder in the item: "" the item itself, `privilege_assignments[0]`
    field: str
    value: Any
    name: str | None  # the object's dotted name as the holder gives it
    target: tuple[str, str] | None  # (config key, item name)

    @property
    def where(self) -> str:
        return f"{self.path}.{self.field}".lstrip(".")


def targets_of(kind: Kind) -> set[str]:
    """Every config list the kind's items may wait for: item keys, name fields, `after`."""
    found = set(kind.after)
    for reference in kind.references.values():
        if isinstance(reference, Reference):
            found.add(reference.target_key)
        elif isinstance(reference, ReferenceByType):
            found |= set(reference.targets.values())
    for named in kind.names.values():
        found |= set(named.targets if isinstance(named, NameReference) else
                     named.targets.values())
    return found


def declaration_order(kinds: Sequence[Kind]) -> list[Kind]:
    """The kinds in the order their resources are declared: each after the kinds its items
    may name, otherwise in the registry's order (which already holds for item keys). Kinds
    that name each other keep the registry's order; a name into a list declared later
    stays a plain name."""
    keys = {kind.config_key for kind in kinds if kind.config_key}
    waits = {kind.name: (targets_of(kind) & keys) - {kind.config_key} for kind in kinds}
    placed: list[Kind] = []
    done: set[str] = set()
    pending = list(kinds)
    while pending:
        ready = next((k for k in pending if waits[k.name] <= done), pending[0])
        pending.remove(ready)
        placed.append(ready)
        if ready.config_key:
            done.add(ready.config_key)
    return placed


class StackNames:
    """The names of the objects a stack declares, as the service writes them, by list."""

    def __init__(self, kinds: Sequence[Kind], lists: Mapping[str, Sequence[Mapping[str, Any]]]):
        self.by_key = {kind.config_key: kind for kind in kinds if kind.config_key}
        # config key -> item name -> the object's name as written
        self.of_item: dict[str, dict[str, str]] = {}
        # config key -> the name as matched (folded where the kind's names fold) -> item name
        self._items: dict[str, dict[str, str]] = {}
        # (config key, item index, index of the first item of that name, the name)
        self.twice: list[tuple[str, int, int, str]] = []
        for kind in declaration_order(kinds):
            key = kind.config_key
            if not key or not kind.named_as:
                continue
            first: dict[str, int] = {}
            for index, item in enumerate(lists.get(key, ())):
                name = dotted_name(self.api_view(kind, item), kind.named_as)
                item_name = item.get("name")
                if name is None or not isinstance(item_name, str):
                    continue
                matched = self._matched(kind, name)
                if matched in first:
                    self.twice.append((key, index, first[matched], name))
                    continue
                first[matched] = index
                self.of_item.setdefault(key, {})[item_name] = name
                self._items.setdefault(key, {})[matched] = item_name

    @staticmethod
    def _matched(kind: Kind, name: str) -> str:
        return name.lower() if kind.names_fold_case else name

    def item_named(self, key: str, name: str) -> str | None:
        """The name of the item of list `key` that declares the object `name`, if one does."""
        kind = self.by_key.get(key)
        if kind is None:
            return None
        return self._items.get(key, {}).get(self._matched(kind, name))

    def api_view(self, kind: Kind, item: Mapping[str, Any]) -> dict[str, Any]:
        """The item with each of its own references to an item replaced by that item's name
        at the reference's field (`catalog: sales-catalog` -> `catalog_name: sales`)."""
        view = dict(item)
        for key, declared in kind.item_references.items():
            reference = reference_for(declared, item)
            if not isinstance(reference, Reference) or key not in item:
                continue
            value = item[key]
            if not reference.names_item(value, self.of_item):
                continue
            written = self.of_item.get(reference.target_key, {}).get(value)
            if written is not None:
                view[reference.field] = reference.from_id(written) if reference.from_id \
                    else written
        return view

    def matches(self, kind: Kind, item: Mapping[str, Any]) -> list[NameMatch]:
        """Every name field the item holds, each with the item it names (or none)."""
        view = self.api_view(kind, item)
        found: list[NameMatch] = []
        for key, declared in kind.names.items():
            for path, holder in nested_holders(view, key):
                reference = declared.for_holder(holder)
                field = key.rsplit(".", 1)[-1]
                # A field an item key fills is that key's reference, not this one.
                given = item if not path else holder
                if field not in given:
                    continue
                value = given[field]
                if self._named_by_item(kind, key, given, value):
                    continue
                name = reference.name_in(holder) if reference else None
                target = None
                if reference is not None and name is not None:
                    target = next(
                        ((t, found_item) for t in reference.targets
                         if (found_item := self.item_named(t, name)) is not None),
                        None,
                    )
                found.append(NameMatch(path, field, value, name, target))
        return found


    def _named_by_item(self, kind: Kind, key: str, holder: Mapping[str, Any], value: Any) -> bool:
        """Whether the field is also an in-place reference by item name (a pipeline's
        `schema`, kept as it was before name fields were references) whose value names an
        item: that reference serves it."""
        declared = kind.references.get(key)
        if declared is None:
            return False
        reference = reference_for(declared, holder)
        return isinstance(reference, Reference) and reference.in_place and \
            reference.names_item(value, self.of_item)


def with_names(
    inputs: Mapping[str, Any],
    matches: Iterable[NameMatch],
    value_of: Callable[[NameMatch], Any],
) -> dict[str, Any]:
    """The inputs, each name field that names an item replaced by `value_of(match)` (the
    name as an Output of that item's resource); the inputs as they are where none does.
    Only the containers on a replaced field's path are copied (others may hold Outputs)."""
    copied = dict(inputs)
    for match in matches:
        if match.target is None:
            continue
        steps = _steps(match.path)
        holder: Any = copied
        for step in steps:
            holder[step] = _copy(holder[step])
            holder = holder[step]
        holder[match.field] = value_of(match)
    return copied


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    return value


_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _steps(path: str) -> list[str | int]:
    """`access_controls[0].owner` -> ['access_controls', 0, 'owner']."""
    return [int(index) if index else key for key, index in _STEP.findall(path)]
