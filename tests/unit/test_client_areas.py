"""The client's areas as the kinds write through them: each operation's path, method and
body in each wire form, what it answers, and whether it is repeated after a lost answer.
(The reads of lookups and actions: test_client_reads.py; the jobs area: test_client_jobs.py.)"""

from __future__ import annotations

from typing import Any

import pytest
import responses
from responses import matchers

from providers.client.errors import TemporarilyUnavailable
from providers.identity.groups_api import GroupsApi
from providers.identity.service_principals_api import ServicePrincipalsApi
from providers.identity.users_api import UsersApi
from providers.jobs.job_permissions_api import job_permissions_api
from providers.secrets.secret_scopes_api import KeyVault, SecretScopesApi
from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.workspace.ip_access_lists_api import IpAccessListsApi
from providers.workspace.repos_api import ReposApi
from tests.unit.client_support import BASE_URL, body_is

SCIM = f"{BASE_URL}/api/2.0/preview/scim/v2/ServicePrincipals"
SCOPES = f"{BASE_URL}/api/2.0/secrets/scopes"
BUSY = {"error_code": "TEMPORARILY_UNAVAILABLE", "message": "busy"}
VAULT = KeyVault(
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg"
    "/providers/Microsoft.KeyVault/vaults/kv1",
    "https://kv1.vault.azure.net/",
)

pytestmark = pytest.mark.usefixtures("fresh_client_caches", "no_retry_sleep")


def calls_to(mocked: responses.RequestsMock, url: str) -> int:
    return len([c for c in mocked.calls if c.request.url == url])


# --- service principals --------------------------------------------------------------


def test_principal_create_posts_the_resource_once(service, client):
    resource = {"schemas": ["s"], "applicationId": "app-1", "active": True}
    service.post(SCIM, status=503, json=BUSY, match=body_is(resource))
    with pytest.raises(TemporarilyUnavailable):
        ServicePrincipalsApi(client).create(resource)
    assert calls_to(service, SCIM) == 1


def test_principal_create_answers_the_resource_made(service, client):
    service.post(SCIM, status=201, json={"id": "42", "applicationId": "app-1"})
    assert ServicePrincipalsApi(client).create({"applicationId": "app-1"})["id"] == "42"


def test_principal_get_names_it_by_the_workspace_id(service, client):
    service.get(f"{SCIM}/42", json={"id": "42"})
    assert ServicePrincipalsApi(client).get("42") == {"id": "42"}


def test_principal_patch_sends_scim_patch_operations(service, client):
    operation = {"op": "replace", "path": "displayName", "value": "by hand"}
    body = {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [operation]}
    service.patch(f"{SCIM}/42", json={"id": "42", "displayName": "by hand"}, match=body_is(body))
    assert ServicePrincipalsApi(client).patch("42", [operation])["displayName"] == "by hand"


def test_principal_replace_puts_the_resource_and_answers_it(service, client):
    service.put(f"{SCIM}/42", json={"id": "42", "active": False}, match=body_is({"active": False}))
    assert ServicePrincipalsApi(client).replace("42", {"active": False}) == {
        "id": "42",
        "active": False,
    }


def test_principal_replace_answered_empty_reads_the_resource_back(service, client):
    service.put(f"{SCIM}/42", status=204)
    service.get(f"{SCIM}/42", json={"id": "42", "active": True})
    assert ServicePrincipalsApi(client).replace("42", {"active": True})["active"] is True


def test_principal_delete_names_it_as_the_wire_form_does(service, client, wire_form):
    named = "app-1" if wire_form == "legacy" else "42"
    service.delete(f"{SCIM}/{named}", status=204)
    ServicePrincipalsApi(client).delete("42", application_id="app-1")


# --- secret scopes -------------------------------------------------------------------


def test_a_plain_scope_create_answers_the_scope_as_listed(service, client):
    service.post(f"{SCOPES}/create", json={}, match=body_is({"scope": "s"}))
    assert SecretScopesApi(client).create("s") == {"name": "s", "backend_type": "DATABRICKS"}


def test_a_plain_scope_may_grant_manage_to_all_users(service, client):
    body = {"scope": "s", "initial_manage_principal": "users"}
    service.post(f"{SCOPES}/create", json={}, match=body_is(body))
    SecretScopesApi(client).create("s", initial_manage_principal="users")


def test_a_keyvault_scope_create_spells_the_vault_as_the_wire_form_does(
    service, client, wire_form
):
    backend, field = (
        ("CLOUD_KEYVAULT", "backend_cloud_keyvault")
        if wire_form == "legacy"
        else ("AZURE_KEYVAULT", "backend_azure_keyvault")
    )
    vault = {"resource_id": VAULT.resource_id, "dns_name": VAULT.dns_name}
    body = {
        "scope": "s",
        "scope_backend_type": backend,
        field: vault,
        "initial_manage_principal": "users",
    }
    service.post(f"{SCOPES}/create", json={}, match=body_is(body))
    assert SecretScopesApi(client).create("s", keyvault=VAULT) == {
        "name": "s",
        "backend_type": backend,
        "keyvault_metadata": vault,
    }


def test_a_scope_create_is_not_repeated_after_a_lost_answer(service, client):
    service.post(f"{SCOPES}/create", status=503, json=BUSY)
    with pytest.raises(TemporarilyUnavailable):
        SecretScopesApi(client).create("s")
    assert calls_to(service, f"{SCOPES}/create") == 1


def test_a_scope_delete_is_repeated_after_a_lost_answer(service, client):
    service.post(f"{SCOPES}/delete", status=503, json=BUSY, match=body_is({"scope": "s"}))
    service.post(f"{SCOPES}/delete", json={}, match=body_is({"scope": "s"}))
    SecretScopesApi(client).delete("s")
    assert calls_to(service, f"{SCOPES}/delete") == 2


# --- job permissions -----------------------------------------------------------------


def test_job_permissions_read_add_and_replace(service, client):
    path = f"{BASE_URL}/api/2.0/permissions/jobs/7"
    entries = [{"group_name": "g", "permission_level": "CAN_VIEW"}]
    answer = {"object_id": "/jobs/7", "access_control_list": []}
    service.get(path, json=answer)
    service.patch(path, json=answer, match=body_is({"access_control_list": entries}))
    service.put(path, json=answer, match=body_is({"access_control_list": []}))
    assert job_permissions_api(client).get(7) == answer
    assert job_permissions_api(client).update(7, entries) == answer
    assert job_permissions_api(client).set(7, []) == answer


# --- repos ---------------------------------------------------------------------------


def test_a_checkout_uses_the_wire_forms_method(service, client, wire_form):
    method = "POST" if wire_form == "legacy" else "PATCH"
    path = f"{BASE_URL}/api/2.0/repos/3"
    service.add(method, path, status=200, body=b"", match=body_is({"branch": "dev"}))
    ReposApi(client).update_branch(3, "dev")


# --- catalogs ------------------------------------------------------------------------


def test_catalog_isolation(service, client):
    service.patch(
        f"{BASE_URL}/api/2.1/unity-catalog/catalogs/fin%20ance",
        json={"name": "fin ance", "isolation_mode": "OPEN"},
        match=body_is({"isolation_mode": "OPEN"}),
    )
    CatalogsApi(client).update_isolation("fin ance", "OPEN")


def test_bind_and_unbind_in_the_wire_forms_bodies(service, client, wire_form):
    path = f"{BASE_URL}/api/2.1/unity-catalog/bindings/catalog/finance"
    read_only = "BINDING_TYPE_READ_ONLY"
    bind: dict[str, Any]
    unbind: dict[str, Any]
    if wire_form == "legacy":
        bind = {"add": [{"workspace_id": "1", "binding_type": read_only}], "remove": []}
        unbind = {"unassign_workspaces": ["1", "2"]}
    else:
        bind = {"add": [{"workspace_id": 1, "binding_type": read_only}], "remove": []}
        unbind = {
            "remove": [
                {"workspace_id": 1, "binding_type": "BINDING_TYPE_READ_WRITE"},
                {"workspace_id": 2, "binding_type": "BINDING_TYPE_READ_WRITE"},
            ]
        }
    service.patch(path, json={"bindings": []}, match=body_is(bind))
    service.patch(path, json={"bindings": []}, match=body_is(unbind))
    CatalogsApi(client).bind("finance", [1], read_only)
    CatalogsApi(client).unbind("finance", [1, 2])


# --- groups, users, repos made and deleted, IP access lists ---------------------------

GROUPS = f"{BASE_URL}/api/2.0/preview/scim/v2/Groups"
USERS = f"{BASE_URL}/api/2.0/preview/scim/v2/Users"
REPOS = f"{BASE_URL}/api/2.0/repos"
LISTS = f"{BASE_URL}/api/2.0/ip-access-lists"
PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"


def test_group_create_adds_the_schema_and_is_not_repeated(service, client):
    body = {"schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"], "displayName": "t"}
    service.post(GROUPS, status=503, json=BUSY, match=body_is(body))
    with pytest.raises(TemporarilyUnavailable):
        GroupsApi(client).create({"displayName": "t"})
    assert calls_to(service, GROUPS) == 1


def test_members_change_by_patch_operations_naming_them(service, client):
    path = f"{GROUPS}/5"
    add = {"op": "add", "path": "members", "value": [{"value": "7"}]}
    remove = {"op": "remove", "path": 'members[value eq "7"]'}
    service.patch(path, status=204, match=body_is({"schemas": [PATCH_OP], "Operations": [add]}))
    service.patch(path, status=204, match=body_is({"schemas": [PATCH_OP], "Operations": [remove]}))
    GroupsApi(client).add_member("5", "7")
    GroupsApi(client).remove_member("5", "7")
    assert not [c for c in service.calls if c.request.method == "PUT"]


def test_names_are_exact_after_the_filter(service, client):
    group_filter = {"filter": 'displayName eq "Team \\"A\\""', "startIndex": "1", "count": "100"}
    service.get(
        GROUPS,
        match=[matchers.query_param_matcher(group_filter)],
        json={
            "totalResults": 2,
            "Resources": [
                {"id": "1", "displayName": 'Team "A"'},
                {"id": "2", "displayName": 'team "a"'},
            ],
        },
    )
    assert [g["id"] for g in GroupsApi(client).named('Team "A"')] == ["1"]
    service.get(
        USERS, json={"totalResults": 1, "Resources": [{"id": "9", "userName": "Bob@Example.com"}]}
    )
    assert [u["id"] for u in UsersApi(client).named("bob@example.com")] == ["9"]


def test_repo_create_update_delete(service, client, wire_form):
    made = {"id": 3, "path": "/Repos/a/b", "branch": "main"}
    service.post(
        REPOS,
        json=made,
        match=body_is(
            {
                "url": "https://x/y.git",
                "provider": "gitHub",
                "path": "/Repos/a/b",
                "sparse_checkout": {"patterns": ["jobs"]},
            }
        ),
    )
    assert ReposApi(client).create("https://x/y.git", "gitHub", "/Repos/a/b", ["jobs"]) == made
    method = "POST" if wire_form == "legacy" else "PATCH"
    service.add(
        method,
        f"{REPOS}/3",
        body=b"",
        match=body_is({"tag": "v1", "sparse_checkout": {"patterns": ["jobs", "lib"]}}),
    )
    ReposApi(client).update(3, tag="v1", sparse_checkout=["jobs", "lib"])
    service.delete(f"{REPOS}/3", json={})
    ReposApi(client).delete(3)


def test_repo_create_is_not_repeated(service, client):
    service.post(REPOS, status=503, json=BUSY)
    with pytest.raises(TemporarilyUnavailable):
        ReposApi(client).create("https://x/y.git", "gitHub", "/Repos/a/b")
    assert calls_to(service, REPOS) == 1


def test_ip_access_list_calls(service, client):
    made = {"list_id": "l-1", "label": "o", "list_type": "ALLOW", "ip_addresses": ["10.0.0.1"]}
    service.post(
        LISTS,
        json={"ip_access_list": made},
        match=body_is({"label": "o", "list_type": "ALLOW", "ip_addresses": ["10.0.0.1"]}),
    )
    assert IpAccessListsApi(client).create("o", "ALLOW", ["10.0.0.1"]) == made
    service.get(f"{LISTS}/l-1", json={"ip_access_list": made})
    assert IpAccessListsApi(client).get("l-1") == made
    service.patch(f"{LISTS}/l-1", json={}, match=body_is({"enabled": False}))
    IpAccessListsApi(client).update("l-1", {"enabled": False})
    service.delete(f"{LISTS}/l-1", json={})
    IpAccessListsApi(client).delete("l-1")


def test_ip_access_list_create_is_not_repeated(service, client):
    service.post(LISTS, status=503, json=BUSY)
    with pytest.raises(TemporarilyUnavailable):
        IpAccessListsApi(client).create("o", "BLOCK", [])
    assert calls_to(service, LISTS) == 1
