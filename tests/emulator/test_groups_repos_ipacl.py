"""SCIM groups (with PATCH of members), repos create/update/delete and IP access lists
(CRUD and enforcement), driven by the official SDK over real HTTP."""

from __future__ import annotations

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import (
    BadRequest,
    InvalidParameterValue,
    NotFound,
    PermissionDenied,
    ResourceAlreadyExists,
    ResourceConflict,
)
from databricks.sdk.service import iam, settings, workspace

from tests.emulator.support import (
    ANALYSTS_GROUP_ID,
    Api,
    expect_error,
    unique,
)
from workspace_emulator.testing import fetch_token, running_emulator

ALICE = "200000000000001"
BOB = "200000000000002"
PATCH_OP = [iam.PatchSchema.URN_IETF_PARAMS_SCIM_API_MESSAGES_2_0_PATCH_OP]
REPO_URL = "https://github.com/example-org/data-pipelines.git"


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


def members_of(sdk: WorkspaceClient, group_id: str) -> set[str | None]:
    return {m.value for m in sdk.groups.get(group_id).members or []}


def test_a_filter_with_an_unquoted_value_is_parsed_as_the_service_does(sdk):
    """`displayName eq etl`: the bare word is the value (200, not a refused filter)."""
    name = unique("etl")
    created = sdk.groups.create(display_name=name)
    listed = list(sdk.groups.list(filter=f"displayName eq {name}"))
    assert [g.id for g in listed] == [created.id]
    both = list(sdk.groups.list(filter=f"displayName eq {name} and id eq {created.id}"))
    assert [g.id for g in both] == [created.id]
    sdk.groups.delete(created.id)


def member_patch(op: iam.PatchOp, path: str, *values: str) -> iam.Patch:
    value = [{"value": v} for v in values] if values else None
    return iam.Patch(op=op, path=path, value=value)


# --- groups -----------------------------------------------------------------------------


def test_group_create_get_list_delete(sdk):
    name = unique("sdk-group")
    made = sdk.groups.create(
        display_name=name, external_id="ext-1",
        entitlements=[iam.ComplexValue(value="databricks-sql-access")],
        members=[iam.ComplexValue(value=BOB)])
    got = sdk.groups.get(made.id)
    assert (got.display_name, got.external_id) == (name, "ext-1")
    assert [e.value for e in got.entitlements] == ["databricks-sql-access"]
    assert members_of(sdk, made.id) == {BOB}
    listed = list(sdk.groups.list(filter=f'displayName eq "{name}"'))
    assert [g.id for g in listed] == [made.id]
    assert made.id in {g.value for g in sdk.users.get(BOB).groups}
    with pytest.raises(ResourceConflict, match="already exists"):  # SCIM: 409
        sdk.groups.create(display_name=name)
    sdk.groups.delete(made.id)
    with pytest.raises(NotFound):
        sdk.groups.get(made.id)
    # Its members stay, out of the group.
    assert made.id not in {g.value for g in sdk.users.get(BOB).groups or []}


def test_patch_adds_and_removes_only_the_named_members(sdk):
    group = sdk.groups.create(display_name=unique("sdk-members"), members=[
        iam.ComplexValue(value=ALICE)])
    principal = sdk.service_principals.list(filter='displayName eq "iac-bootstrap"')
    principal_id = next(iter(principal)).id
    sdk.groups.patch(group.id, schemas=PATCH_OP, operations=[
        member_patch(iam.PatchOp.ADD, "members", BOB, principal_id, ANALYSTS_GROUP_ID)])
    assert members_of(sdk, group.id) == {ALICE, BOB, principal_id, ANALYSTS_GROUP_ID}
    sdk.groups.patch(group.id, schemas=PATCH_OP, operations=[
        iam.Patch(op=iam.PatchOp.REMOVE, path=f'members[value eq "{BOB}"]')])
    assert members_of(sdk, group.id) == {ALICE, principal_id, ANALYSTS_GROUP_ID}
    sdk.groups.patch(group.id, schemas=PATCH_OP, operations=[
        member_patch(iam.PatchOp.REMOVE, "members", ANALYSTS_GROUP_ID, principal_id)])
    assert members_of(sdk, group.id) == {ALICE}
    kinds = {m.value: m.ref for m in sdk.groups.get(group.id).members}
    assert kinds == {ALICE: f"Users/{ALICE}"}
    sdk.groups.delete(group.id)


def test_patch_of_entitlements_and_name(sdk):
    group = sdk.groups.create(display_name=unique("sdk-ent"), members=[
        iam.ComplexValue(value=ALICE)])
    new_name = unique("sdk-renamed")
    sdk.groups.patch(group.id, schemas=PATCH_OP, operations=[
        iam.Patch(op=iam.PatchOp.ADD, path="entitlements",
                  value=[{"value": "allow-cluster-create"}]),
        iam.Patch(op=iam.PatchOp.REPLACE, path="displayName", value=new_name)])
    got = sdk.groups.get(group.id)
    assert got.display_name == new_name
    assert [e.value for e in got.entitlements] == ["allow-cluster-create"]
    assert members_of(sdk, group.id) == {ALICE}  # untouched by the other operations
    sdk.groups.delete(group.id)


def test_group_refusals(sdk, api: Api):
    group = sdk.groups.create(display_name=unique("sdk-refuse"))
    # SCIM errors carry no error code: the SDK raises its status's error.
    with pytest.raises(BadRequest, match="neither a user"):
        sdk.groups.patch(group.id, schemas=PATCH_OP, operations=[
            member_patch(iam.PatchOp.ADD, "members", "999")])
    with pytest.raises(BadRequest, match="cannot contain itself"):
        sdk.groups.patch(group.id, schemas=PATCH_OP, operations=[
            member_patch(iam.PatchOp.ADD, "members", group.id)])
    with pytest.raises(BadRequest, match="Unknown entitlement"):
        sdk.groups.create(display_name=unique("sdk-bad"),
                          entitlements=[iam.ComplexValue(value="be-root")])
    admins = next(iter(sdk.groups.list(filter='displayName eq "admins"')))
    with pytest.raises(BadRequest, match="cannot be deleted"):
        sdk.groups.delete(admins.id)
    body = api.delete(f"/api/2.0/preview/scim/v2/Groups/{group.id}")
    assert body.status_code == 204
    missing = api.get(f"/api/2.0/preview/scim/v2/Groups/{group.id}")
    assert missing.status_code == 404
    assert missing.json()["schemas"] == ["urn:ietf:params:scim:api:messages:2.0:Error"]


# --- repos ------------------------------------------------------------------------------


def test_repo_create_update_delete(sdk):
    path = f"/Repos/sdk/{unique('pipelines')}"
    made = sdk.repos.create(url=REPO_URL, provider="github", path=path,
                            sparse_checkout=workspace.SparseCheckout(patterns=["jobs"]))
    assert (made.path, made.provider, made.branch) == (path, "gitHub", "main")
    assert made.sparse_checkout.patterns == ["jobs"]
    sdk.repos.update(made.id, tag="v1.0.0")
    tagged = sdk.repos.get(made.id)
    assert tagged.branch is None
    assert tagged.head_commit_id == "d4e5f60718293a4b5c6d7e8f9012345678901234"
    sdk.repos.update(made.id, branch="develop",
                     sparse_checkout=workspace.SparseCheckoutUpdate(patterns=["jobs", "lib"]))
    got = sdk.repos.get(made.id)
    assert (got.branch, got.sparse_checkout.patterns) == ("develop", ["jobs", "lib"])
    assert made.id in {r.id for r in sdk.repos.list(path_prefix=path)}
    with pytest.raises(ResourceAlreadyExists, match="already exists"):
        sdk.repos.create(url=REPO_URL, provider="gitHub", path=path)
    sdk.repos.delete(made.id)
    with pytest.raises(NotFound):
        sdk.repos.get(made.id)


def test_repo_create_without_a_path_goes_to_the_callers_folder(sdk, emulator):
    # What the CLI's `repos create URL` and workflow operators send: no path.
    made = sdk.repos.create(url=REPO_URL, provider="gitHub")
    assert made.path == f"/Repos/{emulator.client_id}/data-pipelines"
    assert sdk.workspace.get_status(made.path).object_id == made.id
    with pytest.raises(ResourceAlreadyExists):
        sdk.repos.create(url=REPO_URL, provider="gitHub")
    sdk.repos.delete(made.id)


def test_repo_refusals(sdk):
    with pytest.raises(InvalidParameterValue, match="Unable to clone"):
        sdk.repos.create(url="https://github.com/nobody/nothing.git", provider="gitHub",
                         path=f"/Repos/sdk/{unique('x')}")
    with pytest.raises(InvalidParameterValue, match="Git provider"):
        sdk.repos.create(url=REPO_URL, provider="svn", path=f"/Repos/sdk/{unique('x')}")
    with pytest.raises(InvalidParameterValue, match="/Repos/<folder>/<name>"):
        sdk.repos.create(url=REPO_URL, provider="gitHub", path="/Repos/too/deep/here")
    plain = sdk.repos.create(url=REPO_URL, provider="gitHub", path=f"/Repos/sdk/{unique('p')}")
    with pytest.raises(InvalidParameterValue, match="without sparse checkout"):
        sdk.repos.update(plain.id, sparse_checkout=workspace.SparseCheckoutUpdate(["a"]))
    sdk.repos.delete(plain.id)


# --- IP access lists --------------------------------------------------------------------


def test_ip_access_list_crud(sdk):
    made = sdk.ip_access_lists.create(
        label=unique("office"), list_type=settings.ListType.ALLOW,
        ip_addresses=["10.1.0.0/16", "10.2.3.4"]).ip_access_list
    assert (made.address_count, made.enabled) == (2, True)
    sdk.ip_access_lists.update(made.list_id, enabled=False, ip_addresses=["10.9.0.0/24"])
    got = sdk.ip_access_lists.get(made.list_id).ip_access_list
    assert (got.enabled, got.ip_addresses, got.label) == (False, ["10.9.0.0/24"], made.label)
    sdk.ip_access_lists.replace(made.list_id, label="renamed", enabled=True,
                                list_type=settings.ListType.BLOCK)
    got = sdk.ip_access_lists.get(made.list_id).ip_access_list
    assert (got.label, got.list_type, got.ip_addresses) == (
        "renamed", settings.ListType.BLOCK, [])
    sdk.ip_access_lists.delete(made.list_id)
    with pytest.raises(NotFound):
        sdk.ip_access_lists.get(made.list_id)


def test_ip_access_list_refusals(sdk):
    with pytest.raises(InvalidParameterValue, match=r"ip_addresses\[1\]"):
        sdk.ip_access_lists.create(label="bad", list_type=settings.ListType.BLOCK,
                                   ip_addresses=["10.0.0.1", "10.0.0.300"])
    with pytest.raises(InvalidParameterValue, match="label"):
        sdk.ip_access_lists.create(label="", list_type=settings.ListType.BLOCK)
    assert sdk.workspace_conf.get_status("enableIpAccessLists") == {
        "enableIpAccessLists": "false"}


# Its own emulator: enforcement turned on must not lock out the session's other tests.
@pytest.fixture(scope="module")
def guarded():
    with running_emulator(trust_forwarded_for=True) as info:
        yield info


def from_address(info, address: str) -> Api:
    api = Api(info.base_url, fetch_token(info))
    api.session.headers["X-Forwarded-For"] = address
    return api


def test_enforcement_refuses_a_self_block_and_blocked_callers(guarded):
    admin = from_address(guarded, "203.0.113.10")  # in the initial data's office allow list
    enable = {"enableIpAccessLists": "true"}
    assert admin.patch("/api/2.0/workspace-conf", json=enable).status_code == 200
    # A block list naming the caller would lock it out: INVALID_STATE, nothing stored.
    before = admin.get("/api/2.0/ip-access-lists").json()["ip_access_lists"]
    body = {"label": "self", "list_type": "BLOCK", "ip_addresses": ["203.0.113.0/28"]}
    expect_error(admin.post("/api/2.0/ip-access-lists", json=body), 400, "INVALID_STATE")
    assert admin.get("/api/2.0/ip-access-lists").json()["ip_access_lists"] == before
    # A block list of someone else's address (in the allow list) is taken, and that
    # address is refused.
    body["ip_addresses"] = ["203.0.113.99"]
    made = admin.post("/api/2.0/ip-access-lists", json=body).json()["ip_access_list"]
    blocked = from_address(guarded, "203.0.113.99")
    expect_error(blocked.get("/api/2.0/clusters/list"), 403, "PERMISSION_DENIED")
    # An address outside every allow list is refused too; one inside is served.
    expect_error(from_address(guarded, "192.0.2.1").get("/api/2.0/clusters/list"), 403)
    assert admin.get("/api/2.0/clusters/list").status_code == 200
    # Changing the list so that it would block the caller is refused as well.
    update = {"ip_addresses": ["203.0.113.10"]}
    response = admin.patch(f"/api/2.0/ip-access-lists/{made['list_id']}", json=update)
    expect_error(response, 400, "INVALID_STATE")
    # Disabled, the block list no longer counts.
    admin.patch(f"/api/2.0/ip-access-lists/{made['list_id']}", json={"enabled": False})
    assert blocked.get("/api/2.0/clusters/list").status_code == 200
    admin.patch("/api/2.0/workspace-conf", json={"enableIpAccessLists": "false"})
    assert from_address(guarded, "192.0.2.1").get("/api/2.0/clusters/list").status_code == 200


def test_turning_the_feature_on_cannot_lock_the_caller_out(guarded):
    outsider = from_address(guarded, "192.0.2.200")  # in no allow list
    response = outsider.patch("/api/2.0/workspace-conf", json={"enableIpAccessLists": "true"})
    expect_error(response, 400, "INVALID_STATE")
    assert outsider.get("/api/2.0/workspace-conf?keys=enableIpAccessLists").json() == {
        "enableIpAccessLists": "false"}


def test_forwarded_for_is_ignored_unless_trusted(emulator, api: Api):
    # The session's emulator was not told to trust the header: a forged address changes
    # nothing, the connection's own address is judged.
    response = api.get("/api/2.0/ip-access-lists", headers={"X-Forwarded-For": "192.0.2.66"})
    assert response.status_code == 200


def test_permission_denied_is_the_sdk_error(guarded):
    admin = from_address(guarded, "203.0.113.10")
    admin.patch("/api/2.0/workspace-conf", json={"enableIpAccessLists": "true"})
    try:
        # The SDK's own connection comes from 127.0.0.1, outside the allow list.
        sdk = WorkspaceClient(host=guarded.base_url, token=fetch_token(guarded))
        with pytest.raises(PermissionDenied, match="blocked"):
            list(sdk.clusters.list())
    finally:
        admin.patch("/api/2.0/workspace-conf", json={"enableIpAccessLists": "false"})
