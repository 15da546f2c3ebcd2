"""Drill: the whole `local` stack created, updated and deleted while the emulator answers a
share of its platform requests with a fault *after* applying them (500, 503 or a dropped
connection: the write happened, the answer was lost).

    .venv/bin/python -m tools.drills.after_write [--runs 3] [--rate 0.4] [--random-state 1]

Each run, on a fresh emulator with after-write faults on `/api/*` at `--rate` (split evenly
between 500, 503 and drop; drawn from a fixed random state, `--random-state` for the first
run and one more for each next), takes three steps, each one `pulumi up` that must
converge, checked by `tools/drills/inventory.py` (no duplicate, nothing lost, nothing
undeclared) and by a second `up --expect-no-changes` (faults still on):

1. create every object of the local stack, of every kind it declares
   (`local_stack.stack_kinds()`; the other drills deploy `SIX_KINDS`);
2. update every one of them: each item changed as its kind declares (`drill=` in the
   kind's `declare(...)`, `updated` below); actions (`action=`: job runs) are left out;
3. delete them all (an empty stack): none of the stack's objects stays.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import requests

from providers.core.kind import DrillChange
from providers.core.registry import by_config_key
from providers.pipelines.pipelines_api import name_filter
from tools.drills import inventory
from tools.drills.local_stack import (
    NAMESPACE,
    local_objects,
    scratch_stack,
    stack_kinds,
    write_stack_config,
)
from tools.drills.local_stack import connection_config as stack_connection
from workspace_emulator.testing import (
    EmulatorInfo,
    auth_headers,
    clear_request_log,
    request_log,
    running_emulator,
    set_faults,
)

CATALOGS = ("finance",)
FAULT_KINDS = ("500 after write", "503 after write", "drop after write")
FAULT_PATHS = ["/api/*"]
STEPS = ("create", "update", "delete")
ID = re.compile(r"(?<=/)(\d{6,}|[0-9a-f]{8}-[0-9a-f-]{27,})(?=/|$)")


@dataclass
class Step:
    step: str
    up_ok: bool
    up_seconds: float
    requests: int
    writes: int
    faults: dict[str, int]
    faulted_writes: dict[str, int]  # "<METHOD> <path>" (ids as {id}): after-write faults
    second_up_no_changes: bool
    duplicates: int
    orphans: int
    lost: int
    problems: list[str] = field(default_factory=list)
    output: str = field(default="", repr=False)

    @property
    def converged(self) -> bool:
        return self.up_ok and self.second_up_no_changes and not self.problems


@dataclass
class Run:
    random_state: int | None
    rate: float
    steps: list[Step]

    @property
    def converged(self) -> bool:
        return all(step.converged for step in self.steps)


def drill_changes() -> dict[str, DrillChange]:
    """What the update step changes in an item, by config key: each registered kind's own
    (`declare(drill=DrillChange(...))` in its module)."""
    return {key: kind.drill for key, kind in by_config_key().items() if kind.drill is not None}


def action_kinds() -> tuple[str, ...]:
    """The config keys of the registered actions (`declare(action=...)`): they make no
    object, so nothing to find, change or delete afterwards. A JobRun starts a run of its
    job (again only when its trigger changes); the drill would only start runs, whose end no
    inventory can judge."""
    return tuple(key for key, kind in by_config_key().items() if kind.action is not None)


def without_drill_change() -> list[str]:
    """Every registered kind of the stack config that declares neither a drill change nor
    that it is an action, each with where to declare it (the drill could not update it)."""
    return [
        f"{kind.name}: no drill change: add drill=DrillChange(<item -> the item changed>) "
        f"to the KIND = declare(...) of {kind.implementation} (action=... if it makes no "
        "object)"
        for kind in by_config_key().values()
        if kind.drill is None and kind.action is None
    ]


def drilled_kinds(declared: Iterable[str] | None = None) -> tuple[str, ...]:
    """The config keys the drill creates, changes and deletes: those of `declared` (default:
    the local stack's kinds) whose kind declares a change."""
    changes = drill_changes()
    return tuple(key for key in (stack_kinds() if declared is None else declared)
                 if key in changes)


def undrilled_kinds() -> tuple[str, ...]:
    """The local stack's object kinds with no change: left out of the drill."""
    changes, actions = drill_changes(), action_kinds()
    return tuple(kind for kind in stack_kinds() if kind not in changes and kind not in actions)


def updated(objects: dict[str, Any]) -> dict[str, Any]:
    """Every declared object changed as its kind declares (`DrillChange`): names kept, a
    setting changed."""
    changes = drill_changes()
    if undeclared := [kind for kind in objects if kind not in changes]:
        raise ValueError(f"no drill change declared for {', '.join(undeclared)}: "
                         "see without_drill_change()")
    return {kind: [changes[kind].changed(item) for item in items]
            for kind, items in objects.items()}


def emptied(objects: dict[str, Any]) -> dict[str, Any]:
    return {kind: [] for kind in objects}


def update_problems(info: EmulatorInfo, objects: dict[str, Any], tag_prefix: str) -> list[str]:
    """Whether the updated fields reached the emulator (the inventory checks the rest:
    permission levels, secret ACLs, group members, branches, bindings, Unity Catalog
    grants, the workspace settings)."""
    headers = auth_headers(info)

    def get(path: str, /, **params: Any) -> Any:
        return requests.get(f"{info.base_url}{path}", headers=headers, params=params,
                            timeout=30).json()

    found = []
    jobs = get("/api/2.1/jobs/list", limit=100).get("jobs", [])
    by_tag = {(j["settings"].get("tags") or {}).get(inventory.DEPLOYMENT_TAG): j for j in jobs}
    for job in objects.get("jobs", []):
        shown = by_tag.get(tag_prefix + job["name"])
        settings = shown["settings"] if shown else {}
        if settings.get("max_concurrent_runs") != job["max_concurrent_runs"]:
            found.append(f"job {job['name']}: max_concurrent_runs not updated")
        if (settings.get("tags") or {}).get("drill") != "updated":
            found.append(f"job {job['name']}: tags not updated")
    principals = get("/api/2.0/preview/scim/v2/ServicePrincipals").get("Resources", [])
    names = {p.get("applicationId"): p.get("displayName") for p in principals}
    for principal in objects.get("servicePrincipals", []):
        if names.get(principal["application_id"]) != principal["display_name"]:
            found.append(f"service principal {principal['application_id']}: display name "
                         "not updated")
    for secret in objects.get("secrets", []):
        value = get("/api/2.0/secrets/get", scope=secret["secret_scope"],
                    key=secret["key"]).get("value", "")
        if base64.b64decode(value).decode() != secret["string_value"]:
            found.append(f"secret {secret['secret_scope']}/{secret['key']}: value not updated")
    policies = {p["name"]: p for p in
                get("/api/2.0/policies/clusters/list").get("policies", [])}
    for policy in objects.get("clusterPolicies", []):
        shown = policies.get(policy["name"], {}).get("max_clusters_per_user")
        if shown != policy["max_clusters_per_user"]:
            found.append(f"cluster policy {policy['name']}: max_clusters_per_user not updated")
    clusters = {(c.get("custom_tags") or {}).get(inventory.DEPLOYMENT_TAG): c
                for c in get("/api/2.0/clusters/list").get("clusters", [])}
    for cluster in objects.get("clusters", []):
        shown = clusters.get(tag_prefix + cluster["name"], {})
        if shown.get("autotermination_minutes") != cluster["autotermination_minutes"]:
            found.append(f"cluster {cluster['name']}: autotermination_minutes not updated")
    groups = {g["displayName"]: g for g in
              get("/api/2.0/preview/scim/v2/Groups").get("Resources", [])}
    for group in objects.get("groups", []):
        shown = {e["value"] for e in groups.get(group["display_name"], {}).get(
            "entitlements") or []}
        if shown != set(group["entitlements"]):
            found.append(f"group {group['display_name']}: entitlements not updated")
    for repo in objects.get("repos", []):
        shown = get("/api/2.0/repos", path_prefix=repo["path"]).get("repos", [])
        if [r.get("branch") for r in shown if r["path"] == repo["path"]] != [repo["branch"]]:
            found.append(f"repo {repo['path']}: branch not updated")
    lists = {a["label"]: a for a in get("/api/2.0/ip-access-lists").get("ip_access_lists", [])}
    for access_list in objects.get("ipAccessLists", []):
        shown = set(lists.get(access_list["label"], {}).get("ip_addresses") or [])
        if shown != set(access_list["ip_addresses"]):
            found.append(f"IP access list {access_list['label']}: addresses not updated")
    found += _workspace_updates_problems(get, objects)
    found += _uc_updates_problems(get, objects)
    found += _pipeline_updates_problems(get, objects)
    return found


def _pipeline_updates_problems(get: Get, objects: dict[str, Any]) -> list[str]:
    """Each pipeline's configuration as updated (a pipeline's name is unique)."""
    found = []
    for pipeline in objects.get("pipelines", []):
        name = pipeline["name"]
        listed = get("/api/2.0/pipelines", filter=name_filter(name)).get("statuses") or []
        ids = [p["pipeline_id"] for p in listed if p.get("name") == name]
        spec = (get(f"/api/2.0/pipelines/{ids[0]}").get("spec") or {}) if len(ids) == 1 else {}
        if (spec.get("configuration") or {}) != (pipeline.get("configuration") or {}):
            found.append(f"pipeline {name}: configuration not updated")
    return found


Get = Callable[..., Any]


def _workspace_updates_problems(get: Get, objects: dict[str, Any]) -> list[str]:
    """Notebooks' content, warehouses' auto stop and Git credentials' user names (the
    inventory judges grants and the workspace settings)."""
    found = []
    for notebook in objects.get("notebooks", []):
        exported = get("/api/2.0/workspace/export", path=notebook["path"], format="SOURCE")
        if base64.b64decode(exported.get("content", "")).rstrip(b"\n") != \
                base64.b64decode(notebook["content_base64"]).rstrip(b"\n"):
            found.append(f"notebook {notebook['path']}: content not updated")
    warehouses = {w["name"]: w for w in get("/api/2.0/sql/warehouses").get("warehouses") or []}
    for warehouse in objects.get("sqlWarehouses", []):
        shown = warehouses.get(warehouse["name"], {}).get("auto_stop_mins")
        if shown != warehouse["auto_stop_mins"]:
            found.append(f"SQL warehouse {warehouse['name']}: auto_stop_mins not updated")
    credentials = {c["git_provider"].lower(): c for c in
                   get("/api/2.0/git-credentials").get("credentials") or []}
    for credential in objects.get("gitCredentials", []):
        shown = credentials.get(credential["git_provider"].lower(), {}).get("git_username")
        if shown != credential["git_username"]:
            found.append(f"Git credential {credential['git_provider']}: git_username not "
                         "updated")
    return found


# Unity Catalog kinds the update step comments on: config key -> (API path, full name of).
UC_COMMENTED = {
    "storageCredentials": ("storage-credentials", lambda item: item["name"]),
    "externalLocations": ("external-locations", lambda item: item["name"]),
    "serviceCredentials": ("credentials", lambda item: item["name"]),
    "catalogs": ("catalogs", lambda item: item["name"]),
    "schemas": ("schemas", lambda item: inventory.uc_full_name(item, "catalog", 2)),
    "volumes": ("volumes", lambda item: inventory.uc_full_name(item, "schema", 3)),
}


def _uc_updates_problems(get: Get, objects: dict[str, Any]) -> list[str]:
    """Each commented object's comment (and a catalog's properties) as updated."""
    found = []
    for key, (path, full_name_of) in UC_COMMENTED.items():
        for item in objects.get(key, []):
            full_name = full_name_of(item)
            shown = get(f"/api/2.1/unity-catalog/{path}/{full_name}")
            if shown.get("comment") != item["comment"]:
                found.append(f"{key} {full_name}: comment not updated")
            wanted = item.get("properties")
            if wanted and {k: (shown.get("properties") or {}).get(k) for k in wanted} != wanted:
                found.append(f"{key} {full_name}: properties not updated")
    return found


# At 40% of calls faulted, one call fails all of the default 6 attempts with p = 0.4^6 =
# 0.4%, so one of a step's ~60 calls does about one step in five: the retry budget ran out,
# nothing was wrong (the next up converged). 12 attempts: 0.4^12 = 1.7e-5 a call, ~0.1% a
# step; a user facing a faulty service raises `maxAttempts` the same way.
MAX_ATTEMPTS = 12


def step(cli: Any, info: EmulatorInfo, name: str, objects: dict[str, Any],
         before: inventory.Inventory, faults: dict[str, Any]) -> Step:
    write_stack_config(cli, {**stack_connection(info), f"{NAMESPACE}:maxAttempts": MAX_ATTEMPTS,
                             **{f"{NAMESPACE}:{k}": v for k, v in objects.items()}})
    clear_request_log(info)
    set_faults(info, **faults)
    started = time.monotonic()
    up = cli.up(check=False)
    up_seconds = time.monotonic() - started
    log = request_log(info)
    second = cli.up("--expect-no-changes", check=False)
    set_faults(info)
    tag_prefix = f"workspace/{cli.stack}/"
    verdict = inventory.judge(before, inventory.take(info, CATALOGS), objects, tag_prefix)
    not_updated = update_problems(info, objects, tag_prefix) if name == "update" else []
    problems = [*verdict.problems, *not_updated]
    platform = [e for e in log if e["service"] == "platform"]
    counts = Counter(e["fault"] for e in platform if e["fault"])
    faulted_writes = Counter(f"{e['method']} {ID.sub('{id}', e['path'])}" for e in platform
                             if e["fault"] and e["method"] != "GET")
    return Step(
        step=name, up_ok=up.returncode == 0, up_seconds=round(up_seconds, 2),
        requests=len(platform), writes=sum(e["method"] != "GET" for e in platform),
        faults={kind: counts.get(kind, 0) for kind in FAULT_KINDS},
        faulted_writes=dict(sorted(faulted_writes.items())),
        second_up_no_changes=second.returncode == 0,
        duplicates=verdict.duplicates, orphans=verdict.orphans,
        lost=verdict.lost_permissions + verdict.missing + len(not_updated),
        problems=problems, output=(up.stdout + up.stderr)[-4000:] + (
            "" if second.returncode == 0 else
            "\n--- second up (expected no changes):\n" + (second.stdout + second.stderr)[-4000:]),
    )


def fault_settings(rate: float, random_state: int | None) -> dict[str, Any]:
    share = rate / 3
    return {"rate_500": share, "rate_503": share, "rate_drop": share, "after_write": True,
            "random_state": random_state, "paths": FAULT_PATHS}


def drill(workdir: Path, rate: float, random_state: int | None,
          kinds: tuple[str, ...] | None = None) -> Run:
    """Create, update and delete the local stack (its `kinds`, default every kind it
    declares whose kind declares a change) on a fresh emulator under after-write faults at
    `rate`."""
    objects = local_objects(kinds=kinds or drilled_kinds())
    if "notebooks" not in objects:
        # Grants on a notebook by its path need the notebook, which is not drilled yet.
        objects["permissions"] = [item for item in objects.get("permissions", [])
                                  if "notebook_path" not in item]
    faults = fault_settings(rate, random_state) if rate else {}
    steps = []
    with running_emulator() as info:
        cli = scratch_stack(workdir, info, emptied(objects))
        before = inventory.take(info, CATALOGS)
        for name, declared in (("create", objects), ("update", updated(objects)),
                               ("delete", emptied(objects))):
            result = step(cli, info, name, declared, before, faults)
            steps.append(result)
            if not result.up_ok:
                break
    return Run(random_state=random_state, rate=rate, steps=steps)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rate", type=float, default=0.4)
    parser.add_argument("--random-state", type=int, default=1,
                        help="random state of the faults of the first run")
    args = parser.parse_args(argv)
    runs = []
    with tempfile.TemporaryDirectory(prefix="drill-after-write-") as tmp:
        for number in range(args.runs):
            run = drill(Path(tmp) / str(number), args.rate, args.random_state + number)
            runs.append(run)
            for result in run.steps:
                row = {k: v for k, v in asdict(result).items() if k != "output"}
                print(json.dumps({"random_state": run.random_state, **row,
                                  "converged": result.converged}), flush=True)
                if not result.converged:
                    print(result.output, file=sys.stderr, flush=True)
    steps = [s for run in runs for s in run.steps]
    summary = {
        "runs": args.runs,
        "rate": args.rate,
        "runs_converged": sum(run.converged for run in runs),
        "steps_converged": f"{sum(s.converged for s in steps)}/{len(STEPS) * args.runs}",
        "faults_injected": dict(sum((Counter(s.faults) for s in steps), Counter())),
        "faults_by_step": {name: sum(sum(s.faults.values()) for s in steps if s.step == name)
                           for name in STEPS},
        "faulted_writes": {name: dict(sum((Counter(s.faulted_writes) for s in steps
                                           if s.step == name), Counter()))
                           for name in STEPS},
        "requests_by_step_mean": {
            name: round(sum(s.requests for s in steps if s.step == name) / args.runs, 1)
            for name in STEPS},
        "up_seconds_by_step_mean": {
            name: round(sum(s.up_seconds for s in steps if s.step == name) / args.runs, 1)
            for name in STEPS},
        "duplicates": sum(s.duplicates for s in steps),
        "orphans": sum(s.orphans for s in steps),
        "lost": sum(s.lost for s in steps),
    }
    print(json.dumps({"summary": summary}, indent=2))
    if summary["runs_converged"] != args.runs:
        raise SystemExit("not every run converged")


if __name__ == "__main__":
    main()
