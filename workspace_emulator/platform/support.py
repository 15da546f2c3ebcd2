"""How faithfully the platform serves each operation, and what it does not serve.

One entry per operation, keyed `"<METHOD> <path>"` with the path as the route declares it
minus its `/api/<version>` prefix (an operation served under several API versions is one
entry). `python -m tools.emulator_support` renders this into workspace_emulator/README.md, and
tests/emulator/test_support_list.py fails when a route has no entry, an entry has no
route, or the README is stale.

Levels:
- stateful: validated as the service validates (refusals in its status and body), and the
  change is stored: every later read, through any version or wire form, shows it.
- validated: checked and answered in the service's shape, nothing stored or changed
  (fixed answers, e.g. the permission levels a job offers).
- simulated: the service's effect is played out, not performed: no cluster computes, no
  run executes; states move over the transition time (or the manual clock) and outcomes
  follow documented triggers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["stateful", "validated", "simulated"]
LEVELS: tuple[Level, ...] = ("stateful", "validated", "simulated")


@dataclass(frozen=True)
class Fidelity:
    level: Level
    note: str


def _s(note: str) -> Fidelity:
    return Fidelity("stateful", note)


def _v(note: str) -> Fidelity:
    return Fidelity("validated", note)


def _sim(note: str) -> Fidelity:
    return Fidelity("simulated", note)


SUPPORT: dict[str, Fidelity] = {
    # clusters
    "GET /clusters/list": _sim("states settled on read; pinned clusters kept listed; "
                               "filter_by states, sources, policy_id, is_pinned"),
    "POST /clusters/create": _sim("spec validated; PENDING -> RUNNING over the transition time"),
    "POST /clusters/edit": _sim("replaces the spec; a running cluster RESTARTING -> RUNNING"),
    "POST /clusters/resize": _sim("a RUNNING cluster: RESIZING -> RUNNING"),
    "POST /clusters/restart": _sim("RUNNING -> RESTARTING -> RUNNING"),
    "POST /clusters/permanent-delete": _s("the cluster is gone from every read"),
    "POST /clusters/pin": _s(""),
    "POST /clusters/unpin": _s(""),
    "POST /clusters/events": _sim("the cluster's state changes, paged"),
    "GET /clusters/list-node-types": _v("a fixed catalogue of node types"),
    "GET /clusters/spark-versions": _v("a fixed catalogue of runtime versions"),
    "POST /libraries/install": _sim("INSTALLED while the cluster runs, PENDING otherwise"),
    "POST /libraries/uninstall": _s("removed from the cluster's libraries"),
    "GET /libraries/cluster-status": _sim("INSTALLED or PENDING; no INSTALLING/FAILED"),
    "GET /libraries/all-cluster-statuses": _sim("each cluster with libraries, as cluster-status"),
    # cluster policies
    "POST /policies/clusters/create": _s("definition JSON validated; names unique"),
    "POST /policies/clusters/edit": _s("replaces the policy"),
    "POST /policies/clusters/delete": _s(""),
    "GET /policies/clusters/get": _s(""),
    "GET /policies/clusters/list": _s(""),
    "GET /policy-families": _v("a fixed set of policy families"),
    "GET /policy-families/{policy_family_id}": _v(""),
    # workspace objects
    "GET /workspace/get-status": _s("REPO (with its id) or DIRECTORY; /Workspace prefix"),
    "GET /clusters/get": _sim("state computed from stored timestamps"),
    "POST /clusters/start": _sim("TERMINATED -> PENDING -> RUNNING over the transition time; "
                                 "other states 400 INVALID_STATE"),
    "POST /clusters/stop": _sim("-> TERMINATING -> TERMINATED; a terminated cluster unchanged"),
    "POST /clusters/delete": _sim("as stop (public form); the cluster stays listed"),
    # jobs
    "POST /jobs/create": _s("settings validated (task graph, clusters, run_as); 2.2 adds queue"),
    "GET /jobs/get": _s("the form each version shows; 2.2 pages arrays by 100"),
    "GET /jobs/list": _s("newest first; limit/offset/page_token, name, expand_tasks"),
    "POST /jobs/reset": _s("replaces all settings"),
    "POST /jobs/update": _s("merges tasks/job_clusters by key; fields_to_remove"),
    "POST /jobs/delete": _s("CAN_MANAGE needed"),
    "POST /jobs/run-now": _sim("idempotency_token honoured; '--fail' makes a task fail"),
    "GET /jobs/runs/get": _sim("PENDING -> RUNNING -> TERMINATED, tasks level by level"),
    "GET /jobs/runs/list": _sim("active_only/completed_only, newest first, paged"),
    "POST /jobs/runs/cancel": _sim("ends the run and its tasks CANCELED"),
    "POST /jobs/runs/cancel-all": _sim("every active run of a job, or all queued"),
    # job permissions
    "GET /permissions/jobs/{job_id}": _s("owner, admins (inherited) and direct grants"),
    "PUT /permissions/jobs/{job_id}": _s("replaces the direct grants; principals must exist"),
    "PATCH /permissions/jobs/{job_id}": _s("adds or changes grants"),
    "GET /permissions/jobs/{job_id}/permissionLevels": _v("the fixed job permission levels"),
    # permissions of every other object type
    "GET /permissions/{object_type}/{object_id}": _s("14 object types; owner and grants"),
    "PUT /permissions/{object_type}/{object_id}": _s("replaces the grants; owner rules, "
                                                     "levels per type, CAN_MANAGE needed"),
    "PATCH /permissions/{object_type}/{object_id}": _s("adds or changes grants"),
    "GET /permissions/{object_type}/{object_id}/permissionLevels": _v("the type's levels"),
    # SCIM
    "GET /preview/scim/v2/Me": _s("the calling service principal"),
    "GET /preview/scim/v2/Users": _s("initial-data users; filter, paging"),
    "GET /preview/scim/v2/Users/{user_id}": _s("read only"),
    "GET /preview/scim/v2/Groups": _s("groups with their members; filter, paging"),
    "GET /preview/scim/v2/Groups/{group_id}": _s(""),
    "POST /preview/scim/v2/Groups": _s("unique display name; members must exist"),
    "PUT /preview/scim/v2/Groups/{group_id}": _s("replaces the group; admins/users kept"),
    "PATCH /preview/scim/v2/Groups/{group_id}": _s("add/remove touch only the members named; "
                                                   "no cycles"),
    "DELETE /preview/scim/v2/Groups/{group_id}": _s("admins and users refused"),
    "GET /preview/scim/v2/ServicePrincipals": _s("filter, startIndex/count paging"),
    "POST /preview/scim/v2/ServicePrincipals": _s("application id registered and unique"),
    "GET /preview/scim/v2/ServicePrincipals/{principal_id}": _s(""),
    "PUT /preview/scim/v2/ServicePrincipals/{principal_id}": _s("replaces the principal"),
    "PATCH /preview/scim/v2/ServicePrincipals/{principal_id}": _s("add/remove/replace ops"),
    "DELETE /preview/scim/v2/ServicePrincipals/{principal_id}": _s("its tokens stop working"),
    # secret scopes
    "POST /secrets/scopes/create": _s("workspace-backed and key-vault-backed scopes"),
    "POST /secrets/scopes/delete": _s(""),
    "GET /secrets/scopes/list": _s(""),
    "POST /secrets/put": _s("string or bytes; WRITE needed; values never logged"),
    "GET /secrets/list": _s("keys and timestamps only; READ needed"),
    "GET /secrets/get": _s("the value, base64; READ needed"),
    "POST /secrets/delete": _s("WRITE needed"),
    "POST /secrets/acls/put": _s("READ, WRITE or MANAGE; MANAGE needed"),
    "GET /secrets/acls/get": _s(""),
    "GET /secrets/acls/list": _s("MANAGE needed"),
    "POST /secrets/acls/delete": _s(""),
    # repos
    "GET /repos": _s("initial-data repos; path_prefix"),
    "GET /repos/{repo_id}": _s(""),
    "POST /repos": _s("clones known remotes only; /Repos/<folder>/<name>; path unique; "
                       "no path: the caller's folder"),
    "DELETE /repos/{repo_id}": _s(""),
    "PATCH /repos/{repo_id}": _s("branch or tag checkout among the remote's refs"),
    "POST /repos/{repo_id}": _s("the same checkout, seed form"),
    # IP access lists
    "GET /ip-access-lists": _s("initial-data lists"),
    "GET /ip-access-lists/{list_id}": _s(""),
    "POST /ip-access-lists": _s("addresses validated; a list blocking the caller refused"),
    "PATCH /ip-access-lists/{list_id}": _s("as create"),
    "PUT /ip-access-lists/{list_id}": _s("replaces the list; as create"),
    "DELETE /ip-access-lists/{list_id}": _s(""),
    "GET /workspace-conf": _s("enableIpAccessLists only"),
    "PATCH /workspace-conf": _s("enableIpAccessLists only; enforced on every call"),
    # Unity Catalog
    "GET /unity-catalog/catalogs": _s("initial-data catalogs"),
    "GET /unity-catalog/catalogs/{name}": _s(""),
    "PATCH /unity-catalog/catalogs/{name}": _s("isolation_mode, owner, comment"),
    "GET /unity-catalog/bindings/{securable_type}/{name}": _s("catalog bindings"),
    "PATCH /unity-catalog/bindings/{securable_type}/{name}": _s("add/remove bindings; "
                                                                "known workspaces only"),
    "GET /unity-catalog/workspace-bindings/catalogs/{name}": _s("legacy bindings API"),
    "PATCH /unity-catalog/workspace-bindings/catalogs/{name}": _s("assign/unassign_workspaces"),
    # discovery
    "GET /.well-known/databricks-config": _v("unauthenticated; the SDK probes it on start"),
    # signing in (workspace_emulator/README.md#signing-in)
    "GET /oidc/.well-known/oauth-authorization-server": _v(
        "unauthenticated; issuer, token and authorization endpoints"),
    "POST /oidc/v1/token": _s("client_credentials with an OAuth secret (Basic or form), or "
                              "token exchange of a federated ID token; scope all-apis"),
    "POST /accounts/servicePrincipals/{service_principal_id}/credentials/secrets": _s(
        "admins; the principal's workspace id; lifetime \"<n>s\" up to 730 days; the value "
        "shown once, stored hashed"),
    "GET /accounts/servicePrincipals/{service_principal_id}/credentials/secrets": _s(
        "admins; ACTIVE or EXPIRED, no values; one page"),
    "DELETE /accounts/servicePrincipals/{service_principal_id}/credentials/secrets/{secret_id}":
        _s("the secret stops signing in"),
    "POST /token/create": _s("a personal access token of the caller; lifetime_seconds, comment; "
                             "the value shown once, stored hashed"),
    "GET /token/list": _s("the caller's unexpired tokens"),
    "POST /token/delete": _s("the token is refused from the next call"),
}

# Operations of the service that clients use and the emulator answers 404
# ENDPOINT_NOT_FOUND: "<METHOD> <path>" with the path minus its /api/<version> prefix,
# grouped by area. A test fails when one of them becomes served: move it to SUPPORT.
NOT_SERVED: dict[str, tuple[str, ...]] = {
    "Instance pools": ("GET /instance-pools/list",),
    "Jobs": ("POST /jobs/runs/submit", "POST /jobs/runs/delete", "GET /jobs/runs/export",
             "GET /jobs/runs/get-output", "POST /jobs/runs/repair"),
    "SCIM writes of users": ("POST /preview/scim/v2/Users",),
    "Workspace objects": ("GET /workspace/list",
                          "POST /workspace/import", "GET /workspace/export"),
    "Unity Catalog beyond catalogs": ("POST /unity-catalog/catalogs",
                                      "GET /unity-catalog/schemas",
                                      "GET /unity-catalog/tables"),
    "Other areas": ("GET /dbfs/list", "GET /sql/warehouses", "GET /pipelines"),
}
