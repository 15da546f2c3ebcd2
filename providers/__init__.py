"""Workspace resources, actions and lookups for Pulumi programs.

    from providers import ClusterState, ClusterStateArgs, JobRun, JobRunArgs, lookups

Names resolve on first use, so importing the client alone does not load every kind.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ClusterState": "providers.cluster_state",
    "ClusterStateArgs": "providers.cluster_state",
    "JobRun": "providers.job_run",
    "JobRunArgs": "providers.job_run",
    "LookupFailed": "providers.lookups",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'providers' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
