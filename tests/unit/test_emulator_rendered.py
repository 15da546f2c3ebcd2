"""Bodies joined from views rendered once are the bytes JSONResponse renders for the same
content, whatever the content."""

from __future__ import annotations

import pytest
from fastapi.responses import JSONResponse

from workspace_emulator.platform.rendered import RenderedView, render_body
from workspace_emulator.platform.wire import ok

VIEWS = [{"job_id": 1, "settings": {"name": "ünïcode ✓", "tags": {"k": "v\"q"}}},
         {"job_id": 2, "settings": {"name": "b", "tasks": [], "ratio": 0.5, "none": None}}]


@pytest.mark.parametrize("content", [
    {"jobs": VIEWS, "has_more": True, "next_page_token": "abc"},
    {"has_more": False, "jobs": VIEWS[:1]},
    {"jobs": [], "has_more": False},
    {"jobs": VIEWS, "runs": VIEWS[::-1]},
    {"mixed": [VIEWS[0], "not a view"]},
    {"job_id": 7},
    [VIEWS[0]],
    {},
])
def test_joined_body_is_the_plain_rendering(content):
    rendered = _with_rendered_views(content)
    plain = JSONResponse(content).body
    assert render_body(rendered) == plain
    assert ok(rendered).body == plain


def test_a_rendered_view_is_still_the_object():
    view = RenderedView(VIEWS[0])
    assert view == VIEWS[0]
    assert view.text == JSONResponse(VIEWS[0]).body


def test_values_json_refuses_are_refused_alike():
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        render_body({"jobs": [RenderedView({"a": 1})], "x": float("nan")})


def _with_rendered_views(content):
    if isinstance(content, dict):
        return {key: _with_rendered_views(value) for key, value in content.items()}
    if isinstance(content, list) and content and all(isinstance(v, dict) for v in content):
        return [RenderedView(v) for v in content]
    return content
