"""What the emulator holds, read over its API, and the check that a deployment converged:
exactly the desired objects, no duplicate, no orphan, no lost permission entry.

Every registered kind's objects are read by its own inventory (`Kind.inventory`, what the
audit lists), and a kind whose stack-config items are told apart by one identity field that
its inventory names them by is judged by that alone: each declared one once, none made
besides. A new kind of that shape needs nothing here; the kinds checked more closely
(jobs and clusters by deployment tag, principals, secrets, members, permission entries,
Unity Catalog schemas and volumes by full name, their grants, notebooks and files by path,
the workspace settings) have their own checks below."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import requests
from pydantic import SecretStr

from providers.client import Connection, WireForm, client_for
from providers.core.kind import Kind
from providers.core.registry import kinds
from providers.unity_catalog.uc_names import DEFAULT_SCHEMA, INFORMATION_SCHEMA
from providers.workspace.workspace_conf import SETTINGS
from workspace_emulator.testing import EmulatorInfo, fetch_token

PAGE = 100
DEPLOYMENT_TAG = "pulumi-deployment"


@dataclass(frozen=True)
class Inventory:
    jobs: list[dict[str, Any]]             # {job_id, name, tag}
    principals: list[dict[str, Any]]       # {id, application_id}
    scopes: list[str]
    job_acls: dict[int, list[dict[str, Any]]]
    repo_branches: dict[str, str]          # path -> branch
    catalog_bindings: dict[str, list[str]]  # catalog -> workspace ids
    groups: list[str] = field(default_factory=list)           # display names
    group_members: dict[str, list[str]] = field(default_factory=dict)  # name -> member ids
    secrets: dict[str, list[str]] = field(default_factory=dict)  # scope -> keys
    secret_acls: dict[str, dict[str, str]] = field(default_factory=dict)  # scope -> {who: level}
    clusters: list[dict[str, Any]] = field(default_factory=list)  # {cluster_id, name, tag}
    cluster_acls: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # id -> ACL
    users: dict[str, str] = field(default_factory=dict)  # user name -> id
    group_names: dict[str, str] = field(default_factory=dict)  # group id -> display name
    # Every registered kind's objects as its inventory lists them: kind -> [(id, name)].
    objects: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # "<securable type>/<full name>" -> {principal: privileges}, for every catalog, storage
    # credential and external location (the securables the local stack grants on).
    uc_grants: dict[str, dict[str, frozenset[str]]] = field(default_factory=dict)
    workspace_tree: dict[str, str] = field(default_factory=dict)  # path -> object type
    workspace_conf: dict[str, str | None] = field(default_factory=dict)  # managed keys


@dataclass
class Verdict:
    problems: list[str] = field(default_factory=list)
    duplicates: int = 0
    orphans: int = 0
    lost_permissions: int = 0
    missing: int = 0  # declared objects the workspace lacks (lost ones)

    @property
    def converged(self) -> bool:
        return not self.problems


class _Api:
    def __init__(self, info: EmulatorInfo) -> None:
        self.info = info
        self.headers = {"Authorization": f"Bearer {fetch_token(info)}"}

    def get_if_found(self, path: str, /, **params: Any) -> Any:
        """The answer, or None where the object is not there (404)."""
        try:
            return self.get(path, **params)
        except requests.HTTPError as error:
            if error.response is not None and error.response.status_code == 404:
                return None
            raise

    def get(self, path: str, /, **params: Any) -> Any:
        response = requests.get(self.info.base_url + path, headers=self.headers,
                                params=params, timeout=30)
        if response.status_code == 401:  # short token lifetimes in some drills
            self.headers = {"Authorization": f"Bearer {fetch_token(self.info)}"}
            response = requests.get(self.info.base_url + path, headers=self.headers,
                                    params=params, timeout=30)
        response.raise_for_status()
        return response.json()


def take(info: EmulatorInfo, catalogs: tuple[str, ...] = ()) -> Inventory:
    """The emulator's objects. Read with faults off (the admin API bypasses faults, the
    platform API does not: switch faults off first)."""
    api = _Api(info)
    jobs: list[dict[str, Any]] = []
    offset = 0
    while True:
        page = api.get("/api/2.0/jobs/list", limit=PAGE, offset=offset)
        for job in page.get("jobs", []):
            settings = job.get("settings", {})
            jobs.append({"job_id": job["job_id"], "name": settings.get("name"),
                         "tag": (settings.get("tags") or {}).get(DEPLOYMENT_TAG)})
        if not page.get("has_more"):
            break
        offset += PAGE
    principals = [
        {"id": p["id"], "application_id": p.get("applicationId")}
        for p in api.get("/api/2.0/preview/scim/v2/ServicePrincipals").get("Resources", [])
    ]
    scopes = [s["name"] for s in api.get("/api/2.0/secrets/scopes/list").get("scopes", [])]
    acls = {
        job["job_id"]: api.get(f"/api/2.0/permissions/jobs/{job['job_id']}").get(
            "access_control_list", [])
        for job in jobs if job["tag"]
    }
    repos = {r["path"]: r.get("branch") for r in api.get("/api/2.0/repos").get("repos", [])}
    bindings = {
        name: sorted(str(b["workspace_id"]) for b in api.get(
            f"/api/2.1/unity-catalog/bindings/catalog/{name}").get("bindings", []))
        for name in catalogs
    }
    groups = api.get("/api/2.0/preview/scim/v2/Groups").get("Resources", [])
    members = {g["displayName"]: sorted(m["value"] for m in g.get("members") or [])
               for g in groups}
    secrets = {scope: [item["key"] for item in (listed or {}).get("secrets", [])]
               for scope in scopes
               if (listed := api.get_if_found("/api/2.0/secrets/list", scope=scope))}
    secret_acls = {scope: {item["principal"]: item["permission"]
                           for item in (listed or {}).get("items", [])}
                   for scope in scopes
                   if (listed := api.get_if_found("/api/2.0/secrets/acls/list", scope=scope))}
    clusters = [{"cluster_id": c["cluster_id"], "name": c.get("cluster_name"),
                 "tag": (c.get("custom_tags") or {}).get(DEPLOYMENT_TAG)}
                for c in api.get("/api/2.0/clusters/list").get("clusters", [])]
    cluster_acls = {
        c["cluster_id"]: api.get(f"/api/2.0/permissions/clusters/{c['cluster_id']}").get(
            "access_control_list", [])
        for c in clusters
    }
    users = {u["userName"]: u["id"]
             for u in api.get("/api/2.0/preview/scim/v2/Users").get("Resources", [])}
    return Inventory(jobs, principals, scopes, acls, repos, bindings,
                     [g["displayName"] for g in groups], members, secrets, secret_acls,
                     clusters, cluster_acls, users, {g["id"]: g["displayName"] for g in groups},
                     registered_objects(info), uc_grants(api), workspace_tree(api),
                     api.get("/api/2.0/workspace-conf", keys=",".join(SETTINGS)))


# The securables whose grants the inventory reads: list path, answer key.
GRANTED_SECURABLES = {
    "catalog": ("catalogs", "catalogs"),
    "storage_credential": ("storage-credentials", "storage_credentials"),
    "external_location": ("external-locations", "external_locations"),
}


def uc_grants(api: _Api) -> dict[str, dict[str, frozenset[str]]]:
    found = {}
    for securable_type, (path, key) in GRANTED_SECURABLES.items():
        for item in api.get(f"/api/2.1/unity-catalog/{path}").get(key) or []:
            where = f"{securable_type}/{item['name']}"
            granted = api.get(f"/api/2.1/unity-catalog/permissions/{where}")
            found[where] = {entry["principal"]: frozenset(entry.get("privileges") or [])
                            for entry in granted.get("privilege_assignments") or []
                            if entry.get("privileges")}
    return found


def workspace_tree(api: _Api, path: str = "/") -> dict[str, str]:
    """Every folder, notebook and file of the workspace tree by path (repos not entered)."""
    found = {}
    for item in api.get("/api/2.0/workspace/list", path=path).get("objects") or []:
        found[item["path"]] = item["object_type"]
        if item["object_type"] == "DIRECTORY":
            found.update(workspace_tree(api, item["path"]))
    return found


def registered_objects(info: EmulatorInfo) -> dict[str, list[tuple[str, str]]]:
    """Every object of every registered kind that has an inventory, read by that inventory
    through the providers' client, as the audit reads them."""
    client = client_for(Connection(
        base_url=info.base_url, auth_url=info.auth_url, tenant_id=info.tenant_id,
        client_id=info.client_id, client_secret=SecretStr(info.client_secret),
        resource=info.resource, wire_form=WireForm.PUBLIC, allow_insecure_http=True,
        rate_limit_per_second=0,
    ))
    return {kind.name: sorted(kind.inventory(client)) for kind in kinds() if kind.inventory}


# Kinds of one identity field whose inventory names their objects by something else, or
# lists objects the stack makes without declaring them.
NAMED_OTHERWISE = {
    "ServicePrincipal": "listed by display name; judged by application id",
    "Directory": "a notebook's or file's upload makes its parent folders, which stay after "
                 "it; judged by path in the tree, declared folders only",
}


def judged_by_identity() -> list[Kind]:
    """The kinds judged by their one identity field alone (see the module's docstring)."""
    return [kind for kind in kinds()
            if kind.inventory and kind.config_key and len(kind.identity) == 1
            and kind.name not in NAMED_OTHERWISE]


def direct_grants(acl: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """(group, level) pairs set directly on the object (inherited ones left out)."""
    grants = set()
    for entry in acl:
        group = entry.get("group_name")
        for permission in entry.get("all_permissions", []):
            if group and not permission.get("inherited"):
                grants.add((group, permission["permission_level"]))
        if group and "permission_level" in entry:
            grants.add((group, entry["permission_level"]))
    return grants


def judge(before: Inventory, after: Inventory, objects: dict[str, Any],
          stack_tag_prefix: str) -> Verdict:
    """Whether `after` is `before` plus exactly the declared `objects` (local-stack shape)."""
    verdict = Verdict()

    def problem(kind: str, text: str) -> None:
        verdict.problems.append(text)
        if kind == "duplicate":
            verdict.duplicates += 1
        elif kind == "orphan":
            verdict.orphans += 1
        elif kind == "permission":
            verdict.lost_permissions += 1
        elif kind == "missing":
            verdict.missing += 1

    old_jobs = {j["job_id"] for j in before.jobs}
    new_jobs = [j for j in after.jobs if j["job_id"] not in old_jobs]
    declared_jobs = {j["name"] for j in objects.get("jobs", [])}
    tags = Counter(j["tag"] for j in new_jobs)
    for job in new_jobs:
        name = (job["tag"] or "").removeprefix(stack_tag_prefix)
        if not job["tag"] or not job["tag"].startswith(stack_tag_prefix) \
                or name not in declared_jobs:
            problem("orphan", f"job {job['job_id']} ({job['name']}) is not declared")
    for name in declared_jobs:
        count = tags[stack_tag_prefix + name]
        if count == 0:
            problem("missing", f"job {name} is missing")
        elif count > 1:
            problem("duplicate", f"job {name} exists {count} times")

    old_principals = {p["id"] for p in before.principals}
    new_principals = Counter(p["application_id"] for p in after.principals
                             if p["id"] not in old_principals)
    for item in objects.get("servicePrincipals", []):
        count = Counter(p["application_id"] for p in after.principals)[item["application_id"]]
        if count == 0:
            problem("missing", f"service principal {item['application_id']} is missing")
        elif count > 1:
            problem("duplicate", f"service principal {item['application_id']} exists "
                                 f"{count} times")
    declared_apps = {p["application_id"] for p in objects.get("servicePrincipals", [])}
    for app_id in set(new_principals) - declared_apps:
        problem("orphan", f"service principal {app_id} is not declared")

    jobs_by_name = {(j["tag"] or "").removeprefix(stack_tag_prefix): j["job_id"]
                    for j in new_jobs if j["tag"]}
    for item in objects.get("jobPermissions", []):
        job_id = jobs_by_name.get(item.get("job"))
        if job_id is None:
            continue
        granted = direct_grants(after.job_acls.get(job_id, []))
        for entry in item["access_controls"]:
            if (entry["group_name"], entry["permission_level"]) not in granted:
                problem("permission", f"job {item['job']} lost {entry['group_name']} "
                                      f"{entry['permission_level']}")

    for item in objects.get("repoBranches", []):
        branch = after.repo_branches.get(item["repo_path"])
        if branch != item["branch"]:
            problem("missing", f"repo {item['repo_path']} is on {branch}, not {item['branch']}")

    for item in objects.get("catalogBindings", []):
        bound = set(after.catalog_bindings.get(item["catalog_name"], []))
        for binding in item.get("bindings", []):
            if str(binding["workspace_id"]) not in bound:
                problem("missing", f"catalog {item['catalog_name']} is not bound to "
                                   f"{binding['workspace_id']}")

    for kind in judged_by_identity():
        _judge_by_identity(kind, before, after, objects.get(kind.config_key or "", []), problem)
    # A new catalog comes with its own schemas, declared or not.
    with_catalogs = {f"{catalog['name']}.{schema}" for catalog in objects.get("catalogs", [])
                     for schema in (DEFAULT_SCHEMA, INFORMATION_SCHEMA)}
    for kind_name, (container, depth) in UC_FULL_NAMES.items():
        key = kind_config_key(kind_name)
        _judge_names(kind_name, before, after,
                     {uc_full_name(item, container, depth) for item in objects.get(key, [])},
                     with_catalogs, problem)
    _judge_workspace_tree(before, after, objects, problem)
    _judge_uc_grants(before, after, objects, problem)
    _judge_workspace_conf(before, after, objects, problem)
    _judge_group_members(before, after, objects, problem)
    _judge_clusters(before, after, {c["name"] for c in objects.get("clusters", [])},
                    stack_tag_prefix, problem)
    _judge_secrets(before, after, objects, problem)
    _judge_object_permissions(before, after, objects, problem)
    return verdict


Problem = Callable[[str, str], None]


def _judge_by_identity(kind: Kind, before: Inventory, after: Inventory,
                       items: list[dict[str, Any]], problem: Problem) -> None:
    """Each declared item's object once (by its identity field, the name its kind's
    inventory gives), none made besides."""
    [field_name] = kind.identity
    what = kind.audit_key.replace("_", " ")
    declared = {item[field_name] for item in items if field_name in item}
    old = {name for _, name in before.objects.get(kind.name, [])}
    new = [name for _, name in after.objects.get(kind.name, [])]
    counts = Counter(new)
    for name in declared:
        if counts[name] != 1:
            problem("duplicate" if counts[name] > 1 else "missing",
                    f"{what} {name} exists {counts[name]} times")
    for name in set(new) - old - declared:
        problem("orphan", f"{what} {name} is not declared")


# Unity Catalog kinds without one identity field, named by their full name: the reference
# to their container and how many parts a full name has.
UC_FULL_NAMES = {"Schema": ("catalog", 2), "Volume": ("schema", 3)}


def kind_config_key(kind_name: str) -> str:
    return next(kind.config_key or "" for kind in kinds() if kind.name == kind_name)


def uc_full_name(item: dict[str, Any], container: str, depth: int) -> str:
    """An item's full name: its `name` where whole, else after its container's."""
    name = str(item["name"])
    if name.count(".") == depth - 1:
        return name
    return f"{item.get(f'{container}_name') or item[container]}.{name}"


def _judge_names(kind_name: str, before: Inventory, after: Inventory, declared: set[str],
                 made_with_others: set[str], problem: Problem) -> None:
    """Each declared name once in the kind's inventory, none new besides (but those made
    with another declared object)."""
    what = kind_name.lower()
    old = {name for _, name in before.objects.get(kind_name, [])}
    counts = Counter(name for _, name in after.objects.get(kind_name, []))
    for name in declared:
        if counts[name] != 1:
            problem("duplicate" if counts[name] > 1 else "missing",
                    f"{what} {name} exists {counts[name]} times")
    for name in set(counts) - old - declared - made_with_others:
        problem("orphan", f"{what} {name} is not declared")


# Workspace-object kinds judged by path in the tree (where their kind has no inventory to
# judge them by identity): config key -> object type.
TREE_KINDS = {"notebooks": "NOTEBOOK", "workspaceFiles": "FILE", "directories": "DIRECTORY"}


def tree_judged() -> dict[str, str]:
    judged = {kind.config_key for kind in judged_by_identity()}
    return {key: object_type for key, object_type in TREE_KINDS.items() if key not in judged}


def _judge_workspace_tree(before: Inventory, after: Inventory, objects: dict[str, Any],
                          problem: Problem) -> None:
    """Each declared notebook, file and folder at its path, as that type; no notebook or
    file new besides (a folder may be: a notebook's parent folders are made for it)."""
    for key, object_type in tree_judged().items():
        what = object_type.lower()
        declared = {"/" + item["path"].removeprefix("/Workspace").lstrip("/")
                    for item in objects.get(key, [])}
        for path in sorted(declared):
            if after.workspace_tree.get(path) != object_type:
                problem("missing", f"{what} {path} exists 0 times")
        for path, found in sorted(after.workspace_tree.items()):
            if found == object_type != "DIRECTORY" and path not in before.workspace_tree \
                    and path not in declared:
                problem("orphan", f"{what} {path} is not declared")


def _judge_uc_grants(before: Inventory, after: Inventory, objects: dict[str, Any],
                     problem: Problem) -> None:
    """Every read securable's grants as expected: those it had before (none for a new one),
    each declared Grants' securable exactly as declared, each declared Grant's principal
    with exactly its privileges. A privilege missing is lost, one besides undeclared."""
    expected = {where: dict(held) for where, held in before.uc_grants.items()}
    for item in objects.get("grants", []):
        expected[f"{item['securable_type']}/{item['full_name']}"] = {
            entry["principal"]: frozenset(entry["privileges"])
            for entry in item["privilege_assignments"]}
    for item in objects.get("principalGrants", []):
        expected.setdefault(f"{item['securable_type']}/{item['full_name']}", {})[
            item["principal"]] = frozenset(item["privileges"])
    for where in sorted(set(expected) | set(after.uc_grants)):
        if where not in after.uc_grants:
            if where not in before.uc_grants and any(expected[where].values()):
                problem("missing", f"{where} is missing (grants declared on it)")
            continue
        wanted, held = expected.get(where, {}), after.uc_grants[where]
        for principal in sorted(set(wanted) | set(held)):
            lost = wanted.get(principal, frozenset()) - held.get(principal, frozenset())
            extra = held.get(principal, frozenset()) - wanted.get(principal, frozenset())
            if lost:
                problem("permission", f"{where} lost {principal} {', '.join(sorted(lost))}")
            if extra:
                problem("orphan", f"{where}: {principal} {', '.join(sorted(extra))} is not "
                                  "declared")


def _judge_workspace_conf(before: Inventory, after: Inventory, objects: dict[str, Any],
                          problem: Problem) -> None:
    """The declared settings hold their values; every other one its value from before."""
    declared = {key: value for item in objects.get("workspaceConf", [])
                for key, value in item["settings"].items()}
    for key in SETTINGS:
        wanted = declared.get(key, before.workspace_conf.get(key))
        shown = after.workspace_conf.get(key)
        if (shown or None) != (wanted or None):
            problem("missing" if key in declared else "orphan",
                    f"workspace setting {key} is {shown!r}, not {wanted!r}")


def _judge_clusters(before: Inventory, after: Inventory, declared: set[str],
                    stack_tag_prefix: str, problem: Problem) -> None:
    """Clusters, known by their deployment tag: each declared one once, none new besides."""
    what = "cluster"
    old = {o["cluster_id"] for o in before.clusters}
    new = [o for o in after.clusters if o["cluster_id"] not in old]
    tags = Counter(o["tag"] for o in new)
    for item in new:
        tag = item["tag"] or ""
        if not tag.startswith(stack_tag_prefix) or tag.removeprefix(stack_tag_prefix) \
                not in declared:
            problem("orphan", f"{what} {item['cluster_id']} ({item['name']}) is not declared")
    for name in declared:
        count = tags[stack_tag_prefix + name]
        if count != 1:
            problem("duplicate" if count > 1 else "missing", f"{what} {name} exists {count} times")


def _judge_group_members(before: Inventory, after: Inventory, objects: dict[str, Any],
                         problem: Problem) -> None:
    """Each declared user in its group; no member put in a group besides (a service
    principal's declared `groups` count as declared members)."""
    group_names = {g["name"]: g["display_name"] for g in objects.get("groups", [])}
    declared: dict[str, set[str]] = {}
    principal_ids = {p["application_id"]: p["id"] for p in after.principals}
    for principal in objects.get("servicePrincipals", []):
        for group_id in principal.get("groups", []):
            group = after.group_names.get(group_id, group_id)
            declared.setdefault(group, set()).add(principal_ids.get(
                principal["application_id"], ""))
    for item in objects.get("groupMembers", []):
        group = group_names.get(item["group"], item["group"])
        user_id = after.users.get(item["user"], item["user"])
        declared.setdefault(group, set()).add(user_id)
        if user_id not in after.group_members.get(group, []):
            problem("missing", f"{item['user']} is not in group {group} ({item['name']})")
    for group, members in after.group_members.items():
        added = set(members) - set(before.group_members.get(group, [])) - \
            declared.get(group, set())
        for member in sorted(added):
            problem("orphan", f"member {member} of group {group} is not declared")


def _judge_secrets(before: Inventory, after: Inventory, objects: dict[str, Any],
                   problem: Problem) -> None:
    """Each declared secret and ACL there; no secret or non-MANAGE ACL besides (a scope's
    MANAGE entries come with the scope, for its creator or initial manager)."""
    declared_keys: dict[str, set[str]] = {}
    for item in objects.get("secrets", []):
        declared_keys.setdefault(item["secret_scope"], set()).add(item["key"])
        if item["key"] not in after.secrets.get(item["secret_scope"], []):
            problem("missing", f"secret {item['secret_scope']}/{item['key']} is missing")
    for scope, keys in after.secrets.items():
        for key in set(keys) - set(before.secrets.get(scope, [])) - \
                declared_keys.get(scope, set()):
            problem("orphan", f"secret {scope}/{key} is not declared")
    declared_acls: dict[str, dict[str, str]] = {}
    for item in objects.get("secretAcls", []):
        scope, who = item["secret_scope"], item["principal"]
        declared_acls.setdefault(scope, {})[who] = item["permission"]
        shown = after.secret_acls.get(scope, {}).get(who)
        if shown != item["permission"]:
            problem("permission", f"secret scope {scope} lost {who} {item['permission']} "
                                  f"(has {shown})")
    for scope, acl in after.secret_acls.items():
        old = before.secret_acls.get(scope, {})
        for who, level in acl.items():
            if level != "MANAGE" and old.get(who) != level \
                    and declared_acls.get(scope, {}).get(who) != level:
                problem("orphan", f"secret scope {scope}: ACL {who} {level} is not declared")


def _judge_object_permissions(before: Inventory, after: Inventory, objects: dict[str, Any],
                              problem: Problem) -> None:
    """Declared grants on existing clusters present; no grant on them besides."""
    declared: dict[str, set[tuple[str, str]]] = {}
    for item in objects.get("permissions", []):
        if item.get("object_type") != "clusters":
            # Another object, by id or by path, or token usage: the inventory reads clusters'
            # grants only; the step's second up (no changes) holds the rest to the stack.
            continue
        where = f"clusters/{item['object_id']}"
        grants = {(e["group_name"], e["permission_level"]) for e in item["access_controls"]}
        declared[item["object_id"]] = grants
        for group, level in sorted(grants - direct_grants(after.cluster_acls.get(
                item["object_id"], []))):
            problem("permission", f"{where} lost {group} {level}")
    for cluster_id, acl in before.cluster_acls.items():
        added = direct_grants(after.cluster_acls.get(cluster_id, [])) - direct_grants(acl) - \
            declared.get(cluster_id, set())
        for group, level in sorted(added):
            problem("orphan", f"clusters/{cluster_id}: grant {group} {level} is not declared")
