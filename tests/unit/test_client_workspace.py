"""WorkspaceClient: JSON in and out, the bearer token, refresh once on 401, typed errors."""

from __future__ import annotations

import json
import re

import pytest
import responses
from responses import matchers

from providers.client import process, ratelimit
from providers.client.errors import NotFound, Unauthenticated, WorkspaceError
from providers.client.workspace import WorkspaceClient, client_for, writes_sent
from tests.unit.client_support import (
    ACCESS_TOKEN,
    BASE_URL,
    CLIENT_SECRET,
    TOKEN_URL,
    connection,
    token_body,
)

BEARER = {"Authorization": f"Bearer {ACCESS_TOKEN}"}


pytestmark = pytest.mark.usefixtures("fresh_client_caches")


def test_get_sends_the_bearer_token_and_query(mocked):
    mocked.get(
        f"{BASE_URL}/api/2.0/jobs/get",
        json={"job_id": 5},
        match=[matchers.header_matcher(BEARER), matchers.query_param_matcher({"job_id": "5"})],
    )
    assert client_for(connection()).get("/api/2.0/jobs/get", params={"job_id": 5}) == {"job_id": 5}


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_writes_send_json(mocked, method):
    body = {"access_control_list": [{"group_name": "g", "permission_level": "CAN_VIEW"}]}
    mocked.add(
        method,
        f"{BASE_URL}/api/2.0/permissions/jobs/5",
        json={"object_id": "/jobs/5"},
        match=[matchers.json_params_matcher(body), matchers.header_matcher(BEARER)],
    )
    client = client_for(connection())
    call = getattr(client, method.lower())
    assert call("/api/2.0/permissions/jobs/5", body) == {"object_id": "/jobs/5"}


def test_request_by_method_name_for_wire_dependent_verbs():
    client = client_for(connection(wire_form="public"))
    with responses.RequestsMock() as mocked:
        mocked.post(TOKEN_URL, json=token_body())
        mocked.patch(f"{BASE_URL}/api/2.0/repos/3", json={"branch": "main"})
        method = client.wire.repo_update_method
        assert client.request(method, "/api/2.0/repos/3", {"branch": "main"}) == {"branch": "main"}


@pytest.mark.parametrize(("status", "body"), [(200, b""), (204, b""), (200, b"  "), (200, b"{}")])
def test_empty_answers_are_empty_dicts(mocked, status, body):
    mocked.post(f"{BASE_URL}/api/2.0/jobs/delete", status=status, body=body)
    assert (
        client_for(connection()).post("/api/2.0/jobs/delete", {"job_id": 1}, idempotent=True) == {}
    )


def test_a_2xx_that_is_not_a_json_object_is_an_error(mocked):
    mocked.get(f"{BASE_URL}/api/2.0/jobs/list", body="<html>login</html>", content_type="text/html")
    with pytest.raises(WorkspaceError) as caught:
        client_for(connection()).get("/api/2.0/jobs/list")
    assert caught.value.code == "INVALID_RESPONSE"


def test_error_answer_raises_the_typed_error(mocked):
    mocked.get(
        f"{BASE_URL}/api/2.0/jobs/get",
        status=400,
        json={"error_code": "RESOURCE_DOES_NOT_EXIST", "message": "Job 9 does not exist."},
    )
    with pytest.raises(NotFound) as caught:
        client_for(connection()).get("/api/2.0/jobs/get", params={"job_id": 9})
    assert (
        str(caught.value)
        == "GET /api/2.0/jobs/get: 400 RESOURCE_DOES_NOT_EXIST: Job 9 does not exist."
    )


def test_refreshes_the_token_once_on_401():
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body("old-token"))
        mocked.get(TOKEN_URL, json=token_body("new-token"))
        stale = mocked.get(
            f"{BASE_URL}/api/2.0/jobs/list",
            status=401,
            json={"error_code": "UNAUTHENTICATED", "message": "expired"},
            match=[matchers.header_matcher({"Authorization": "Bearer old-token"})],
        )
        fresh = mocked.get(
            f"{BASE_URL}/api/2.0/jobs/list",
            json={"jobs": []},
            match=[matchers.header_matcher({"Authorization": "Bearer new-token"})],
        )

        assert client_for(connection()).get("/api/2.0/jobs/list") == {"jobs": []}
        assert (stale.call_count, fresh.call_count) == (1, 1)


def test_a_second_401_raises_unauthenticated_without_the_token():
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body("tok-A"))
        mocked.get(TOKEN_URL, json=token_body("tok-B"))
        denied = mocked.get(
            f"{BASE_URL}/api/2.0/jobs/list",
            status=401,
            json={"error_code": "UNAUTHENTICATED", "message": "token tok-B is not valid"},
        )

        with pytest.raises(Unauthenticated) as caught:
            client_for(connection()).get("/api/2.0/jobs/list")

        assert denied.call_count == 2
        assert len(mocked.calls) == 4
    text = str(caught.value) + repr(caught.value) + json.dumps(caught.value.args)
    assert "tok-B" not in text and "tok-A" not in text and CLIENT_SECRET not in text
    assert caught.value.status == 401


def test_the_token_is_fetched_once_for_many_calls(mocked):
    listing = mocked.get(f"{BASE_URL}/api/2.0/clusters/list", json={"clusters": []})
    client = client_for(connection())
    for _ in range(5):
        client.get("/api/2.0/clusters/list")
    assert listing.call_count == 5
    assert len([c for c in mocked.calls if c.request.url.startswith(TOKEN_URL)]) == 1


@pytest.mark.parametrize(
    "path", ["api/2.0/jobs/list", "https://evil.example/x", "//evil.example/x"]
)
def test_only_paths_so_the_token_never_leaves_the_workspace(path):
    refusal = f"path must start with a single '/', got {path!r}"
    with pytest.raises(ValueError, match=re.escape(refusal)):
        client_for(connection()).get(path)


def test_client_for_is_cached_per_connection_and_refreshed_by_a_new_secret():
    a = client_for(connection())
    assert client_for(connection()) is a
    assert client_for(connection(max_attempts=2)) is not a
    b = client_for(connection(client_secret="rotated"))
    assert b is not a and client_for(connection(client_secret="rotated")) is b


def test_client_exposes_the_wire_profile():
    assert client_for(connection()).wire.cluster_stop_path == "/api/2.0/clusters/stop"
    assert client_for(connection(wire_form="public")).wire.cluster_stop_path == (
        "/api/2.0/clusters/delete"
    )


def test_repr_has_no_secret():
    client = WorkspaceClient(connection())
    assert CLIENT_SECRET not in repr(client)


@pytest.mark.parametrize("status", [400, 403, 404, 409, 429, 500, 503])
def test_no_token_or_client_secret_in_any_error_text(mocked, status):
    leaky = f"echo: Bearer {ACCESS_TOKEN} secret={CLIENT_SECRET}"
    mocked.get(
        f"{BASE_URL}/api/2.0/jobs/list",
        status=status,
        json={"error_code": "SOMETHING", "message": leaky},
    )
    with pytest.raises(WorkspaceError) as caught:
        client_for(connection(max_attempts=1)).get("/api/2.0/jobs/list")
    error = caught.value
    for text in (str(error), repr(error), *map(str, error.args), error.message, error.code):
        assert ACCESS_TOKEN not in text and CLIENT_SECRET not in text


def test_what_a_call_keeps_is_in_the_process_state_and_a_new_state_keeps_none_of_it(mocked):
    mocked.post(f"{BASE_URL}/api/2.0/jobs/delete", json={})
    client = client_for(connection())
    client.post("/api/2.0/jobs/delete", {"job_id": 5})
    assert process.current().made() == [
        "clients", "http sessions", "rate limits", "tokens", "writes sent"
    ]
    assert writes_sent(BASE_URL) == 2  # as the write started and as it ended
    assert list(ratelimit.limits()) == [f"{BASE_URL} jobs"]

    process.start()
    assert process.current().made() == []
    assert writes_sent(BASE_URL) == 0 and ratelimit.limits() == {}
    assert client_for(connection()) is not client


def test_a_raw_upload_is_opened_afresh_for_its_second_send(tmp_path):
    """`transfer`: the Files API's raw body, its bytes read from the file each time the call
    is sent (here again after a 401), never a JSON body."""
    file = tmp_path / "etl.whl"
    file.write_bytes(b"wheel bytes")
    opened: list[str] = []

    def open_content():
        opened.append(file.name)
        return file.open("rb")

    path = "/api/2.0/fs/files/Volumes/c/s/v/etl.whl"
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body("old-token"))
        mocked.get(TOKEN_URL, json=token_body("new-token"))
        raw = [matchers.header_matcher({"Content-Type": "application/octet-stream"}),
               matchers.query_param_matcher({"overwrite": "true"})]
        stale = mocked.put(f"{BASE_URL}{path}", status=401, match=raw,
                           json={"error_code": "UNAUTHENTICATED", "message": "expired"})
        fresh = mocked.put(f"{BASE_URL}{path}", status=204, match=raw)
        answer = client_for(connection()).transfer(
            "PUT", path, params={"overwrite": "true"}, content=open_content)
        assert answer.status_code == 204
        assert (stale.call_count, fresh.call_count) == (1, 1)
        bodies = [call.request.body for call in mocked.calls if call.request.method == "PUT"]
    assert opened == ["etl.whl", "etl.whl"]
    assert bodies == [b"wheel bytes", b"wheel bytes"]  # the whole file each time
