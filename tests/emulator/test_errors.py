"""Bad requests get a 4xx with an error body: never a 5xx, never a hang."""

from __future__ import annotations

import socket
import time
from urllib.parse import urlparse

import pytest

from tests.emulator.support import expect_error, expect_scim_error


@pytest.mark.parametrize("raw", [b"{bad", b"[1,", b"\xff\xfe", b"nul\x00l"])
@pytest.mark.parametrize("content_type", ["application/json", None, "text/plain"])
def test_malformed_bodies(api, raw, content_type):
    headers = {"Content-Type": content_type} if content_type else {}
    response = api.post("/api/2.0/jobs/create", data=raw, headers=headers)
    expect_error(response, 400, "MALFORMED_REQUEST")


def test_malformed_scim_body_has_scim_shape(api):
    response = api.post("/api/2.0/preview/scim/v2/ServicePrincipals", data=b"{",
                        headers={"Content-Type": "application/scim+json"})
    expect_scim_error(response, 400)


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/api/2.0/jobs/create", [], "the request body"),
    ("/api/2.0/jobs/create", {"new_cluster": "big"}, "'new_cluster'"),
    ("/api/2.0/jobs/reset", {"job_id": 1}, "'new_settings'"),
    ("/api/2.0/jobs/delete", {"job_id": True, "x": 1}, "'job_id'"),
    ("/api/2.0/jobs/run-now", {"job_id": 2**63}, "'job_id'"),
    ("/api/2.0/secrets/scopes/create", {"scope": ["a"]}, "'scope'"),
    ("/api/2.0/clusters/start", None, "the request body"),
])
def test_wrong_types_are_invalid_parameters(api, path, body, field):
    # JSON of the wrong shape is a wrong value (MALFORMED_REQUEST is for a body not JSON).
    response = api.post(path, json=body)
    assert response.status_code == 400, response.text
    assert response.json()["error_code"] == "INVALID_PARAMETER_VALUE", response.text
    assert response.json()["message"].startswith(f"Invalid value for {field}: "), response.text


def test_unknown_path_is_not_found_with_a_body(api):
    body = expect_error(api.get("/api/2.0/no/such/thing"), 404, "ENDPOINT_NOT_FOUND")
    assert "/api/2.0/no/such/thing" in body["message"]


def test_wrong_method(api):
    expect_error(api.delete("/api/2.0/jobs/list"), 405)


def test_oversized_body_is_refused(api):
    body = {"name": "x" * (1024 * 1024 + 1)}
    expect_error(api.post("/api/2.0/jobs/create", json=body), 413, "REQUEST_ENTITY_TOO_LARGE")


def test_oversized_chunked_body_is_refused(api):
    def chunks():
        for _ in range(20):
            yield b"x" * 65536

    response = api.post("/api/2.0/jobs/create", data=chunks(),
                        headers={"Content-Type": "application/json"})
    expect_error(response, 413)


def test_a_large_but_allowed_body_works(api):
    body = {"name": "big", "tags": {f"k{i}": "v" * 200 for i in range(3000)}}
    response = api.post("/api/2.0/jobs/create", json=body)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("value", ["\ud800", "a\x00b"])
def test_odd_strings_do_not_break_the_server(api, value):
    escaped = value.encode("unicode_escape").decode().replace("\\x00", "\\u0000")
    response = api.post("/api/2.0/secrets/scopes/create", data=f'{{"scope": "{escaped}"}}',
                        headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json()["error_code"]


def test_nan_is_refused(api):
    response = api.post("/api/2.0/jobs/create", data='{"name": "x", "timeout_seconds": NaN}',
                        headers={"Content-Type": "application/json"})
    assert 400 <= response.status_code < 500


def test_a_truncated_request_does_not_hang_the_server(api, emulator):
    address = urlparse(emulator.base_url)
    with socket.create_connection((address.hostname, address.port), timeout=5) as sock:
        sock.sendall(b"POST /api/2.0/jobs/create HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Length: 100\r\nContent-Type: application/json\r\n\r\n{\"na")
    started = time.monotonic()
    assert api.get("/api/2.0/clusters/list").status_code == 200
    assert time.monotonic() - started < 2
