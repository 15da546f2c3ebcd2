"""The names the client and auth packages export. (That neither imports the other in a
circle is a contract of pyproject.toml's [tool.importlinter]: test_import_layers.py.)"""

from __future__ import annotations


def test_public_names():
    import providers.auth as auth
    import providers.client as client

    for name in [
        "Connection",
        "WireForm",
        "WorkspaceError",
        "InvalidParameter",
        "AlreadyExists",
        "InvalidState",
        "Unauthenticated",
        "PermissionDenied",
        "NotFound",
        "RateLimited",
        "ServerError",
        "TemporarilyUnavailable",
        "IdentityError",
        "InvalidClientCredentials",
        "error_from_response",
        "profile",
        "WireProfile",
        "normalise_job_settings",
        "WorkspaceClient",
        "client_for",
        "AccessToken",
        "fetch_token",
        "TokenCache",
        "tokens",
        "MANAGEMENT_RESOURCE",
    ]:
        assert hasattr(client, name), name
    for name in ["WorkspaceAuth", "WorkspaceAuthArgs"]:
        assert hasattr(auth, name), name


def test_the_type_checkers_names_are_the_lazy_ones():
    """providers/client/__init__.py lists its names twice: where each loads from at run time
    and, for type checkers, as imports. Both lists are the same, and each name resolves."""
    import ast
    import inspect

    import providers.client as client

    tree = ast.parse(inspect.getsource(client))
    (block,) = [node for node in tree.body if isinstance(node, ast.If)]
    imported = {
        node.module: tuple(sorted(alias.name for alias in node.names))
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported == {module: tuple(sorted(names)) for module, names in client._EXPORTS.items()}
    for name in client.__all__:
        assert getattr(client, name) is not None, name
