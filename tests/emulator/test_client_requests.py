"""Requests real clients send that the service accepts, each exactly as the client sends it:
the official CLI (v0.298.0, its flag forms), the Python SDK, and the Terraform provider.
The CLI itself drives the emulator in tests/cli; these pin the bodies down at the HTTP level.
"""

from __future__ import annotations

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import NotFound
from databricks.sdk.service import jobs, workspace

from tests.emulator.support import (
    SP_SCHEMA,
    add_service_principal,
    api_as,
    expect_error,
    public_job_body,
    unique,
)
from workspace_emulator.testing import fetch_token, register_application

SERVICE_PRINCIPALS = "/api/2.0/preview/scim/v2/ServicePrincipals"
REPO_PATH = "/Repos/iac/data-pipelines"
REPO_ID = 3000000000000001


def _created(response) -> dict:
    assert response.status_code == 201, response.text
    return response.json()


# --- SCIM create and replace without `schemas` ----------------------------------------------

def test_cli_flag_form_create_sends_no_schemas(api, emulator):
    # `databricks service-principals create --application-id A --display-name D`
    application = register_application(emulator, unique("cli-sp"))
    created = _created(api.post(SERVICE_PRINCIPALS, json={
        "applicationId": application["client_id"], "displayName": "from the cli flags"}))
    assert created["schemas"] == [SP_SCHEMA]
    assert created["applicationId"] == application["client_id"]
    assert created["displayName"] == "from the cli flags"
    assert created["active"] is True


def test_sdk_create_sends_no_schemas(emulator):
    application = register_application(emulator, unique("sdk-sp"))
    sdk = WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))
    created = sdk.service_principals.create(application_id=application["client_id"],
                                            display_name="from the sdk")
    assert created.id and created.display_name == "from the sdk"
    assert sdk.service_principals.get(created.id).application_id == application["client_id"]


def test_cli_flag_form_update_sends_no_schemas(api, emulator):
    # `databricks service-principals update ID --display-name D` (a PUT)
    application, created = add_service_principal(api, emulator)
    response = api.put(f"{SERVICE_PRINCIPALS}/{created['id']}", json={
        "id": created["id"], "displayName": "renamed by the cli"})
    assert response.status_code == 200, response.text
    assert response.json()["displayName"] == "renamed by the cli"
    assert response.json()["applicationId"] == application["client_id"]


def test_schemas_given_must_still_name_the_resource(api, emulator):
    application = register_application(emulator)
    response = api.post(SERVICE_PRINCIPALS, json={
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "applicationId": application["client_id"]})
    assert response.status_code == 400, response.text


# --- SCIM `entitlements: [{}]` ----------------------------------------------------------------

def test_terraform_provider_empty_entitlement_is_no_entitlement(api, emulator):
    # databricks_service_principal with no entitlement set sends `"entitlements": [{}]`.
    application = register_application(emulator, unique("tf-sp"))
    created = _created(api.post(SERVICE_PRINCIPALS, json={
        "schemas": [SP_SCHEMA], "applicationId": application["client_id"],
        "displayName": "from terraform", "active": True, "entitlements": [{}]}))
    assert created["entitlements"] == []
    replaced = api.put(f"{SERVICE_PRINCIPALS}/{created['id']}", json={
        "schemas": [SP_SCHEMA], "applicationId": application["client_id"],
        "displayName": "from terraform", "active": True,
        "entitlements": [{}, {"value": "allow-cluster-create"}]})
    assert replaced.status_code == 200, replaced.text
    assert replaced.json()["entitlements"] == [{"value": "allow-cluster-create"}]


@pytest.mark.parametrize("entitlements", [[{"value": ""}], [{"value": 7}], ["workspace-access"]])
def test_malformed_entitlements_are_still_refused(api, emulator, entitlements):
    application = register_application(emulator)
    response = api.post(SERVICE_PRINCIPALS, json={
        "applicationId": application["client_id"], "entitlements": entitlements})
    assert response.status_code == 400, response.text


# --- SCIM filters in single quotes ------------------------------------------------------------

def test_terraform_provider_filter_in_single_quotes(api, emulator):
    # databricks_service_principal (force import) looks the principal up so.
    application, created = add_service_principal(api, emulator)
    response = api.get(SERVICE_PRINCIPALS, params={
        "filter": f"applicationId eq '{application['client_id']}'",
        "excludedAttributes": "roles"})
    assert response.status_code == 200, response.text
    assert [r["id"] for r in response.json()["Resources"]] == [created["id"]]


# --- job permissions naming a service principal by its /Me userName ------------------------

@pytest.fixture
def caller(api, emulator):
    """A service principal (not an admin) with its own client, and a job it created."""
    application, principal = add_service_principal(api, emulator)
    client = api_as(emulator, application)
    created = client.post("/api/2.1/jobs/create", json=public_job_body(unique("owned")))
    assert created.status_code == 200, created.text
    return application, client, created.json()["job_id"]


def _direct_levels(acl: dict) -> dict[tuple[str, str], str]:
    levels = {}
    for entry in acl["access_control_list"]:
        kind = next(k for k in ("user_name", "group_name", "service_principal_name") if k in entry)
        for permission in entry["all_permissions"]:
            if not permission["inherited"]:
                levels[(kind, entry[kind])] = permission["permission_level"]
    return levels


def test_me_of_a_service_principal_gives_its_application_id_as_user_name(caller):
    application, client, _ = caller
    me = client.get("/api/2.0/preview/scim/v2/Me").json()
    assert me["userName"] == application["client_id"]


def test_put_naming_the_caller_as_owner_by_its_user_name(caller):
    # The Terraform provider's job permissions: the owner is the caller (or the job's
    # creator) named as `user_name` by the userName /Me gives.
    application, client, job_id = caller
    user_name = client.get("/api/2.0/preview/scim/v2/Me").json()["userName"]
    response = client.put(f"/api/2.0/permissions/jobs/{job_id}", json={"access_control_list": [
        {"user_name": user_name, "permission_level": "IS_OWNER"},
        {"group_name": "analysts", "permission_level": "CAN_VIEW"}]})
    assert response.status_code == 200, response.text
    assert _direct_levels(response.json()) == {
        ("service_principal_name", application["client_id"]): "IS_OWNER",
        ("group_name", "analysts"): "CAN_VIEW"}


def test_sdk_sets_the_caller_as_owner_by_its_user_name(caller, emulator):
    application, _, job_id = caller
    sdk = WorkspaceClient(host=emulator.base_url, token=fetch_token(
        emulator, application["client_id"], application["client_secret"]))
    me = sdk.current_user.me().user_name
    acl = sdk.jobs.set_permissions(str(job_id), access_control_list=[
        jobs.JobAccessControlRequest(user_name=me,
                                     permission_level=jobs.JobPermissionLevel.IS_OWNER)])
    owners = [entry.service_principal_name for entry in acl.access_control_list or []
              if any(p.permission_level == jobs.JobPermissionLevel.IS_OWNER
                     for p in entry.all_permissions or [])]
    assert owners == [application["client_id"]]


def test_patch_naming_another_service_principal_by_user_name(api, emulator, caller):
    # Terraform's "current user keeps CAN_MANAGE" entry, for a principal that is not the owner.
    other, _ = add_service_principal(api, emulator)
    _, client, job_id = caller
    response = client.patch(f"/api/2.0/permissions/jobs/{job_id}", json={"access_control_list": [
        {"user_name": other["client_id"], "permission_level": "CAN_MANAGE"}]})
    assert response.status_code == 200, response.text
    assert _direct_levels(response.json())[
        ("service_principal_name", other["client_id"])] == "CAN_MANAGE"


def test_user_name_of_nobody_is_still_refused(caller):
    _, client, job_id = caller
    response = client.put(f"/api/2.0/permissions/jobs/{job_id}", json={"access_control_list": [
        {"user_name": "00000000-0000-0000-0000-000000000000", "permission_level": "IS_OWNER"}]})
    body = expect_error(response, 400, "INVALID_PARAMETER_VALUE")
    assert "does not exist" in body["message"]


# --- workspace/get-status (the CLI's `repos get <path>`) -------------------------------------

def test_get_status_of_a_repo_path(api):
    response = api.get("/api/2.0/workspace/get-status", params={"path": REPO_PATH})
    assert response.status_code == 200, response.text
    assert response.json() == {"object_type": "REPO", "path": REPO_PATH, "object_id": REPO_ID,
                               "resource_id": str(REPO_ID)}


def test_sdk_get_status(emulator):
    sdk = WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))
    status = sdk.workspace.get_status(REPO_PATH)
    assert status.object_type == workspace.ObjectType.REPO and status.object_id == REPO_ID
    with pytest.raises(NotFound, match=r"Path \(/Repos/none\) doesn't exist\."):
        sdk.workspace.get_status("/Repos/none")


def test_get_status_with_the_workspace_prefix(api):
    response = api.get("/api/2.0/workspace/get-status",
                       params={"path": f"/Workspace{REPO_PATH}/"})
    assert response.status_code == 200, response.text
    assert response.json()["object_id"] == REPO_ID


@pytest.mark.parametrize("path", ["/", "/Repos", "/Repos/iac", "/Users", "/Shared"])
def test_get_status_of_folders(api, path):
    first = api.get("/api/2.0/workspace/get-status", params={"path": path})
    assert first.status_code == 200, first.text
    assert first.json()["object_type"] == "DIRECTORY"
    assert first.json()["path"] == path
    again = api.get("/api/2.0/workspace/get-status", params={"path": path}).json()
    assert again["object_id"] == first.json()["object_id"] > 0


def test_get_status_of_a_missing_path(api):
    response = api.get("/api/2.0/workspace/get-status", params={"path": "/Repos/iac/nothing"})
    body = expect_error(response, 404, "RESOURCE_DOES_NOT_EXIST")
    assert body["message"] == "Path (/Repos/iac/nothing) doesn't exist."


@pytest.mark.parametrize("params", [{"path": "Repos/iac"}, {}])
def test_get_status_needs_an_absolute_path(api, params):
    response = api.get("/api/2.0/workspace/get-status", params=params)
    expect_error(response, 400, "INVALID_PARAMETER_VALUE")
