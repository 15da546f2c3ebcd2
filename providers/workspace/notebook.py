"""Notebook: a notebook at a workspace path, its content from a file of the project
(`source`) or inline (`content_base64`), in a language and a format.

The state holds the content's SHA-256 (`content_sha256`, of the bytes as uploaded), never
the content (providers/workspace/workspace_objects.py): a changed file is an update in place (the
notebook imported again over itself, keeping its object id and its permissions), and so is
another language or format; another path replaces the notebook (its id is its path). The
folders above it are made as needed and left in place on delete.

Formats: SOURCE (the language's source; the default), JUPYTER (an `.ipynb` document, always
PYTHON), R_MARKDOWN (always R); AUTO, or none, takes the format from the file's extension
(`.ipynb`, `.Rmd`, else SOURCE). A SOURCE notebook's language is declared or taken from its
file's extension (`.py`, `.sql`, `.scala`, `.r`). Uploaded SOURCE starts with the service's
notebook header (`# Databricks notebook source`, `--` in SQL, `//` in Scala), added where the
content has none, so that what the service exports is what was uploaded. A notebook's path
has no extension: the service keeps a SOURCE import's name as given, so `/Shared/etl.py` would
be a notebook named `etl.py`, which a job's `notebook_path: /Shared/etl` does not find.

A refresh reads the notebook's status (one call); where the service's `modified_at` moved
since the last write, it exports the content and records its digest, so a notebook edited in
the workspace shows as drift and the next update puts the declared content back. A create
refused because the path is taken adopts a notebook there whose exported content is the
declared one (what an interrupted run made); anything else there is refused, naming import.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pulumi.dynamic import CheckResult
from pydantic import AfterValidator, BaseModel, ConfigDict

from providers.client import NotFound
from providers.core.kind import Adoption, DrillChange, always, declare
from providers.core.lifecycle import Spec, WorkspaceProvider, contains_unknown, user_inputs
from providers.workspace.workspace_objects import (
    canonical_path,
    checked_digest,
    checked_inputs,
    content_source_rules,
    create_at,
    current_digest,
    digest,
    object_path,
    path_id_problem,
    raw_content,
    same_path,
    stack_objects,
    upload_content,
    upload_making_parent,
    workspace_path,
)
from providers.workspace.workspace_objects_api import WorkspaceObjectsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

LANGUAGES = ("PYTHON", "SQL", "SCALA", "R")
Language = Literal["PYTHON", "SQL", "SCALA", "R"]
Format = Literal["SOURCE", "JUPYTER", "R_MARKDOWN", "AUTO"]
LANGUAGE_OF_EXTENSION = {".py": "PYTHON", ".sql": "SQL", ".scala": "SCALA", ".r": "R"}
EXTENSION_OF_LANGUAGE = {language: ext for ext, language in LANGUAGE_OF_EXTENSION.items()}
FORMAT_OF_EXTENSION = {".ipynb": "JUPYTER", ".rmd": "R_MARKDOWN"}
NOTEBOOK_EXTENSIONS = (*LANGUAGE_OF_EXTENSION, *FORMAT_OF_EXTENSION)
COMMENT = {"PYTHON": "#", "SQL": "--", "SCALA": "//", "R": "#"}


def _extension(name: str | None) -> str:
    if not name:
        return ""
    last = name.replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, extension = last.rpartition(".")
    return f".{extension.lower()}" if dot and stem else ""


def _notebook_path(value: str) -> str:
    path = object_path(value)
    extension = _extension(path)
    if extension in NOTEBOOK_EXTENSIONS:
        raise ValueError(
            f"a notebook's path has no extension: give {path[: -len(extension)]} (the service "
            f"keeps the name as given, and a job's notebook_path without {extension} would "
            "not find it)")
    return path


def header(language: str) -> str:
    """The first line the service gives a notebook's source."""
    return f"{COMMENT[language]} Databricks notebook source"


class NotebookModel(BaseModel):
    """A notebook: its path, content and language."""

    model_config = ConfigDict(extra="forbid")

    path: Annotated[str, AfterValidator(_notebook_path)]
    source: str | None = None
    content_base64: str | None = None
    content_sha256: Annotated[str, AfterValidator(checked_digest)] | None = None
    language: Language | None = None
    format: Format | None = None


def effective_format(args: NotebookModel) -> str:
    if args.format not in (None, "AUTO"):
        return str(args.format)
    return FORMAT_OF_EXTENSION.get(_extension(args.source), "SOURCE")


def effective_language(args: NotebookModel) -> str | None:
    kind = effective_format(args)
    if kind == "JUPYTER":
        return "PYTHON"
    if kind == "R_MARKDOWN":
        return "R"
    return args.language or LANGUAGE_OF_EXTENSION.get(_extension(args.source))


def prepared(args: NotebookModel, content: bytes) -> bytes:
    """The content as uploaded: SOURCE starts with the service's notebook header."""
    language = effective_language(args)
    if effective_format(args) != "SOURCE" or language is None:
        return content
    first = content.split(b"\n", 1)[0].rstrip(b"\r").strip()
    if first == header(language).encode():
        return content
    return header(language).encode() + b"\n" + content


def _language_rules(args: NotebookModel) -> list[tuple[str, str]]:
    kind = effective_format(args)
    if kind == "JUPYTER" and args.language not in (None, "PYTHON"):
        return [("language", "a Jupyter notebook is a PYTHON notebook: leave language out")]
    if kind == "R_MARKDOWN" and args.language not in (None, "R"):
        return [("language", "an R Markdown notebook is an R notebook: leave language out")]
    if effective_language(args) is None:
        return [("language", "required for SOURCE content whose file name does not tell it "
                             "(.py, .sql, .scala, .r): one of " + ", ".join(LANGUAGES))]
    return []


def _jupyter_problem(content: bytes) -> str | None:
    try:
        document = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        document = None
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        return "is not a Jupyter notebook (.ipynb): a JSON object with a `cells` list"
    return None


def exported_source(client: Any, path: str, observed: Mapping[str, Any]) -> tuple[str, bytes]:
    """(the notebook's file in the project: its path with its language's extension, its
    SOURCE export), for adoption."""
    language = observed.get("language")
    extension = EXTENSION_OF_LANGUAGE.get(str(language))
    if extension is None:
        raise ValueError(f"the service names no language of the notebook ({language!r})")
    return path.lstrip("/") + extension, WorkspaceObjectsApi(client).export(path, "SOURCE")


class NotebookProvider(WorkspaceProvider):
    args_model = NotebookModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"path"})

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        problems = content_source_rules(inputs)
        args = NotebookModel.model_validate(inputs)
        problems += _language_rules(args)
        if not problems and effective_format(args) == "JUPYTER":
            problem = _jupyter_problem(raw_content(inputs) or b"")
            if problem:
                key = "source" if inputs.get("source") is not None else "content_base64"
                problems.append((key, problem))
        return problems

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        result = super().check(olds, news)
        if result.failures or contains_unknown(user_inputs(news)):
            return result
        args = NotebookModel.model_validate(user_inputs(news))
        content = prepared(args, raw_content(user_inputs(news)) or b"")
        inputs, failures = checked_inputs(news, content)
        return CheckResult(inputs, failures)

    def spec(self, args: NotebookModel) -> Spec:
        return {
            "path": args.path,
            "language": effective_language(args),
            "format": effective_format(args),
            "content_sha256": args.content_sha256 or digest(self._content(args)),
        }

    def create_object(self, client: WorkspaceClient, args: NotebookModel, spec: Spec):
        path, content = spec["path"], self._content(args)

        create_at(path, lambda: self._upload(client, spec, content, overwrite=False),
                  lambda: self._declared_at(client, spec))
        status = WorkspaceObjectsApi(client).status(path)
        return path, self._observed(status, spec, spec["content_sha256"]), self._computed(status)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        status = WorkspaceObjectsApi(client).status(id_)
        if status.get("object_type") != "NOTEBOOK":
            return None  # gone as a notebook: something else took the path
        kind = recorded.get("format") or "SOURCE"
        content_sha256 = current_digest(
            status, recorded, lambda: WorkspaceObjectsApi(client).export(id_, kind))
        like = {"path": recorded.get("path") or id_, "format": kind}
        return self._observed(status, like, content_sha256), self._computed(status)

    def update_object(self, client, id_, recorded, args: NotebookModel, spec: Spec):
        self._upload(client, spec, self._content(args), overwrite=True)
        status = WorkspaceObjectsApi(client).status(id_)
        return self._observed(status, spec, spec["content_sha256"]), self._computed(status)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        WorkspaceObjectsApi(client).delete(id_)

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _content(args: NotebookModel) -> bytes:
        """The content to upload, as uploaded (with the header a SOURCE notebook gets)."""
        inputs = args.model_dump()
        raw = raw_content(inputs)
        return upload_content(inputs, None if raw is None else prepared(args, raw))

    @staticmethod
    def _upload(client: WorkspaceClient, spec: Spec, content: bytes, *, overwrite: bool) -> None:
        """Imports the notebook; where its folder is missing, makes it and imports again."""
        objects = WorkspaceObjectsApi(client)
        language = spec["language"] if spec["format"] == "SOURCE" else None

        def upload() -> None:
            objects.import_(spec["path"], content, format=spec["format"], language=language,
                            overwrite=overwrite)

        upload_making_parent(objects, spec["path"], upload)

    @staticmethod
    def _declared_at(client: WorkspaceClient, spec: Spec) -> dict[str, Any] | None:
        """The notebook at the declared path where it is the declared one (language and
        content as exported), else None."""
        objects = WorkspaceObjectsApi(client)
        try:
            status = objects.status(spec["path"])
            if status.get("object_type") != "NOTEBOOK" or status.get("language") != spec[
                "language"
            ]:
                return None
            exported = objects.export(spec["path"], spec["format"])
        except NotFound:
            return None
        return status if digest(exported) == spec["content_sha256"] else None

    @staticmethod
    def _observed(status: Mapping[str, Any], like: Mapping[str, Any], content_sha256: str) -> Spec:
        path = str(status.get("path") or like.get("path"))
        declared = like.get("path")
        return {
            "path": canonical_path(declared) if declared and same_path(path, declared) else path,
            "language": status.get("language"),
            "format": like.get("format") or "SOURCE",
            "content_sha256": content_sha256,
        }

    @staticmethod
    def _computed(status: Mapping[str, Any]) -> dict[str, Any]:
        path = canonical_path(str(status.get("path")))
        return {
            "object_id": status.get("object_id"),
            "modified_at": status.get("modified_at"),
            "workspace_path": workspace_path(path),
        }


# What the drill's update uploads inline in place of a notebook's content: another digest,
# the same path.
DRILL_CONTENT = b"# Databricks notebook source\nprint('updated by the after-write drill')\n"


def _drill_change(notebook: dict[str, Any]) -> dict[str, Any]:
    for key in ("source", "content_sha256"):
        notebook.pop(key, None)
    return {**notebook, "content_base64": base64.b64encode(DRILL_CONTENT).decode(),
            "language": "PYTHON"}


KIND = declare(
    name="Notebook",
    provider=NotebookProvider,
    outputs={"object_id": int, "modified_at": int, "workspace_path": str},
    shown={"language": str, "format": str, "content_sha256": str},
    config_key="notebooks",
    after=("directories",),  # made in them, deleted before them
    identity=("path",),
    doc="docs/notebook.md",
    summary="a notebook at a workspace path: content from a project file or inline, its "
            "language and format; the state keeps the content's digest",
    import_id="workspace path",
    import_id_rule=path_id_problem,
    stack_output=("notebooks", lambda resource: resource.object_id),
    inventory=lambda client: stack_objects(client, "NOTEBOOK"),
    # The content goes into a file named as the notebook, with its language's extension
    # (which then tells the language), exported as SOURCE (what a read digests).
    adoption=Adoption(
        content=exported_source,
        leaves_out={"language": always, "format": always, "content_sha256": always},
    ),
    drill=DrillChange(_drill_change),
)
