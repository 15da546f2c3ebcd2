"""The three error body shapes of docs/api.md#errors, and which surface uses which."""

from __future__ import annotations

import datetime
import json
import uuid

SCIM_ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"
SCIM_PATH_MARKER = "/scim/v2/"

IDENTITY_ERROR_BY_STATUS = {
    400: "invalid_request",
    401: "invalid_client",
    404: "invalid_request",
    405: "invalid_request",
    413: "invalid_request",
    429: "temporarily_unavailable",
    500: "server_error",
    503: "temporarily_unavailable",
}


def platform_error(code: str, message: str) -> dict:
    return {"error_code": code, "message": message}


def scim_error(status: int, detail: str) -> dict:
    return {"schemas": [SCIM_ERROR_SCHEMA], "detail": detail, "status": str(status)}


def identity_error(error: str, description: str, codes: list[int]) -> dict:
    timestamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%SZ")
    return {
        "error": error,
        "error_description": description,
        "error_codes": codes,
        "timestamp": timestamp,
        "trace_id": str(uuid.uuid4()),
        "correlation_id": str(uuid.uuid4()),
    }


def is_scim_path(path: str) -> bool:
    return SCIM_PATH_MARKER in path


def error_body_for(service: str, path: str, status: int, code: str, message: str) -> bytes:
    """The body a service returns for an error raised outside its handlers (faults, limits)."""
    if service == "identity":
        body = identity_error(IDENTITY_ERROR_BY_STATUS.get(status, "server_error"), message, [0])
    elif is_scim_path(path):
        body = scim_error(status, message)
    else:
        body = platform_error(code, message)
    return json.dumps(body).encode()
