"""The one list of resource kinds. Adding a kind: its module (model, provider, `declare`),
one line here, its doc page and its tests (docs/architecture.md).

The order is the stack program's: a kind comes after the kinds its references point into.
"""

from __future__ import annotations

from providers.catalog_binding import KIND as CATALOG_BINDING
from providers.cluster import KIND as CLUSTER
from providers.cluster_policy import KIND as CLUSTER_POLICY
from providers.cluster_state import KIND as CLUSTER_STATE
from providers.group import KIND as GROUP
from providers.group_member import KIND as GROUP_MEMBER
from providers.ip_access_list import KIND as IP_ACCESS_LIST
from providers.job import KIND as JOB
from providers.job_permissions import KIND as JOB_PERMISSIONS
from providers.job_run import KIND as JOB_RUN
from providers.kind import Kind
from providers.permissions import KIND as PERMISSIONS
from providers.repo import KIND as REPO
from providers.repo_branch import KIND as REPO_BRANCH
from providers.secret import KIND as SECRET
from providers.secret_acl import KIND as SECRET_ACL
from providers.secret_scope import KIND as SECRET_SCOPE
from providers.service_principal import KIND as SERVICE_PRINCIPAL

KINDS: list[Kind] = [
    SERVICE_PRINCIPAL,
    SECRET_SCOPE,
    SECRET,
    SECRET_ACL,
    JOB,
    JOB_PERMISSIONS,
    PERMISSIONS,
    REPO_BRANCH,
    CATALOG_BINDING,
    CLUSTER_POLICY,
    CLUSTER,
    CLUSTER_STATE,
    JOB_RUN,
    GROUP,
    GROUP_MEMBER,
    REPO,
    IP_ACCESS_LIST,
]


def by_name() -> dict[str, Kind]:
    return {kind.name: kind for kind in KINDS}


def by_config_key() -> dict[str, Kind]:
    return {kind.config_key: kind for kind in KINDS if kind.config_key}


def register(kind: Kind) -> None:
    """Adds a kind declared outside this package (a plug-in, or a test's extra kind)."""
    if kind.name in by_name():
        raise ValueError(f"a kind named {kind.name!r} is registered already")
    KINDS.append(kind)


def unregister(kind: Kind) -> None:
    KINDS.remove(kind)
