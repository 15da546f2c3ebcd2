"""Every error body the service and its identity provider send maps to one typed error."""

from __future__ import annotations

import pickle

import pytest
import requests
import responses

from providers.client import errors
from providers.client.errors import (
    AlreadyExists,
    IdentityError,
    InvalidClientCredentials,
    InvalidParameter,
    InvalidState,
    NotFound,
    PermissionDenied,
    RateLimited,
    ServerError,
    TemporarilyUnavailable,
    Unauthenticated,
    WorkspaceError,
    error_from_response,
)

BASE = "https://ws.example.net"
PATH = "/api/2.0/jobs/get"
SCIM_PATH = "/api/2.0/preview/scim/v2/ServicePrincipals"


def answer(
    status: int,
    *,
    json: object | None = None,
    body: str | None = None,
    method: str = "GET",
    path: str = PATH,
    query: str = "job_id=1",
    headers: dict[str, str] | None = None,
    content_type: str | None = None,
) -> requests.Response:
    url = f"{BASE}{path}"
    with responses.RequestsMock() as mocked:
        kwargs: dict[str, object] = {"status": status, "headers": headers or {}}
        if json is not None:
            kwargs["json"] = json
        else:
            kwargs["body"] = body or ""
        if content_type:
            kwargs["content_type"] = content_type
        mocked.add(method, url, **kwargs)  # type: ignore[arg-type]
        return requests.request(method, f"{url}?{query}" if query else url)


PLATFORM_CASES = [
    (400, "INVALID_PARAMETER_VALUE", InvalidParameter),
    (400, "MALFORMED_REQUEST", InvalidParameter),
    (400, "RESOURCE_ALREADY_EXISTS", AlreadyExists),
    (409, "RESOURCE_ALREADY_EXISTS", AlreadyExists),
    (400, "INVALID_STATE", InvalidState),
    (401, "UNAUTHENTICATED", Unauthenticated),
    (403, "PERMISSION_DENIED", PermissionDenied),
    (404, "RESOURCE_DOES_NOT_EXIST", NotFound),
    (404, "ENDPOINT_NOT_FOUND", NotFound),
    (429, "REQUEST_LIMIT_EXCEEDED", RateLimited),
    (500, "INTERNAL_ERROR", ServerError),
    (503, "TEMPORARILY_UNAVAILABLE", TemporarilyUnavailable),
]


@pytest.mark.parametrize(("status", "code", "cls"), PLATFORM_CASES)
def test_platform_error_body(status, code, cls):
    response = answer(status, json={"error_code": code, "message": f"about {code}"})

    error = error_from_response(response)

    assert type(error) is cls
    assert (error.status, error.code, error.message) == (status, code, f"about {code}")
    assert (error.method, error.path) == ("GET", PATH)
    assert str(error) == f"GET {PATH}: {status} {code}: about {code}"


def test_platform_unknown_code_falls_back_on_the_status():
    error = error_from_response(answer(400, json={"error_code": "BAD_THING", "message": "m"}))
    assert type(error) is InvalidParameter
    assert error.code == "BAD_THING"

    error = error_from_response(answer(418, json={"error_code": "TEAPOT", "message": "m"}))
    assert type(error) is WorkspaceError


def test_retry_after_is_kept_on_the_error():
    response = answer(
        429,
        json={"error_code": "REQUEST_LIMIT_EXCEEDED", "message": "m"},
        headers={"Retry-After": "12"},
    )
    assert error_from_response(response).retry_after == 12.0


@pytest.mark.parametrize(
    ("status", "cls"),
    [(409, AlreadyExists), (404, NotFound), (400, InvalidParameter), (403, PermissionDenied)],
)
def test_scim_error_body(status, cls):
    body = {
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:Error"],
        "detail": "Service principal already exists",
        "status": str(status),
    }
    response = answer(status, json=body, method="POST", path=SCIM_PATH, query="")

    error = error_from_response(response)

    assert type(error) is cls
    assert error.status == status
    assert error.code == f"HTTP_{status}"
    assert error.message == "Service principal already exists"
    assert (error.method, error.path) == ("POST", SCIM_PATH)


def test_scim_error_with_scim_type_uses_it_as_code():
    body = {
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:Error"],
        "detail": "dup",
        "status": "409",
        "scimType": "uniqueness",
    }
    error = error_from_response(answer(409, json=body, method="POST", path=SCIM_PATH))
    assert type(error) is AlreadyExists
    assert error.code == "uniqueness"


def identity_body(code: str, description: str) -> dict[str, object]:
    return {
        "error": code,
        "error_description": description,
        "error_codes": [7000215],
        "timestamp": "2026-11-22 01:05:22Z",
        "trace_id": "t",
        "correlation_id": "c",
    }


def test_identity_invalid_client_says_the_secret_or_id_is_wrong():
    description = "AADSTS7000215: Invalid client secret provided.\r\nTrace ID: t\r\nTimestamp: x"
    response = answer(
        401,
        json=identity_body("invalid_client", description),
        path="/tenant-1/oauth2/token",
        query="grant_type=client_credential&client_secret=hunter2",
    )

    error = error_from_response(response)

    assert type(error) is InvalidClientCredentials
    assert isinstance(error, IdentityError)
    assert error.status == 401 and error.code == "invalid_client"
    assert "client secret or client id is wrong" in error.message
    assert "AADSTS7000215: Invalid client secret provided." in error.message
    assert "Trace ID" not in error.message
    assert error.path == "/tenant-1/oauth2/token"
    assert "hunter2" not in str(error) and "hunter2" not in repr(error)


def test_identity_invalid_request():
    response = answer(
        400,
        json=identity_body("invalid_request", "AADSTS900144: missing 'grant_type'"),
        method="POST",
        path="/tenant-1/oauth2/token",
    )
    error = error_from_response(response)
    assert type(error) is IdentityError
    assert (error.status, error.code) == (400, "invalid_request")
    assert error.message == "AADSTS900144: missing 'grant_type'"


@pytest.mark.parametrize(
    ("status", "cls"), [(502, ServerError), (504, ServerError), (503, TemporarilyUnavailable)]
)
def test_html_body(status, cls):
    html = (
        "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"
    )
    response = answer(status, body=html, content_type="text/html")

    error = error_from_response(response)

    assert type(error) is cls
    assert error.code == f"HTTP_{status}"
    assert "not JSON" in error.message and "Bad Gateway" in error.message
    assert "<" not in error.message


def test_long_non_json_body_is_truncated():
    error = error_from_response(answer(500, body="x" * 5000, content_type="text/plain"))
    assert len(error.message) < 300


@pytest.mark.parametrize(
    ("status", "cls"), [(404, NotFound), (500, ServerError), (401, Unauthenticated)]
)
def test_empty_body(status, cls):
    error = error_from_response(answer(status, body=""))
    assert type(error) is cls
    assert error.code == f"HTTP_{status}"
    assert "empty body" in error.message


def test_json_that_is_not_an_object_is_treated_as_unstructured():
    error = error_from_response(answer(500, json=["a", "b"]))
    assert type(error) is ServerError
    assert error.code == "HTTP_500"


def test_path_never_includes_the_query_string():
    error = error_from_response(answer(404, json={}, query="token=abc&x=1"))
    assert error.path == PATH
    assert "abc" not in str(error)


def test_secrets_are_removed_from_the_service_text():
    response = answer(
        400, json={"error_code": "INVALID_PARAMETER_VALUE", "message": "bad token tok-123"}
    )
    error = error_from_response(response, secrets=("tok-123", None, ""))
    assert "tok-123" not in str(error) and "tok-123" not in repr(error)
    assert "tok-123" not in " ".join(map(str, error.args))
    assert error.message == "bad token ***"


def test_a_secret_that_is_an_ordinary_word_does_not_mangle_our_own_text():
    body = {"error": "invalid_client", "error_description": "AADSTS7000215: wrong secret"}
    error = error_from_response(answer(401, json=body), secrets=("wrong",))
    assert "client secret or client id is wrong" in error.message
    assert error.message.endswith("(AADSTS7000215: *** secret)")


def test_errors_survive_pickling():
    error = error_from_response(
        answer(409, json={"error_code": "RESOURCE_ALREADY_EXISTS", "message": "m"})
    )
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is AlreadyExists
    assert str(copy) == str(error)


def test_every_error_class_is_a_workspace_error():
    for name in [
        "InvalidParameter",
        "AlreadyExists",
        "InvalidState",
        "Unauthenticated",
        "PermissionDenied",
        "NotFound",
        "RateLimited",
        "ServerError",
        "TemporarilyUnavailable",
        "IdentityError",
        "InvalidClientCredentials",
        "WorkspaceUnreachable",
    ]:
        assert issubclass(getattr(errors, name), WorkspaceError)


@pytest.mark.parametrize(("path", "message"), [
    ("/api/2.0/clusters/get", "Cluster 0101-abc does not exist"),
    ("/api/2.1/jobs/get", "Job 7 does not exist."),
    ("/api/2.1/jobs/runs/get", "Run 9 does not exist."),
])
def test_a_read_answered_invalid_for_a_missing_object_is_not_found(path, message):
    """The service answers 400 INVALID_PARAMETER_VALUE to these reads of a missing object:
    a read must see it gone, not fail."""
    error = error_from_response(answer(
        400, path=path, json={"error_code": "INVALID_PARAMETER_VALUE", "message": message}))
    assert type(error) is NotFound
    assert error.code == "INVALID_PARAMETER_VALUE" and error.message == message


def test_other_invalid_parameters_of_those_reads_stay_invalid():
    error = error_from_response(answer(
        400, path="/api/2.0/clusters/get",
        json={"error_code": "INVALID_PARAMETER_VALUE", "message": "cluster_id is required"}))
    assert type(error) is InvalidParameter
