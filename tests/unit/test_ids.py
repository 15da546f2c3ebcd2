"""The one parser of the service's numeric ids (providers/core/ids.py)."""

from __future__ import annotations

import re

import pytest
from pydantic import BaseModel, ValidationError

from providers.core.ids import INT64_MAX, Int64Id, IntId, canonical_id, parse_int64_id

BIG = 2**53 + 1  # a float can not hold it


class Ids(BaseModel):
    as_text: Int64Id | None = None
    as_number: IntId | None = None


@pytest.mark.parametrize(
    ("given", "expected"),
    [(7, "7"), (7.0, "7"), ("0042", "42"), (str(BIG), str(BIG)), (INT64_MAX, str(INT64_MAX))],
)
def test_canonical_forms(given: object, expected: str) -> None:
    assert canonical_id(given) == expected
    assert parse_int64_id(given, "job id") == int(expected)


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        (True, "not a boolean"),
        (1.5, "must be a whole number"),
        (float(BIG), "pass it as a string"),
        ("12a", "a string of digits"),
        ("-3", "a string of digits"),
        ("٣", "a string of digits"),  # a digit, but not an ASCII one
        (0, "positive 64-bit"),
        (INT64_MAX + 1, "positive 64-bit"),
        (None, "a string of digits"),
    ],
)
def test_refused_ids_say_why(given: object, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        canonical_id(given)
    with pytest.raises(ValueError, match=rf"^a job id is a number, got {re.escape(repr(given))}$"):
        parse_int64_id(given, "job id")


def test_model_fields_keep_every_digit() -> None:
    ids = Ids(as_text=str(BIG), as_number=str(BIG))
    assert (ids.as_text, ids.as_number) == (str(BIG), BIG)
    with pytest.raises(ValidationError, match="as_number\n.*must be a positive integer"):
        Ids(as_number="nightly")
