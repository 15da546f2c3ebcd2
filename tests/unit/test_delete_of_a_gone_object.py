"""Every kind's delete of an object that is gone succeeds (the single-write mode relies on
it: a run killed after a delete but before the state said so deletes again,
docs/state.md). Every kind deletes through `WorkspaceProvider.delete`, which takes the
service's "does not exist" (404, or a deleted job's INVALID_PARAMETER_VALUE) as done and
lets every other error through."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from providers.client import WorkspaceClient
from providers.client.errors import InvalidParameter, NotFound, ServerError, WorkspaceError
from providers.core.lifecycle import CONNECTION_KEY, WorkspaceProvider
from providers.core.registry import kinds

PROPS = {CONNECTION_KEY: {"base_url": "https://w.example"}}


class Deleting(WorkspaceProvider):
    def __init__(self, error: WorkspaceError) -> None:
        self.error = error
        self.calls = 0

    def delete_object(self, client: WorkspaceClient, id_: str,
                      recorded: Mapping[str, Any]) -> None:
        self.calls += 1
        raise self.error

    @staticmethod
    def _client(props: Mapping[str, Any]) -> Any:
        return object()


def answer(kind: type[WorkspaceError], status: int, code: str, message: str) -> WorkspaceError:
    return kind(status=status, code=code, message=message, method="DELETE", path="/api/x")


@pytest.mark.parametrize("error", [
    answer(NotFound, 404, "RESOURCE_DOES_NOT_EXIST", "no such object"),
    answer(InvalidParameter, 400, "INVALID_PARAMETER_VALUE", "Job 7 does not exist."),
])
def test_a_delete_the_service_says_is_gone_succeeds(error: WorkspaceError) -> None:
    provider = Deleting(error)
    provider.delete("7", PROPS)
    assert provider.calls == 1


def test_any_other_error_of_a_delete_fails_it() -> None:
    provider = Deleting(answer(ServerError, 500, "INTERNAL_ERROR", "boom"))
    with pytest.raises(ServerError):
        provider.delete("7", PROPS)


def test_no_kind_replaces_the_shared_delete() -> None:
    overriding = [kind.name for kind in kinds()
                  if type(kind.provider()).delete is not WorkspaceProvider.delete]
    assert overriding == []
