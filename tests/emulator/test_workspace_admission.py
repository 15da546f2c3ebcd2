"""A valid token of a principal the workspace does not know: refused (401) as the service
refuses it, unless the Azure management-token pair shows a Contributor or Owner of the
workspace's resource, who is then added as an admin on that call."""

from __future__ import annotations

import pytest

from tests.conftest import emulator_fixture
from tests.emulator.support import Api, expect_error
from workspace_emulator.testing import (
    EmulatorInfo,
    fetch_token,
    initial_applications,
    reset_workspace,
)

CLUSTERS = "/api/2.0/clusters/list"
MANAGEMENT_TOKEN = "X-Databricks-Azure-SP-Management-Token"
RESOURCE_ID = "X-Databricks-Azure-Workspace-Resource-Id"

# Its own emulator, back at its initial data before each test: an admitted principal stays.
admission = emulator_fixture("module")


@pytest.fixture
def admission_emulator(admission: EmulatorInfo) -> EmulatorInfo:
    reset_workspace(admission)
    return admission


def _application(display_name: str) -> dict:
    return next(a for a in initial_applications() if a["display_name"] == display_name)


@pytest.fixture(scope="module")
def contributor() -> dict:
    return _application("azure-contributor")


@pytest.fixture(scope="module")
def outsider() -> dict:
    return _application("azure-outsider")


def _tokens(info: EmulatorInfo, application: dict) -> tuple[str, str]:
    """(platform token, management token) of the application."""
    credentials = (application["client_id"], application["client_secret"])
    return (fetch_token(info, *credentials),
            fetch_token(info, *credentials, resource=info.management_resource))


def _call(info: EmulatorInfo, token: str, **headers: str):
    api = Api(info.base_url, token)
    return api.get(CLUSTERS, headers={k.replace("_", "-"): v for k, v in headers.items()})


def test_without_the_headers_a_non_member_is_not_signed_in(admission_emulator, outsider):
    platform, _ = _tokens(admission_emulator, outsider)
    body = expect_error(_call(admission_emulator, platform), 401, "UNAUTHENTICATED")
    assert body["message"].startswith("User not authorized. Service principal "
                                      f"{outsider['client_id']} is not a member")
    assert MANAGEMENT_TOKEN in body["message"]


def test_a_principal_without_the_role_is_not_admitted(admission_emulator, outsider):
    platform, management = _tokens(admission_emulator, outsider)
    response = Api(admission_emulator.base_url, platform).get(CLUSTERS, headers={
        MANAGEMENT_TOKEN: management, RESOURCE_ID: admission_emulator.workspace_resource_id})
    body = expect_error(response, 401, "UNAUTHENTICATED")
    assert "holds no Owner or Contributor role" in body["message"]
    assert admission_emulator.workspace_resource_id in body["message"]


def test_wrong_headers_are_refused_naming_the_header(admission_emulator, contributor, outsider):
    platform, management = _tokens(admission_emulator, contributor)
    resource_id = admission_emulator.workspace_resource_id
    others_management = _tokens(admission_emulator, outsider)[1]
    cases = [
        ({MANAGEMENT_TOKEN: management}, "X-Databricks-Azure-Workspace-Resource-Id is missing"),
        ({RESOURCE_ID: resource_id}, "X-Databricks-Azure-SP-Management-Token is missing"),
        ({MANAGEMENT_TOKEN: "not-a-token", RESOURCE_ID: resource_id}, "not a valid token"),
        ({MANAGEMENT_TOKEN: platform, RESOURCE_ID: resource_id}, "not for the management"),
        ({MANAGEMENT_TOKEN: others_management, RESOURCE_ID: resource_id}, "another client"),
        ({MANAGEMENT_TOKEN: management, RESOURCE_ID: resource_id.replace("emulated", "other")},
         "not this workspace"),
    ]
    for headers, expected in cases:
        response = Api(admission_emulator.base_url, platform).get(CLUSTERS, headers=headers)
        body = expect_error(response, 401, "UNAUTHENTICATED")
        assert expected in body["message"], (headers.keys(), body)
        assert management not in body["message"] and platform not in body["message"]


def test_a_contributor_is_admitted_as_an_admin_with_the_headers(admission_emulator, contributor):
    platform, management = _tokens(admission_emulator, contributor)
    expect_error(_call(admission_emulator, platform), 401, "UNAUTHENTICATED")
    # Azure resource ids compare case-insensitively.
    response = Api(admission_emulator.base_url, platform).get(CLUSTERS, headers={
        MANAGEMENT_TOKEN: management,
        RESOURCE_ID: admission_emulator.workspace_resource_id.upper()})
    assert response.status_code == 200, response.text
    # From now on a member, in admins: the headers are no longer needed.
    member = Api(admission_emulator.base_url, platform)
    me = member.get("/api/2.0/preview/scim/v2/Me").json()
    assert me["userName"] == contributor["client_id"]
    assert "admins" in {g["display"] for g in me["groups"]}
    assert member.post("/api/2.0/policies/clusters/create",
                       json={"name": "admitted-admin-policy"}).status_code == 200
