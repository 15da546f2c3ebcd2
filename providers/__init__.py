"""Workspace resources, actions and lookups for Pulumi programs.

    from providers import WorkspaceAuth, WorkspaceAuthArgs, Job, JobArgs, lookups

Every registered kind (providers/core/registry.py), its args classes (nested ones included, such
as `NewClusterArgs`), the `WorkspaceAuth` component and the lookups are importable from
here. Names resolve on first use: `Job` loads no kind's implementation (a program
declaring resources needs none), `JobArgs` the job's alone, a nested args class every
kind's.
"""

from __future__ import annotations

import importlib
from typing import Any

from providers.core import moved_modules

# States recorded before the domain packages name the old module paths.
moved_modules.install()

_NAMED = {
    "WorkspaceAuth": "providers.auth.component",
    "WorkspaceAuthArgs": "providers.auth.component",
    "LookupFailed": "providers.lookups",
}
_MODULES = {"lookups": "providers.lookups", "apps": "providers.apps"}


def _kind_names() -> dict[str, Any]:
    from providers.core.registry import kinds

    names: dict[str, Any] = {}
    for kind in kinds():
        names[kind.name] = kind.resource
        names.update(kind.arg_types)
    return names


def _one_kinds_name(name: str) -> Any | None:
    """`Job` (no implementation) or `JobArgs` (the job's implementation alone); None for any
    other name."""
    from providers.core.registry import kind_named, names

    registered = names()
    if name in registered:
        return kind_named(name).resource
    if name.endswith("Args") and name.removesuffix("Args") in registered:
        return kind_named(name.removesuffix("Args")).args
    return None


def __getattr__(name: str) -> Any:
    if name == "__all__":
        return sorted([*_NAMED, *_MODULES, *_kind_names()])
    if name in _MODULES:
        return importlib.import_module(_MODULES[name])
    if name in _NAMED:
        return getattr(importlib.import_module(_NAMED[name]), name)
    if name[:1].isupper():
        # A kind or its args class loads that kind only; a nested args class (such as
        # `NewClusterArgs`) is found among every kind's. (Other names load no kind: a
        # lowercase one may be a submodule, `from providers import registry`, which the
        # import system imports when this raises.)
        found = _one_kinds_name(name)
        if found is None:
            found = _kind_names().get(name)
        if found is not None:
            return found
    raise AttributeError(f"module 'providers' has no attribute {name!r}")
