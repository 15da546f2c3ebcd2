"""How faithfully the platform serves each operation, and what it does not serve.

One entry per operation, keyed `"<METHOD> <path>"` with the path as the route declares it
minus its `/api/<version>` prefix (an operation served under several API versions is one
entry). Each area lists its own (`Area.support`, `Area.not_served`: platform/areas/); here
they are gathered, with the entries of the routes no area holds (discovery, signing in).
The levels are fidelity.py's. `python -m tools.emulator_support` renders this into
workspace_emulator/README.md, and tests/emulator/test_support_list.py fails when a route
has no entry, an entry has no route, or the README is stale.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from workspace_emulator.platform.areas import registered_areas
from workspace_emulator.platform.fidelity import LEVELS, Fidelity, stateful, validated

__all__ = ["LEVELS", "NOT_SERVED", "SUPPORT", "Fidelity"]

# The routes of no area: app.py's and oidc_routes.py's.
OUTSIDE_AREAS: dict[str, Fidelity] = {
    "GET /.well-known/databricks-config": validated("unauthenticated; the SDK probes it on "
                                                    "start; workspace and account ids"),
    # signing in (workspace_emulator/README.md#signing-in)
    "GET /oidc/.well-known/oauth-authorization-server": validated(
        "unauthenticated; issuer, token and authorization endpoints"),
    "GET /oidc/accounts/{account_id}/.well-known/oauth-authorization-server": validated(
        "the account host's: the workspace's document (one identity provider)"),
    "POST /oidc/v1/token": stateful("client_credentials with an OAuth secret (Basic or form), "
                                    "or token exchange of a federated ID token; scope "
                                    "all-apis"),
}

# Operations of the service that clients use and the emulator answers 404
# ENDPOINT_NOT_FOUND, of areas the emulator does not have.
NOT_SERVED_OUTSIDE_AREAS: dict[str, tuple[str, ...]] = {
}


def _gathered(parts: Iterable[tuple[str, Mapping[str, object]]]) -> dict:
    gathered: dict = {}
    for owner, entries in parts:
        for key, value in entries.items():
            if key in gathered:
                raise ValueError(f"{owner} lists {key!r}, which another lists already")
            gathered[key] = value
    return gathered


SUPPORT: dict[str, Fidelity] = _gathered(
    [("support.py", OUTSIDE_AREAS),
     *((f"area {area.name}", area.support) for area in registered_areas())])

# What clients use and the emulator answers 404 ENDPOINT_NOT_FOUND: "<METHOD> <path>" with
# the path minus its /api/<version> prefix, grouped under a heading. A test fails when one
# of them becomes served: move it to its area's `support`.
NOT_SERVED: dict[str, tuple[str, ...]] = _gathered(
    [*((f"area {area.name}", area.not_served) for area in registered_areas()),
     ("support.py", NOT_SERVED_OUTSIDE_AREAS)])
