"""Non-idempotent creates that converge: after an answer that leaves open whether the
object was made (a 5xx, a dropped connection, a read timeout), look the object up by its
natural key; adopt it when it is there, create again when it is not.

The HTTP layer never repeats these POSTs itself (it cannot know whether the first one
took effect); only the kind can, because only the kind knows the natural key.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from providers.client import ServerError, TemporarilyUnavailable, WorkspaceUnreachable

T = TypeVar("T")

# Errors after which a create may or may not have happened.
AMBIGUOUS_CREATE_ERRORS = (ServerError, TemporarilyUnavailable, WorkspaceUnreachable)
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
        except AMBIGUOUS_CREATE_ERRORS:
            found = find()
            if found is not None:
                return found, True
            if attempt + 1 == attempts:
                raise
            pause(FIRST_PAUSE_SECONDS * 2**attempt)
    raise AssertionError("unreachable")
