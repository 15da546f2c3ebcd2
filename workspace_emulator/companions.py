"""The services written alongside the platform: the sample application (with its admin
app) and the flow controller. They live in their own sub-packages; while one is missing or
fails to import, a stand-in answers 503 so the rest of the emulator still runs.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from typing import Any

from starlette.responses import JSONResponse

logger = logging.getLogger("emulator")

FLOW_PREFIX = "/nifi-api"


def json_app(status: int, payload_for: Callable[[dict], dict]) -> Callable:
    """An ASGI app answering every HTTP request with one JSON response."""

    async def app(scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] == "http":
            await JSONResponse(payload_for(scope), status_code=status)(scope, receive, send)

    return app


def _stand_in(name: str, reason: str) -> Callable:
    message = f"{name} unavailable: {reason}"
    return json_app(503, lambda scope: {"error_code": "TEMPORARILY_UNAVAILABLE",
                                        "message": message})


def _import(module: str) -> tuple[Any, str]:
    try:
        return importlib.import_module(module), ""
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            return None, "not installed"
        logger.exception("cannot import %s", module)
        return None, f"import failed ({exc})"
    except Exception as exc:  # a half-written colleague module must not stop the emulator
        logger.exception("cannot import %s", module)
        return None, f"import failed ({type(exc).__name__})"


def sample_apps() -> tuple[Any, Any]:
    """(application, its admin application)."""
    module, reason = _import("workspace_emulator.sample_app")
    if module is not None and hasattr(module, "build_apps"):
        try:
            return module.build_apps()
        except Exception as exc:
            logger.exception("workspace_emulator.sample_app.build_apps failed")
            reason = f"build_apps failed ({type(exc).__name__})"
    elif module is not None:
        reason = "workspace_emulator.sample_app has no build_apps()"
    return _stand_in("sample app", reason), _stand_in("sample admin app", reason)


class PrefixMount:
    """Serves `app` under `prefix` the way Starlette's Mount does (root_path extended, path
    kept whole) but also passes lifespan events through, so the app's startup still runs."""

    def __init__(self, app: Callable, prefix: str) -> None:
        self.app = app
        self.prefix = prefix
        self.not_found = json_app(404, lambda scope: {
            "error_code": "ENDPOINT_NOT_FOUND",
            "message": f"No API found for '{scope.get('path')}'"})

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if path == self.prefix or path.startswith(self.prefix + "/"):
            child = dict(scope, root_path=scope.get("root_path", "") + self.prefix)
            await self.app(child, receive, send)
        else:
            await self.not_found(scope, receive, send)


def flow_app(verify_login: Callable[[str, str], bool]) -> Callable:
    """The flow controller, its routes under /nifi-api; it accepts its own login tokens
    only."""
    module, reason = _import("workspace_emulator.flow")
    inner: Any = None
    if module is not None and hasattr(module, "create_app"):
        try:
            inner = module.create_app(verify_login)
        except Exception as exc:
            logger.exception("workspace_emulator.flow.create_app failed")
            reason = f"create_app failed ({type(exc).__name__})"
    elif module is not None:
        reason = "workspace_emulator.flow has no create_app()"
    if inner is None:
        inner = _stand_in("flow controller", reason)
    return PrefixMount(inner, FLOW_PREFIX)
