"""The official SDK's service modules whose dataclasses are our schemas (jobs, compute), and
any other service module on demand (`service`), e.g. for its enums of permission levels.

`import databricks.sdk` runs the package's `__init__`, which loads all of its ~40 services
and its HTTP stack: about 2 s, paid by every `pulumi` run's program and provider host. Only
two dataclass modules are needed here (`jobs` and `compute`, each loaded where first
imported from this module), so they are loaded under a bare stand-in for the package, which
is then taken away again: a later `import databricks.sdk` (a test using the
SDK's client) runs the real `__init__`, which finds these same modules already loaded.

A provider host's threads may first need a module at the same time (a job's read beside a
permission's). One lock serialises the loads: without it, one thread took the stand-in away
while another was still importing under it (`KeyError: 'databricks.sdk'`).
"""

from __future__ import annotations

import importlib.util
import sys
import threading
import types
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from databricks.sdk.service import compute, jobs

_PACKAGE = "databricks.sdk"
_LOADING = threading.RLock()


def sdk_dir() -> Path | None:
    """The installed SDK package's directory, found without importing it; None where the
    SDK is not installed."""
    namespace = importlib.util.find_spec("databricks")
    if namespace is None or not namespace.submodule_search_locations:
        return None
    return Path(next(iter(namespace.submodule_search_locations))) / "sdk"


def _load_without_package_init(module: str = "jobs") -> None:
    if _PACKAGE in sys.modules:
        return
    package = sdk_dir()
    if package is None:
        return  # not installed: the plain import below says so
    stand_in = types.ModuleType(_PACKAGE)
    stand_in.__path__ = [str(package)]
    sys.modules[_PACKAGE] = stand_in
    try:
        importlib.import_module(f"{_PACKAGE}.service.{module}")
    finally:
        del sys.modules[_PACKAGE]


def service(name: str) -> types.ModuleType:
    """The SDK's service module `name` (`sql`, `workspace`, ...), loaded on first use only:
    each takes 0.1 to 0.4 s, which a program that never needs it should not pay."""
    full = f"{_PACKAGE}.service.{name}"
    with _LOADING:
        if full not in sys.modules:
            _load_without_package_init(name)
        return importlib.import_module(full)


def __getattr__(name: str) -> types.ModuleType:
    # `from providers.client.sdk_services import jobs` loads the module there and then, so a
    # process that never imports it (a host serving only scopes, say) never pays for it.
    if name in ("compute", "jobs"):
        module = service(name)
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["compute", "jobs", "service"]
