"""Git credentials and workspace settings through the official SDK: one credential per
principal and Git provider, the token never answered, a service principal's credentials
by principal_id; the known settings, their defaults and value checks, an unknown key refused
by name, and what the settings switch (IP access list enforcement, token lifetimes)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import (
    InvalidParameterValue,
    NotFound,
    PermissionDenied,
    ResourceAlreadyExists,
)

from tests.emulator.support import Api, add_service_principal, api_as, expect_error, unique
from workspace_emulator.platform.areas.workspace.git_credentials.model import TABLES as GIT_TABLES
from workspace_emulator.platform.areas.workspace.git_credentials.model import GitCredentials
from workspace_emulator.storage import Database
from workspace_emulator.testing import fetch_token, running_emulator

TOKEN = "ghp_" + "x" * 36  # noqa: S105 - a made-up token


def principal(api: Api, emulator) -> tuple[dict, dict, WorkspaceClient]:
    """A fresh service principal, not an admin: (application, its SCIM doc, its SDK)."""
    application, made = add_service_principal(api, emulator)
    token = fetch_token(emulator, application["client_id"], application["client_secret"])
    return application, made, WorkspaceClient(host=emulator.base_url, token=token)


@pytest.fixture
def member(api, emulator) -> WorkspaceClient:
    return principal(api, emulator)[2]


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


# --- Git credentials ---------------------------------------------------------------------


def test_create_get_list_update_delete(member: WorkspaceClient) -> None:
    made = member.git_credentials.create(
        "GITHUB", git_username="deploy-bot", personal_access_token=TOKEN, name="ci")
    assert (made.git_provider, made.git_username, made.name) == ("gitHub", "deploy-bot", "ci")
    got = member.git_credentials.get(made.credential_id)
    assert got.as_dict() == made.as_dict()
    assert "personal_access_token" not in got.as_dict()
    assert [c.credential_id for c in member.git_credentials.list()] == [made.credential_id]
    member.git_credentials.update(made.credential_id, "gitHub", git_username="bot-2",
                                  personal_access_token="ghp_rotated")
    got = member.git_credentials.get(made.credential_id)
    assert (got.git_username, got.name) == ("bot-2", "ci")  # fields not given are kept
    member.git_credentials.delete(made.credential_id)
    assert list(member.git_credentials.list()) == []
    with pytest.raises(NotFound):
        member.git_credentials.get(made.credential_id)


def test_one_credential_per_provider(member: WorkspaceClient) -> None:
    first = member.git_credentials.create("gitHub", git_username="a", personal_access_token=TOKEN)
    with pytest.raises(ResourceAlreadyExists, match=f"credential {first.credential_id}"):
        member.git_credentials.create("github", git_username="b", personal_access_token=TOKEN)
    other = member.git_credentials.create("gitLab", git_username="a",
                                          personal_access_token=TOKEN)
    # Moving the second to the first's provider is refused as well.
    with pytest.raises(ResourceAlreadyExists):
        member.git_credentials.update(other.credential_id, "gitHub")
    assert len(list(member.git_credentials.list())) == 2
    for credential in (first, other):
        member.git_credentials.delete(credential.credential_id)


def test_credentials_are_the_callers_own(api, emulator, member, sdk) -> None:
    made = member.git_credentials.create("gitHub", personal_access_token=TOKEN)
    # Another principal (even an admin) does not see it without naming its owner.
    assert made.credential_id not in {c.credential_id for c in sdk.git_credentials.list()}
    with pytest.raises(NotFound):
        sdk.git_credentials.get(made.credential_id)
    member.git_credentials.delete(made.credential_id)


def test_an_admin_manages_a_service_principals_credentials(api, emulator, sdk) -> None:
    _, scim, client = principal(api, emulator)
    owner = int(scim["id"])
    made = sdk.git_credentials.create("gitLab", git_username="sp", personal_access_token=TOKEN,
                                      principal_id=owner)
    assert [c.credential_id for c in client.git_credentials.list()] == [made.credential_id]
    assert [c.credential_id for c in sdk.git_credentials.list(principal_id=owner)] == [
        made.credential_id]
    sdk.git_credentials.update(made.credential_id, "gitLab", git_username="sp2",
                               principal_id=owner)
    assert client.git_credentials.get(made.credential_id).git_username == "sp2"
    # A principal that is no admin cannot reach another's.
    _, _, stranger = principal(api, emulator)
    with pytest.raises(PermissionDenied, match="manager"):
        stranger.git_credentials.list(principal_id=owner)
    sdk.git_credentials.delete(made.credential_id, principal_id=owner)
    assert list(client.git_credentials.list()) == []


def test_refusals(member: WorkspaceClient) -> None:
    with pytest.raises(InvalidParameterValue, match="Git provider 'svn'"):
        member.git_credentials.create("svn", personal_access_token=TOKEN)
    with pytest.raises(InvalidParameterValue, match="git_username"):
        member.git_credentials.create("awsCodeCommit", personal_access_token=TOKEN)
    with pytest.raises(NotFound):
        member.git_credentials.update(1, "gitHub")


def test_the_token_is_stored_hashed_and_replaced_by_an_update() -> None:
    db = Database(None)
    db.create_tables(GIT_TABLES)
    store = GitCredentials(db)
    made = store.create("7", {"git_provider": "gitHub", "personal_access_token": "one"})
    assert store.token_matches("7", made["credential_id"], "one")
    store.update("7", made["credential_id"], {"git_provider": "gitHub"})
    assert store.token_matches("7", made["credential_id"], "one")  # none given: kept
    store.update("7", made["credential_id"], {"git_provider": "gitHub",
                                               "personal_access_token": "two"})
    assert store.token_matches("7", made["credential_id"], "two")
    with db.read() as conn:
        stored = [tuple(row) for row in conn.execute("SELECT * FROM git_credentials")]
    assert "two" not in repr(stored)


# --- workspace settings ------------------------------------------------------------------


def test_defaults_of_a_new_workspace(sdk: WorkspaceClient) -> None:
    assert sdk.workspace_conf.get_status(
        "enableIpAccessLists,enableResultsDownloading,maxTokenLifetimeDays,enableTokensConfig"
    ) == {
        "enableIpAccessLists": "false",
        "enableResultsDownloading": "true",
        "maxTokenLifetimeDays": None,
        "enableTokensConfig": "true",
    }


def test_set_and_restore(sdk: WorkspaceClient) -> None:
    sdk.workspace_conf.set_status({"enableResultsDownloading": "FALSE",
                                   "maxTokenLifetimeDays": "90"})
    try:
        assert sdk.workspace_conf.get_status("enableResultsDownloading,maxTokenLifetimeDays") == {
            "enableResultsDownloading": "false", "maxTokenLifetimeDays": "90"}
    finally:
        sdk.workspace_conf.set_status({"enableResultsDownloading": "true",
                                       "maxTokenLifetimeDays": ""})
    assert sdk.workspace_conf.get_status("maxTokenLifetimeDays") == {
        "maxTokenLifetimeDays": None}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"enableFrobnication": "true"}, "'enableFrobnication'"),
        ({"enableResultsDownloading": "yes"}, "enableResultsDownloading.*\"true\" or"),
        ({"maxTokenLifetimeDays": "731"}, "maxTokenLifetimeDays.*1 to 730"),
        ({"maxTokenLifetimeDays": "ten"}, "maxTokenLifetimeDays"),
    ],
)
def test_value_checks(sdk: WorkspaceClient, body, message) -> None:
    with pytest.raises(InvalidParameterValue, match=message):
        sdk.workspace_conf.set_status({"maxTokenLifetimeDays": "30", **body})
    # Nothing of a refused change is set.
    assert sdk.workspace_conf.get_status("maxTokenLifetimeDays") == {
        "maxTokenLifetimeDays": None}


def test_unknown_and_non_string_values_are_refused(api: Api) -> None:
    expect_error(api.get("/api/2.0/workspace-conf", params={"keys": "enableIpAccessLists,nope"}),
                 400, "INVALID_PARAMETER_VALUE")
    response = api.patch("/api/2.0/workspace-conf", json={"enableResultsDownloading": True})
    expect_error(response, 400, "INVALID_PARAMETER_VALUE")
    assert "strings" in response.json()["message"]


def test_only_an_admin_changes_settings(member: WorkspaceClient) -> None:
    assert member.workspace_conf.get_status("enableWebTerminal") == {"enableWebTerminal": "false"}
    with pytest.raises(PermissionDenied):
        member.workspace_conf.set_status({"enableWebTerminal": "true"})


# --- what the settings switch, on an emulator of its own ---------------------------------


@pytest.fixture(scope="module")
def own() -> Iterator:
    with running_emulator(trust_forwarded_for=True) as info:
        yield info


def from_address(info, address: str) -> Api:
    api = Api(info.base_url, fetch_token(info))
    api.session.headers["X-Forwarded-For"] = address
    return api


def test_ip_access_lists_count_only_once_switched_on(own) -> None:
    admin = from_address(own, "127.0.0.1")
    outsider = from_address(own, "192.0.2.200")
    body = {"label": unique("loopback"), "list_type": "ALLOW", "ip_addresses": ["127.0.0.1"]}
    made = admin.post("/api/2.0/ip-access-lists", json=body).json()["ip_access_list"]
    # Lists alone change nothing.
    assert outsider.get("/api/2.0/clusters/list").status_code == 200
    enable = {"enableIpAccessLists": "true"}
    assert admin.patch("/api/2.0/workspace-conf", json=enable).status_code == 200
    try:
        expect_error(outsider.get("/api/2.0/clusters/list"), 403, "PERMISSION_DENIED")
        assert admin.get("/api/2.0/clusters/list").status_code == 200
    finally:
        admin.patch("/api/2.0/workspace-conf", json={"enableIpAccessLists": "false"})
    assert outsider.get("/api/2.0/clusters/list").status_code == 200
    admin.delete(f"/api/2.0/ip-access-lists/{made['list_id']}")


def test_token_settings_hold_for_new_tokens(own) -> None:
    sdk = WorkspaceClient(host=own.base_url, token=fetch_token(own))
    sdk.workspace_conf.set_status({"maxTokenLifetimeDays": "7"})
    try:
        with pytest.raises(InvalidParameterValue, match="7 days"):
            sdk.tokens.create(lifetime_seconds=8 * 24 * 3600)
        made = sdk.tokens.create(lifetime_seconds=24 * 3600)
        assert made.token_info is not None and made.token_info.token_id is not None
        sdk.tokens.delete(made.token_info.token_id)
        sdk.workspace_conf.set_status({"enableTokensConfig": "false"})
        with pytest.raises(PermissionDenied, match="enableTokensConfig"):
            sdk.tokens.create(lifetime_seconds=3600)
    finally:
        sdk.workspace_conf.set_status({"maxTokenLifetimeDays": "", "enableTokensConfig": "true"})


def test_member_sees_git_credentials_over_plain_http(api, emulator) -> None:
    application, _ = add_service_principal(api, emulator)
    client = api_as(emulator, application)
    response = client.post("/api/2.0/git-credentials", json={
        "git_provider": "gitHub", "personal_access_token": TOKEN})
    assert response.status_code == 200, response.text
    assert TOKEN not in response.text
    listed = client.get("/api/2.0/git-credentials")
    assert TOKEN not in listed.text and len(listed.json()["credentials"]) == 1


# --- a private remote needs the caller's credential --------------------------------------

PRIVATE_URL = "https://dev.azure.com/example-org/analytics/_git/dashboards"


def test_a_private_remote_is_cloned_only_with_a_credential(member: WorkspaceClient) -> None:
    path = f"/Repos/sdk/{unique('dashboards')}"
    with pytest.raises(InvalidParameterValue, match="no Git credential for azureDevOpsServices"):
        member.repos.create(url=PRIVATE_URL, provider="azureDevOpsServices", path=path)
    # A credential for another provider does not reach it.
    github = member.git_credentials.create("gitHub", personal_access_token=TOKEN)
    with pytest.raises(InvalidParameterValue, match="private"):
        member.repos.create(url=PRIVATE_URL, provider="azureDevOpsServices", path=path)
    ado = member.git_credentials.create("azureDevOpsServices", git_username="bot",
                                        personal_access_token=TOKEN)
    made = member.repos.create(url=PRIVATE_URL, provider="azureDevOpsServices", path=path)
    assert made.branch == "master" and made.id is not None
    member.repos.delete(made.id)
    for credential in (github, ado):
        member.git_credentials.delete(credential.credential_id)
