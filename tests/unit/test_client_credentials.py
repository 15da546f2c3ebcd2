"""The read-only credentials area (`CredentialsApi(client)`): the service credentials whose
grants adopt and the audit list, by purpose, every page."""

from __future__ import annotations

import pytest
import responses
from responses import matchers

from providers.client.workspace import client_for
from providers.unity_catalog.credentials_api import CredentialsApi
from tests.unit.client_support import BASE_URL, connection

CREDENTIALS = f"{BASE_URL}/api/2.1/unity-catalog/credentials"

pytestmark = pytest.mark.usefixtures("fresh_client_caches", "no_retry_sleep")


def test_credentials_are_listed_by_purpose_on_every_page(mocked):
    mocked.get(CREDENTIALS, json={"credentials": [{"name": "Svc-A"}], "next_page_token": "2"},
               match=[matchers.query_param_matcher({"purpose": "SERVICE"})])
    mocked.get(CREDENTIALS, json={"credentials": [{"name": "svc-b"}]},
               match=[matchers.query_param_matcher({"purpose": "SERVICE", "page_token": "2"})])
    listed = CredentialsApi(client_for(connection())).list("SERVICE")
    assert [c["name"] for c in listed] == ["Svc-A", "svc-b"]


def test_an_unknown_purpose_is_refused_before_any_call():
    with responses.RequestsMock() as nothing_answers:
        with pytest.raises(ValueError,
                           match="purpose must be one of SERVICE, STORAGE; got 'service'"):
            CredentialsApi(client_for(connection())).list("service")
        assert not nothing_answers.calls
