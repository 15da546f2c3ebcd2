"""The secrets area and the permissions area of any object type, against a mocked service:
paths, methods and bodies, what a write repeats after a lost answer, and errors that never
carry a secret's value."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import responses
from responses import matchers

from providers.client.errors import InvalidParameter
from providers.client.workspace import WorkspaceClient, client_for
from providers.jobs.job_permissions_api import job_permissions_api
from providers.secrets.secrets_api import SecretsApi
from tests.unit.client_support import BASE_URL, TOKEN_URL, body_is, connection, token_body

SECRETS = f"{BASE_URL}/api/2.0/secrets"
PERMISSIONS = f"{BASE_URL}/api/2.0/permissions"
BUSY = {"error_code": "TEMPORARILY_UNAVAILABLE", "message": "busy"}
VALUE = "hunter2-very-secret"

pytestmark = pytest.mark.usefixtures("fresh_client_caches", "no_retry_sleep")


@pytest.fixture
def service() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock() as mocked:
        mocked.add("GET", TOKEN_URL, json=token_body())
        yield mocked


@pytest.fixture
def client() -> WorkspaceClient:
    return client_for(connection(wire_form="legacy"))


def test_put_sends_the_value_in_the_body_only_and_repeats_after_a_lost_answer(service, client):
    body = {"scope": "s", "key": "k", "string_value": VALUE}
    service.post(f"{SECRETS}/put", status=503, json=BUSY, match=body_is(body))
    service.post(f"{SECRETS}/put", json={}, match=body_is(body))
    SecretsApi(client).put("s", "k", string_value=VALUE)
    assert all(VALUE not in c.request.url for c in service.calls)


def test_put_of_bytes_sends_the_base64(service, client):
    service.post(f"{SECRETS}/put", json={},
                 match=body_is({"scope": "s", "key": "k", "bytes_value": "AAE="}))
    SecretsApi(client).put("s", "k", bytes_value="AAE=")


def test_put_needs_exactly_one_value(client):
    with pytest.raises(ValueError, match="exactly one"):
        SecretsApi(client).put("s", "k")
    with pytest.raises(ValueError, match="exactly one"):
        SecretsApi(client).put("s", "k", string_value="a", bytes_value="AAE=")


def test_an_error_that_echoes_the_value_is_raised_without_it(service, client):
    echo = {"error_code": "INVALID_PARAMETER_VALUE", "message": f"bad value {VALUE}"}
    service.post(f"{SECRETS}/put", status=400, json=echo)
    with pytest.raises(InvalidParameter) as raised:
        SecretsApi(client).put("s", "k", string_value=VALUE)
    assert VALUE not in str(raised.value) and VALUE not in repr(raised.value)
    assert "bad value ***" in str(raised.value)


def test_reads_name_scope_key_and_principal_in_the_query(service, client):
    service.get(f"{SECRETS}/list", json={"secrets": [{"key": "k", "last_updated_timestamp": 1}]},
                match=[matchers.query_param_matcher({"scope": "s"})])
    service.get(f"{SECRETS}/acls/get", json={"principal": "analysts", "permission": "READ"},
                match=[matchers.query_param_matcher({"scope": "s", "principal": "analysts"})])
    service.get(f"{SECRETS}/acls/list", json={})
    assert SecretsApi(client).list_secrets("s") == [{"key": "k", "last_updated_timestamp": 1}]
    assert SecretsApi(client).get_acl("s", "analysts")["permission"] == "READ"
    assert SecretsApi(client).list_acls("s") == []


def test_acl_writes(service, client):
    service.post(f"{SECRETS}/acls/put", json={},
                 match=body_is({"scope": "s", "principal": "analysts", "permission": "READ"}))
    service.post(f"{SECRETS}/acls/delete", json={},
                 match=body_is({"scope": "s", "principal": "analysts"}))
    service.post(f"{SECRETS}/delete", json={}, match=body_is({"scope": "s", "key": "k"}))
    SecretsApi(client).put_acl("s", "analysts", "READ")
    SecretsApi(client).delete_acl("s", "analysts")
    SecretsApi(client).delete("s", "k")


def test_permissions_of_any_type(service, client):
    entries = [{"group_name": "analysts", "permission_level": "CAN_READ"}]
    answer: dict[str, list] = {"access_control_list": []}
    service.get(f"{PERMISSIONS}/notebooks/17", json=answer)
    service.patch(f"{PERMISSIONS}/notebooks/17", json=answer,
                  match=body_is({"access_control_list": entries}))
    service.put(f"{PERMISSIONS}/clusters/a%2Fb", json=answer,
                match=body_is({"access_control_list": []}))
    service.get(f"{PERMISSIONS}/warehouses/w1/permissionLevels",
                json={"permission_levels": [{"permission_level": "CAN_USE"}]})
    assert client.permissions("notebooks").get("17") == answer
    assert client.permissions("notebooks").update("17", entries) == answer
    assert client.permissions("clusters").set("a/b", []) == answer  # an id is one segment
    assert client.permissions("warehouses").levels("w1") == ["CAN_USE"]


def test_job_permissions_keep_the_job_id_a_number(service, client):
    service.get(f"{PERMISSIONS}/jobs/42", json={"object_id": "/jobs/42"})
    assert job_permissions_api(client).get("42") == {"object_id": "/jobs/42"}
