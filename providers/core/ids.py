"""Numeric ids of the service (job, run, repo and workspace ids): the one parser of them.

Pulumi carries numbers as 64-bit floats, so an id above 2**53 would lose digits on its way
through the engine or the state file. Ids are therefore accepted as integers (up to 2**53)
or as strings of digits. `Int64Id` keeps one in canonical form as a string of digits (repo
and workspace ids); `IntId` and `parse_int64_id` give it as an int, for the ids the service takes
as JSON numbers (job and run ids).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator

INT64_MAX = 2**63 - 1
EXACT_FLOAT_LIMIT = 2**53


def canonical_id(value: object) -> str:
    """A positive 64-bit id given as an integer or a string of digits -> its digits."""
    if isinstance(value, bool):
        raise ValueError("must be a positive integer id, not a boolean")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError("must be a whole number")
        if value >= EXACT_FLOAT_LIMIT:
            raise ValueError(
                "is too large to pass as a number without losing digits; pass it as a string"
            )
        value = int(value)
    if isinstance(value, str):
        if not (value.isascii() and value.isdigit()):
            raise ValueError("must be a positive integer or a string of digits")
        value = int(value)
    if not isinstance(value, int):
        raise ValueError("must be a positive integer or a string of digits")
    if not 0 < value <= INT64_MAX:
        raise ValueError("must be a positive 64-bit integer")
    return str(value)


Int64Id = Annotated[str, BeforeValidator(canonical_id)]


def parse_int64_id(value: object, what: str) -> int:
    """An id the service keeps as a 64-bit number (a job id, a run id) -> int; ValueError
    naming `what` otherwise (an import by a malformed id says so)."""
    try:
        return int(canonical_id(value))
    except ValueError:
        raise ValueError(f"a {what} is a number, got {value!r}") from None


IntId = Annotated[int, BeforeValidator(lambda value: int(canonical_id(value)))]
