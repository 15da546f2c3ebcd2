"""What the emulator holds, read over its API, and the check that a deployment converged:
exactly the desired objects, no duplicate, no orphan, no lost permission entry."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import requests

from emulator.testing import EmulatorInfo, fetch_token

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
    repo_paths: list[str] = field(default_factory=list)       # every repo, all pages
    ip_access_lists: list[str] = field(default_factory=list)  # labels


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

    def get(self, path: str, **params: Any) -> Any:
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
    repo_paths: list[str] = []
    token: dict[str, Any] = {}
    while True:
        page = api.get("/api/2.0/repos", **token)
        repo_paths += [r["path"] for r in page.get("repos", [])]
        if not page.get("next_page_token"):
            break
        token = {"next_page_token": page["next_page_token"]}
    labels = [item["label"] for item in
              api.get("/api/2.0/ip-access-lists").get("ip_access_lists", [])]
    return Inventory(jobs, principals, scopes, acls, repos, bindings,
                     [g["displayName"] for g in groups], members, repo_paths, labels)


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

    scope_counts = Counter(after.scopes)
    declared_scopes = {s["name"] for s in objects.get("secretScopes", [])}
    for name in declared_scopes:
        if scope_counts[name] != 1:
            problem("duplicate" if scope_counts[name] > 1 else "missing",
                    f"secret scope {name} exists {scope_counts[name]} times")
    for name in set(after.scopes) - set(before.scopes) - declared_scopes:
        problem("orphan", f"secret scope {name} is not declared")

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

    # Groups, repos and IP access lists: each declared one once, none made besides.
    for what, key, field_name, old, new in (
        ("group", "groups", "display_name", before.groups, after.groups),
        ("repo", "repos", "path", before.repo_paths, after.repo_paths),
        ("IP access list", "ipAccessLists", "label", before.ip_access_lists,
         after.ip_access_lists),
    ):
        declared = {item[field_name] for item in objects.get(key, [])}
        counts = Counter(new)
        for name in declared:
            if counts[name] != 1:
                problem("duplicate" if counts[name] > 1 else "missing",
                        f"{what} {name} exists {counts[name]} times")
        for name in set(new) - set(old) - declared:
            problem("orphan", f"{what} {name} is not declared")
    declared_groups = {g["name"]: g["display_name"] for g in objects.get("groups", [])}
    for item in objects.get("groupMembers", []):
        group = declared_groups.get(item.get("group", ""))
        if group and not after.group_members.get(group):
            problem("missing", f"group {group} has no members, {item['name']} declared one")
    return verdict
