"""The shapes of the official SDK's dataclasses: each class's fields and their types, each
enum's values. Derived from an SDK service module once per SDK version and kept on disk, so
code that only walks the schema (a job's normal form, its task types, a permission's levels)
never executes the SDK's modules: they define some thousand dataclasses, a third of a second
per process, which every refresh's provider host paid before its first read of a job.

A shape is one of:

- `SdkClass(module, name)`: a dataclass of the SDK (`SdkClass("jobs", "Task")`); `fields`
  gives its fields' shapes, in the class's order;
- `ListOf(item)`, `MapOf(value)`: a list, a dict with string keys;
- `str`, `int`, `float`, `bool`;
- `SdkEnum(module, name)`: one of an SDK enum's values (`enum_values`);
- `object`: anything else (`Any`, a union of several types).

`Optional[X]` is X. A module's shapes are derived with the SDK's own type hints (the module
loads through `sdk_services`) and stored as JSON under the cache directory, keyed by the SDK
version and by the size and time of the module's source (in the file's name, and checked
again in it), so an upgrade or an edited install derives them again, and installs of the
same version side by side (a virtual environment per project) each keep their own.

Where: ``$WORKSPACE_SDK_SHAPES_DIR``, else ``$XDG_CACHE_HOME/workspace-iac/sdk-shapes``, else
``~/.cache/workspace-iac/sdk-shapes``; ``off`` keeps them in memory only. A file that cannot
be read or written is a miss, never an error: the shapes are derived again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import json
import os
import re
import tempfile
import threading
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Union

from providers.client import sdk_services, user_cache

CACHE_DIR_ENV = "WORKSPACE_SDK_SHAPES_DIR"
# Bumped whenever the stored form changes: an older file is then a miss.
FORMAT = 1


@dataclasses.dataclass(frozen=True)
class _SdkName:
    module: str  # the service module's last name: `jobs`, `compute`
    name: str
    _hash: int = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # The normal form's tables are keyed by these: hashed once, not per lookup.
        object.__setattr__(self, "_hash", hash((type(self), self.module, self.name)))

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return f"{self.module}.{self.name}"


class SdkClass(_SdkName):
    """A dataclass of the SDK."""


class SdkEnum(_SdkName):
    """An enum of the SDK."""


@dataclasses.dataclass(frozen=True)
class ListOf:
    item: Shape


@dataclasses.dataclass(frozen=True)
class MapOf:
    value: Shape


Shape = SdkClass | SdkEnum | ListOf | MapOf | type


class ModuleShapes:
    """The shapes of one SDK service module, by class and enum name."""

    def __init__(self, module: str, stored: Mapping[str, Any]) -> None:
        self.module = module
        self._classes: dict[str, dict[str, Any]] = stored["classes"]
        self._enums: dict[str, list[str]] = stored["enums"]
        self._fields: dict[str, dict[str, Shape]] = {}

    def __getattr__(self, name: str) -> SdkClass:
        """`shapes("jobs").Task` is `SdkClass("jobs", "Task")`; a class the SDK no longer has
        is an error where it is named, so a rename cannot go unnoticed."""
        if name.startswith("_") or name not in self._classes:
            raise AttributeError(f"the SDK's {self.module} module has no dataclass {name!r}")
        handle = SdkClass(self.module, name)
        self.__dict__[name] = handle  # the normal form names classes per value: looked up once
        return handle

    def fields(self, name: str) -> dict[str, Shape]:
        found = self._fields.get(name)
        if found is None:
            found = {field: _decode(kept) for field, kept in self._classes[name].items()}
            self._fields[name] = found
        return found

    def enum_values(self, name: str) -> tuple[str, ...]:
        if name not in self._enums:
            raise AttributeError(f"the SDK's {self.module} module has no enum {name!r}")
        return tuple(self._enums[name])


def shapes(module: str) -> ModuleShapes:
    """The shapes of the SDK's service module `module` (`jobs`, `compute`, `iam`, ...)."""
    found = _LOADED.get(module)
    if found is not None:
        return found  # the normal form asks per field: no lock once loaded
    with _LOCK:
        found = _LOADED.get(module)
        if found is None:
            found = _LOADED[module] = ModuleShapes(module, _stored_or_derived(module))
        return found


def fields(cls: SdkClass) -> dict[str, Shape]:
    """Field name -> shape, in the class's order."""
    return shapes(cls.module).fields(cls.name)


def enum_values(of: SdkEnum) -> tuple[str, ...]:
    return shapes(of.module).enum_values(of.name)


_LOCK = threading.Lock()
_LOADED: dict[str, ModuleShapes] = {}


def cache_dir() -> Path | None:
    """The directory in force now."""
    return user_cache.cache_dir(CACHE_DIR_ENV, "sdk-shapes")


# --- stored or derived -----------------------------------------------------------------


def _stored_or_derived(module: str) -> dict[str, Any]:
    source = _source_of(module)
    path = _path(module, source)
    if path is not None:
        try:
            stored = json.loads(path.read_text())
        except (OSError, ValueError):
            stored = None
        if _is_whole(stored) and stored["source"] == source:
            return stored
    derived = {"source": source, **_derive(module)}
    if path is not None:
        _store(path, derived)
    return derived


def _is_whole(stored: Any) -> bool:
    return isinstance(stored, dict) and all(
        isinstance(stored.get(part), dict) for part in ("source", "classes", "enums")
    )


def _source_of(module: str) -> dict[str, Any]:
    """What identifies the module's code: the SDK's version and its source file's size and
    time. Read from the files, without importing anything of the SDK."""
    sdk = sdk_services.sdk_dir()
    if sdk is None:
        return {}
    version_text = (sdk / "version.py").read_text() if (sdk / "version.py").exists() else ""
    version = re.search(r"__version__\s*=\s*['\"]([^'\"]+)['\"]", version_text)
    try:
        stat = (sdk / "service" / f"{module}.py").stat()
    except OSError:
        return {"version": version[1] if version else None}
    return {
        "version": version[1] if version else None,
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
    }


def _path(module: str, source: Mapping[str, Any]) -> Path | None:
    directory = cache_dir()
    if directory is None or not source.get("version"):
        return None
    # Named by the source too: several installs of one SDK version (a virtual environment
    # per checkout or project, each with its own file times) share the cache directory, and
    # one file per module would have each of them derive again and overwrite the others'.
    return directory / f"{source['version']}-v{FORMAT}" / f"{module}-{_fingerprint(source)}.json"


def _fingerprint(source: Mapping[str, Any]) -> str:
    return f"{source.get('size', 'unknown')}-{source.get('mtime_ns', 'unknown')}"


def _store(path: Path, derived: Mapping[str, Any]) -> None:
    # A temporary file that replaces the record in one step: processes deriving together
    # each write a whole file.
    written: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", dir=path.parent, prefix=f".{path.name}.", delete=False
        ) as out:
            written = out.name
            json.dump(derived, out, separators=(",", ":"))
        os.replace(written, path)
    except OSError:
        if written is not None:
            with contextlib.suppress(OSError):
                os.unlink(written)


def _derive(module: str) -> dict[str, Any]:
    loaded = sdk_services.service(module)
    classes: dict[str, dict[str, Any]] = {}
    enums: dict[str, list[str]] = {}
    for name, value in vars(loaded).items():
        if not isinstance(value, type) or value.__module__ != loaded.__name__:
            continue
        if dataclasses.is_dataclass(value):
            hints = typing.get_type_hints(value)
            classes[name] = {field: _encode(_unwrap(hint)) for field, hint in hints.items()}
        elif issubclass(value, enum.Enum):
            enums[name] = [member.value for member in value]
    return {"classes": classes, "enums": enums}


def _unwrap(hint: Any) -> Any:
    if typing.get_origin(hint) is Union:
        options = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return options[0] if len(options) == 1 else None
    return hint


_SCALARS = {"str": str, "int": int, "float": float, "bool": bool}


def _encode(hint: Any) -> Any:
    if hint in _SCALARS.values():
        return hint.__name__
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return {"class": f"{_module_of(hint)}.{hint.__name__}"}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return {"enum": f"{_module_of(hint)}.{hint.__name__}"}
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is list and args:
        return {"list": _encode(args[0])}
    if origin is dict and len(args) == 2:
        return {"map": _encode(args[1])}
    return None


def _decode(kept: Any) -> Shape:
    if kept is None:
        return object
    if isinstance(kept, str):
        return _SCALARS[kept]
    if "class" in kept:
        return SdkClass(*kept["class"].split("."))
    if "enum" in kept:
        return SdkEnum(*kept["enum"].split("."))
    if "list" in kept:
        return ListOf(_decode(kept["list"]))
    return MapOf(_decode(kept["map"]))


def _module_of(cls: type) -> str:
    # `databricks.sdk.service.compute` -> `compute`
    return cls.__module__.rsplit(".", 1)[-1]
