"""The platform's routers are matched in an order chosen for speed (API_ROUTERS); that is
safe only while no path is served by two of them, which these tests hold."""

from __future__ import annotations

import re

from fastapi.routing import APIRoute
from starlette.routing import compile_path

from workspace_emulator.platform.app import API_ROUTERS, create_platform_app
from workspace_emulator.rate_limit import RateLimiter

PARAMETER = re.compile(r"{[^}]+}")
CONVERTOR = re.compile(r":\w+}")


def _included_routes() -> list[tuple[int, str]]:
    """(index of the router in API_ROUTERS, full path template) of every API route."""
    return [(index, prefix + route.path)
            for index, (router, prefix) in enumerate(API_ROUTERS)
            for route in router.routes if isinstance(route, APIRoute)]


def test_no_path_is_served_by_two_routers():
    routes = _included_routes()
    clashes = []
    for index, template in routes:
        sample = PARAMETER.sub("x1", template)
        for other_index, other in routes:
            if other_index != index and compile_path(other)[0].match(sample):
                clashes.append(f"{sample} ({template}) also matches {other}")
    assert clashes == []


def test_each_sample_path_matches_its_own_route():
    # Else the test above would pass by matching nothing at all.
    routes = _included_routes()
    assert len(routes) > 100
    for _, template in routes:
        assert compile_path(template)[0].match(PARAMETER.sub("x1", template)), template


def test_the_app_serves_exactly_the_listed_routers():
    app = create_platform_app(None, "", RateLimiter(None))  # type: ignore[arg-type]
    documented = set(app.openapi()["paths"]) - {"/.well-known/databricks-config"}
    # The document names a parameter without its convertor ({path:path} is {path}).
    assert documented <= {CONVERTOR.sub("}", template) for _, template in _included_routes()}
    assert len({(id(router), prefix) for router, prefix in API_ROUTERS}) == len(API_ROUTERS)
