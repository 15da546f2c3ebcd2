"""A non-idempotent create after an ambiguous failure: adopt what the lookup finds, else
create again, a bounded number of times; other failures pass straight through."""

from typing import Any

import pytest

from providers.client import InvalidParameter, ServerError, WorkspaceUnreachable
from providers.core.create_or_adopt import CREATE_ATTEMPTS, create_or_adopt

POST: dict[str, Any] = {"method": "POST", "path": "/api/2.0/jobs/create"}


def server_error() -> ServerError:
    return ServerError(status=500, code="INTERNAL_ERROR", message="boom", **POST)


def dropped() -> WorkspaceUnreachable:
    return WorkspaceUnreachable(request_may_have_been_sent=True, status=None,
                                code="CONNECTION_BROKEN", message="dropped", **POST)


def scripted(outcomes: list):
    calls = []

    def call():
        calls.append(1)
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    return call, calls


def test_adopts_what_the_lookup_finds_after_an_ambiguous_failure() -> None:
    create, creates = scripted([dropped()])
    find, finds = scripted([42])
    assert create_or_adopt(create, find, pause=lambda _s: None) == (42, True)
    assert (len(creates), len(finds)) == (1, 1)


def test_creates_again_when_the_failed_create_made_nothing() -> None:
    create, creates = scripted([server_error(), dropped(), 7])
    find, finds = scripted([None, None])
    pauses: list[float] = []
    assert create_or_adopt(create, find, pause=pauses.append) == (7, False)
    assert (len(creates), len(finds)) == (3, 2)
    assert pauses == [0.5, 1.0]


def test_gives_up_after_the_last_attempt_with_its_error() -> None:
    create, creates = scripted([server_error() for _ in range(CREATE_ATTEMPTS)])
    find, _ = scripted([None] * CREATE_ATTEMPTS)
    with pytest.raises(ServerError):
        create_or_adopt(create, find, pause=lambda _s: None)
    assert len(creates) == CREATE_ATTEMPTS


def test_a_clear_refusal_is_not_retried() -> None:
    refusal = InvalidParameter(status=400, code="INVALID_PARAMETER_VALUE", message="bad",
                               **POST)
    create, creates = scripted([refusal])
    find, finds = scripted([])
    with pytest.raises(InvalidParameter):
        create_or_adopt(create, find, pause=lambda _s: None)
    assert (len(creates), len(finds)) == (1, 0)
