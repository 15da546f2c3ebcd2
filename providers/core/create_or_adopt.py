"""Non-idempotent creates that converge: after an answer that leaves open whether the
object was made (any 5xx, whatever its error code, a dropped connection, a read timeout),
look the object up by its natural key; adopt it when it is there, create again when it is
not. A throttling code (REQUEST_LIMIT_EXCEEDED, TEMPORARILY_UNAVAILABLE) under 500 says the
service refused the create before doing anything: it is sent again after the pause.

The HTTP layer never repeats these POSTs itself (it cannot know whether the first one
took effect); only the kind can, because only the kind knows the natural key.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from providers.client import WorkspaceError, WorkspaceUnreachable
from providers.client.errors import THROTTLING_CODES

T = TypeVar("T")

CREATE_ATTEMPTS = 4
FIRST_PAUSE_SECONDS = 0.5


def create_or_adopt(
    create: Callable[[], T],
    find: Callable[[], T | None],
    attempts: int = CREATE_ATTEMPTS,
    pause: Callable[[float], None] = time.sleep,
) -> tuple[T, bool]:
    """(what `create()` returned, False), or (what `find()` returned after an ambiguous
    failure, True); at most `attempts` creates, pausing 0.5, 1, 2 ... seconds between
    them. The last failure is raised."""
    for attempt in range(attempts):
        try:
            return create(), False
        except WorkspaceError as error:
            uncertain = is_uncertain_create_outcome(error)
            if not uncertain and error.code not in THROTTLING_CODES:
                raise
            if uncertain:
                found = find()
                if found is not None:
                    return found, True
            if attempt + 1 == attempts:
                raise
            pause(FIRST_PAUSE_SECONDS * 2**attempt)
    raise AssertionError("unreachable")


def is_uncertain_create_outcome(error: Exception) -> bool:
    """Whether a create that failed so may have made its object: any 5xx (a throttling
    500 too: the service may have acted before it refused), or no answer at all."""
    if isinstance(error, WorkspaceUnreachable):
        return True
    return isinstance(error, WorkspaceError) and error.status is not None and error.status >= 500


def imported_untagged(recorded: Mapping[str, Any]) -> bool:
    """Whether the recorded object (a job's, a cluster's outputs) has no deployment tag: one
    made outside the stack and imported (`python -m stacks.adopt`'s; the state leaves out
    the tag it does not have). An update leaves it untagged, so it changes only what the
    stack declares: the tag serves a create's retry, which an imported object never had.
    One the stack made records its tag, and keeps it."""
    return not recorded.get("deployment_tag")


# The tag a job or cluster the stack makes carries, naming its resource: a create whose
# answer was lost is found by it (the object is adopted, not made twice).
DEPLOYMENT_TAG_KEY = "pulumi-deployment"
