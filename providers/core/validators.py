"""Field validators every domain's input models share."""

from __future__ import annotations


def not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


def no_duplicates(values: list[str] | None) -> list[str] | None:
    if values is not None:
        repeated = sorted({v for v in values if values.count(v) > 1})
        if repeated:
            raise ValueError(f"lists {', '.join(map(repr, repeated))} more than once")
    return values
