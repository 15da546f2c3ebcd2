"""Files of the project a kind uploads (a notebook's, a workspace file's, a volume file's
`source`): found by their path relative to the project directory (the one holding
`Pulumi.yaml`, found from the working directory, which the engine sets to the program's: a
path that does not move with the checkout), inside it, links resolved (a symbolic link out
of the project is refused), and no larger than the service takes."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path, PurePosixPath

PROJECT_FILES = ("Pulumi.yaml", "Pulumi.yml")

# Where `source` files are looked up instead of the project directory, first to last
# (`source_roots`); None: the project directory.
_source_roots: ContextVar[tuple[Path, ...] | None] = ContextVar("source_roots", default=None)


@contextmanager
def source_roots(*roots: Path) -> Iterator[None]:
    """Inside the block, a `source` names the file of that relative path in the first of
    `roots` that holds one: adopt judges items against the project it writes into (not the
    working directory's) and against the content it exported but has not written yet."""
    token = _source_roots.set(tuple(roots))
    try:
        yield
    finally:
        _source_roots.reset(token)


def project_directory(start: Path | None = None) -> Path:
    """The nearest directory at or above `start` (the working directory) holding
    Pulumi.yaml (`start` itself where none does); the first of `source_roots` inside one."""
    roots = _source_roots.get()
    if roots and start is None:
        return roots[0]
    here = (start or Path(os.getcwd())).resolve()
    for directory in (here, *here.parents):
        if any((directory / name).is_file() for name in PROJECT_FILES):
            return directory
    return here


def project_file(source: str, *, max_bytes: int, limit: str) -> Path:
    """The file `source` names, its real path (links resolved) inside the project directory,
    at most `max_bytes` long (`limit` says whose limit that is, for the error); ValueError
    saying what is wrong with it."""
    relative = PurePosixPath(source.replace("\\", "/"))
    if relative.is_absolute() or re.match(r"^[A-Za-z]:", source):
        raise ValueError(
            "must be relative to the project directory (the one holding Pulumi.yaml), so "
            "that it names the same file in every checkout")
    if ".." in relative.parts:
        raise ValueError("must stay inside the project directory (no .. segments)")
    roots = _source_roots.get() or (project_directory(),)
    found = ((root, root / Path(*relative.parts)) for root in roots)
    root, path = next(((r, p) for r, p in found if p.is_file()), (None, None))
    if root is None or path is None:
        raise ValueError(f"no file {source} in the project directory {roots[-1]}")
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(os.path.realpath(root)):
        # A committed link to /proc/self/environ or ~/.databrickscfg would upload the
        # deploy job's environment or credentials to the workspace.
        raise ValueError(
            f"{source} is a symbolic link (or passes through one) to {real}, outside the "
            "project directory: only files of the project are uploaded; replace the link "
            "with the file itself")
    size = real.stat().st_size
    if size > max_bytes:
        raise ValueError(f"{source} is {size} bytes: {limit}")
    return real
