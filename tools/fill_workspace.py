"""Fill a workspace with realistic existing objects of every kind the project manages, through
the service's official SDK (databricks-sdk), as a team's scripts and clicks would have made
them: what `python -m stacks.adopt` is tested and benched on (issue 33, item 6).

    python -m tools.fill_workspace --token-from-emulator-info .emulator/info.json [--size 200]
    python -m tools.fill_workspace --base-url https://adb-….azuredatabricks.net   # SDK env auth

    from tools.fill_workspace import fill
    filled = fill(emulator_info, size=200, random_state=7)   # or a databricks.sdk.WorkspaceClient
    filled.names("Job"), filled.ids("Secret"), filled.counts()

What it makes, every object through the public API (nothing touches the emulator's
database): service principals (with an application id of a registered application, or by
display name only; one deactivated) and their OAuth secrets; groups nested in groups, with
users, principals and groups as members; secret scopes (one backed by a key vault) with
secrets and ACLs; cluster policies (own definitions and policy families) and clusters made
under them or without one (pinned, terminated, with libraries); multi-task jobs covering
every family of settings the Job kind supports (`JOB_FAMILIES`), some made with an access
control list, most with permissions set afterwards; object permissions on clusters,
policies, repos and the workspace's other objects; repos on a branch other than their
default; IP access lists (one disabled); catalog bindings. Asked for (`kinds=ALL_KINDS`,
`--all-kinds`), also `MORE_KINDS`: users, instance pools, SQL warehouses, the filler's Git
credentials, notebooks under /Shared, storage credentials, service credentials (a managed
identity, an IAM role or a GCP service account each), external locations, catalogs,
schemas, volumes (managed, and external under the locations made here) and grants on them
and on the workspace's catalogs to the groups and users.

Objects reference each other as a team's would: jobs run on the clusters and policies made
here, run as the principals made here, run other jobs, read notebooks from the repos;
permissions and ACLs name the groups and principals made here.

Deterministic: the same `random_state` and `size` make the same objects with the same names (the ids
are the workspace's). `size` is the number of objects made (every kind at least once, so at
least `MIN_SIZE`); `plan_counts(size)` says how many of each kind.

An object's id in `Filled` is the import id of its kind (its declaration's `import_id`:
`<scope>/<key>` for a secret, `<object type>/<object id>` for permissions, ...), its name
what identifies it to a reader (a job's name, a member as `<group>|<member>`).
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import inspect
import json
import random
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_SIZE = 80
DEFAULT_RANDOM_STATE = 33

# Every kind made, in the order of creation (a kind after those it references).
KINDS = (
    "ServicePrincipal",
    "ServicePrincipalSecret",
    "Group",
    "GroupMember",
    "SecretScope",
    "Secret",
    "SecretAcl",
    "ClusterPolicy",
    "Cluster",
    "Repo",
    "RepoBranch",
    "Job",
    "JobPermissions",
    "Permissions",
    "IpAccessList",
    "CatalogBinding",
)
# Kinds made only when asked (`fill(kinds=ALL_KINDS)`, `--all-kinds`): Unity Catalog, SQL
# and pool compute, users, notebooks, Git credentials. Asked for, the fill of a size holds
# other counts of the kinds above, so a bench or test that compares with an earlier fill
# keeps the default.
MORE_KINDS = (
    "User",
    "InstancePool",
    "SqlWarehouse",
    "GitCredential",
    "Notebook",
    "StorageCredential",
    "ServiceCredential",
    "ExternalLocation",
    "Catalog",
    "Schema",
    "Volume",
    "Grants",
)
ALL_KINDS = KINDS + MORE_KINDS
# What a kind of MORE_KINDS is made in or refers to.
REQUIRES = {"ExternalLocation": "StorageCredential", "Schema": "Catalog", "Volume": "Schema"}

# Share of `size` per kind: a team's workspace is mostly jobs, their permissions and the
# identities and secrets they use.
WEIGHTS = {
    "Job": 0.22,
    "JobPermissions": 0.12,
    "GroupMember": 0.12,
    "Secret": 0.10,
    "Permissions": 0.06,
    "SecretAcl": 0.06,
    "ServicePrincipal": 0.05,
    "Group": 0.05,
    "SecretScope": 0.04,
    "Cluster": 0.04,
    "ServicePrincipalSecret": 0.03,
    "ClusterPolicy": 0.03,
    "Repo": 0.03,
    "RepoBranch": 0.02,
    "IpAccessList": 0.02,
    "CatalogBinding": 0.01,
    "User": 0.03,
    "InstancePool": 0.02,
    "SqlWarehouse": 0.02,
    "GitCredential": 0.01,
    "Notebook": 0.04,
    "StorageCredential": 0.01,
    "ServiceCredential": 0.01,
    "ExternalLocation": 0.02,
    "Catalog": 0.02,
    "Schema": 0.04,
    "Volume": 0.03,
    "Grants": 0.04,
}
# Fewest of a kind: enough principals for one made by name and one deactivated, groups to
# nest, scopes for a key-vault one, policies and clusters for one with a policy, and a job
# of every archetype (so every family of job settings is present).
MINIMUM = {
    "ServicePrincipal": 3,
    "Group": 3,
    "GroupMember": 4,
    "Secret": 2,
    "SecretAcl": 2,
    "JobPermissions": 2,
    "Permissions": 2,
    "SecretScope": 2,
    "ClusterPolicy": 2,
    "Cluster": 2,
    "Repo": 2,
}

# The emulator's packaged data (workspace_emulator/initial_data.json): applications that
# may become service principals (a service principal on Azure needs an application of the
# tenant), and the workspaces a catalog may be bound to (this one first).
EMULATOR_APPLICATION_IDS = (
    "b946402c-4f47-469a-bead-ef6610b453f5",  # etl-pipeline
    "da574234-e5b2-4774-83f7-ea6a8b63f956",  # reporting
    "a4caea01-07ec-4cf9-8861-e326be8a1c8f",  # ml-training
    "72f8e10f-6030-4c2b-831a-46331832e54e",  # data-quality
    "65dc6d7a-ea8b-49b9-b4bb-de840e250c5d",  # ci-deployer
)
# The account the emulator's workspace belongs to, whose access-control rule sets grant the
# filler the user role of each principal it makes (a job's run_as needs it).
EMULATOR_ACCOUNT_ID = "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"
EMULATOR_WORKSPACE_IDS = (1234567890123456, 2345678901234567, 3456789012345678, 4567890123456789)
# Objects of the emulator's initial data a team would grant permissions on (the types the
# emulator holds no store for), and ids jobs reference.
EMULATOR_PERMISSION_OBJECTS = (
    ("warehouses", "5a1e2b3c4d5e6f70"),
    ("pipelines", "8f3c2a10-1b2c-4d5e-8f90-0a1b2c3d4e5f"),
    ("notebooks", "1710000000000001"),
    ("directories", "1710000000000002"),
    ("registered-models", "3b7e5f1a9c2d4e6f8a0b1c2d3e4f5a6b"),
    ("serving-endpoints", "0d3f1c2b4a5e6f708192a3b4c5d6e7f8"),
    ("instance-pools", "0101-120000-pool0001"),
)
WAREHOUSE_ID = "5a1e2b3c4d5e6f70"
PIPELINE_ID = "8f3c2a10-1b2c-4d5e-8f90-0a1b2c3d4e5f"
# The Git remotes the emulator can clone (its initial data's repos): url, provider,
# branches, tags.
EMULATOR_REMOTES = (
    ("https://github.com/example-org/data-pipelines.git", "gitHub",
     ("main", "develop", "release/2024.06"), ("v1.0.0",)),
    ("https://github.com/example-org/ml-models.git", "gitHub", ("main", "experiment"), ()),
    ("https://dev.azure.com/example-org/analytics/_git/dashboards", "azureDevOpsServices",
     ("master", "feature/new-kpis"), ()),
)
# The remote the emulator's data marks private: cloned only by a caller holding a Git
# credential for its provider, so repos of it are made only when Git credentials are.
PRIVATE_REMOTES = ("https://dev.azure.com/example-org/analytics/_git/dashboards",)
CATALOGS = ("finance", "sandbox", "main")
# Names the emulator's packaged data holds already, per kind of name.
EMULATOR_NAMES = {
    "principal": ("iac-bootstrap",),
    "group": ("admins", "users", "data-engineers", "analysts"),
    "scope": ("platform-shared",),
    "cluster": ("shared-autoscaling", "etl-nightly", "ad-hoc-single-node", "ml-gpu"),
    "repo": ("/Repos/iac/data-pipelines", "/Repos/iac/ml-models", "/Repos/analytics/dashboards"),
    "ip-list": ("office-network", "known-bad"),
}
USERS = ("alice@example.com", "bob@example.com")
INITIAL_GROUPS = ("data-engineers", "analysts")

# The runtime versions and node types the service offers (the emulator's catalogue).
SPARK_VERSIONS = ("13.3.x-scala2.12", "14.3.x-scala2.12", "15.4.x-scala2.12", "16.1.x-scala2.12")
ML_SPARK_VERSIONS = ("15.4.x-cpu-ml-scala2.12", "14.3.x-gpu-ml-scala2.12")
NODE_TYPES = ("Standard_DS3_v2", "Standard_DS4_v2", "Standard_DS5_v2", "Standard_E8ds_v4",
              "Standard_F4s", "Standard_L8s_v2")
GPU_NODE_TYPE = "Standard_NC6s_v3"

TEAMS = ("sales", "finance", "marketing", "web-analytics", "ml-platform", "risk",
         "supply-chain", "hr-analytics", "customer-success", "data-platform", "fraud",
         "growth", "logistics", "pricing", "bi")
NOUNS = ("orders", "customers", "invoices", "clickstream", "sessions", "inventory",
         "shipments", "ledger", "churn", "features", "recommendations", "campaigns", "leads",
         "payroll", "claims", "events", "telemetry", "forecasts", "returns", "pricing")
VERBS = ("ingest", "refresh", "backfill", "export", "score", "aggregate", "sync", "validate",
         "rebuild", "load", "train", "publish", "compact", "reconcile", "snapshot")
CADENCES = ("daily", "hourly", "nightly", "weekly", "monthly", "15min")
ENVIRONMENTS = ("prod", "dev", "staging")
TIMEZONES = ("UTC", "Europe/Amsterdam", "Europe/London", "America/New_York",
             "America/Los_Angeles", "Asia/Singapore")
ENTITLEMENTS = ("workspace-access", "databricks-sql-access", "allow-cluster-create",
                "allow-instance-pool-create")

# Every family of job settings the Job kind supports (providers/jobs/job_settings.py), and how
# to tell it in a job's settings as `jobs get` returns them.
FamilyTest = Callable[[Mapping[str, Any]], bool]


def _tasks(settings: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Every task, those inside a for-each task too."""
    found = []
    for task in settings.get("tasks") or []:
        found.append(task)
        inner = (task.get("for_each_task") or {}).get("task")
        if inner:
            found.append(inner)
    return found


def _clusters(settings: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    specs = [c.get("new_cluster") or {} for c in settings.get("job_clusters") or []]
    return specs + [t["new_cluster"] for t in _tasks(settings) if t.get("new_cluster")]


def _libraries(settings: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [lib for task in _tasks(settings) for lib in task.get("libraries") or []]


def _job_field(name: str) -> FamilyTest:
    return lambda s: bool(s.get(name))


def _inside(parent: str, name: str) -> FamilyTest:
    return lambda s: bool((s.get(parent) or {}).get(name))


def _task_field(name: str, truthy: bool = False) -> FamilyTest:
    def test(settings: Mapping[str, Any]) -> bool:
        values = [task.get(name) for task in _tasks(settings)]
        return any(v for v in values) if truthy else any(
            v is not None and v != [] for v in values)

    return test


def _library(kind: str) -> FamilyTest:
    return lambda s: any(kind in lib for lib in _libraries(s))


def _cluster_field(name: str) -> FamilyTest:
    return lambda s: any(c.get(name) is not None for c in _clusters(s))


def _outcome(settings: Mapping[str, Any]) -> bool:
    return any(d.get("outcome") for t in _tasks(settings) for d in t.get("depends_on") or [])


JOB_FAMILIES: dict[str, FamilyTest] = {
    **{name: _job_field(name) for name in (
        "description", "tags", "schedule", "continuous", "email_notifications",
        "webhook_notifications", "notification_settings", "timeout_seconds",
        "max_concurrent_runs", "health", "queue", "parameters", "job_clusters", "git_source",
        "environments", "performance_target", "edit_mode", "deployment",
        "environment_variables", "budget_policy_id")},
    **{f"trigger.{name}": _inside("trigger", name)
       for name in ("file_arrival", "table_update", "periodic")},
    **{f"run_as.{name}": _inside("run_as", name)
       for name in ("user_name", "service_principal_name")},
    **{f"task.{name}": _task_field(name) for name in (
        "notebook_task", "spark_python_task", "python_wheel_task", "spark_jar_task",
        "spark_submit_task", "sql_task", "dbt_task", "pipeline_task", "run_job_task",
        "condition_task", "for_each_task", "depends_on", "run_if", "existing_cluster_id",
        "new_cluster", "job_cluster_key", "environment_key", "max_retries",
        "min_retry_interval_millis", "retry_on_timeout", "disabled", "description",
        "environment_variables_key")},
    "task.depends_on.outcome": _outcome,
    **{f"task.{name}": _task_field(name, truthy=True) for name in (
        "email_notifications", "notification_settings", "health", "webhook_notifications")},
    **{f"library.{kind}": _library(kind)
       for kind in ("pypi", "maven", "jar", "whl", "cran", "requirements")},
    **{f"cluster.{name}": _cluster_field(name) for name in (
        "autoscale", "num_workers", "init_scripts", "cluster_log_conf", "spark_conf",
        "spark_env_vars", "custom_tags", "azure_attributes", "data_security_mode",
        "runtime_engine", "policy_id", "instance_pool_id", "docker_image", "ssh_public_keys",
        "enable_elastic_disk")},
}


def job_families(settings: Mapping[str, Any]) -> set[str]:
    """The families of `JOB_FAMILIES` a job's settings show."""
    return {name for name, test in JOB_FAMILIES.items() if test(settings)}


# --- the summary -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Made:
    """One object made: its kind's import id and a name that is the same for every fill of
    the same random_state and size."""

    kind: str
    id: str
    name: str


@dataclass
class Filled:
    """What `fill` made, per kind in the order made."""

    base_url: str
    random_state: int
    size: int
    made: dict[str, list[Made]] = field(default_factory=lambda: {kind: [] for kind in KINDS})
    seconds: float = 0.0
    # job name -> the families of job settings it shows (JOB_FAMILIES)
    families: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, object_id: Any, name: str) -> Made:
        made = Made(kind, str(object_id), name)
        self.made[kind].append(made)
        return made

    def names(self, kind: str) -> list[str]:
        return [m.name for m in self.made[kind]]

    def ids(self, kind: str) -> list[str]:
        return [m.id for m in self.made[kind]]

    def counts(self) -> dict[str, int]:
        return {kind: len(objects) for kind, objects in self.made.items()}

    @property
    def total(self) -> int:
        return sum(self.counts().values())

    def job_families(self) -> set[str]:
        return {family for families in self.families.values() for family in families}

    def as_dict(self) -> dict[str, Any]:
        return {
            "base_url": self.base_url, "random_state": self.random_state, "size": self.size,
            "seconds": round(self.seconds, 3), "total": self.total, "counts": self.counts(),
            "objects": {kind: [{"id": m.id, "name": m.name} for m in objects]
                        for kind, objects in self.made.items()},
            "job_families": sorted(self.job_families()),
        }

    def summary(self) -> str:
        width = max(len(kind) for kind in self.made)
        lines = [f"{kind:<{width}}  {count:>5}" for kind, count in self.counts().items()]
        lines.append(f"{'total':<{width}}  {self.total:>5}  in {self.seconds:.1f}s "
                     f"(random state {self.random_state}, size {self.size}; "
                     f"{len(self.job_families())} of "
                     f"{len(JOB_FAMILIES)} job setting families)")
        return "\n".join(lines)


# --- how many of each kind ---------------------------------------------------------------------

def _caps(counts: Mapping[str, int]) -> dict[str, int]:
    """The most of a kind the others (and the workspace) allow."""
    principals = counts["ServicePrincipal"]
    groups = counts["Group"]
    return {
        "CatalogBinding": 2,
        "RepoBranch": counts["Repo"],
        "JobPermissions": counts["Job"],
        "ServicePrincipalSecret": 2 * principals,
        "Permissions": counts["Cluster"] + counts["ClusterPolicy"] + counts["Repo"]
        + len(EMULATOR_PERMISSION_OBJECTS),
        # members of each group: users, principals and the groups made after it
        "GroupMember": groups * (len(USERS) + principals) + groups * (groups - 1) // 2
        + len(INITIAL_GROUPS) * (len(USERS) + principals),
        # ACL principals: users, the groups, the principals with an application id
        "SecretAcl": counts["SecretScope"] * (len(USERS) + groups + len(INITIAL_GROUPS)
                                              + len(EMULATOR_APPLICATION_IDS)),
        "Secret": 40 * counts["SecretScope"],
        # Git credentials: the filler's own, one per Git provider
        "GitCredential": len(GIT_PROVIDERS),
        "ExternalLocation": 20 * counts.get("StorageCredential", 0),
        "Schema": 20 * counts.get("Catalog", 0),
        "Volume": 10 * counts.get("Schema", 0),
        # one set of grants per securable made here, and the workspace's catalogs
        "Grants": sum(counts.get(kind, 0) for kind in (
            "Catalog", "Schema", "Volume", "StorageCredential", "ExternalLocation"))
        + len(CATALOGS),
    }


def checked_kinds(kinds: Sequence[str]) -> tuple[str, ...]:
    """`kinds` in the order of creation: every kind of KINDS and any of MORE_KINDS, each
    with what it requires; else ValueError naming what is wrong."""
    unknown = sorted(set(kinds) - set(ALL_KINDS))
    if unknown:
        raise ValueError(f"kinds {unknown} are not made here; known: {', '.join(ALL_KINDS)}")
    missing = [kind for kind in KINDS if kind not in kinds]
    if missing:
        raise ValueError(f"kinds must include every kind of KINDS; missing {missing}")
    for kind, required in REQUIRES.items():
        if kind in kinds and required not in kinds:
            raise ValueError(f"{kind} needs {required} among the kinds")
    return tuple(kind for kind in ALL_KINDS if kind in kinds)


def plan_counts(size: int = DEFAULT_SIZE, kinds: Sequence[str] = KINDS) -> dict[str, int]:
    """How many objects of each kind `fill(size=size, kinds=kinds)` makes: `size` in all (at
    least `min_size(kinds)`), shared by `WEIGHTS`, within what the other kinds allow."""
    kinds = checked_kinds(kinds)
    minimum = {**MINIMUM, "Job": len(JOB_ARCHETYPES)}
    size = max(size, min_size(kinds))
    counts = {kind: max(minimum.get(kind, 1), int(WEIGHTS[kind] * size)) for kind in kinds}
    # Largest fractions first, then jobs (which nothing caps) take what is left.
    order = sorted(kinds, key=lambda kind: (-(WEIGHTS[kind] * size % 1), kinds.index(kind)))
    for _ in range(3):  # caps depend on other counts: settle them
        for kind, cap in _caps(counts).items():
            if kind in counts:
                counts[kind] = max(1, min(counts[kind], cap))
        left = size - sum(counts.values())
        for kind in order:
            if left <= 0:
                break
            if counts[kind] < _caps(counts).get(kind, size):
                counts[kind] += 1
                left -= 1
        counts["Job"] += max(0, left)
        # Over `size` (the minimums of a small one): take from the kinds furthest above theirs.
        while sum(counts.values()) > size:
            spare = max(kinds, key=lambda kind: (counts[kind] - minimum.get(kind, 1),
                                                 -kinds.index(kind)))
            if counts[spare] <= minimum.get(spare, 1):
                break
            counts[spare] -= 1
    return counts


# --- names ------------------------------------------------------------------------------------


class Names:
    """Names a team gives things: several styles, each unique within its kind."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        # The workspace's own objects keep their names (the emulator's packaged data).
        self.used: dict[str, set[str]] = {kind: set(taken)
                                          for kind, taken in EMULATOR_NAMES.items()}

    def unique(self, kind: str, name: str) -> str:
        used = self.used.setdefault(kind, set())
        candidate, number = name, 2
        while candidate in used:
            candidate = f"{name} ({number})" if " " in name else f"{name}-{number}"
            number += 1
        used.add(candidate)
        return candidate

    def pick(self, items: Sequence[Any]) -> Any:
        return items[self.rng.randrange(len(items))]

    def job(self, team: str, noun: str, verb: str) -> str:
        cadence = self.pick(CADENCES)
        style = self.rng.randrange(8)
        if style == 0:
            name = f"{team}-{noun}-{cadence}-{verb}"
        elif style == 1:
            name = f"{verb.capitalize()} {noun} ({cadence})"
        elif style == 2:
            name = f"{team.replace('-', '_')}_{noun}_{verb}"
        elif style == 3:
            name = f"[{self.pick(ENVIRONMENTS)}] {team} {noun} {verb}"
        elif style == 4:
            name = f"{noun}_{verb}_v{self.rng.randint(2, 4)}"
        elif style == 5:
            name = f"{team.replace('-', ' ').title()} - {noun.capitalize()} {verb}"
        elif style == 6:
            user = self.pick(USERS).split("@")[0]
            name = f"{user}'s {noun} {verb}"
        else:  # what the UI names a new job
            name = (f"New Job {2024 + self.rng.randrange(2)}-{self.rng.randint(1, 12):02d}-"
                    f"{self.rng.randint(1, 28):02d} {self.rng.randint(0, 23):02d}:"
                    f"{self.rng.randint(0, 59):02d}:{self.rng.randint(0, 59):02d}")
        return self.unique("job", name)


# --- the plan: what to make, decided before any call -------------------------------------------


@dataclass
class Plan:
    counts: dict[str, int]
    principals: list[dict[str, Any]] = field(default_factory=list)
    principal_secrets: list[tuple[int, str | None]] = field(default_factory=list)
    groups: list[dict[str, Any]] = field(default_factory=list)
    # (group index or initial group name, member: ("user", name) | ("principal", index) |
    # ("group", index)), and whether it is given at the group's create
    members: list[tuple[int | str, tuple[str, Any], bool]] = field(default_factory=list)
    scopes: list[dict[str, Any]] = field(default_factory=list)
    secrets: list[dict[str, Any]] = field(default_factory=list)
    acls: list[tuple[str, tuple[str, Any], str]] = field(default_factory=list)
    policies: list[dict[str, Any]] = field(default_factory=list)
    clusters: list[dict[str, Any]] = field(default_factory=list)
    repos: list[dict[str, Any]] = field(default_factory=list)
    jobs: list[dict[str, Any]] = field(default_factory=list)
    permissions: list[dict[str, Any]] = field(default_factory=list)
    ip_lists: list[dict[str, Any]] = field(default_factory=list)
    bindings: list[dict[str, Any]] = field(default_factory=list)
    # MORE_KINDS, when asked for
    users: list[dict[str, Any]] = field(default_factory=list)
    pools: list[dict[str, Any]] = field(default_factory=list)
    warehouses: list[dict[str, Any]] = field(default_factory=list)
    git_credentials: list[dict[str, Any]] = field(default_factory=list)
    notebooks: list[dict[str, Any]] = field(default_factory=list)
    storage_credentials: list[dict[str, Any]] = field(default_factory=list)
    service_credentials: list[dict[str, Any]] = field(default_factory=list)
    locations: list[dict[str, Any]] = field(default_factory=list)
    catalogs: list[dict[str, Any]] = field(default_factory=list)
    schemas: list[dict[str, Any]] = field(default_factory=list)
    volumes: list[dict[str, Any]] = field(default_factory=list)
    # (securable type, full name, [(principal, privileges)])
    grants: list[tuple[str, str, list[tuple[str, list[str]]]]] = field(default_factory=list)


def _hex(rng: random.Random, digits: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(digits))


def _uuid(rng: random.Random) -> str:
    return f"{_hex(rng, 8)}-{_hex(rng, 4)}-4{_hex(rng, 3)}-a{_hex(rng, 3)}-{_hex(rng, 12)}"


def make_plan(size: int, random_state: int, application_ids: Sequence[str],
              kinds: Sequence[str] = KINDS) -> Plan:
    rng = random.Random(f"fill-workspace/{random_state}")
    names = Names(rng)
    counts = plan_counts(size, kinds)
    plan = Plan(counts)
    _plan_principals(plan, rng, names, application_ids)
    _plan_groups(plan, rng, names)
    _plan_secrets(plan, rng, names)
    _plan_compute(plan, rng, names)
    _plan_repos(plan, rng, names)
    _plan_jobs(plan, rng, names)
    _plan_permissions(plan, rng)
    _plan_ip_lists(plan, rng, names)
    plan.bindings = [_BINDINGS[i] for i in range(counts["CatalogBinding"])]
    # Another random stream: the kinds above are planned alike whether these are asked for.
    more = random.Random(f"fill-workspace/{random_state}/more")
    _plan_people_and_compute(plan, more, names)
    _plan_unity_catalog(plan, more, names)
    return plan


_PRINCIPAL_PURPOSES = ("etl", "reporting", "ml-training", "data-quality", "ci-deployer",
                       "ingest", "airflow", "dbt-runner", "powerbi-refresh", "fivetran",
                       "monitoring", "export", "feature-store", "scheduler")


def _plan_principals(plan: Plan, rng: random.Random, names: Names,
                     application_ids: Sequence[str]) -> None:
    count = plan.counts["ServicePrincipal"]
    # Principals by display name only: at least two (one of them the deactivated one); the
    # rest take an application each.
    with_application = min(len(application_ids), count - 2)
    for index in range(count):
        team, purpose = names.pick(TEAMS), names.pick(_PRINCIPAL_PURPOSES)
        style = rng.randrange(4)
        display = (f"sp-{team}-{purpose}" if style == 0 else f"{purpose}-{names.pick(ENVIRONMENTS)}"
                   if style == 1 else f"{team.replace('-', ' ').title()} {purpose} service"
                   if style == 2 else f"{team}_{purpose}".replace("-", "_"))
        principal: dict[str, Any] = {"display_name": names.unique("principal", display)}
        if index < with_application:
            principal["application_id"] = application_ids[index]
        if rng.random() < 0.6:
            principal["entitlements"] = sorted(rng.sample(ENTITLEMENTS, rng.randint(1, 3)))
        if rng.random() < 0.25:
            principal["external_id"] = _uuid(rng)
        plan.principals.append(principal)
    # One principal left deactivated (a retired pipeline's): never referenced elsewhere.
    plan.principals[-1]["active"] = False
    lifetimes = (None, "7776000s", "31536000s", "2592000s")
    for index in range(plan.counts["ServicePrincipalSecret"]):
        owner = index % max(1, count - 1)  # not the deactivated one
        plan.principal_secrets.append((owner, names.pick(lifetimes)))


_GROUP_STEMS = ("data-platform", "analytics", "ml-engineers", "bi-analysts", "finance-readers",
                "etl-operators", "data-stewards", "platform-admins", "sales-ops",
                "marketing-analysts", "risk-modellers", "support-engineers", "contractors",
                "oncall", "auditors", "data-scientists")


def _active_principals(plan: Plan) -> list[int]:
    return [i for i, p in enumerate(plan.principals) if p.get("active", True)]


def _plan_groups(plan: Plan, rng: random.Random, names: Names) -> None:
    count = plan.counts["Group"]
    for _ in range(count):
        stem = names.pick(_GROUP_STEMS)
        style = rng.randrange(3)
        display = (stem if style == 0 else f"{stem}-{names.pick(TEAMS)}" if style == 1
                   else f"team-{names.pick(TEAMS)}-{stem.split('-')[0]}")
        group: dict[str, Any] = {"display_name": names.unique("group", display)}
        if rng.random() < 0.4:
            group["entitlements"] = sorted(rng.sample(ENTITLEMENTS, rng.randint(1, 2)))
        if rng.random() < 0.3:
            group["external_id"] = _uuid(rng)
        plan.groups.append(group)
    # Candidate memberships: nesting (a group into one made before it, so never a cycle),
    # users, principals; a few into the workspace's own groups.
    candidates: list[tuple[int | str, tuple[str, Any]]] = []
    for index in range(1, count):
        candidates.append((rng.randrange(index), ("group", index)))
    for index in range(count):
        candidates += [(index, ("user", user)) for user in USERS]
        candidates += [(index, ("principal", p)) for p in _active_principals(plan)]
        candidates += [(index, ("group", later)) for later in range(index + 2, count)]
    for initial in INITIAL_GROUPS:
        candidates += [(initial, ("principal", p)) for p in _active_principals(plan)]
    nesting, rest = candidates[: count - 1], candidates[count - 1:]
    rng.shuffle(rest)
    chosen: list[tuple[int | str, tuple[str, Any]]] = []
    seen: set[tuple[Any, Any]] = set()
    for candidate in [*nesting, *rest]:
        if len(chosen) >= plan.counts["GroupMember"]:
            break
        if (candidate[0], candidate[1]) in seen:
            continue
        seen.add((candidate[0], candidate[1]))
        chosen.append(candidate)
    # Some memberships are given when the group is made (a script's create), the rest by
    # PATCH afterwards (the UI, SCIM sync).
    plan.members = [(g, member, isinstance(g, int) and rng.random() < 0.4)
                    for g, member in chosen]


_SCOPE_STEMS = ("jdbc", "api-keys", "storage", "kafka", "salesforce", "snowflake", "sftp",
                "service-creds", "tokens", "webhooks")
_SECRET_KEYS = ("password", "username", "client-secret", "client_id", "api-key", "token",
                "storage-account-key", "sas-token", "private-key", "connection-string",
                "webhook-url", "bootstrap-servers", "sasl-jaas-config", "host", "port")


def _plan_secrets(plan: Plan, rng: random.Random, names: Names) -> None:
    count = plan.counts["SecretScope"]
    for index in range(count):
        team, stem = names.pick(TEAMS), names.pick(_SCOPE_STEMS)
        style = rng.randrange(3)
        name = (f"{team}-{stem}" if style == 0 else f"{team}.{stem}".replace("-", "_")
                if style == 1 else f"{stem}_{names.pick(ENVIRONMENTS)}")
        if index == 1:  # a key vault's scope: its secrets live in the vault
            vault = f"kv-{team}-{_hex(rng, 4)}"
            made: dict[str, Any] = {"name": names.unique("scope", vault), "keyvault": {
                "resource_id": "/subscriptions/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f/"
                f"resourceGroups/rg-data-platform/providers/Microsoft.KeyVault/vaults/{vault}",
                "dns_name": f"https://{vault}.vault.azure.net/",
            }}
        else:
            made = {"name": names.unique("scope", name)}
            if rng.random() < 0.3:
                made["initial_manage_principal"] = "users"
        plan.scopes.append(made)
    plain = [made["name"] for made in plan.scopes if "keyvault" not in made]
    keys: set[tuple[str, str]] = set()
    while len(plan.secrets) < plan.counts["Secret"]:
        scope = names.pick(plain)
        key = names.pick(_SECRET_KEYS)
        if (scope, key) in keys:
            key = f"{key}-{names.pick(ENVIRONMENTS)}-{rng.randint(1, 99)}"
        if (scope, key) in keys:
            continue
        keys.add((scope, key))
        secret: dict[str, Any] = {"scope": scope, "key": key}
        if rng.random() < 0.15:
            secret["bytes_value"] = base64.b64encode(rng.randbytes(24)).decode()
        else:
            secret["string_value"] = _hex(rng, 32)
        plan.secrets.append(secret)
    principals: list[tuple[str, Any]] = [("user", u) for u in USERS]
    principals += [("group", i) for i in range(len(plan.groups))]
    principals += [("group", g) for g in INITIAL_GROUPS]
    principals += [("principal", i) for i in _active_principals(plan)
                   if "application_id" in plan.principals[i]]
    pairs = [(made["name"], p) for made in plan.scopes for p in principals]
    rng.shuffle(pairs)
    for scope_name, principal in pairs[: plan.counts["SecretAcl"]]:
        plan.acls.append((scope_name, principal, names.pick(("READ", "READ", "WRITE", "MANAGE"))))


# Cluster policies: a template per style, each with the cluster specs that keep to it.
# (name pattern, for all-purpose clusters, for job clusters, the policy's fields)
def _policy_fields(template: str, team: str, rng: random.Random) -> dict[str, Any]:
    if template == "job-compute":
        return {
            "definition": {
                "spark_version": {"type": "allowlist", "values": list(SPARK_VERSIONS[1:3]),
                                  "defaultValue": SPARK_VERSIONS[2]},
                "node_type_id": {"type": "allowlist", "values": list(NODE_TYPES[:2]),
                                 "defaultValue": NODE_TYPES[0]},
                "autoscale.max_workers": {"type": "range", "maxValue": 8, "defaultValue": 4},
                "custom_tags.team": {"type": "fixed", "value": team},
                "cluster_type": {"type": "fixed", "value": "job"},
            },
            "description": f"Job clusters of the {team} team: LTS runtimes, small nodes.",
        }
    if template == "personal":
        return {"policy_family_id": "personal-vm",
                "policy_family_definition_overrides": {
                    "custom_tags.team": {"type": "fixed", "value": team}}}
    if template == "shared":
        return {"policy_family_id": "shared-compute",
                "description": f"Shared clusters for {team}."}
    if template == "power-user":
        return {"policy_family_id": "power-user",
                "policy_family_definition_overrides": {
                    "spark_version": {"type": "regex", "pattern": "1[456]\\..*"}},
                "max_clusters_per_user": rng.randint(1, 3)}
    fields: dict[str, Any] = {
        "definition": {
            "num_workers": {"type": "range", "minValue": 1, "maxValue": 6},
            "node_type_id": {"type": "blocklist", "values": [GPU_NODE_TYPE]},
            "spark_conf.spark.databricks.io.cache.enabled": {"type": "fixed", "value": "true"},
            "autotermination_minutes": {"type": "range", "maxValue": 120, "defaultValue": 30},
            "spark_version": {"type": "unlimited", "defaultValue": "auto:latest-lts"},
        },
        "max_clusters_per_user": 2,
    }
    if rng.random() < 0.5:
        fields["libraries"] = [{"pypi": {"package": "great-expectations==0.18.19"}}]
    return fields


POLICY_TEMPLATES = ("job-compute", "personal", "shared", "power-user", "small-etl")
# Templates an all-purpose cluster may use, and those a job cluster may.
CLUSTER_TEMPLATES = ("personal", "shared", "power-user", "small-etl")
JOB_TEMPLATES = ("job-compute", "power-user", "small-etl")


def policy_cluster_spec(template: str, team: str, rng: random.Random) -> dict[str, Any]:
    """A cluster spec that keeps to a policy of `template` for `team`."""
    version = rng.choice(SPARK_VERSIONS[1:3])
    if template == "job-compute":
        return {"spark_version": version, "node_type_id": rng.choice(NODE_TYPES[:2]),
                "autoscale": {"min_workers": 1, "max_workers": rng.randint(2, 8)},
                "custom_tags": {"team": team}}
    if template == "personal":
        return {"spark_version": version, "node_type_id": NODE_TYPES[0], "num_workers": 0,
                "spark_conf": {"spark.databricks.cluster.profile": "singleNode",
                               "spark.master": "local[*, 4]"},
                "custom_tags": {"team": team, "ResourceClass": "SingleNode"},
                "autotermination_minutes": 60, "data_security_mode": "SINGLE_USER",
                "single_user_name": rng.choice(USERS)}
    if template == "shared":
        return {"spark_version": version, "node_type_id": rng.choice(NODE_TYPES[:3]),
                "autoscale": {"min_workers": 1, "max_workers": rng.randint(2, 6)},
                "data_security_mode": "USER_ISOLATION", "autotermination_minutes": 120}
    if template == "power-user":
        return {"spark_version": rng.choice(("15.4.x-scala2.12", "16.1.x-scala2.12")),
                "node_type_id": rng.choice(("Standard_DS5_v2", "Standard_E8ds_v4")),
                "autoscale": {"min_workers": 2, "max_workers": rng.randint(4, 10)},
                "runtime_engine": "PHOTON"}
    return {"spark_version": version, "node_type_id": rng.choice(NODE_TYPES[:5]),
            "num_workers": rng.randint(1, 6),
            "spark_conf": {"spark.databricks.io.cache.enabled": "true"},
            "autotermination_minutes": rng.choice((20, 30, 45))}


def _free_cluster_spec(rng: random.Random, team: str) -> dict[str, Any]:
    """A cluster made without a policy: whatever its maker clicked."""
    spec: dict[str, Any] = {"spark_version": rng.choice(SPARK_VERSIONS),
                            "node_type_id": rng.choice(NODE_TYPES)}
    if rng.random() < 0.6:
        spec["autoscale"] = {"min_workers": 1, "max_workers": rng.randint(2, 10)}
    else:
        spec["num_workers"] = rng.randint(1, 8)
    spec["autotermination_minutes"] = rng.choice((0, 30, 60, 120))
    if rng.random() < 0.5:
        spec["spark_conf"] = {"spark.sql.shuffle.partitions": str(rng.choice((64, 200, 400))),
                              "spark.databricks.delta.preview.enabled": "true"}
    if rng.random() < 0.6:
        spec["custom_tags"] = {"team": team, "cost-center": f"cc-{rng.randint(1000, 9999)}"}
    if rng.random() < 0.3:
        spec["spark_env_vars"] = {"PYSPARK_PYTHON": "/databricks/python3/bin/python3"}
    if rng.random() < 0.3:
        spec["azure_attributes"] = {"availability": "SPOT_WITH_FALLBACK_AZURE",
                                    "first_on_demand": 1, "spot_bid_max_price": -1}
    if rng.random() < 0.25:
        spec["cluster_log_conf"] = {"dbfs": {"destination": f"dbfs:/cluster-logs/{team}"}}
    if rng.random() < 0.2:
        spec["init_scripts"] = [{"workspace": {"destination": f"/Shared/init/{team}-setup.sh"}}]
    if rng.random() < 0.4:
        spec["data_security_mode"] = rng.choice(("USER_ISOLATION", "SINGLE_USER"))
        if spec["data_security_mode"] == "SINGLE_USER":
            spec["single_user_name"] = rng.choice(USERS)
    return spec


_CLUSTER_NAMES = ("shared-autoscaling", "adhoc", "exploration", "etl-dev", "bi-serving",
                  "notebooks", "sandbox", "streaming-dev", "training", "interactive")


def _plan_compute(plan: Plan, rng: random.Random, names: Names) -> None:
    for index in range(plan.counts["ClusterPolicy"]):
        template = POLICY_TEMPLATES[index % len(POLICY_TEMPLATES)]
        team = names.pick(TEAMS)
        style = rng.randrange(3)
        label = {"job-compute": "Job Compute", "personal": "Personal Compute",
                 "shared": "Shared Compute", "power-user": "Power User Compute",
                 "small-etl": "Small ETL"}[template]
        name = (f"{team} - {label}" if style == 0 else f"{label} ({team})" if style == 1
                else f"{team}-{template}-policy")
        plan.policies.append({"name": names.unique("policy", name), "template": template,
                              "team": team, **_policy_fields(template, team, rng)})
    cluster_policies = [i for i, p in enumerate(plan.policies)
                        if p["template"] in CLUSTER_TEMPLATES]
    for index in range(plan.counts["Cluster"]):
        team = names.pick(TEAMS)
        style = rng.randrange(4)
        stem = names.pick(_CLUSTER_NAMES)
        name = (f"{team}-{stem}" if style == 0 else f"{names.pick(USERS).split('@')[0]}'s "
                f"cluster" if style == 1 else f"{team.title()} {stem.replace('-', ' ')}"
                if style == 2 else f"{stem}-{names.pick(ENVIRONMENTS)}")
        cluster: dict[str, Any] = {"cluster_name": names.unique("cluster", name)}
        # The first cluster keeps to a policy, and about half of the rest.
        if cluster_policies and (index == 0 or rng.random() < 0.5):
            policy = cluster_policies[index % len(cluster_policies)]
            template, team = plan.policies[policy]["template"], plan.policies[policy]["team"]
            cluster["spec"] = policy_cluster_spec(template, team, rng)
            cluster["policy"] = policy
        else:
            cluster["spec"] = _free_cluster_spec(rng, team)
        cluster["pinned"] = rng.random() < 0.3
        cluster["terminated"] = index % 3 == 1
        if rng.random() < 0.35:
            volume = f"/Volumes/{team.replace('-', '_')}/libs/wheels"
            cluster["libraries"] = rng.sample([
                {"pypi": {"package": "pandas==2.2.3"}},
                {"pypi": {"package": "scikit-learn==1.5.2"}},
                {"maven": {"coordinates": "com.databricks:spark-xml_2.12:0.18.0"}},
                {"whl": f"{volume}/utils-1.2.0-py3-none-any.whl"},
            ], rng.randint(1, 2))
        plan.clusters.append(cluster)


_REPO_FOLDERS = ("analytics", "data-eng", "ml", "platform", "finance", "shared")


def _plan_repos(plan: Plan, rng: random.Random, names: Names) -> None:
    remotes = [r for r in EMULATOR_REMOTES
               if "GitCredential" in plan.counts or r[0] not in PRIVATE_REMOTES]
    for index in range(plan.counts["Repo"]):
        url, provider, branches, _tags = remotes[index % len(remotes)]
        repository = url.rstrip("/").split("/")[-1].removesuffix(".git")
        folder = names.pick((*_REPO_FOLDERS, *(u.split("@")[0] for u in USERS)))
        path = names.unique("repo", f"/Repos/{folder}/{repository}")
        repo: dict[str, Any] = {"url": url, "provider": provider, "path": path}
        if index < plan.counts["RepoBranch"]:
            repo["branch"] = names.pick(branches[1:])
        if rng.random() < 0.15:
            repo["sparse_checkout"] = ["notebooks", "src"]
        plan.repos.append(repo)


# --- jobs ---------------------------------------------------------------------------------------


@dataclass
class JobContext:
    """What a job's settings may name: objects of the plan, by index, and the workspace's."""

    rng: random.Random
    team: str
    noun: str
    plan: Plan
    job_index: int

    def pick(self, items: Sequence[Any]) -> Any:
        return items[self.rng.randrange(len(items))]

    @property
    def slug(self) -> str:
        return f"{self.team}/{self.noun}"

    def notebook(self, step: str) -> str:
        repos = self.plan.repos
        if repos and self.rng.random() < 0.4:
            return f"{{repo:{self.rng.randrange(len(repos))}}}/notebooks/{self.noun}/{step}"
        return f"/Workspace/Shared/{self.slug}/{step}"

    def cluster_id(self) -> str:
        return f"{{cluster:{self.rng.randrange(len(self.plan.clusters))}}}"

    @property
    def first_round(self) -> bool:
        """Whether this is the first job of its archetype: it shows every family the
        archetype stands for, whatever the draws."""
        return self.job_index < len(JOB_ARCHETYPES)

    def job_cluster(self, key: str, policy: bool | None = None) -> dict[str, Any]:
        """A job cluster; under one of the plan's job policies when `policy` (None: maybe)."""
        policies = [i for i, p in enumerate(self.plan.policies) if p["template"] in JOB_TEMPLATES]
        if policies and (policy if policy is not None else self.rng.random() < 0.5):
            policy = self.pick(policies)
            spec = policy_cluster_spec(self.plan.policies[policy]["template"],
                                       self.plan.policies[policy]["team"], self.rng)
            spec.update(policy_id=f"{{policy:{policy}}}", apply_policy_default_values=True)
        else:
            spec = {"spark_version": self.pick(SPARK_VERSIONS[1:]),
                    "node_type_id": self.pick(NODE_TYPES),
                    **({"autoscale": {"min_workers": 1, "max_workers": self.rng.randint(2, 8)}}
                       if self.rng.random() < 0.5 else {"num_workers": self.rng.randint(1, 6)})}
            if self.rng.random() < 0.5:
                spec["spark_conf"] = {"spark.sql.shuffle.partitions": "64"}
            if self.rng.random() < 0.5:
                spec["custom_tags"] = {"workload": key}
        return {"job_cluster_key": key, "new_cluster": spec}

    def email(self) -> str:
        return f"{self.team}-oncall@example.com"

    def principal(self) -> str | None:
        """A `{principal:i}` of an active principal with an application id, or None."""
        found = [i for i in _active_principals(self.plan)
                 if "application_id" in self.plan.principals[i]]
        if not found:
            found = _active_principals(self.plan)
        return f"{{principal:{self.pick(found)}}}" if found else None

    def cron(self) -> dict[str, Any]:
        minute, hour = self.rng.randrange(0, 60, 5), self.rng.randrange(24)
        expression = self.pick((f"0 {minute} {hour} * * ?", f"0 {minute} */4 * * ?",
                                f"0 {minute} {hour} ? * MON-FRI", f"0 0 {hour} 1 * ?"))
        schedule = {"quartz_cron_expression": expression, "timezone_id": self.pick(TIMEZONES)}
        if self.rng.random() < 0.3:
            schedule["pause_status"] = self.pick(("PAUSED", "UNPAUSED"))
        return schedule

    def tags(self) -> dict[str, str]:
        tags = {"team": self.team}
        if self.rng.random() < 0.5:
            tags["cost-center"] = f"cc-{self.rng.randint(1000, 9999)}"
        if self.rng.random() < 0.3:
            tags["env"] = self.pick(ENVIRONMENTS)
        return tags


def _job_notebook_chain(c: JobContext) -> dict[str, Any]:
    steps = ["01_load", "02_clean", "03_build_marts", "04_publish"][: c.rng.randint(2, 4)]
    tasks = []
    for number, step in enumerate(steps):
        task: dict[str, Any] = {
            "task_key": step[3:],
            "notebook_task": {"notebook_path": c.notebook(step), "source": "WORKSPACE"},
            "job_cluster_key": "etl",
        }
        if number == 0:
            task["notebook_task"]["base_parameters"] = {"run_date": "{{job.start_time.iso_date}}"}
            task.update(max_retries=2, min_retry_interval_millis=60000, retry_on_timeout=False)
        else:
            task["depends_on"] = [{"task_key": steps[number - 1][3:]}]
        if number == len(steps) - 1:
            task["libraries"] = [{"pypi": {"package": "great-expectations==0.18.19"}},
                                 {"pypi": {"package": "holidays==0.57"}}]
        tasks.append(task)
    return {
        "description": f"Loads the day's {c.noun}, cleans them and rebuilds the marts.",
        "email_notifications": {"on_failure": [c.email()], "no_alert_for_skipped_runs": False},
        "notification_settings": {"no_alert_for_skipped_runs": False,
                                  "no_alert_for_canceled_runs": True},
        "timeout_seconds": c.pick((3600, 7200, 10800)),
        "max_concurrent_runs": 1,
        "schedule": c.cron(),
        "tags": c.tags(),
        "job_clusters": [c.job_cluster("etl")],
        "tasks": tasks,
        "queue": {"enabled": True},
    }


def _job_stream(c: JobContext) -> dict[str, Any]:
    return {
        "continuous": {"pause_status": c.pick(("UNPAUSED", "PAUSED"))},
        "max_concurrent_runs": 1,
        "tags": c.tags(),
        "tasks": [{
            "task_key": "stream",
            "spark_jar_task": {"main_class_name": f"com.example.{c.noun}.Stream",
                               "parameters": ["--window", "30m", "--sink", f"{c.noun}.live"]},
            "new_cluster": {
                "spark_version": "15.4.x-scala2.12",
                "node_type_id": "Standard_E8ds_v4",
                "driver_node_type_id": "Standard_DS5_v2",
                "autoscale": {"min_workers": 2, "max_workers": c.rng.randint(6, 12)},
                "spark_conf": {"spark.sql.streaming.stateStore.providerClass":
                               "com.databricks.sql.streaming.state.RocksDBStateStoreProvider"},
                "spark_env_vars": {"PYSPARK_PYTHON": "/databricks/python3/bin/python3"},
                "init_scripts": [{"workspace": {"destination": "/Shared/init/install-certs.sh"}},
                                 {"volumes": {"destination": "/Volumes/ops/init/tune-gc.sh"}}],
                "cluster_log_conf": {"dbfs": {"destination": f"dbfs:/cluster-logs/{c.noun}"}},
                "custom_tags": {"team": c.team, "workload": "streaming"},
                "runtime_engine": "PHOTON",
            },
            "libraries": [{"jar": f"/Volumes/{c.team.replace('-', '_')}/artifacts/jars/"
                                  f"{c.noun}-assembly-{c.rng.randint(1, 9)}."
                                  f"{c.rng.randint(0, 9)}.0.jar"}],
            "max_retries": -1,
        }],
    }


def _job_file_arrival(c: JobContext) -> dict[str, Any]:
    hook = _uuid(c.rng)
    return {
        "trigger": {"file_arrival": {
            "url": f"abfss://landing@examplelake.dfs.core.windows.net/{c.noun}/incoming/",
            "min_time_between_triggers_seconds": 300, "wait_after_last_change_seconds": 120},
            "pause_status": "UNPAUSED"},
        "queue": {"enabled": True},
        "max_concurrent_runs": 2,
        "health": {"rules": [
            {"metric": "RUN_DURATION_SECONDS", "op": "GREATER_THAN", "value": 1800},
            {"metric": "STREAMING_BACKLOG_FILES", "op": "GREATER_THAN", "value": 5000}]},
        "webhook_notifications": {"on_failure": [{"id": hook}],
                                  "on_duration_warning_threshold_exceeded": [{"id": hook}]},
        "email_notifications": {"on_duration_warning_threshold_exceeded": [c.email()]},
        "tasks": [{
            "task_key": "autoload",
            "spark_python_task": {
                "python_file": f"/Workspace/Shared/{c.slug}/autoload.py",
                "parameters": ["--source", c.noun, "--checkpoint",
                               f"/Volumes/raw/checkpoints/{c.noun}"]},
            "new_cluster": {"spark_version": "15.4.x-scala2.12", "node_type_id": "Standard_DS4_v2",
                            "num_workers": 2, "data_security_mode": "SINGLE_USER",
                            "azure_attributes": {"availability": "SPOT_WITH_FALLBACK_AZURE",
                                                 "first_on_demand": 1}},
            "health": {"rules": [{"metric": "RUN_DURATION_SECONDS", "op": "GREATER_THAN",
                                  "value": 1200}]},
            "notification_settings": {"alert_on_last_attempt": True},
            "webhook_notifications": {"on_failure": [{"id": hook}]},
        }],
    }


def _job_for_each(c: JobContext) -> dict[str, Any]:
    return {
        "parameters": [{"name": "countries", "default": '["NL", "BE", "DE", "FR"]'},
                       {"name": "export_format", "default": c.pick(("parquet", "csv"))}],
        "job_clusters": [c.job_cluster("export")],
        "tasks": [
            {"task_key": "export_countries",
             "for_each_task": {
                 "inputs": "{{job.parameters.countries}}",
                 "concurrency": c.rng.randint(2, 4),
                 "task": {"task_key": "export_countries_iteration",
                          "notebook_task": {"notebook_path": c.notebook("export_country"),
                                            "base_parameters": {
                                                "country": "{{input}}",
                                                "format": "{{job.parameters.export_format}}"},
                                            "source": "WORKSPACE"},
                          "job_cluster_key": "export", "max_retries": 3,
                          "min_retry_interval_millis": 300000}}},
            {"task_key": "publish_manifest",
             "depends_on": [{"task_key": "export_countries"}],
             "spark_python_task": {"python_file": f"/Workspace/Shared/{c.slug}/publish.py",
                                   "parameters": ["--format", "{{job.parameters.export_format}}"]},
             "job_cluster_key": "export"},
        ],
        "max_concurrent_runs": 1,
    }


def _job_wheel(c: JobContext) -> dict[str, Any]:
    package = f"{c.noun}_jobs"
    wheel = f"/Volumes/ml/artifacts/wheels/{package}-3.{c.rng.randint(0, 9)}.0-py3-none-any.whl"
    return {
        "max_concurrent_runs": c.rng.randint(1, 3),
        "tags": c.tags(),
        "parameters": [{"name": "start_date", "default": "2024-01-01"},
                       {"name": "end_date", "default": "2024-12-31"},
                       {"name": "dry_run", "default": "false"}],
        "job_clusters": [c.job_cluster("features", policy=True if c.first_round else None)],
        "tasks": [
            {"task_key": "backfill",
             "python_wheel_task": {"package_name": package, "entry_point": "backfill",
                                   "named_parameters": {"start": "{{job.parameters.start_date}}",
                                                        "end": "{{job.parameters.end_date}}"}},
             "job_cluster_key": "features",
             "libraries": [{"whl": wheel}, {"pypi": {"package": "pyarrow==16.1.0"}},
                           {"maven": {"coordinates":
                                      "com.microsoft.azure:azure-eventhubs-spark_2.12:2.3.22"}}],
             "max_retries": 1, "timeout_seconds": 14400},
            {"task_key": "validate", "depends_on": [{"task_key": "backfill"}],
             "python_wheel_task": {"package_name": package, "entry_point": "validate",
                                   "parameters": ["--strict"]},
             "job_cluster_key": "features", "libraries": [{"whl": wheel}], "run_if": "ALL_DONE"},
        ],
        "queue": {"enabled": True},
    }


def _job_table_update(c: JobContext) -> dict[str, Any]:
    principal = c.principal()
    by_principal = c.rng.random() < 0.7 or c.first_round
    run_as = ({"service_principal_name": principal} if principal and by_principal
              else {"user_name": c.pick(USERS)})
    return {
        "run_as": run_as,
        "queue": {"enabled": False},
        "trigger": {"table_update": {"table_names": [f"prod.raw.{c.noun}", "prod.raw.customers"],
                                     "condition": "ALL_UPDATED",
                                     "min_time_between_triggers_seconds": 600},
                    "pause_status": "UNPAUSED"},
        "notification_settings": {"no_alert_for_canceled_runs": True},
        "email_notifications": {"on_failure": [c.email()], "no_alert_for_skipped_runs": False},
        "tasks": [
            {"task_key": "refresh_pipeline",
             "pipeline_task": {"pipeline_id": PIPELINE_ID, "full_refresh": False},
             "timeout_seconds": 10800,
             "email_notifications": {"on_failure": [f"{c.noun}-owners@example.com"]},
             "notification_settings": {"alert_on_last_attempt": False,
                                       "no_alert_for_skipped_runs": False}},
            {"task_key": "optimize", "depends_on": [{"task_key": "refresh_pipeline"}],
             "sql_task": {"query": {"query_id": _uuid(c.rng)}, "warehouse_id": WAREHOUSE_ID}},
        ],
        "max_concurrent_runs": 1,
    }


def _job_orchestrator(c: JobContext) -> dict[str, Any]:
    earlier = list(range(c.job_index))
    runs = [f"{{job:{i}}}" for i in c.rng.sample(earlier, min(3, len(earlier)))] or ["{job:0}"]
    tasks: list[dict[str, Any]] = [
        {"task_key": f"run_{n}", "run_job_task": {"job_id": job}}
        for n, job in enumerate(runs[:-1] or runs)]
    tasks[0]["run_job_task"]["job_parameters"] = {"mode": "{{job.parameters.run_mode}}"}
    tasks.append({"task_key": "is_full_run",
                  "depends_on": [{"task_key": t["task_key"]} for t in tasks],
                  "condition_task": {"op": "EQUAL_TO", "left": "{{job.parameters.run_mode}}",
                                     "right": "full"}})
    tasks.append({"task_key": "build_marts",
                  "depends_on": [{"task_key": "is_full_run", "outcome": "true"}],
                  "run_job_task": {"job_id": runs[-1]}})
    tasks.append({"task_key": "notify_skipped",
                  "depends_on": [{"task_key": "is_full_run", "outcome": "false"}],
                  "notebook_task": {"notebook_path": c.notebook("notify_partial_run")},
                  "existing_cluster_id": c.cluster_id()})
    tasks.append({"task_key": "cleanup",
                  "depends_on": [{"task_key": "build_marts"}, {"task_key": "notify_skipped"}],
                  "run_if": "AT_LEAST_ONE_SUCCESS",
                  "notebook_task": {"notebook_path": c.notebook("cleanup")},
                  "existing_cluster_id": c.cluster_id()})
    return {
        "description": "Runs the ingestion jobs, then the marts, and only then the exports.",
        "parameters": [{"name": "run_mode", "default": "full"}],
        "tasks": tasks,
        "schedule": {**c.cron(), "pause_status": "PAUSED"},
        "max_concurrent_runs": 1,
        "timeout_seconds": 0,
    }


def _job_serverless(c: JobContext) -> dict[str, Any]:
    return {
        "performance_target": c.pick(("STANDARD", "PERFORMANCE_OPTIMIZED")),
        "environments": [
            {"environment_key": "scoring",
             "spec": {"client": "2",
                      "dependencies": ["scikit-learn==1.5.2", "mlflow-skinny==2.17.2"]}},
            {"environment_key": "reporting", "spec": {"client": "1",
                                                      "dependencies": ["plotly==5.24.1"]}}],
        "parameters": [{"name": "model_alias", "default": "champion"}],
        "tasks": [
            {"task_key": "score",
             "spark_python_task": {"python_file": f"/Workspace/Shared/{c.slug}/score.py",
                                   "parameters": ["--alias", "{{job.parameters.model_alias}}"]},
             "environment_key": "scoring"},
            {"task_key": "publish", "depends_on": [{"task_key": "score"}],
             "python_wheel_task": {"package_name": "scoring", "entry_point": "publish"},
             "environment_key": "scoring"},
            {"task_key": "report", "depends_on": [{"task_key": "score"}],
             "notebook_task": {"notebook_path": c.notebook("weekly_report")},
             "environment_key": "reporting", "disabled": c.rng.random() < 0.5},
        ],
        "schedule": c.cron(),
    }


def _job_dbt(c: JobContext) -> dict[str, Any]:
    url, provider, branches, _tags = EMULATOR_REMOTES[0]
    return {
        "git_source": {"git_url": url.removesuffix(".git"), "git_provider": provider,
                       "git_branch": c.pick(branches)},
        "environments": [{"environment_key": "dbt",
                          "spec": {"client": "2",
                                   "dependencies": ["dbt-databricks>=1.8.0,<2.0.0"]}}],
        "tasks": [
            {"task_key": "dbt_build",
             "dbt_task": {"commands": ["dbt deps", "dbt snapshot", "dbt build"],
                          "schema": c.noun, "catalog": c.pick(CATALOGS),
                          "warehouse_id": WAREHOUSE_ID, "source": "GIT"},
             "environment_key": "dbt", "timeout_seconds": 5400},
            {"task_key": "dbt_docs", "depends_on": [{"task_key": "dbt_build"}],
             "dbt_task": {"commands": ["dbt docs generate"], "schema": "default",
                          "warehouse_id": WAREHOUSE_ID},
             "environment_key": "dbt", "run_if": "ALL_SUCCESS"},
        ],
        "schedule": c.cron(),
        "queue": {"enabled": False},
    }


def _job_sql(c: JobContext) -> dict[str, Any]:
    url, provider, _branches, _tags = EMULATOR_REMOTES[2]
    return {
        "git_source": {"git_url": url, "git_provider": provider,
                       "git_tag": f"release-{2024 + c.rng.randrange(2)}.{c.rng.randint(1, 12)}"},
        "tasks": [
            {"task_key": "refresh",
             "sql_task": {"file": {"path": f"queries/refresh_{c.noun}.sql", "source": "GIT"},
                          "warehouse_id": WAREHOUSE_ID,
                          "parameters": {"as_of": "{{job.start_time.iso_date}}"}}},
            {"task_key": "variance_query", "depends_on": [{"task_key": "refresh"}],
             "sql_task": {"query": {"query_id": _uuid(c.rng)}, "warehouse_id": WAREHOUSE_ID}},
            {"task_key": "variance_alert", "depends_on": [{"task_key": "variance_query"}],
             "sql_task": {"alert": {"alert_id": _uuid(c.rng),
                                    "subscriptions": [{"user_name": c.pick(USERS)}],
                                    "pause_subscriptions": False},
                          "warehouse_id": WAREHOUSE_ID}},
            {"task_key": "dashboard", "depends_on": [{"task_key": "variance_query"}],
             "sql_task": {"dashboard": {"dashboard_id": _uuid(c.rng),
                                        "custom_subject": f"Daily {c.noun} variance",
                                        "subscriptions": [{"user_name": c.pick(USERS)}]},
                          "warehouse_id": WAREHOUSE_ID}},
        ],
        "email_notifications": {"on_failure": [c.email(), f"{c.noun}-owners@example.com"]},
        "timeout_seconds": 3600,
    }


def _job_periodic_submit(c: JobContext) -> dict[str, Any]:
    return {
        "trigger": {"periodic": {"interval": c.rng.randint(2, 6), "unit": "HOURS"},
                    "pause_status": "UNPAUSED"},
        "tags": c.tags(),
        "tasks": [{
            "task_key": "compact",
            "spark_submit_task": {"parameters": [
                "--class", f"com.example.{c.noun}.Compact",
                f"dbfs:/FileStore/jars/{c.noun}-compaction.jar", "--target", f"{c.noun}"]},
            "new_cluster": {"spark_version": "14.3.x-scala2.12", "node_type_id": "Standard_L8s_v2",
                            "num_workers": c.rng.randint(2, 6),
                            "spark_env_vars": {"ENVIRONMENT": c.pick(ENVIRONMENTS)},
                            "cluster_log_conf": {"dbfs": {"destination":
                                                          f"dbfs:/cluster-logs/{c.noun}-compact"}}},
            "timeout_seconds": 3600, "max_retries": 2, "retry_on_timeout": True,
        }],
        "webhook_notifications": {"on_failure": [{"id": _uuid(c.rng)}]},
    }


def _job_clicked(c: JobContext) -> dict[str, Any]:
    """What someone makes in the UI: one notebook on an all-purpose cluster."""
    settings: dict[str, Any] = {
        "tasks": [{"task_key": c.pick((c.noun, "main", "Task_1", f"{c.noun}_notebook")),
                   "notebook_task": {"notebook_path": c.notebook(f"{c.noun}_analysis"),
                                     "source": "WORKSPACE"},
                   "existing_cluster_id": c.cluster_id(),
                   "timeout_seconds": 0}],
        "email_notifications": {"on_failure": [c.pick(USERS)]},
        "max_concurrent_runs": 1,
    }
    if c.rng.random() < 0.5:
        settings["schedule"] = c.cron()
    if c.rng.random() < 0.3 or c.first_round:
        settings["run_as"] = {"user_name": c.pick(USERS)}
    return settings


def _job_bundle(c: JobContext) -> dict[str, Any]:
    """What an asset bundle deploys from CI: locked in the UI, with its deployment's
    metadata, environment variables, a pinned commit, a pool's nodes and a container."""
    url, provider, _branches, _tags = EMULATOR_REMOTES[1]
    principal = c.principal() or "{principal:0}"
    target = c.pick(ENVIRONMENTS)
    return {
        "deployment": {"kind": "BUNDLE", "metadata_file_path":
                       f"/Workspace/Users/{principal}/.bundle/{c.noun}/{target}/state/"
                       "metadata.json"},
        "edit_mode": "UI_LOCKED",
        "budget_policy_id": _uuid(c.rng),
        "run_as": {"service_principal_name": principal},
        "git_source": {"git_url": url, "git_provider": provider, "git_commit": _hex(c.rng, 40)},
        "environment_variables": [{"environment_variables_key": "runtime", "spec": {
            "variables": {"TARGET": target, "LOG_LEVEL": c.pick(("INFO", "DEBUG"))}}}],
        "email_notifications": {"on_start": [c.email()], "on_success": [c.email()],
                                "on_streaming_backlog_exceeded": [c.email()]},
        "webhook_notifications": {"on_start": [{"id": _uuid(c.rng)}],
                                  "on_success": [{"id": _uuid(c.rng)}]},
        "tags": {**c.tags(), "bundle": c.noun, "target": target},
        "job_clusters": [{"job_cluster_key": "pool", "new_cluster": {
            "spark_version": "15.4.x-scala2.12",
            "instance_pool_id": "0101-120000-pool0001",
            "driver_instance_pool_id": "0101-120000-pool0001",
            "num_workers": c.rng.randint(1, 4),
            "enable_elastic_disk": True,
            "docker_image": {"url": f"example.azurecr.io/{c.noun}-runtime:1.{c.rng.randint(0, 9)}"},
            "ssh_public_keys": [f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_hex(c.rng, 32)} ci"],
            "init_scripts": [{"abfss": {"destination": "abfss://init@examplelake.dfs.core.windows"
                                                       f".net/{c.noun}/setup.sh"}},
                             {"file": {"destination": "file:/databricks/scripts/tune.sh"}}],
        }}],
        "tasks": [
            {"task_key": "transform", "description": f"Transforms the {c.noun} of the day.",
             "spark_python_task": {"python_file": f"src/{c.noun}/transform.py", "source": "GIT"},
             "job_cluster_key": "pool", "environment_variables_key": "runtime",
             "libraries": [{"requirements": f"/Workspace/Shared/{c.slug}/requirements.txt"},
                           {"cran": {"package": "forecast", "repo": "https://cran.r-project.org"}}],
             "timeout_seconds": 3600},
        ],
    }


# In the order jobs are made: every archetype once before any repeats, so every family of
# settings is present from the smallest fill; the orchestrator after the jobs it runs.
JOB_ARCHETYPES: tuple[Callable[[JobContext], dict[str, Any]], ...] = (
    _job_notebook_chain, _job_stream, _job_file_arrival, _job_for_each, _job_wheel,
    _job_table_update, _job_serverless, _job_dbt, _job_sql, _job_periodic_submit,
    _job_clicked, _job_bundle, _job_orchestrator,
)
# How often each comes after the first round: most jobs a team has are simple.
_ARCHETYPE_WEIGHTS = (4, 1, 1, 1, 2, 1, 1, 1, 1, 1, 6, 1, 1)


def min_size(kinds: Sequence[str] = KINDS) -> int:
    """The fewest objects a fill of `kinds` makes: each at its minimum, a job of every
    archetype."""
    return sum(MINIMUM.get(kind, 1) for kind in kinds) - 1 + len(JOB_ARCHETYPES)


MIN_SIZE = min_size(KINDS)


def _plan_jobs(plan: Plan, rng: random.Random, names: Names) -> None:
    for index in range(plan.counts["Job"]):
        if index < len(JOB_ARCHETYPES):
            archetype = JOB_ARCHETYPES[index]
        else:
            archetype = rng.choices(JOB_ARCHETYPES, weights=_ARCHETYPE_WEIGHTS)[0]
        team, noun, verb = names.pick(TEAMS), names.pick(NOUNS), names.pick(VERBS)
        context = JobContext(rng, team, noun, plan, index)
        settings = {"name": names.job(team, noun, verb), **archetype(context)}
        acl = None
        if index < plan.counts["JobPermissions"] and rng.random() < 0.25:
            acl = _job_acl(plan, rng, owner=False)  # a script's create with its ACL
        plan.jobs.append({"settings": settings, "acl": acl,
                          "archetype": archetype.__name__.removeprefix("_job_")})


def _job_acl(plan: Plan, rng: random.Random, owner: bool) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    groups = [("group", i) for i in range(len(plan.groups))] + \
             [("group", g) for g in INITIAL_GROUPS]
    for principal in rng.sample(groups, min(len(groups), rng.randint(1, 2))):
        entries.append({"principal": principal,
                        "level": rng.choice(("CAN_VIEW", "CAN_MANAGE_RUN", "CAN_MANAGE"))})
    if rng.random() < 0.5:
        entries.append({"principal": ("user", USERS[1]), "level": "CAN_VIEW"})
    active = _active_principals(plan)
    if active and rng.random() < 0.4:
        entries.append({"principal": ("principal", rng.choice(active)),
                        "level": "CAN_MANAGE_RUN"})
    if owner:
        entries.append({"principal": ("user", USERS[0]), "level": "IS_OWNER"})
    return entries


_OBJECT_LEVELS = {
    "clusters": ("CAN_ATTACH_TO", "CAN_RESTART", "CAN_MANAGE"),
    "cluster-policies": ("CAN_USE",),
    "repos": ("CAN_READ", "CAN_RUN", "CAN_EDIT", "CAN_MANAGE"),
    "warehouses": ("CAN_VIEW", "CAN_MONITOR", "CAN_USE", "CAN_MANAGE"),
    "pipelines": ("CAN_VIEW", "CAN_RUN", "CAN_MANAGE"),
    "notebooks": ("CAN_READ", "CAN_RUN", "CAN_EDIT", "CAN_MANAGE"),
    "directories": ("CAN_READ", "CAN_RUN", "CAN_EDIT", "CAN_MANAGE"),
    "registered-models": ("CAN_READ", "CAN_EDIT", "CAN_MANAGE_STAGING_VERSIONS",
                          "CAN_MANAGE_PRODUCTION_VERSIONS", "CAN_MANAGE"),
    "serving-endpoints": ("CAN_VIEW", "CAN_QUERY", "CAN_MANAGE"),
    "instance-pools": ("CAN_ATTACH_TO", "CAN_MANAGE"),
}


def _plan_permissions(plan: Plan, rng: random.Random) -> None:
    # Job permissions: the jobs made with an ACL count; the others get one set afterwards
    # (PUT or PATCH), a few moving the owner to a user.
    with_acl = [i for i, job in enumerate(plan.jobs) if job["acl"]]
    others = [i for i in range(len(plan.jobs)) if not plan.jobs[i]["acl"]]
    for index in others[: max(0, plan.counts["JobPermissions"] - len(with_acl))]:
        plan.jobs[index]["set_acl"] = _job_acl(plan, rng, owner=rng.random() < 0.2)
        plan.jobs[index]["patch"] = rng.random() < 0.4
    # Object permissions: the clusters, policies and repos made here, then the workspace's
    # other objects.
    objects: list[tuple[str, tuple[str, Any]]] = (
        [("clusters", ("cluster", i)) for i in range(len(plan.clusters))]
               + [("cluster-policies", ("policy", i)) for i in range(len(plan.policies))]
               + [("repos", ("repo", i)) for i in range(len(plan.repos))])
    rng.shuffle(objects)
    objects += [(kind, ("fixed", object_id)) for kind, object_id in EMULATOR_PERMISSION_OBJECTS]
    for object_type, target in objects[: plan.counts["Permissions"]]:
        levels = _OBJECT_LEVELS[object_type]
        groups = [("group", i) for i in range(len(plan.groups))] + \
                 [("group", g) for g in INITIAL_GROUPS]
        entries = [{"principal": p, "level": rng.choice(levels)}
                   for p in rng.sample(groups, min(len(groups), rng.randint(1, 3)))]
        if rng.random() < 0.4:
            entries.append({"principal": ("user", rng.choice(USERS)), "level": levels[0]})
        active = [i for i in _active_principals(plan)]
        if active and rng.random() < 0.3:
            entries.append({"principal": ("principal", rng.choice(active)),
                            "level": levels[-1]})
        plan.permissions.append({"object_type": object_type, "target": target,
                                 "entries": entries, "patch": rng.random() < 0.3})


_IP_LABELS = ("vpn", "office", "ci-runners", "partner", "bastion", "nat-gateway", "blocked",
              "home-office", "dr-site", "monitoring")


def _plan_ip_lists(plan: Plan, rng: random.Random, names: Names) -> None:
    for index in range(plan.counts["IpAccessList"]):
        stem = names.pick(_IP_LABELS)
        label = names.unique("ip-list", f"{stem}-{names.pick(TEAMS)}" if rng.random() < 0.5
                             else f"{stem} {names.pick(('eu', 'us', 'apac'))}")
        addresses = []
        for _ in range(rng.randint(1, 4)):
            # documentation and private ranges only: never the caller's loopback address
            first = rng.choice(("203.0.113", "198.51.100", "192.0.2", "10.20"))
            if first == "10.20":
                addresses.append(f"10.20.{rng.randint(0, 255)}.0/24")
            elif rng.random() < 0.5:
                addresses.append(f"{first}.{rng.randint(1, 254)}")
            else:
                addresses.append(f"{first}.{rng.choice((0, 64, 128))}/{rng.choice((26, 27, 28))}")
        plan.ip_lists.append({
            "label": label, "ip_addresses": sorted(set(addresses)),
            "list_type": "BLOCK" if stem == "blocked" or rng.random() < 0.2 else "ALLOW",
            "disabled": index == 1,
        })


# Catalog bindings: the finance catalog isolated to this workspace and read-only in
# another, the sandbox bound in a second workspace but left open.
_BINDINGS = (
    {"catalog": "finance", "isolation_mode": "ISOLATED",
     "bindings": [(0, "BINDING_TYPE_READ_WRITE"), (1, "BINDING_TYPE_READ_ONLY")]},
    {"catalog": "sandbox", "isolation_mode": "ISOLATED",
     "bindings": [(0, "BINDING_TYPE_READ_WRITE"), (2, "BINDING_TYPE_READ_WRITE")]},
)


# --- MORE_KINDS: people, compute, notebooks, Git credentials, Unity Catalog --------------------

_FIRST_NAMES = ("maria", "jan", "priya", "tom", "sofia", "wei", "lucas", "emma", "noah",
                "fatima", "oliver", "yuki", "carlos", "anna", "david", "lea")
_LAST_NAMES = ("jansen", "smith", "patel", "garcia", "mueller", "chen", "rossi", "novak",
               "kowalski", "dubois", "silva", "berg", "kim", "nguyen")
GIT_PROVIDERS = ("gitHub", "gitLab", "azureDevOpsServices", "bitbucketCloud",
                 "gitHubEnterprise", "gitLabEnterpriseEdition", "bitbucketServer")
_POOL_USES = ("general", "etl", "ml", "bi", "streaming")
_WAREHOUSE_SIZES = ("2X-Small", "X-Small", "Small", "Medium", "Large")
_NOTEBOOK_LANGUAGES = {"PYTHON": "# Databricks notebook source\n",
                       "SQL": "-- Databricks notebook source\n"}
_STORAGE_STEMS = ("lake", "raw", "landing", "archive", "curated")
_SERVICE_STEMS = ("queues", "vault", "events", "models", "mail")
_VOLUME_NAMES = ("raw", "landing", "exports", "checkpoints", "models", "reports")
# Privileges a team grants on each securable type (all of them the type takes).
_PRIVILEGES = {
    "catalog": ("USE_CATALOG", "USE_SCHEMA", "SELECT", "BROWSE", "CREATE_SCHEMA"),
    "schema": ("USE_SCHEMA", "SELECT", "MODIFY", "CREATE_TABLE", "CREATE_VOLUME",
               "READ_VOLUME"),
    "volume": ("READ_VOLUME", "WRITE_VOLUME"),
    "external_location": ("READ_FILES", "WRITE_FILES", "CREATE_EXTERNAL_VOLUME", "BROWSE"),
    "storage_credential": ("CREATE_EXTERNAL_LOCATION", "READ_FILES"),
}


def _plan_people_and_compute(plan: Plan, rng: random.Random, names: Names) -> None:
    counts = plan.counts
    for _ in range(counts.get("User", 0)):
        first, last = names.pick(_FIRST_NAMES), names.pick(_LAST_NAMES)
        login = names.unique("user", f"{first}.{last}")
        plan.users.append({"user_name": f"{login}@example.com",
                           "display_name": f"{first.title()} {last.title()}",
                           "entitlements": rng.sample(ENTITLEMENTS, rng.randint(0, 2))})
    for _ in range(counts.get("InstancePool", 0)):
        team = names.pick(TEAMS)
        plan.pools.append({
            "instance_pool_name": names.unique("pool", f"{team}-{names.pick(_POOL_USES)}-pool"),
            "node_type_id": names.pick(NODE_TYPES), "min_idle_instances": rng.randint(0, 2),
            "max_capacity": rng.choice((10, 20, 50)),
            "idle_instance_autotermination_minutes": rng.choice((10, 30, 60)),
            "preloaded_spark_versions": [names.pick(SPARK_VERSIONS)] if rng.random() < 0.5
            else [],
            "custom_tags": {"team": team}})
    for _ in range(counts.get("SqlWarehouse", 0)):
        team = names.pick(TEAMS)
        plan.warehouses.append({
            "name": names.unique("warehouse", f"{team} {names.pick(('BI', 'adhoc', 'ETL'))}"),
            "cluster_size": names.pick(_WAREHOUSE_SIZES), "max_num_clusters": rng.randint(1, 3),
            "auto_stop_mins": rng.choice((10, 15, 30, 60)), "team": team,
            "serverless": rng.random() < 0.5})
    providers = list(GIT_PROVIDERS)
    rng.shuffle(providers)
    # The providers of the private remotes the repos clone first: made before the repos.
    needed = {r[1] for r in EMULATOR_REMOTES if r[0] in PRIVATE_REMOTES and any(
        repo["url"] == r[0] for repo in plan.repos)}
    providers.sort(key=lambda provider: provider not in needed)
    for provider in providers[: counts.get("GitCredential", 0)]:
        plan.git_credentials.append({
            "git_provider": provider,
            "git_username": f"{names.pick(_FIRST_NAMES)}-{names.pick(TEAMS)}-bot",
            "token": f"fill-{_hex(rng, 32)}"})
    for _ in range(counts.get("Notebook", 0)):
        team, noun, verb = names.pick(TEAMS), names.pick(NOUNS), names.pick(VERBS)
        language = rng.choice(("PYTHON", "PYTHON", "SQL"))
        path = names.unique("notebook", f"/Shared/{team}/{noun}_{verb}")
        body = (f"display(spark.table('{noun}'))\n" if language == "PYTHON"
                else f"SELECT count(*) FROM {noun}\n")
        plan.notebooks.append({"path": path, "language": language,
                               "content": _NOTEBOOK_LANGUAGES[language] + body})


def _plan_unity_catalog(plan: Plan, rng: random.Random, names: Names) -> None:
    counts = plan.counts
    for _ in range(counts.get("StorageCredential", 0)):
        team = names.pick(TEAMS)
        name = names.unique("storage-credential", f"{team}-{names.pick(_STORAGE_STEMS)}-cred")
        identity = ({"aws_iam_role": {"role_arn": f"arn:aws:iam::123456789012:role/{name}"}}
                    if rng.random() < 0.3 else
                    {"azure_managed_identity": {"access_connector_id": (
                        f"/subscriptions/{_uuid(rng)}/resourceGroups/rg-{team}/providers/"
                        f"Microsoft.Databricks/accessConnectors/ac-{team}")}})
        plan.storage_credentials.append({"name": name, "comment": f"{team} storage",
                                         **identity})
    for index in range(counts.get("ExternalLocation", 0)):
        credential = plan.storage_credentials[index % len(plan.storage_credentials)]["name"]
        name = names.unique("external-location", f"{names.pick(TEAMS)}_{names.pick(NOUNS)}")
        plan.locations.append({
            "name": name, "credential_name": credential, "read_only": rng.random() < 0.2,
            "url": f"abfss://{names.pick(_STORAGE_STEMS)}@fill{_hex(rng, 6)}.dfs.core."
                   f"windows.net/{name}"})
    for _ in range(counts.get("Catalog", 0)):
        team = names.pick(TEAMS).replace("-", "_")
        plan.catalogs.append({
            "name": names.unique("catalog", f"{team}_{names.pick(ENVIRONMENTS)}"),
            "comment": f"{team} data", "properties": {"team": team}})
    for index in range(counts.get("Schema", 0)):
        catalog = plan.catalogs[index % len(plan.catalogs)]["name"]
        name = names.unique(f"schema:{catalog}", names.pick(NOUNS))
        plan.schemas.append({"catalog_name": catalog, "name": name,
                             "comment": f"{name} tables"})
    for index in range(counts.get("Volume", 0)):
        schema = plan.schemas[index % len(plan.schemas)]
        full = f"{schema['catalog_name']}.{schema['name']}"
        volume = {"catalog_name": schema["catalog_name"], "schema_name": schema["name"],
                  "name": names.unique(f"volume:{full}", names.pick(_VOLUME_NAMES)),
                  "volume_type": "MANAGED"}
        if plan.locations and index % 3 == 1:  # an external one, under a location made here
            location = plan.locations[index % len(plan.locations)]
            volume.update(volume_type="EXTERNAL",
                          storage_location=f"{location['url']}/volumes/{full}.{volume['name']}")
        plan.volumes.append(volume)
    securables = (
        [("catalog", c["name"]) for c in plan.catalogs]
        + [("schema", f"{s['catalog_name']}.{s['name']}") for s in plan.schemas]
        + [("volume", f"{v['catalog_name']}.{v['schema_name']}.{v['name']}")
           for v in plan.volumes]
        + [("external_location", x["name"]) for x in plan.locations]
        + [("storage_credential", c["name"]) for c in plan.storage_credentials])
    rng.shuffle(securables)
    securables += [("catalog", name) for name in CATALOGS]
    principals = ([g["display_name"] for g in plan.groups] + list(INITIAL_GROUPS)
                  + [u["user_name"] for u in plan.users] + list(USERS))
    for securable_type, full_name in securables[: counts.get("Grants", 0)]:
        privileges = _PRIVILEGES[securable_type]
        plan.grants.append((securable_type, full_name, [
            (principal, sorted(rng.sample(privileges, rng.randint(1, min(3, len(privileges))))))
            for principal in rng.sample(principals, min(len(principals), rng.randint(1, 3)))]))
    _plan_service_credentials(plan, rng, names)


def _plan_service_credentials(plan: Plan, rng: random.Random, names: Names) -> None:
    """Service credentials, named in the storage credentials' namespace (the service's is
    one for both); planned last, so the other kinds' plan stays what it was without them."""
    for _ in range(plan.counts.get("ServiceCredential", 0)):
        team = names.pick(TEAMS)
        name = names.unique("storage-credential", f"{team}-{rng.choice(_SERVICE_STEMS)}-service")
        draw = rng.random()
        identity: dict[str, Any] = (
            {"aws_iam_role": {"role_arn": f"arn:aws:iam::123456789012:role/{name}"}}
            if draw < 0.3 else {"databricks_gcp_service_account": {}} if draw < 0.45 else
            {"azure_managed_identity": {"access_connector_id": (
                f"/subscriptions/{_uuid(rng)}/resourceGroups/rg-{team}/providers/"
                f"Microsoft.Databricks/accessConnectors/ac-{team}")}})
        plan.service_credentials.append({"name": name, "comment": f"{team} cloud services",
                                         **identity})


# --- making it -----------------------------------------------------------------------------------


def _sdk_call(method: Callable[..., Any], data_class: Any, data: Mapping[str, Any],
              **extra: Any) -> Any:
    """`method` with `data` as the SDK's typed arguments (`data_class.from_dict`); every key
    of `data` must be one the SDK knows, so nothing is dropped on the way."""
    value = data_class.from_dict(dict(data))
    known = {f.name for f in dataclasses.fields(value)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"{data_class.__name__} has no {unknown}")
    parameters = inspect.signature(method).parameters
    kwargs = {name: getattr(value, name) for name in data if name in parameters}
    return method(**kwargs, **extra)


# A reference of the plan to an object made earlier, `{kind:index}`; never the service's own
# `{{job.parameters.x}}`.
_REFERENCE = re.compile(r"(?<!\{)\{(principal|policy|cluster|repo|job):(\d+)\}(?!\})")


def _resolve(value: Any, refs: Mapping[str, list[str]]) -> Any:
    """`{kind:index}` in the planned settings replaced by the ids made (a job id alone as a
    number)."""
    if isinstance(value, str):
        whole = _REFERENCE.fullmatch(value)
        if whole and whole.group(1) == "job":
            return int(refs["job"][int(whole.group(2))])
        return _REFERENCE.sub(lambda m: str(refs[m.group(1)][int(m.group(2))]), value)
    if isinstance(value, dict):
        return {k: _resolve(v, refs) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, refs) for v in value]
    return value


def _client(target: Any) -> Any:
    from databricks.sdk import WorkspaceClient

    if isinstance(target, WorkspaceClient):
        return target
    from workspace_emulator.testing import fetch_token

    return WorkspaceClient(host=target.base_url, token=fetch_token(target), auth_type="pat")


def fill(
    client_or_info: Any,
    size: int = DEFAULT_SIZE,
    random_state: int = DEFAULT_RANDOM_STATE,
    *,
    application_ids: Sequence[str] = EMULATOR_APPLICATION_IDS,
    workspace_ids: Sequence[int] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    account_id: str = EMULATOR_ACCOUNT_ID,
    kinds: Sequence[str] = KINDS,
) -> Filled:
    """Makes `size` objects (`plan_counts(size)` per kind) in the workspace, each through the
    official SDK: `client_or_info` is a `databricks.sdk.WorkspaceClient`, or an emulator's
    `EmulatorInfo` (its bootstrap principal signs in). `application_ids`: applications that
    may become service principals (the rest are made by display name). `workspace_ids`: this
    workspace's id and others of the metastore that catalogs are bound to (default: this
    workspace's id from the SDK, then the emulator's others). `progress(kind, done, of)` is
    called after each kind. `account_id`: the workspace's account, where the filler is made
    a user of each principal it makes (jobs run as them). `kinds`: KINDS, or with any of
    MORE_KINDS (ALL_KINDS: all of them)."""
    started = time.monotonic()
    kinds = checked_kinds(kinds)
    w = _client(client_or_info)
    plan = make_plan(size, random_state, application_ids, kinds)
    filled = Filled(base_url=str(w.config.host), random_state=random_state, size=size,
                    made={kind: [] for kind in kinds})
    maker = _Maker(w, plan, filled, workspace_ids, progress, account_id)
    maker.run()
    filled.seconds = time.monotonic() - started
    return filled


class _Maker:
    def __init__(self, w: Any, plan: Plan, filled: Filled, workspace_ids: Sequence[int] | None,
                 progress: Callable[[str, int, int], None] | None, account_id: str) -> None:
        self.w, self.plan, self.filled = w, plan, filled
        self.account_id = account_id
        self.workspace_ids = workspace_ids
        self.progress = progress
        self.refs: dict[str, list[str]] = {}
        self.principal_ids: list[str] = []  # SCIM ids
        self.application_ids: list[str] = []
        self.group_ids: list[str] = []
        self.user_ids: dict[str, str] = {}
        self.initial_group_ids: dict[str, str] = {}
        self.repo_ids: list[str] = []

    def run(self) -> None:
        steps = (
            ("ServicePrincipal", self.principals),
            ("ServicePrincipalSecret", self.principal_secrets),
            ("Group", self.groups), ("GroupMember", self.members),
            ("SecretScope", self.scopes), ("Secret", self.secrets), ("SecretAcl", self.acls),
            ("ClusterPolicy", self.policies), ("Cluster", self.clusters),
            # A private remote is cloned with the filler's Git credential for its provider.
            ("GitCredential", self.git_credentials),
            ("Repo", self.repos), ("RepoBranch", self.repo_branches),
            ("Job", self.jobs), ("JobPermissions", self.job_permissions),
            ("Permissions", self.object_permissions), ("IpAccessList", self.ip_lists),
            ("CatalogBinding", self.catalog_bindings),
            ("User", self.users), ("InstancePool", self.pools),
            ("SqlWarehouse", self.warehouses), ("Notebook", self.notebooks),
            ("StorageCredential", self.storage_credentials),
            ("ServiceCredential", self.service_credentials),
            ("ExternalLocation", self.locations), ("Catalog", self.catalogs),
            ("Schema", self.schemas), ("Volume", self.volumes), ("Grants", self.grants),
        )
        for kind, step in steps:
            if kind not in self.plan.counts:
                continue
            step()
            if self.progress is not None:
                self.progress(kind, len(self.filled.made[kind]), self.plan.counts[kind])

    # identities

    def principals(self) -> None:
        from databricks.sdk.service import iam

        for principal in self.plan.principals:
            made = self.w.service_principals.create(
                display_name=principal["display_name"],
                application_id=principal.get("application_id"),
                entitlements=[iam.ComplexValue(value=e)
                              for e in principal.get("entitlements", [])] or None,
                external_id=principal.get("external_id"),
                active=principal.get("active", True),
            )
            self.principal_ids.append(made.id)
            self.application_ids.append(made.application_id)
            self.filled.add("ServicePrincipal", made.id, principal["display_name"])
            self.become_user_of(made.application_id)
        self.refs["principal"] = self.application_ids

    def become_user_of(self, application_id: str) -> None:
        """Grants the filler the principal's user role, which a job's run_as naming the
        principal needs."""
        from databricks.sdk.service import iam

        me = self.w.current_user.me().user_name
        proxy = self.w.account_access_control_proxy
        name = (f"accounts/{self.account_id}/servicePrincipals/{application_id}"
                "/ruleSets/default")
        etag = proxy.get_rule_set(name=name, etag="").etag
        proxy.update_rule_set(name=name, rule_set=iam.RuleSetUpdateRequest(
            name=name, etag=etag, grant_rules=[iam.GrantRule(
                role="roles/servicePrincipal.user", principals=[f"servicePrincipals/{me}"])]))

    def principal_secrets(self) -> None:
        numbers: dict[int, int] = {}
        for owner, lifetime in self.plan.principal_secrets:
            made = self.w.service_principal_secrets_proxy.create(
                service_principal_id=self.principal_ids[owner], lifetime=lifetime)
            numbers[owner] = numbers.get(owner, 0) + 1
            name = f"{self.plan.principals[owner]['display_name']}#{numbers[owner]}"
            self.filled.add("ServicePrincipalSecret", f"{self.principal_ids[owner]}/{made.id}",
                            name)

    def _member_id(self, member: tuple[str, Any]) -> str:
        kind, which = member
        if kind == "user":
            return self.user_ids[which]
        if kind == "principal":
            return self.principal_ids[which]
        return self.group_ids[which]

    def _member_name(self, member: tuple[str, Any]) -> str:
        kind, which = member
        if kind == "user":
            return which
        if kind == "principal":
            return self.plan.principals[which]["display_name"]
        return self.plan.groups[which]["display_name"]

    def groups(self) -> None:
        from databricks.sdk.service import iam

        self.user_ids = {user.user_name: user.id for user in self.w.users.list()}
        self.initial_group_ids = {
            group.display_name: group.id for group in self.w.groups.list()
            if group.display_name in INITIAL_GROUPS}
        # Groups are made members of groups made before them, so each is made first with the
        # members that are not groups of its own batch; those come by PATCH (members()).
        for index, group in enumerate(self.plan.groups):
            members = [iam.ComplexValue(value=self._member_id(member))
                       for g, member, at_create in self.plan.members
                       if at_create and g == index and member[0] != "group"]
            made = self.w.groups.create(
                display_name=group["display_name"],
                entitlements=[iam.ComplexValue(value=e)
                              for e in group.get("entitlements", [])] or None,
                external_id=group.get("external_id"),
                members=members or None,
            )
            self.group_ids.append(made.id)
            self.filled.add("Group", made.id, group["display_name"])

    def members(self) -> None:
        from databricks.sdk.service import iam

        for group, member, at_create in self.plan.members:
            group_id = (self.initial_group_ids[group] if isinstance(group, str)
                        else self.group_ids[group])
            group_name = group if isinstance(group, str) else \
                self.plan.groups[group]["display_name"]
            member_id = self._member_id(member)
            if not (at_create and member[0] != "group"):
                self.w.groups.patch(
                    group_id,
                    operations=[iam.Patch(op=iam.PatchOp.ADD,
                                          value={"members": [{"value": member_id}]})],
                    schemas=[iam.PatchSchema.URN_IETF_PARAMS_SCIM_API_MESSAGES_2_0_PATCH_OP],
                )
            self.filled.add("GroupMember", f"{group_id}|{member_id}",
                            f"{group_name}|{self._member_name(member)}")

    # secrets

    def scopes(self) -> None:
        from databricks.sdk.service import workspace

        for scope in self.plan.scopes:
            if "keyvault" in scope:
                self.w.secrets.create_scope(
                    scope=scope["name"],
                    scope_backend_type=workspace.ScopeBackendType.AZURE_KEYVAULT,
                    backend_azure_keyvault=workspace.AzureKeyVaultSecretScopeMetadata(
                        **scope["keyvault"]))
            else:
                self.w.secrets.create_scope(
                    scope=scope["name"],
                    initial_manage_principal=scope.get("initial_manage_principal"))
            self.filled.add("SecretScope", scope["name"], scope["name"])

    def secrets(self) -> None:
        for secret in self.plan.secrets:
            self.w.secrets.put_secret(secret["scope"], secret["key"],
                                      string_value=secret.get("string_value"),
                                      bytes_value=secret.get("bytes_value"))
            name = f"{secret['scope']}/{secret['key']}"
            self.filled.add("Secret", name, name)

    def _principal_name(self, principal: tuple[str, Any]) -> str:
        """The name ACLs and permissions give a principal: a user name, a group's display
        name, a service principal's application id."""
        kind, which = principal
        if kind == "user":
            return which
        if kind == "principal":
            return self.application_ids[which]
        return which if isinstance(which, str) else self.plan.groups[which]["display_name"]

    def acls(self) -> None:
        from databricks.sdk.service import workspace

        for scope, principal, permission in self.plan.acls:
            name = self._principal_name(principal)
            self.w.secrets.put_acl(scope, name, workspace.AclPermission(permission))
            readable = (self.plan.principals[principal[1]]["display_name"]
                        if principal[0] == "principal" else name)
            self.filled.add("SecretAcl", f"{scope}/{name}", f"{scope}/{readable}")

    # compute

    def policies(self) -> None:
        from databricks.sdk.service import compute

        ids = []
        for policy in self.plan.policies:
            fields = {k: v for k, v in policy.items() if k not in ("template", "team")}
            for name in ("definition", "policy_family_definition_overrides"):
                if name in fields:
                    fields[name] = json.dumps(fields[name])
            made = _sdk_call(self.w.cluster_policies.create, compute.Policy, fields)
            ids.append(made.policy_id)
            self.filled.add("ClusterPolicy", made.policy_id, policy["name"])
        self.refs["policy"] = ids

    def clusters(self) -> None:
        from databricks.sdk.service import compute

        ids = []
        for cluster in self.plan.clusters:
            spec = {"cluster_name": cluster["cluster_name"], **cluster["spec"]}
            if "policy" in cluster:
                spec["policy_id"] = self.refs["policy"][cluster["policy"]]
            waiter = _sdk_call(self.w.clusters.create, compute.ClusterSpec, spec)
            cluster_id = waiter.cluster_id
            ids.append(cluster_id)
            if cluster.get("libraries"):
                self.w.libraries.install(cluster_id, [compute.Library.from_dict(library)
                                                      for library in cluster["libraries"]])
            if cluster["pinned"]:
                self.w.clusters.pin(cluster_id)
            if cluster["terminated"]:
                self.w.clusters.delete(cluster_id)  # terminates it; it stays listed
            self.filled.add("Cluster", cluster_id, cluster["cluster_name"])
        self.refs["cluster"] = ids

    # repos

    def repos(self) -> None:
        from databricks.sdk.service import workspace

        ids = []
        for repo in self.plan.repos:
            sparse = repo.get("sparse_checkout")
            made = self.w.repos.create(
                url=repo["url"], provider=repo["provider"], path=repo["path"],
                sparse_checkout=workspace.SparseCheckout(patterns=sparse) if sparse else None)
            ids.append(str(made.id))
            self.filled.add("Repo", made.id, repo["path"])
        self.refs["repo"] = [repo["path"] for repo in self.plan.repos]
        self.repo_ids = ids

    def repo_branches(self) -> None:
        for repo, repo_id in zip(self.plan.repos, self.repo_ids, strict=True):
            if "branch" in repo:
                self.w.repos.update(int(repo_id), branch=repo["branch"])
                self.filled.add("RepoBranch", repo_id, f"{repo['path']}@{repo['branch']}")

    # jobs

    def _job_acl(self, entries: Iterable[Mapping[str, Any]]) -> list[Any]:
        from databricks.sdk.service import jobs

        requests = []
        for entry in entries:
            kind, _ = entry["principal"]
            field_name = {"user": "user_name", "group": "group_name",
                          "principal": "service_principal_name"}[kind]
            requests.append(jobs.JobAccessControlRequest(
                **{field_name: self._principal_name(entry["principal"])},
                permission_level=jobs.JobPermissionLevel(entry["level"])))
        return requests

    def jobs(self) -> None:
        from databricks.sdk.service import jobs

        ids: list[str] = []
        self.refs["job"] = ids
        for job in self.plan.jobs:
            settings = _resolve(job["settings"], self.refs)
            extra = {"access_control_list": self._job_acl(job["acl"])} if job["acl"] else {}
            made = _sdk_call(self.w.jobs.create, jobs.JobSettings, settings, **extra)
            ids.append(str(made.job_id))
            self.filled.add("Job", made.job_id, settings["name"])
            self.filled.families[settings["name"]] = sorted(job_families(settings))

    def job_permissions(self) -> None:
        for job, job_id in zip(self.plan.jobs, self.refs["job"], strict=True):
            if job.get("set_acl"):
                method = (self.w.jobs.update_permissions if job.get("patch")
                          else self.w.jobs.set_permissions)
                method(job_id, access_control_list=self._job_acl(job["set_acl"]))
            if job["acl"] or job.get("set_acl"):
                self.filled.add("JobPermissions", job_id, job["settings"]["name"])

    def object_permissions(self) -> None:
        from databricks.sdk.service import iam

        for permission in self.plan.permissions:
            kind, which = permission["target"]
            if kind == "fixed":
                object_id, object_name = which, which
            elif kind == "repo":
                object_id, object_name = self.repo_ids[which], self.plan.repos[which]["path"]
            elif kind == "cluster":
                object_id = self.refs["cluster"][which]
                object_name = self.plan.clusters[which]["cluster_name"]
            else:
                object_id = self.refs["policy"][which]
                object_name = self.plan.policies[which]["name"]
            entries = []
            for entry in permission["entries"]:
                field_name = {"user": "user_name", "group": "group_name",
                              "principal": "service_principal_name"}[entry["principal"][0]]
                entries.append(iam.AccessControlRequest(
                    **{field_name: self._principal_name(entry["principal"])},
                    permission_level=iam.PermissionLevel(entry["level"])))
            method = self.w.permissions.update if permission["patch"] else self.w.permissions.set
            method(permission["object_type"], object_id, access_control_list=entries)
            self.filled.add("Permissions", f"{permission['object_type']}/{object_id}",
                            f"{permission['object_type']}/{object_name}")

    # workspace settings

    def ip_lists(self) -> None:
        from databricks.sdk.service import settings

        for ip_list in self.plan.ip_lists:
            made = self.w.ip_access_lists.create(
                label=ip_list["label"], list_type=settings.ListType(ip_list["list_type"]),
                ip_addresses=ip_list["ip_addresses"])
            list_id = made.ip_access_list.list_id
            if ip_list["disabled"]:
                self.w.ip_access_lists.update(list_id, enabled=False)
            self.filled.add("IpAccessList", list_id, ip_list["label"])

    def _workspace_ids(self) -> list[int]:
        if self.workspace_ids is not None:
            return list(self.workspace_ids)
        try:
            own = int(self.w.get_workspace_id())
        except Exception:  # an address that does not say; the emulator's packaged data
            own = EMULATOR_WORKSPACE_IDS[0]
        return [own, *(i for i in EMULATOR_WORKSPACE_IDS if i != own)]

    def catalog_bindings(self) -> None:
        from databricks.sdk.service import catalog

        if not self.plan.bindings:
            return
        workspace_ids = self._workspace_ids()
        for binding in self.plan.bindings:
            self.w.catalogs.update(binding["catalog"],
                                   isolation_mode=catalog.CatalogIsolationMode(
                                       binding["isolation_mode"]))
            self.w.workspace_bindings.update_bindings(
                "catalog", binding["catalog"],
                add=[catalog.WorkspaceBinding(
                    workspace_id=workspace_ids[index % len(workspace_ids)],
                    binding_type=catalog.WorkspaceBindingBindingType(binding_type))
                    for index, binding_type in binding["bindings"]])
            self.filled.add("CatalogBinding", binding["catalog"], binding["catalog"])


    # MORE_KINDS

    def users(self) -> None:
        from databricks.sdk.service import iam

        for user in self.plan.users:
            made = self.w.users.create(
                user_name=user["user_name"], display_name=user["display_name"],
                entitlements=[iam.ComplexValue(value=e) for e in user["entitlements"]] or None)
            self.filled.add("User", made.id, user["user_name"])

    def pools(self) -> None:
        for pool in self.plan.pools:
            made = self.w.instance_pools.create(**pool)
            self.filled.add("InstancePool", made.instance_pool_id, pool["instance_pool_name"])

    def warehouses(self) -> None:
        from databricks.sdk.service import sql

        for warehouse in self.plan.warehouses:
            # Not waited for: a team's script starts it and moves on.
            made = self.w.warehouses.create(
                name=warehouse["name"], cluster_size=warehouse["cluster_size"],
                max_num_clusters=warehouse["max_num_clusters"],
                auto_stop_mins=warehouse["auto_stop_mins"],
                enable_serverless_compute=warehouse["serverless"],
                warehouse_type=sql.CreateWarehouseRequestWarehouseType.PRO,
                tags=sql.EndpointTags(custom_tags=[
                    sql.EndpointTagPair(key="team", value=warehouse["team"])]))
            self.filled.add("SqlWarehouse", made.id, warehouse["name"])

    def git_credentials(self) -> None:
        for credential in self.plan.git_credentials:
            made = self.w.git_credentials.create(
                credential["git_provider"], git_username=credential["git_username"],
                personal_access_token=credential["token"])
            self.filled.add("GitCredential", made.credential_id,
                            f"{credential['git_provider']}/{credential['git_username']}")

    def notebooks(self) -> None:
        from databricks.sdk.service import workspace

        folders: set[str] = set()
        for notebook in self.plan.notebooks:
            folder = notebook["path"].rsplit("/", 1)[0]
            if folder not in folders:
                self.w.workspace.mkdirs(folder)
                folders.add(folder)
            self.w.workspace.import_(
                notebook["path"], format=workspace.ImportFormat.SOURCE,
                language=workspace.Language(notebook["language"]),
                content=base64.b64encode(notebook["content"].encode()).decode())
            self.filled.add("Notebook", notebook["path"], notebook["path"])

    def storage_credentials(self) -> None:
        from databricks.sdk.service import catalog

        for credential in self.plan.storage_credentials:
            identity: dict[str, Any] = {}
            if "aws_iam_role" in credential:
                identity["aws_iam_role"] = catalog.AwsIamRoleRequest(
                    **credential["aws_iam_role"])
            else:
                identity["azure_managed_identity"] = catalog.AzureManagedIdentityRequest(
                    **credential["azure_managed_identity"])
            made = self.w.storage_credentials.create(
                credential["name"], comment=credential["comment"], **identity)
            self.filled.add("StorageCredential", made.name, credential["name"])

    def service_credentials(self) -> None:
        from databricks.sdk.service import catalog

        for credential in self.plan.service_credentials:
            identity: dict[str, Any] = {}
            if "aws_iam_role" in credential:
                identity["aws_iam_role"] = catalog.AwsIamRole(**credential["aws_iam_role"])
            elif "databricks_gcp_service_account" in credential:
                identity["databricks_gcp_service_account"] = catalog.DatabricksGcpServiceAccount()
            else:
                identity["azure_managed_identity"] = catalog.AzureManagedIdentity(
                    **credential["azure_managed_identity"])
            made = self.w.credentials.create_credential(
                credential["name"], purpose=catalog.CredentialPurpose.SERVICE,
                comment=credential["comment"], **identity)
            self.filled.add("ServiceCredential", made.name, credential["name"])

    def locations(self) -> None:
        for location in self.plan.locations:
            made = self.w.external_locations.create(
                location["name"], location["url"], location["credential_name"],
                read_only=location["read_only"])
            self.filled.add("ExternalLocation", made.name, location["name"])

    def catalogs(self) -> None:
        for spec in self.plan.catalogs:
            made = self.w.catalogs.create(spec["name"], comment=spec["comment"],
                                          properties=spec["properties"])
            self.filled.add("Catalog", made.name, spec["name"])

    def schemas(self) -> None:
        for schema in self.plan.schemas:
            made = self.w.schemas.create(schema["name"], schema["catalog_name"],
                                         comment=schema["comment"])
            self.filled.add("Schema", made.full_name, made.full_name)

    def volumes(self) -> None:
        from databricks.sdk.service import catalog

        for volume in self.plan.volumes:
            made = self.w.volumes.create(
                volume["catalog_name"], volume["schema_name"], volume["name"],
                catalog.VolumeType(volume["volume_type"]),
                storage_location=volume.get("storage_location"))
            self.filled.add("Volume", made.full_name, made.full_name)

    def grants(self) -> None:
        from databricks.sdk.service import catalog

        for securable_type, full_name, entries in self.plan.grants:
            self.w.grants.update(securable_type, full_name, changes=[
                catalog.PermissionsChange(principal=principal,
                                          add=[catalog.Privilege(p) for p in privileges])
                for principal, privileges in entries])
            self.filled.add("Grants", f"{securable_type}/{full_name}",
                            f"{securable_type}/{full_name}")


# --- the command ----------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tools.fill_workspace",
        description="Fill a workspace, through the official SDK, with realistic existing "
        "objects of every kind the project manages.")
    parser.add_argument("--base-url", help="the workspace's address (default: the emulator "
                        "info file's base_url)")
    parser.add_argument("--token-from-emulator-info", metavar="FILE", type=Path,
                        help="sign in as the bootstrap principal of the emulator that wrote "
                        "FILE (its --info-file); without it the SDK signs in from the "
                        "environment (DATABRICKS_TOKEN, DATABRICKS_CLIENT_ID/SECRET, a "
                        "profile, ...)")
    parser.add_argument("--size", type=int, default=DEFAULT_SIZE,
                        help=f"objects to make (default {DEFAULT_SIZE}, at least {MIN_SIZE})")
    parser.add_argument("--random-state", type=int, default=DEFAULT_RANDOM_STATE,
                        help="the same random state, the same names "
                             f"(default {DEFAULT_RANDOM_STATE})")
    parser.add_argument("--all-kinds", action="store_true",
                        help="make the kinds of MORE_KINDS too (Unity Catalog, SQL "
                        "warehouses, instance pools, users, notebooks, Git credentials)")
    parser.add_argument("--json", action="store_true",
                        help="print what was made as JSON (ids and names per kind)")
    parser.add_argument("--plan", action="store_true",
                        help="print how many of each kind --size makes, and make nothing")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    kinds = ALL_KINDS if args.all_kinds else KINDS
    if args.plan:
        for kind, count in plan_counts(args.size, kinds).items():
            print(f"{kind:<24} {count:>5}")
        return 0
    from databricks.sdk import WorkspaceClient

    if args.token_from_emulator_info is not None:
        from workspace_emulator.testing import EmulatorInfo, fetch_token

        info = EmulatorInfo.from_json(args.token_from_emulator_info.read_text())
        client = WorkspaceClient(host=args.base_url or info.base_url, token=fetch_token(info),
                                 auth_type="pat")
    elif args.base_url:
        client = WorkspaceClient(host=args.base_url)
    else:
        print("give --base-url, or --token-from-emulator-info FILE", file=sys.stderr)
        return 2

    def progress(kind: str, done: int, of: int) -> None:
        print(f"  {kind}: {done} of {of}", file=sys.stderr, flush=True)

    filled = fill(client, size=args.size, random_state=args.random_state, progress=progress,
                  kinds=kinds)
    print(json.dumps(filled.as_dict(), indent=2) if args.json else filled.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
