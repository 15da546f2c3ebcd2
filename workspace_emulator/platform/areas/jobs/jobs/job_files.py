"""The files a task needs before it runs: its cluster's init scripts and its libraries' files
(a wheel, a jar, an egg, a requirements file) in a volume, in DBFS or in the workspace. One
that is not there fails the task as the service fails it: the run's state INTERNAL_ERROR,
result FAILED, the message naming the file (an init script: the cluster terminated with
INIT_SCRIPT_FAILURE; a library: its installation failed). Files elsewhere (cloud storage
URLs, package repositories) are not emulated and count as there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

INTERNAL_ERROR = "INTERNAL_ERROR"
LIBRARY_FILE_KINDS = ("whl", "jar", "egg", "requirements")
INIT_SCRIPT_KINDS = ("volumes", "dbfs", "workspace")


@dataclass(frozen=True)
class FileChecks:
    """What a run's plan asks the workspace about files: whether a file is at a path (`/Volumes/
    ...`, `dbfs:/...`, a workspace path; None for a path the emulator holds no files at),
    and the spec of an existing cluster a task names (None where there is none)."""

    file_exists: Callable[[str], bool | None]
    cluster_spec: Callable[[str], Mapping[str, Any] | None]


def _cluster_of(task: Mapping[str, Any], settings: Mapping[str, Any],
                checks: FileChecks) -> tuple[str, Mapping[str, Any]] | None:
    """(a name for the task's cluster, its spec)."""
    if isinstance(task.get("new_cluster"), dict):
        return f"{task.get('task_key')} (new cluster)", task["new_cluster"]
    key = task.get("job_cluster_key")
    for job_cluster in settings.get("job_clusters") or []:
        if isinstance(job_cluster, dict) and job_cluster.get("job_cluster_key") == key:
            return f"{key} (job cluster)", job_cluster.get("new_cluster") or {}
    cluster_id = task.get("existing_cluster_id")
    if isinstance(cluster_id, str):
        spec = checks.cluster_spec(cluster_id)
        if spec is not None:
            return cluster_id, spec
    return None


def _init_scripts(spec: Mapping[str, Any]) -> Iterator[str]:
    for script in spec.get("init_scripts") or []:
        if not isinstance(script, dict):
            continue
        for kind in INIT_SCRIPT_KINDS:
            destination = (script.get(kind) or {}).get("destination")
            if isinstance(destination, str):
                yield destination


def _library_files(task: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    for library in task.get("libraries") or []:
        if not isinstance(library, dict):
            continue
        for kind in LIBRARY_FILE_KINDS:
            if isinstance(library.get(kind), str):
                yield kind, library[kind]


def missing_file(task: Mapping[str, Any], settings: Mapping[str, Any],
                 checks: FileChecks | None) -> str | None:
    """The service's message where a file the task needs is not there (its cluster's init
    scripts first, as the cluster starts before the libraries install), else None."""
    if checks is None:
        return None
    cluster = _cluster_of(task, settings, checks)
    if cluster is not None:
        name, spec = cluster
        for script in _init_scripts(spec):
            if checks.file_exists(script) is False:
                return (f"Cluster '{name}' was terminated. Reason: INIT_SCRIPT_FAILURE "
                        f"(CLIENT_ERROR). Parameters: databricks_error_message:Cluster scoped "
                        f"init script {script} failed: the file does not exist.")
    for kind, path in _library_files(task):
        if checks.file_exists(path) is False:
            return (f'Library installation failed for library due to user error for {kind}: '
                    f'"{path}". Error messages: java.io.FileNotFoundException: {path} (No such '
                    "file or directory)")
    return None
