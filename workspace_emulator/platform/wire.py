"""Request shapes shared by the platform routes (they also make the OpenAPI document).

Models accept unknown fields: the public API has many more than the emulator checks, and
a client that sends them must not be refused.
"""

from __future__ import annotations

from typing import Annotated, Any, Self

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from workspace_emulator.platform.rendered import render_body


def _not_a_boolean(value: Any) -> Any:
    # JSON true/false are not numbers on the wire, whatever Python thinks of bool.
    if isinstance(value, bool):
        raise ValueError("expected an integer, got a boolean")
    return value


Int64 = Annotated[int, BeforeValidator(_not_a_boolean), Field(ge=-(2**63), le=2**63 - 1)]
Id64 = Annotated[int, BeforeValidator(_not_a_boolean), Field(ge=0, le=2**63 - 1)]


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")

    def as_request(self) -> dict[str, Any]:
        """The body as the client sent it (leaving out nulls, which mean 'not given')."""
        return self.model_dump(exclude_unset=True, exclude_none=True, by_alias=True)


class QueryParameters(BaseModel):
    """A route's query parameters, validated in one call: `Params.of(request)`.

    FastAPI works out how to read each declared query parameter again on every request
    (tens of microseconds a parameter with the pinned version), which the most called
    listings should not pay on every page. A bad value is refused as FastAPI refuses it,
    and `openapi()` documents the fields as FastAPI would, for the `openapi_extra` of the
    route, so the OpenAPI document (and the fuzzing built on it) still has them.
    """

    @classmethod
    def of(cls, request: Request) -> Self:
        try:
            return cls.model_validate(request.query_params)
        except ValidationError as error:
            raise RequestValidationError(
                [{**e, "loc": ("query", *e["loc"])} for e in error.errors(include_url=False)]
            ) from None

    @classmethod
    def openapi(cls) -> dict[str, Any]:
        schema = cls.model_json_schema()
        required = set(schema.get("required", ()))
        return {"parameters": [
            {"name": name, "in": "query", "required": name in required, "schema": field}
            for name, field in schema["properties"].items()
        ]}


class ViewsResponse(JSONResponse):
    """A JSON response whose listed views may come rendered already (rendered.py)."""

    def render(self, content: Any) -> bytes:
        return render_body(content)


def ok(payload: Any = None, status_code: int = 200) -> JSONResponse:
    return ViewsResponse({} if payload is None else payload, status_code=status_code)
