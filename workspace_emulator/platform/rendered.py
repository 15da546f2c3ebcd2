"""JSON bodies with parts rendered once: a view served many times unchanged (a listed job)
keeps its text, and a body made of such views joins their texts instead of encoding them
again. The bytes are those Starlette's JSONResponse renders for the same content."""

from __future__ import annotations

import json
from typing import Any

# The options JSONResponse renders with, in one encoder for every call.
_RESPONSE_FORM = json.JSONEncoder(ensure_ascii=False, allow_nan=False, indent=None,
                                  separators=(",", ":"))


def encode(content: Any) -> bytes:
    """A response body's JSON, as JSONResponse renders it."""
    return _RESPONSE_FORM.encode(content).encode("utf-8")


class RenderedView(dict):
    """A JSON object with its encoded text; shared, so never to be changed."""

    __slots__ = ("text",)

    def __init__(self, view: dict[str, Any]) -> None:
        super().__init__(view)
        self.text = render_body(view)


def _views(value: Any) -> bool:
    return type(value) is list and bool(value) and all(type(v) is RenderedView for v in value)


def render_body(content: Any) -> bytes:
    """`encode(content)`, with each top-level array of RenderedView joined from their texts."""
    if type(content) is RenderedView:
        return content.text
    if type(content) is not dict or not any(map(_views, content.values())):
        return encode(content)
    parts = []
    for key, value in content.items():
        text = b"[" + b",".join(v.text for v in value) + b"]" if _views(value) else encode(value)
        parts.append(encode(key) + b":" + text)
    return b"{" + b",".join(parts) + b"}"
