"""The sample application: one resource whose handler is timed as ``runTest``."""

from __future__ import annotations

import itertools

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from workspace_emulator.sample_app.metrics import Timer


def create_resource_app(run_test_timer: Timer) -> Starlette:
    """``GET /my-resource`` returns ``{"value": n}``, n being how many calls were served."""
    calls_served = itertools.count(1)

    async def my_resource(request: Request) -> JSONResponse:
        with run_test_timer.time():
            value = next(calls_served)
        return JSONResponse({"value": value})

    return Starlette(routes=[Route("/my-resource", my_resource, methods=["GET"])])
