"""The sample application's administrative side: metrics, health check, ping."""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from workspace_emulator.sample_app.metrics import MetricRegistry

NO_CACHE = {"Cache-Control": "must-revalidate,no-cache,no-store"}


def create_admin_app(registry: MetricRegistry) -> Starlette:
    """``GET /metrics[?pretty=true]``, ``GET /healthcheck[?pretty=true]``, ``GET /ping``."""

    async def metrics(request: Request) -> Response:
        return _json_response(registry.report(), request)

    async def healthcheck(request: Request) -> Response:
        return _json_response({"deadlocks": {"healthy": True}}, request)

    async def ping(request: Request) -> Response:
        return PlainTextResponse("pong\n", headers=NO_CACHE)

    return Starlette(
        routes=[
            Route("/metrics", metrics, methods=["GET"]),
            Route("/healthcheck", healthcheck, methods=["GET"]),
            Route("/ping", ping, methods=["GET"]),
        ]
    )


def _json_response(body: Any, request: Request) -> Response:
    if request.query_params.get("pretty", "").lower() == "true":
        # Jackson's default pretty printer: two-space indent, " : " between key and value.
        text = json.dumps(body, indent=2, separators=(",", " : "), allow_nan=False)
    else:
        text = json.dumps(body, separators=(",", ":"), allow_nan=False)
    return Response(text, media_type="application/json", headers=NO_CACHE)
