"""What an area of the API (jobs, clusters, ...) needs of a client: its wire profile and
the HTTP verbs. `WorkspaceClient` has them; the areas name this Protocol instead, since
naming that class would make each area and the client module import each other."""

from __future__ import annotations

from typing import Any, Protocol

from providers.client.wire import WireProfile


class Calls(Protocol):
    wire: WireProfile

    def get(self, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]: ...

    def post(
        self, path: str, body: dict[str, Any] | None = None, *, idempotent: bool = False
    ) -> dict[str, Any]: ...

    def put(self, path: str, body: dict[str, Any]) -> dict[str, Any]: ...

    def patch(self, path: str, body: dict[str, Any]) -> dict[str, Any]: ...

    def delete(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]: ...

    def request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        params: dict[str, Any] | None = None,
        idempotent: bool = False,
    ) -> dict[str, Any]: ...
