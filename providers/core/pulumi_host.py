"""Pulumi's own dynamic-provider host, as the installed Pulumi SDK implements it.

The project's provider host (providers/core/host.py) runs under the name of Pulumi's plugin for
dynamic providers (`pulumi-resource-pulumi-python`), so it serves every dynamic resource of a
program, a team's own providers included. It answers those with Pulumi's own servicer, the
`DynamicResourceProviderServicer` of `pulumi.dynamic.__main__`, so each SDK the package runs
on behaves exactly as under Pulumi's host (check, diff, create, update, delete, read, and
`configure` where the SDK has it).

That module starts its server when imported (every release calls `main()` at its top level),
so its source is compiled here without that call: the servicer and its helpers, unchanged.
"""

from __future__ import annotations

import ast
import importlib.util
import types
from functools import cache
from typing import Any

SDK_HOST_MODULE = "pulumi.dynamic.__main__"


def _starts_the_server(statement: ast.stmt) -> bool:
    """`main()`, or `if __name__ == "__main__": ...`, at the module's top level."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        function = statement.value.func
        return isinstance(function, ast.Name) and function.id == "main"
    if isinstance(statement, ast.If) and isinstance(statement.test, ast.Compare):
        return isinstance(statement.test.left, ast.Name) and statement.test.left.id == "__name__"
    return False


@cache
def sdk_host_module() -> types.ModuleType:
    """The installed SDK's host module, loaded without starting its server."""
    spec = importlib.util.find_spec(SDK_HOST_MODULE)
    if spec is None or spec.loader is None or spec.origin is None:
        raise ImportError(f"the installed Pulumi SDK has no {SDK_HOST_MODULE}")
    source = spec.loader.get_source(SDK_HOST_MODULE)  # type: ignore[attr-defined]
    tree = ast.parse(source, spec.origin)
    tree.body = [statement for statement in tree.body if not _starts_the_server(statement)]
    module = types.ModuleType("pulumi.dynamic._sdk_host")
    module.__file__ = spec.origin
    exec(compile(tree, spec.origin, "exec"), module.__dict__)  # noqa: S102 - the SDK's own code
    return module


def sdk_servicer() -> Any:
    """A new instance of the SDK's `DynamicResourceProviderServicer`."""
    return sdk_host_module().DynamicResourceProviderServicer()
