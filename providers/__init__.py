"""Workspace resources, actions and lookups for Pulumi programs.

    from providers import WorkspaceAuth, WorkspaceAuthArgs, Job, JobArgs, lookups

Every registered kind (providers/registry.py), its args classes (nested ones included, such
as `NewClusterArgs`), the `WorkspaceAuth` component and the lookups are importable from
here. Names resolve on first use, so importing the client alone does not load every kind.
"""

from __future__ import annotations

import importlib
from typing import Any

_NAMED = {
    "WorkspaceAuth": "providers.auth.component",
    "WorkspaceAuthArgs": "providers.auth.component",
    "LookupFailed": "providers.lookups",
}
_MODULES = {"lookups": "providers.lookups", "apps": "providers.apps"}


def _kind_names() -> dict[str, Any]:
    from providers.registry import KINDS

    names: dict[str, Any] = {}
    for kind in KINDS:
        names[kind.name] = kind.resource
        names.update(kind.arg_types)
    return names


def __getattr__(name: str) -> Any:
    if name == "__all__":
        return sorted([*_NAMED, *_MODULES, *_kind_names()])
    if name in _MODULES:
        return importlib.import_module(_MODULES[name])
    if name in _NAMED:
        return getattr(importlib.import_module(_NAMED[name]), name)
    if not name.startswith("__"):
        found = _kind_names().get(name)
        if found is not None:
            return found
    raise AttributeError(f"module 'providers' has no attribute {name!r}")
