"""The edge every service's requests pass first: request log, injected faults, body limit.

Pure ASGI (no buffering of responses), outermost in each service's stack, so that a
dropped connection can reach the server's transport and every outcome is logged.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from workspace_emulator.error_bodies import error_body_for
from workspace_emulator.faults import ADMIN_PREFIX, FaultInjector
from workspace_emulator.request_log import RequestLog, RequestLogEntry

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Handlers that know the caller put its client id here for the request log.
CLIENT_ID_KEY = "emulator.client_id"
MAX_BODY_BYTES = 1024 * 1024
# Paths that take larger bodies: a workspace import carries up to 10 MB of content, as base64
# in JSON (or a multipart form); a DBFS put or add-block 1 MB as base64, and a larger one
# gets the service's MAX_BLOCK_SIZE_EXCEEDED from its handler, not this limit's 413.
LARGER_BODY_PATHS = {
    "/api/2.0/workspace/import": 16 * 1024 * 1024,
    "/api/2.0/dbfs/put": 4 * 1024 * 1024,
    "/api/2.0/dbfs/add-block": 4 * 1024 * 1024,
}
# Paths whose bodies are streamed to the handler rather than read here first: a Files API
# upload's raw bytes, up to the service's 5 GiB (the handler counts them as they come).
STREAMED_BODY_PREFIXES = {"/api/2.0/fs/files/": 5 * 1024 ** 3}
MAX_DRAIN_BYTES = 16 * 1024 * 1024
RETRY_AFTER_SECONDS = 1

FAULT_MESSAGES = {
    429: ("REQUEST_LIMIT_EXCEEDED", "Too many requests (injected fault). Retry later."),
    500: ("INTERNAL_ERROR", "Internal error (injected fault)."),
    503: ("TEMPORARILY_UNAVAILABLE", "The service is temporarily unavailable (injected fault)."),
}


async def send_json_error(
    send: Send, service: str, path: str, status: int, code: str, message: str,
    extra_headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    body = error_body_for(service, path, status, code, message)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *(extra_headers or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _drop_connection(send: Send) -> None:
    """Close the connection without a response.

    Reaches uvicorn's request cycle through its bound `send`; marking it disconnected keeps
    uvicorn from answering with its own 500 after the transport is gone.
    """
    cycle = getattr(send, "__self__", None)
    if cycle is None or getattr(cycle, "transport", None) is None:
        raise RuntimeError("cannot drop a connection outside uvicorn")
    cycle.transport.abort()
    cycle.disconnected = True


async def _discard(message: Message) -> None:
    """The send of a request whose answer an after-write fault replaces."""


def _answer_late(send: Send, seconds: float) -> Send:
    """A send that holds the answer `seconds` once the handler has applied the request."""
    async def late(message: Message) -> None:
        if message["type"] == "http.response.start":
            await asyncio.sleep(seconds)
        await send(message)
    return late


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value
    return None


class ServiceEdge:
    def __init__(
        self,
        app: ASGIApp,
        service: str,
        faults: FaultInjector,
        request_log: RequestLog,
        resolve_client: Callable[[str], str | None],
        max_body_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        self.app = app
        self.service = service
        self.faults = faults
        self.request_log = request_log
        self.resolve_client = resolve_client
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if path.startswith(ADMIN_PREFIX):
            await self.app(scope, receive, send)
            return

        started = time.perf_counter()
        status: int | None = None

        async def send_and_watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        decision = self.faults.decide(path)
        faulted = decision.drop or decision.status is not None
        try:
            if decision.latency_seconds and not decision.after_write:
                await asyncio.sleep(decision.latency_seconds)
            if decision.after_write and faulted:
                await self._within_body_limit(scope, receive, _discard)
                await asyncio.sleep(decision.latency_seconds)
            if decision.after_write and not faulted and decision.latency_seconds:
                await self._within_body_limit(
                    scope, receive, _answer_late(send_and_watch, decision.latency_seconds))
            elif decision.drop:
                _drop_connection(send)
            elif decision.status is not None:
                code, message = FAULT_MESSAGES[decision.status]
                headers = (
                    [(b"retry-after", str(RETRY_AFTER_SECONDS).encode())]
                    if decision.status in (429, 503) else []
                )
                await send_json_error(
                    send_and_watch, self.service, path, decision.status, code, message, headers
                )
            else:
                await self._within_body_limit(scope, receive, send_and_watch)
        finally:
            self._log(scope, path, status, decision.label, started)

    async def _within_body_limit(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        limit = max(self.max_body_bytes, LARGER_BODY_PATHS.get(path, 0))
        streamed = next((most for prefix, most in STREAMED_BODY_PREFIXES.items()
                         if path.startswith(prefix)), None)
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > (streamed or limit):
            await self._too_large(receive, send, path, streamed or limit)
            return
        if streamed is not None:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await self._too_large(receive, send, path, limit,
                                      more_body=message.get("more_body"))
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, receive: Receive, send: Send, path: str, limit: int,
                         more_body: bool | None = True) -> None:
        # Read (and discard) what the client is still sending, up to a bound: answering
        # mid-upload would reset the connection before the client reads the 413.
        drained = 0
        while more_body and drained < MAX_DRAIN_BYTES:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            drained += len(message.get("body", b""))
            more_body = message.get("more_body", False)
        await send_json_error(
            send, self.service, path, 413, "REQUEST_ENTITY_TOO_LARGE",
            f"The request body is larger than {limit} bytes.",
            [(b"connection", b"close")],
        )

    def _log(
        self, scope: Scope, path: str, status: int | None, fault: str | None, started: float
    ) -> None:
        client = scope.get(CLIENT_ID_KEY)
        if client is None:
            client = self._client_from_bearer(scope)
        self.request_log.record(
            RequestLogEntry(
                time=time.time(),
                service=self.service,
                method=scope.get("method", ""),
                path=path,
                status=status,
                client=client,
                fault=fault,
                duration_ms=round((time.perf_counter() - started) * 1000, 3),
            )
        )

    def _client_from_bearer(self, scope: Scope) -> str | None:
        header = _header(scope, b"authorization")
        if not header:
            return None
        scheme, _, token = header.decode("latin-1").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        return self.resolve_client(token.strip())
