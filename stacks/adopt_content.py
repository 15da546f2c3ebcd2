"""Adopt's project files: the content of adopted notebooks and workspace files, exported
from the workspace, written into the project where their items' `source` names it
(docs/adopt.md, "Notebooks, files and folders").

Each object's file goes under one folder of the project (`--content-dir`, `workspace` by
default) at the object's workspace path (a notebook's with its language's extension:
`/Shared/etl` of PYTHON -> `workspace/Shared/etl.py`). A file the project already holds
with the same bytes is kept as it is (adopting again writes nothing); one holding other
bytes is never overwritten: the object is refused, naming the file, and so is a second
object whose content would go to a file another one takes. Nothing is written through a
symbolic link: a file that is one, or a folder on its way that leads out of the project (a
committed link to a home directory), refuses the object.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml

from providers.workspace.workspace_objects import project_directory, source_roots
from stacks import adoption, config_file

DEFAULT_FOLDER = "workspace"


@dataclass(frozen=True)
class ContentPlace:
    """Where a run puts the content it adopts: `folder` of `project_dir`, the directory the
    stack program reads its `source` files from (`sources_directory`)."""

    project_dir: Path
    folder: str = DEFAULT_FOLDER


def sources_directory(project_dir: Path) -> Path:
    """The directory a stack's `source` files are relative to: the project directory of its
    program, the nearest at or above the program's directory (Pulumi.yaml's `main`, else
    the project's) holding Pulumi.yaml, where the engine runs it."""
    project_file = project_dir / "Pulumi.yaml"
    settings = yaml.safe_load(project_file.read_text()) if project_file.is_file() else {}
    main = settings.get("main") if isinstance(settings, dict) else None
    return project_directory(project_dir / main if isinstance(main, str) else project_dir)


def checked_folder(value: str) -> str:
    """`--content-dir` as a path relative to the project, inside it; ValueError saying why
    not."""
    relative = PurePosixPath(value.replace("\\", "/"))
    if not value.strip() or relative.is_absolute() or ".." in relative.parts:
        raise ValueError(
            f"--content-dir {value!r} must be a folder of the project, relative to its "
            "directory (the one holding Pulumi.yaml) and inside it, e.g. workspace"
        )
    return relative.as_posix()


def placed(
    candidate: adoption.Candidate, place: ContentPlace, planned: dict[str, bytes]
) -> tuple[adoption.Candidate, str | None]:
    """The candidate with its item's `source` under the content folder, its files added to
    `planned` (project-relative path -> bytes); or the candidate and why its files cannot
    be written."""
    files: dict[str, bytes] = {}
    for name, content in candidate.files.items():
        relative = f"{place.folder}/{name}"
        if relative in planned or relative in files:
            return candidate, (
                f"its content would go to the project file {relative}, which another object "
                "adopted in this run takes: rename one of them in the workspace and adopt "
                "again"
            )
        problem = link_problem(place.project_dir, relative)
        if problem is not None:
            return candidate, problem
        existing = place.project_dir / relative
        if existing.exists() and (not existing.is_file() or _read(existing) != content):
            return candidate, (
                f"the project file {relative} exists with other content, and adopt never "
                "overwrites a file of the project: move it away, or adopt into another "
                "folder (--content-dir), and adopt again"
            )
        files[relative] = content
    planned.update(files)
    item = dict(candidate.item or {})
    if "source" in item:
        item["source"] = f"{place.folder}/{item['source']}"
    return dataclasses.replace(candidate, item=item, files=files), None


@contextmanager
def staged(place: ContentPlace, files: Mapping[str, bytes]) -> Iterator[None]:
    """Inside the block a `source` is read from the files not written yet, else from the
    project: the config's rules judge the items as the next up will."""
    with tempfile.TemporaryDirectory(prefix="adopt-staged-") as scratch:
        write(Path(scratch), files)
        with source_roots(Path(scratch), place.project_dir):
            yield


def link_problem(project_dir: Path, relative: str) -> str | None:
    """Why the project file `relative` cannot be written without going through a symbolic
    link: the file is one, or a folder on its way is one that leads out of the project."""
    root = os.path.realpath(project_dir)
    here = project_dir
    parts = PurePosixPath(relative).parts
    for index, part in enumerate(parts):
        here = here / part
        if not here.is_symlink():
            continue
        if index == len(parts) - 1:
            return (
                f"the project file {relative} is a symbolic link, and adopt never writes "
                "through one: remove the link, or adopt into another folder (--content-dir), "
                "and adopt again"
            )
        target = Path(os.path.realpath(here))
        if not target.is_relative_to(root):
            folder = PurePosixPath(*parts[: index + 1])
            return (
                f"the project folder {folder} is a symbolic link to {target}, outside the "
                "project, and adopt never writes through one: remove the link, or adopt "
                "into another folder (--content-dir), and adopt again"
            )
    return None


def _read(path: Path) -> bytes:
    """The file's bytes, never through a link in its last component."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(descriptor, "rb") as stream:
        return stream.read()


def write(project_dir: Path, files: Mapping[str, bytes]) -> None:
    """Each file written into the project (atomically, its folders made), never through a
    symbolic link (`link_problem`: ValueError). The new file is renamed over the old name,
    which replaces a directory entry and follows no link there."""
    for relative, content in files.items():
        problem = link_problem(project_dir, relative)
        if problem is not None:
            raise ValueError(problem)
        path = project_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        config_file.replace_atomically(path, content)
