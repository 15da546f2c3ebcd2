"""Where compute names a file: a library (`whl`, `jar`, `requirements`) and an init
script's `volumes.destination`. In a stack's config each may name a `VolumeFile` item of
the stack instead of its path (an in-place reference: the compute waits for the upload, and
a path as the service gives it is used as it is)."""

from __future__ import annotations

from providers.core.kind import Reference

VOLUME_FILES = "volumeFiles"
LIBRARY_FILES = ("whl", "jar", "requirements")


def _in_place(field: str) -> Reference:
    return Reference(target_key=VOLUME_FILES, field=field, in_place=True)


def library_files(libraries: str) -> dict[str, Reference]:
    """The file fields of each library of the list at `libraries` (`tasks[].libraries`)."""
    return {f"{libraries}[].{field}": _in_place(field) for field in LIBRARY_FILES}


def init_script_files(spec: str = "") -> dict[str, Reference]:
    """The volume file each init script of the cluster spec at `spec` runs."""
    where = f"{spec}.init_scripts" if spec else "init_scripts"
    return {f"{where}[].volumes.destination": _in_place("destination")}
