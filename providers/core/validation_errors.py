"""Pydantic's validation errors as the user sees them: each problem's place and reason,
never the value given. `str(ValidationError)` prints every input (`input_value=...`), and a
value given in the wrong place or of the wrong type (a token as a number, a secret under a
misspelt key) is printed with it."""

from __future__ import annotations

from typing import Any

import pydantic


def describe(error: pydantic.ValidationError) -> str:
    """`<field path>: <reason>; ...`, without input values."""
    problems = []
    for issue in error.errors(include_input=False, include_url=False, include_context=False):
        where = ".".join(str(part) for part in issue["loc"])
        reason = issue["msg"].removeprefix("Value error, ")
        problems.append(f"{where}: {reason}" if where else reason)
    return f"invalid {error.title}: " + "; ".join(problems)


class InvalidInput(ValueError):
    """A validation error with its input values left out (`describe`)."""

    @classmethod
    def of(cls, error: pydantic.ValidationError) -> InvalidInput:
        return cls(describe(error))


def without_inputs(error: BaseException) -> Any:
    """`error` itself, or for a pydantic validation error, one that shows no input value."""
    if isinstance(error, pydantic.ValidationError):
        return InvalidInput.of(error)
    return error
