"""Every platform call needs a valid token for the platform resource, from an active
service principal of the workspace."""

from __future__ import annotations

import time

import pytest
import requests

from tests.emulator.support import (
    ADMINS_GROUP_ID,
    Api,
    add_service_principal,
    api_as,
    expect_error,
    unique,
)
from workspace_emulator.testing import (
    advance_clock,
    fetch_token,
    register_application,
    running_emulator,
)

CLUSTERS = "/api/2.0/clusters/list"


def test_no_token_is_unauthenticated(emulator):
    response = requests.get(emulator.base_url + CLUSTERS, timeout=5)
    expect_error(response, 401, "UNAUTHENTICATED")


@pytest.mark.parametrize("header", ["Bearer", "Bearer not-a-token", "Basic dXNlcjpwYXNz",
                                    "token abc"])
def test_bad_authorization_headers_are_unauthenticated(emulator, header):
    response = requests.get(emulator.base_url + CLUSTERS, headers={"Authorization": header},
                            timeout=5)
    expect_error(response, 401, "UNAUTHENTICATED")


def test_token_for_the_management_resource_is_refused(emulator):
    token = fetch_token(emulator, resource=emulator.management_resource)
    expect_error(Api(emulator.base_url, token).get(CLUSTERS), 401, "UNAUTHENTICATED")


def test_application_outside_the_workspace_is_not_signed_in(emulator):
    application = register_application(emulator, unique("outsider"))
    response = api_as(emulator, application).get(CLUSTERS)
    body = expect_error(response, 401, "UNAUTHENTICATED")
    assert body["message"].startswith(
        f"User not authorized. Service principal {application['client_id']} is not a member "
        "of this workspace")


def test_deleted_principal_still_gets_tokens_but_is_not_signed_in(api, emulator):
    application, principal = add_service_principal(api, emulator)
    member = api_as(emulator, application)
    assert member.get(CLUSTERS).status_code == 200
    deleted = api.delete(f"/api/2.0/preview/scim/v2/ServicePrincipals/{principal['id']}")
    assert deleted.status_code == 204
    expect_error(member.get(CLUSTERS), 401, "UNAUTHENTICATED")
    fresh = api_as(emulator, application)  # the identity provider still issues tokens
    expect_error(fresh.get(CLUSTERS), 401, "UNAUTHENTICATED")


def test_inactive_principal_is_denied(api, emulator):
    application, principal = add_service_principal(api, emulator)
    path = f"/api/2.0/preview/scim/v2/ServicePrincipals/{principal['id']}"
    api.patch(path, json={"Operations": [{"op": "replace", "path": "active", "value": False}]})
    body = expect_error(api_as(emulator, application).get(CLUSTERS), 403, "PERMISSION_DENIED")
    assert "is deactivated in this workspace" in body["message"]


def test_a_change_of_groups_counts_from_the_next_call_with_the_same_token(api, emulator):
    application, principal = add_service_principal(api, emulator)
    member = api_as(emulator, application)
    admins = f"/api/2.0/preview/scim/v2/Groups/{ADMINS_GROUP_ID}"
    patch_op = "urn:ietf:params:scim:api:messages:2.0:PatchOp"

    def create_policy():  # admins only
        return member.post("/api/2.0/policies/clusters/create", json={"name": unique("p")})

    def members(op: str, **change):
        response = api.patch(admins, json={"schemas": [patch_op],
                                           "Operations": [{"op": op, **change}]})
        assert response.status_code in (200, 204), response.text

    expect_error(create_policy(), 403, "PERMISSION_DENIED")
    members("add", path="members", value=[{"value": principal["id"]}])
    assert create_policy().status_code == 200
    assert member.post("/api/2.0/jobs/create", json={"name": unique("j")}).status_code == 200
    members("remove", path=f'members[value eq "{principal["id"]}"]')
    expect_error(create_policy(), 403, "PERMISSION_DENIED")


def test_expired_token_is_unauthenticated(manual, manual_api):
    lifetime = 3599  # the default --token-lifetime
    assert manual_api.get(CLUSTERS).status_code == 200
    advance_clock(manual, lifetime - 1)
    assert manual_api.get(CLUSTERS).status_code == 200
    advance_clock(manual, 1)
    expect_error(manual_api.get(CLUSTERS), 401, "UNAUTHENTICATED")


def test_the_admin_liveness_probe_needs_no_token(emulator):
    # The rest of the administrative API needs the admin token: test_admin_auth.py.
    assert requests.get(f"{emulator.base_url}/_emulator/health", timeout=5).status_code == 200


def test_rate_limit_answers_429_with_retry_after():
    with running_emulator(rate_limit=5) as info:
        client = Api(info.base_url, fetch_token(info))
        statuses = [client.get(CLUSTERS) for _ in range(15)]
        limited = [r for r in statuses if r.status_code == 429]
        assert limited, [r.status_code for r in statuses]
        body = expect_error(limited[0], 429, "REQUEST_LIMIT_EXCEEDED")
        assert int(limited[0].headers["Retry-After"]) >= 1
        assert body["message"]
        time.sleep(1.1)
        assert client.get(CLUSTERS).status_code == 200
