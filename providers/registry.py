"""The one list of resource kinds: providers/declarations.py's, in order, plus plug-ins.

Looking a kind up loads no implementation: `kind_named(name)` and `kinds()` return
declarations, whose `provider`, `model` and args classes load the kind's implementation
module on first use (the provider host serving only jobs loads the job's alone; a program
declaring resources loads none).
"""

from __future__ import annotations

from providers.declarations import DECLARATIONS
from providers.kind import Kind


class UnknownKind(LookupError):
    """A name no registered kind has; the message names it."""


# Every registered kind by name, in order (the declarations', then plug-ins').
_kinds: dict[str, Kind] = {kind.name: kind for kind in DECLARATIONS}


def names() -> list[str]:
    """Every registered kind's name, in order."""
    return list(_kinds)


def kind_named(name: str) -> Kind:
    try:
        return _kinds[name]
    except KeyError:
        raise UnknownKind(
            f"no resource kind is named {name!r} (registered: {', '.join(_kinds)})"
        ) from None


def kinds() -> list[Kind]:
    """Every registered kind, in order."""
    return list(_kinds.values())


def by_config_key() -> dict[str, Kind]:
    return {kind.config_key: kind for kind in kinds() if kind.config_key}


def register(kind: Kind) -> None:
    """Adds a kind declared outside this package (a plug-in, or a test's extra kind)."""
    if kind.name in _kinds:
        raise ValueError(f"a kind named {kind.name!r} is registered already")
    _kinds[kind.name] = kind


def unregister(kind: Kind) -> None:
    del _kinds[kind.name]
