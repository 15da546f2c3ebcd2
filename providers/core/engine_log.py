"""What the provider code logs while the host serves a resource reaches the engine as a
diagnostic of that resource.

The kinds warn with `pulumi.log.warn(...)` (Grants naming the principals that lose their
privileges, a warehouse's restart, ...) and report progress with `pulumi.log.info(...)`. The
SDK sends these to the engine only where a program's settings hold an engine connection,
which a provider host has not: it prints them to the plugin's stderr, and the engine shows
them as plain output lines, with no resource and no severity (`pulumi preview` lists no
warning under "Diagnostics", `preview --json` carries an `info#err` line).

The engine starts a plugin with the address of its own gRPC service as the last argument
(after flags such as `--logtostderr`, `-v=9`, `--tracing <endpoint>`). Given one, the host
installs `ResourceLogs`: while it serves a resource call (Check, Diff, Create, Read, Update,
Delete), `pulumi.log.debug/info/warn/error` become the engine's `Log` call with the
request's URN and the matching severity, so a warning shows as `warning:` under the
resource, and progress lines as its info diagnostics (not ephemeral, which would show them
only in an interactive display's status column). The URN is kept in a context variable per
request: the host serves requests on a thread pool, several resources at once.

Outside a resource call, with no engine address (unit tests, `python -m providers.core.host` by
hand), or where the engine does not answer, each function does what the SDK does without an
engine (stderr): a log line never fails a request.
"""

from __future__ import annotations

import contextvars
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import grpc
import pulumi.log
from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc

# The calls of the resource-provider protocol that serve one resource, named by its URN.
RESOURCE_CALLS = frozenset({"Check", "Diff", "Create", "Read", "Update", "Delete"})
# A Log call the engine does not answer in this long is printed to stderr instead.
LOG_TIMEOUT_SECONDS = 5.0
# The engine's flags before the address that take the next argument as their value.
_FLAGS_WITH_VALUE = frozenset({"--tracing"})

_SEVERITIES = {
    "debug": engine_pb2.DEBUG,
    "info": engine_pb2.INFO,
    "warn": engine_pb2.WARNING,
    "error": engine_pb2.ERROR,
}


class Engine(Protocol):
    """What the host uses of the engine's service: `engine_pb2_grpc.EngineStub`."""

    def Log(self, request: engine_pb2.LogRequest, timeout: float | None = None) -> Any: ...


@dataclass(frozen=True)
class _Served:
    engine: Engine
    urn: str


_served: contextvars.ContextVar[_Served | None] = contextvars.ContextVar(
    "workspace_resource_served", default=None
)
# The SDK's own functions, kept when the routed ones replace them (once per process).
_sdk_functions: dict[str, Callable[..., Any]] = {}
# Whether stderr already says that the engine did not take a line (said once).
_fallback_said = False


def engine_address(argv: Sequence[str]) -> str | None:
    """The engine's address among a plugin's arguments: the last one that is no flag (nor a
    flag's value); None where there is none."""
    address = None
    expects_value = False
    for argument in argv:
        if expects_value:
            expects_value = False
        elif argument in _FLAGS_WITH_VALUE:
            expects_value = True
        elif not argument.startswith("-"):
            address = argument
    return address


def _routed(name: str) -> Callable[..., None]:
    sdk_function = _sdk_functions[name]

    def log(
        msg: str,
        resource: Any = None,
        stream_id: int | None = None,
        ephemeral: bool | None = None,
    ) -> None:
        served = _served.get()
        if served is None or resource is not None:
            sdk_function(msg, resource, stream_id, ephemeral)
            return
        request = engine_pb2.LogRequest(
            severity=_SEVERITIES[name],
            message=msg,
            urn=served.urn,
            streamId=stream_id or 0,
            ephemeral=bool(ephemeral),
        )
        try:
            served.engine.Log(request, timeout=LOG_TIMEOUT_SECONDS)
        except (grpc.RpcError, ValueError) as error:
            # ValueError: the channel was closed. The line still shows, as without an engine.
            _say_fallback(error)
            sdk_function(msg, resource, stream_id, ephemeral)

    log.__name__ = log.__qualname__ = name
    log.__doc__ = sdk_function.__doc__
    return log


def _say_fallback(error: Exception) -> None:
    global _fallback_said
    if _fallback_said:
        return
    _fallback_said = True
    code = getattr(error, "code", None)
    reason = code() if callable(code) else error
    print(f"the engine did not take a log line ({reason}): provider logs go to stderr",
          file=sys.stderr)


def route_pulumi_log() -> None:
    """Makes `pulumi.log.debug/info/warn/error` send to the engine of the resource call being
    served; outside one they are the SDK's. Idempotent."""
    for name in _SEVERITIES:
        if name not in _sdk_functions:
            _sdk_functions[name] = getattr(pulumi.log, name)
            setattr(pulumi.log, name, _routed(name))


class ResourceLogs(grpc.ServerInterceptor):
    """Serves each resource call with what its provider code logs sent to `engine` as a
    diagnostic of the call's URN."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        call = handler_call_details.method.rsplit("/", 1)[-1]  # type: ignore[attr-defined]
        if handler is None or call not in RESOURCE_CALLS or handler.unary_unary is None:
            return handler
        serve = handler.unary_unary

        def served(request: Any, context: grpc.ServicerContext) -> Any:
            token = _served.set(_Served(self.engine, getattr(request, "urn", "")))
            try:
                return serve(request, context)
            finally:
                _served.reset(token)

        return grpc.unary_unary_rpc_method_handler(
            served,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )


def interceptors(argv: Sequence[str]) -> list[grpc.ServerInterceptor]:
    """The host server's interceptors for a plugin started with `argv`: `ResourceLogs` on a
    channel to the engine where they name its address, none otherwise (and `pulumi.log` is
    left as the SDK has it)."""
    address = engine_address(argv)
    if address is None:
        return []
    route_pulumi_log()
    return [ResourceLogs(engine_pb2_grpc.EngineStub(grpc.insecure_channel(address)))]
