"""The one list of resource kinds. Adding a kind: its module (model, provider, `declare`,
`KIND`), one line here, its doc page and its tests (docs/architecture.md).

The order is the stack program's: a kind comes after the kinds its references point into.
A line names the kind and its module without importing it: `kind_named` loads one kind
(the provider host serving only jobs, a program declaring a few kinds), `kinds` loads every
kind (the stack program, the config rules, the audit, the docs tables).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from providers.kind import Kind

# Kind name -> the module whose `KIND` declares it, in the stack program's order.
MODULES: dict[str, str] = {
    "ServicePrincipal": "providers.service_principal",
    "SecretScope": "providers.secret_scope",
    "Secret": "providers.secret",
    "SecretAcl": "providers.secret_acl",
    "Job": "providers.job",
    "JobPermissions": "providers.job_permissions",
    "Permissions": "providers.permissions",
    "RepoBranch": "providers.repo_branch",
    "CatalogBinding": "providers.catalog_binding",
    "ClusterPolicy": "providers.cluster_policy",
    "Cluster": "providers.cluster",
    "ClusterState": "providers.cluster_state",
    "JobRun": "providers.job_run",
    "Group": "providers.group",
    "GroupMember": "providers.group_member",
    "Repo": "providers.repo",
    "IpAccessList": "providers.ip_access_list",
}


class UnknownKind(LookupError):
    """A name no registered kind has; the message names it."""


# The registered names in order (MODULES', then plug-ins'), and the kinds loaded so far
# (plug-ins from the start). Threads may look up one kind at once: the import system
# gives them the same module, so the same `KIND`.
_names: list[str] = list(MODULES)
_loaded: dict[str, Kind] = {}


def names() -> list[str]:
    """Every registered kind's name, in order, without loading any kind."""
    return list(_names)


def kind_named(name: str) -> Kind:
    """The kind called `name`, importing its module (and only it) on first use."""
    kind = _loaded.get(name)
    if kind is not None:
        return kind
    if name not in _names:
        raise UnknownKind(f"no resource kind is named {name!r} (registered: {', '.join(_names)})")
    kind = importlib.import_module(MODULES[name]).KIND
    if kind.name != name:
        raise RuntimeError(
            f"{MODULES[name]} declares {kind.name!r}, registered as {name!r}: "
            "fix the name in providers/registry.py"
        )
    _loaded[name] = kind
    return kind


def kinds() -> list[Kind]:
    """Every registered kind, in order (loads them all)."""
    return [kind_named(name) for name in names()]


def by_config_key() -> dict[str, Kind]:
    return {kind.config_key: kind for kind in kinds() if kind.config_key}


def register(kind: Kind) -> None:
    """Adds a kind declared outside this package (a plug-in, or a test's extra kind)."""
    if kind.name in _names:
        raise ValueError(f"a kind named {kind.name!r} is registered already")
    _names.append(kind.name)
    _loaded[kind.name] = kind


def unregister(kind: Kind) -> None:
    _names.remove(kind.name)
    _loaded.pop(kind.name, None)
