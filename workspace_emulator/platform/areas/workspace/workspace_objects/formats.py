"""What workspace import makes of content in each format, and what export gives back.

Import (`resolve`): SOURCE with a `language` is one notebook in that language (SOURCE
without one is a zip archive of a folder, which the emulator does not unpack); JUPYTER is an
`.ipynb` document, a PYTHON notebook; R_MARKDOWN an R notebook; RAW a file; AUTO decides by
the path's extension and the content: `.ipynb`, and `.py`/`.sql`/`.scala`/`.r` whose first
line is the notebook header (`# Databricks notebook source`, `--` for SQL, `//` for Scala),
and `.Rmd`, are notebooks named without the extension, anything else is a file at the path
as given. HTML and DBC (the service's page and archive forms) are not emulated.

Export (`export`): a notebook is kept as imported and shown in the format asked for: SOURCE
is its source with the header first (added where the imported source had none, as the
service does), cells separated by the language's `COMMAND ----------` line; JUPYTER an
`.ipynb` document (converted from source cell by cell, or as imported); AUTO the format it
was imported in; HTML a page holding the source. A file is its bytes whatever the format.
A folder exports as a zip archive (SOURCE: its notebooks as source files; AUTO: its files
too).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from workspace_emulator.errors import InvalidParameter

LANGUAGES = ("PYTHON", "SQL", "SCALA", "R")
IMPORT_FORMATS = ("SOURCE", "HTML", "JUPYTER", "DBC", "R_MARKDOWN", "AUTO", "RAW")
EXPORT_FORMATS = IMPORT_FORMATS
NOT_EMULATED = ("HTML", "DBC")
# A notebook's source file extension, by language, and back (matched without regard to case).
EXTENSIONS = {"PYTHON": "py", "SQL": "sql", "SCALA": "scala", "R": "r"}
LANGUAGE_OF_EXTENSION = {f".{ext}": language for language, ext in EXTENSIONS.items()}
COMMENT = {"PYTHON": "#", "SQL": "--", "SCALA": "//", "R": "#"}
ZIP_MESSAGE = ("The zip file may not be valid or may be an unsupported version. Content "
               "imported with format SOURCE and no language is read as a zip archive of a "
               "folder's source notebooks; give the language of a single notebook.")


def header(language: str) -> str:
    return f"{COMMENT[language]} Databricks notebook source"


def separator(language: str) -> str:
    return f"{COMMENT[language]} COMMAND ----------"


@dataclass(frozen=True)
class Imported:
    """What an import makes: the object's path (AUTO drops a notebook's extension), its
    type, a notebook's language, and the format its content is kept in."""

    path: str
    object_type: str  # NOTEBOOK or FILE
    language: str | None
    stored_format: str  # SOURCE, JUPYTER, R_MARKDOWN (notebooks) or RAW (files)


def _language(value: str | None) -> str | None:
    if value is None:
        return None
    if value not in LANGUAGES:
        raise InvalidParameter(
            f"Invalid language '{value}'; one of {', '.join(LANGUAGES)}.")
    return value


def _format(value: str | None, allowed: tuple[str, ...], verb: str) -> str:
    if value is None:
        return "SOURCE"
    if value not in allowed:
        raise InvalidParameter(f"Invalid format '{value}' to {verb}; one of {', '.join(allowed)} "
                               "(case sensitive).")
    if value in NOT_EMULATED:
        raise InvalidParameter(
            f"The emulator does not {verb} the {value} format; use SOURCE, JUPYTER, "
            "R_MARKDOWN, AUTO or RAW.")
    return value


def _jupyter(content: bytes) -> dict[str, Any]:
    try:
        document = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        document = None
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        raise InvalidParameter("The content is not a valid Jupyter notebook (.ipynb): a JSON "
                               "object with a 'cells' list.")
    return document


def _is_source_notebook(content: bytes, language: str) -> bool:
    first = content.split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8", "replace").strip()
    return first == header(language)


def resolve(path: str, content: bytes, format_: str | None, language: str | None) -> Imported:
    """What importing `content` at `path` makes; 400 for what the service refuses."""
    kind = _format(format_, IMPORT_FORMATS, "import")
    language = _language(language)
    if kind == "SOURCE":
        if language is None:
            if zipfile.is_zipfile(io.BytesIO(content)):
                raise InvalidParameter("The emulator does not import a folder (a zip archive "
                                       "of source notebooks): import each notebook with its "
                                       "language.")
            raise InvalidParameter(ZIP_MESSAGE)
        return Imported(path, "NOTEBOOK", language, "SOURCE")
    if kind == "JUPYTER":
        _jupyter(content)
        if language not in (None, "PYTHON"):
            raise InvalidParameter("A Jupyter notebook is a PYTHON notebook; leave out the "
                                   "language or give PYTHON.")
        return Imported(path, "NOTEBOOK", "PYTHON", "JUPYTER")
    if kind == "R_MARKDOWN":
        if language not in (None, "R"):
            raise InvalidParameter("An R Markdown notebook is an R notebook; leave out the "
                                   "language or give R.")
        return Imported(path, "NOTEBOOK", "R", "R_MARKDOWN")
    if kind == "RAW":
        return Imported(path, "FILE", None, "RAW")
    return _auto(path, content)


def _auto(path: str, content: bytes) -> Imported:
    stem, dot, extension = path.rpartition(".")
    suffix = f".{extension.lower()}" if dot and "/" not in extension else ""
    if suffix == ".ipynb":
        _jupyter(content)
        return Imported(stem, "NOTEBOOK", "PYTHON", "JUPYTER")
    if suffix == ".rmd":
        return Imported(stem, "NOTEBOOK", "R", "R_MARKDOWN")
    language = LANGUAGE_OF_EXTENSION.get(suffix)
    if language is not None and _is_source_notebook(content, language):
        return Imported(stem, "NOTEBOOK", language, "SOURCE")
    return Imported(path, "FILE", None, "RAW")


# --- export ---------------------------------------------------------------------------


def _text(content: bytes) -> str:
    return content.decode("utf-8", "replace").replace("\r\n", "\n")


def source_cells(content: bytes, language: str) -> list[str]:
    """A source notebook's cells (its header left out)."""
    lines = _text(content).split("\n")
    if lines and lines[0].strip() == header(language):
        lines = lines[1:]
    cells: list[list[str]] = [[]]
    for line in lines:
        if line.strip() == separator(language):
            cells.append([])
        else:
            cells[-1].append(line)
    return ["\n".join(cell).strip("\n") for cell in cells]


def _jupyter_cells(content: bytes) -> list[str]:
    cells = []
    for cell in _jupyter(content)["cells"]:
        source = cell.get("source", "") if isinstance(cell, dict) else ""
        text = "".join(source) if isinstance(source, list) else str(source)
        if isinstance(cell, dict) and cell.get("cell_type") == "markdown":
            text = "\n".join(["# MAGIC %md", *(f"# MAGIC {line}" for line in text.split("\n"))])
        cells.append(text)
    return cells


def as_source(content: bytes, language: str, stored_format: str) -> bytes:
    """The notebook as the service exports it in SOURCE: the header first."""
    if stored_format == "SOURCE":
        text = _text(content)
        if text.split("\n", 1)[0].strip() == header(language):
            return content
        return f"{header(language)}\n{text}".encode()
    cells = _jupyter_cells(content) if stored_format == "JUPYTER" else [_text(content)]
    joined = f"\n\n{separator(language)}\n\n".join(cells)
    return f"{header(language)}\n{joined}\n".encode()


def as_jupyter(content: bytes, language: str, stored_format: str) -> bytes:
    if stored_format == "JUPYTER":
        return content
    cells = source_cells(content, language) if stored_format == "SOURCE" else [_text(content)]
    document = {
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                   "outputs": [], "source": cell.splitlines(keepends=True)} for cell in cells],
        "metadata": {"language_info": {"name": language.lower()}},
        "nbformat": 4, "nbformat_minor": 0,
    }
    return json.dumps(document, indent=1).encode()


def export_notebook(content: bytes, language: str, stored_format: str, format_: str | None,
                    name: str) -> tuple[bytes, str]:
    """(the exported bytes, their file type) of a notebook."""
    kind = _format(format_, EXPORT_FORMATS, "export")
    if kind in ("AUTO", "RAW"):
        kind = "JUPYTER" if stored_format == "JUPYTER" else "SOURCE"
    if kind == "JUPYTER":
        return as_jupyter(content, language, stored_format), "ipynb"
    if kind == "R_MARKDOWN" and stored_format == "R_MARKDOWN":
        return content, "Rmd"
    return as_source(content, language, stored_format), EXTENSIONS[language]


def export_file(content: bytes, format_: str | None, name: str) -> tuple[bytes, str]:
    _format(format_, EXPORT_FORMATS, "export")
    _, dot, extension = name.rpartition(".")
    return content, extension if dot else ""


@dataclass(frozen=True)
class Entry:
    """One object inside an exported folder: its path below the folder and content."""

    relative_path: str
    object_type: str
    content: bytes
    language: str | None
    stored_format: str


def export_folder(entries: Iterable[Entry], format_: str | None) -> tuple[bytes, str]:
    """A folder as a zip archive: its notebooks as source files (and its files, for AUTO)."""
    kind = _format(format_, EXPORT_FORMATS, "export")
    if kind not in ("SOURCE", "AUTO"):
        raise InvalidParameter(
            "Exporting a directory is only supported for the DBC, SOURCE, and AUTO format.")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry in entries:
            if entry.object_type == "NOTEBOOK" and entry.language is not None:
                data = as_source(entry.content, entry.language, entry.stored_format)
                archive.writestr(f"{entry.relative_path}.{EXTENSIONS[entry.language]}", data)
            elif entry.object_type == "FILE" and kind == "AUTO":
                archive.writestr(entry.relative_path, entry.content)
    return buffer.getvalue(), "zip"

