"""The credentials area's calls on one credential (`CredentialsApi(client)`), what the
ServiceCredential kind uses: create (a purpose the service knows, or no call), get, update
and delete by name, the name quoted in the path."""

from __future__ import annotations

import json

import pytest
import responses
from responses import matchers

from providers.client.workspace import client_for
from providers.unity_catalog.credentials_api import CredentialsApi
from tests.unit.client_support import BASE_URL, connection

CREDENTIALS = f"{BASE_URL}/api/2.1/unity-catalog/credentials"
IDENTITY = {"azure_managed_identity": {"access_connector_id": "/connectors/uc"}}

pytestmark = pytest.mark.usefixtures("fresh_client_caches", "no_retry_sleep")


def test_create_posts_the_body_with_its_purpose(mocked):
    body = {"name": "queues", "purpose": "SERVICE", **IDENTITY}
    mocked.post(CREDENTIALS, json={**body, "id": "c-1"}, match=[matchers.json_params_matcher(body)])
    assert CredentialsApi(client_for(connection())).create(body)["id"] == "c-1"


def test_a_create_without_a_known_purpose_is_refused_before_any_call():
    with responses.RequestsMock() as nothing_answers:
        with pytest.raises(ValueError, match="purpose must be one of SERVICE, STORAGE; got None"):
            CredentialsApi(client_for(connection())).create({"name": "queues", **IDENTITY})
        assert not nothing_answers.calls


def test_get_update_and_delete_name_the_credential_in_the_path(mocked):
    area = CredentialsApi(client_for(connection()))
    one = f"{CREDENTIALS}/queue%20reader%2F1"
    mocked.get(one, json={"name": "queue reader/1", "purpose": "SERVICE"})
    mocked.patch(one, json={"name": "queue reader/1", "comment": "new"},
                 match=[matchers.json_params_matcher({"comment": "new"})])
    mocked.delete(one, json={}, match=[matchers.query_param_matcher({})])
    mocked.delete(one, json={}, match=[matchers.query_param_matcher({"force": "true"})])
    assert area.get("queue reader/1")["purpose"] == "SERVICE"
    assert area.update("queue reader/1", {"comment": "new"})["comment"] == "new"
    area.delete("queue reader/1")
    area.delete("queue reader/1", force=True)
    sent = [json.loads(c.request.body) for c in mocked.calls if c.request.method == "PATCH"]
    assert sent == [{"comment": "new"}]
