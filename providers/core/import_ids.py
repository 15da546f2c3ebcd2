"""The rules of import ids (`pulumi import`, an item's `import`, adopt's listings), judged
before any request: each kind declares its rule (`Kind.import_id_rule`), a function of the
id giving what is wrong with it, or None.

An import id becomes part of a request: a URL path segment (a group's SCIM id, a
warehouse's id, a credential's name), a query parameter (a workspace path) or a body field.
Quoted, a segment cannot hold `/`, `?` or `#`; but `.` and `..` pass quoting unchanged, and
the HTTP stack removes them as dot segments, so `clusters/..` or a group id `..` would send
the request to another endpoint (the permissions endpoint itself, the SCIM groups' list).
Every rule refuses them, percent-encoded too (`%2e%2e`), and control characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import unquote

from providers.core.ids import canonical_id

ImportIdRule = Callable[[str], str | None]

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# What a single path segment never holds: what would end it, start a query or a fragment,
# or encode another character (`%2e`, `%2f`), and a backslash some servers read as `/`.
_NOT_IN_A_SEGMENT = re.compile(r"[/?#%\\]")


def _is_dot_segment(segment: str) -> bool:
    decoded = segment
    for _ in range(3):  # `%252e` decodes to `%2e`, then to `.`
        decoded = unquote(decoded)
    return decoded.strip() in (".", "..")


def no_dot_segments(id_: str) -> str | None:
    """The rule of every id: no control character, no `.` or `..` between slashes."""
    if _CONTROL.search(id_):
        return "must not hold control characters"
    if any(_is_dot_segment(segment) for segment in re.split(r"[/\\]", id_)):
        return ("must not hold a '.' or '..' segment (it would name another endpoint of the "
                "API)")
    return None


def one_segment(id_: str) -> str | None:
    """An id that is one URL path segment: also no `/`, `?`, `#`, `%` or `\\`."""
    problem = no_dot_segments(id_)
    if problem is None and _NOT_IN_A_SEGMENT.search(id_):
        problem = "must not hold '/', '?', '#', '%' or '\\' (it is one segment of the URL path)"
    return problem


def numeric(id_: str) -> str | None:
    """A numeric id (a job's, a repo's, a Git credential's)."""
    try:
        canonical_id(id_)
    except ValueError as error:
        return f"must be a numeric id ({error})"
    return None
