"""Paging helpers: opaque page tokens, and pages of the arrays inside one object.

A token is a kind and a position, base64-encoded so clients treat it as opaque; the kind
keeps a token of one listing from being accepted by another (a jobs/list token is not a
jobs/get token).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from workspace_emulator.errors import InvalidParameter


def encode_token(kind: str, position: int) -> str:
    return base64.urlsafe_b64encode(f"{kind}:{position}".encode()).decode()


def decode_token(kind: str, token: str) -> int:
    """The position a token of `kind` points at; InvalidParameter for anything else."""
    try:
        found, _, value = base64.urlsafe_b64decode(token.encode()).decode().partition(":")
        if found != kind or not value.isdigit():
            raise ValueError(token)
        return int(value)
    except (ValueError, binascii.Error, UnicodeError) as exc:
        raise InvalidParameter(f"Invalid page_token '{token}'") from exc


def page_of_arrays(item: dict[str, Any], names: tuple[str, ...], page: int, size: int
                   ) -> tuple[dict[str, Any], bool]:
    """`item` with each named array cut to its `page`-th slice of `size` (0-based), and
    whether any of them has more. An array with nothing left on a later page is left out."""
    shown = dict(item)
    more = False
    begin, end = page * size, (page + 1) * size
    for name in names:
        values = item.get(name)
        if not isinstance(values, list):
            continue
        more = more or len(values) > end
        if page == 0 or values[begin:end]:
            shown[name] = values[begin:end]
        else:
            del shown[name]
    return shown, more
