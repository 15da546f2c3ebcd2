"""A create whose answer is lost: the service made the object, the client sees a 500."""

from __future__ import annotations

from typing import Any

import pytest

from providers.client import ServerError, WorkspaceClient


def lose_the_answer_to(monkeypatch: pytest.MonkeyPatch, path: str, times: int = 1) -> list[str]:
    """The next `times` POSTs to `path` reach the service, then answer 500; the paths of
    those POSTs, as they happen."""
    real_post = WorkspaceClient.post
    lost: list[str] = []

    def post(self: WorkspaceClient, to: str, body: Any = None, *, idempotent: bool = False):
        answer = real_post(self, to, body, idempotent=idempotent)
        if to == path and len(lost) < times:
            lost.append(to)
            raise ServerError(
                status=500, code="INTERNAL_ERROR", message="lost", method="POST", path=to
            )
        return answer

    monkeypatch.setattr(WorkspaceClient, "post", post)
    return lost
