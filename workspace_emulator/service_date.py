"""The `Date` header of every answer, on the emulator's clock (workspace_emulator/clock.py):
what a client reads as the service's time. With the manual clock it moves when a test moves
the clock, so a client judging how long a token has left (providers' Token) sees the time
the emulator's expiries use. The server's own Date header is turned off (runner.py); an
answer the edge makes itself (an injected fault's) carries none."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from email.utils import formatdate
from typing import Any

from workspace_emulator import clock

Message = MutableMapping[str, Any]
ASGIApp = Callable[[MutableMapping[str, Any], Callable[[], Awaitable[Message]],
                    Callable[[Message], Awaitable[None]]], Awaitable[None]]


class ServiceDate:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any],
                       receive: Callable[[], Awaitable[Message]],
                       send: Callable[[Message], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def dated(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"date"]
                headers.append((b"date", formatdate(clock.now(), usegmt=True).encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, dated)
