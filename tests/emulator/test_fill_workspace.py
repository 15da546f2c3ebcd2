"""tools/fill_workspace.py against fresh emulators: every kind the project manages has
objects, seen through the official SDK's own list and get calls; the jobs show every family
of settings, each job as the service holds it passing the Job kind's check; the same random_state on
another fresh emulator makes the same names; the command line fills from an emulator's info
file."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest
from databricks.sdk import WorkspaceClient

from providers.jobs.job_settings import check_settings
from tests.conftest import fresh_emulator
from tests.fill_support import FilledWorkspace, fill_emulator
from tools.fill_workspace import (
    ALL_KINDS,
    DEFAULT_SIZE,
    JOB_FAMILIES,
    KINDS,
    MIN_SIZE,
    MORE_KINDS,
    PRIVATE_REMOTES,
    fill,
    job_families,
    main,
    make_plan,
    min_size,
    plan_counts,
)
from workspace_emulator.testing import fetch_token, request_log

RANDOM_STATE = 33
ALL_KINDS_SIZE = 130


@pytest.fixture(scope="module")
def filled() -> Iterator[FilledWorkspace]:
    with fresh_emulator() as info:
        yield fill_emulator(info, DEFAULT_SIZE, RANDOM_STATE)


@pytest.fixture(scope="module")
def sdk(filled: FilledWorkspace) -> WorkspaceClient:
    return WorkspaceClient(host=filled.base_url, token=fetch_token(filled.info), auth_type="pat")


def test_it_makes_the_planned_count_of_every_kind(filled: FilledWorkspace) -> None:
    assert filled.filled.counts() == plan_counts(DEFAULT_SIZE)
    assert filled.filled.total == DEFAULT_SIZE
    assert all(filled.filled.counts()[kind] > 0 for kind in KINDS)
    for kind in KINDS:
        names = filled.filled.names(kind)
        assert len(set(names)) == len(names), kind


def test_every_write_went_through_the_public_api(filled: FilledWorkspace) -> None:
    writes = [r for r in request_log(filled.info)
              if r["service"] == "platform" and r["method"] != "GET"]
    assert writes and not [r for r in writes if r["path"].startswith("/_emulator")]
    assert all(r["status"] < 300 for r in writes), [r for r in writes if r["status"] >= 300]
    # all of them as the workspace's bootstrap principal, none through an admin endpoint
    assert {r["client"] for r in writes} == {filled.info.client_id}


def test_identities(filled: FilledWorkspace, sdk: WorkspaceClient) -> None:
    made = filled.filled
    principals = {p.id: p for p in sdk.service_principals.list()}
    assert set(made.ids("ServicePrincipal")) <= set(principals)
    ours = [principals[i] for i in made.ids("ServicePrincipal")]
    assert [p.display_name for p in ours] == made.names("ServicePrincipal")
    assert any(p.active is False for p in ours)  # a deactivated one
    # some made by display name only: the service gave them an application of their own
    from tools.fill_workspace import EMULATOR_APPLICATION_IDS
    assert any(p.application_id not in EMULATOR_APPLICATION_IDS for p in ours)
    assert any(p.application_id in EMULATOR_APPLICATION_IDS for p in ours)

    for made_id in made.ids("ServicePrincipalSecret"):
        principal_id, secret_id = made_id.split("/")
        listed = sdk.service_principal_secrets_proxy.list(service_principal_id=principal_id)
        assert secret_id in {s.id for s in listed}

    groups = {g.id: g for g in sdk.groups.list()}
    assert set(made.ids("Group")) <= set(groups)
    nested = False
    for made_id in made.ids("GroupMember"):
        group_id, member_id = made_id.split("|")
        members = {m.value: m for m in groups[group_id].members or []}
        assert member_id in members, made_id
        nested = nested or member_id in groups
    assert nested, "no group is a member of another"


def test_secrets(filled: FilledWorkspace, sdk: WorkspaceClient) -> None:
    made = filled.filled
    scopes = {s.name: s for s in sdk.secrets.list_scopes()}
    assert set(made.ids("SecretScope")) <= set(scopes)
    assert any(str(getattr(scopes[n].backend_type, "value", "")) == "AZURE_KEYVAULT"
               for n in made.ids("SecretScope"))
    for made_id in made.ids("Secret"):
        scope, key = made_id.split("/", 1)
        assert key in {s.key for s in sdk.secrets.list_secrets(scope)}
    for made_id in made.ids("SecretAcl"):
        scope, principal = made_id.split("/", 1)
        assert principal in {a.principal for a in sdk.secrets.list_acls(scope)}


def test_compute(filled: FilledWorkspace, sdk: WorkspaceClient) -> None:
    made = filled.filled
    policies = {p.policy_id: p for p in sdk.cluster_policies.list()}
    assert set(made.ids("ClusterPolicy")) <= set(policies)
    assert any(policies[i].policy_family_id for i in made.ids("ClusterPolicy"))
    assert any(policies[i].definition and not policies[i].policy_family_id
               for i in made.ids("ClusterPolicy"))
    clusters = {c.cluster_id: c for c in sdk.clusters.list()}
    ours = [clusters[i] for i in made.ids("Cluster")]
    assert [c.cluster_name for c in ours] == made.names("Cluster")
    assert any(c.policy_id in policies for c in ours), "no cluster made under a policy"


def test_repos_ip_lists_and_catalogs(filled: FilledWorkspace, sdk: WorkspaceClient) -> None:
    made = filled.filled
    repos = {str(r.id): r for r in sdk.repos.list()}
    assert set(made.ids("Repo")) <= set(repos)
    for repo_id, name in zip(made.ids("RepoBranch"), made.names("RepoBranch"), strict=True):
        assert repos[repo_id].branch == name.split("@", 1)[1]
    lists = {item.list_id: item for item in sdk.ip_access_lists.list()}
    assert set(made.ids("IpAccessList")) <= set(lists)
    assert any(lists[i].enabled is False for i in made.ids("IpAccessList"))
    for name in made.ids("CatalogBinding"):
        mode = sdk.catalogs.get(name).isolation_mode
        assert mode is not None and mode.value == "ISOLATED"
        bindings = sdk.workspace_bindings.get_bindings("catalog", name)
        assert len(list(bindings)) >= 2


def test_jobs_show_every_family_of_settings(filled: FilledWorkspace, sdk: WorkspaceClient
                                            ) -> None:
    made = filled.filled
    found: set[str] = set()
    for job_id, name in zip(made.ids("Job"), made.names("Job"), strict=True):
        job = sdk.jobs.get(int(job_id)).settings
        assert job is not None
        settings = job.as_dict()
        assert settings["name"] == name
        families = job_families(settings)
        # the service keeps what the script sent (it may add its defaults)
        assert set(made.families[name]) <= families, name
        # and the Job kind can declare it as the service holds it
        assert check_settings(settings)[1] == [], name
        found |= families
    assert found == set(JOB_FAMILIES), set(JOB_FAMILIES) - found
    multi_task = [j for j in sdk.jobs.list(expand_tasks=True)
                  if j.settings is not None and len(j.settings.tasks or []) > 1]
    assert len(multi_task) >= len(made.ids("Job")) // 2


def test_permissions_have_direct_and_inherited_entries(filled: FilledWorkspace,
                                                       sdk: WorkspaceClient) -> None:
    made = filled.filled
    for job_id in made.ids("JobPermissions"):
        job_acl = sdk.jobs.get_permissions(job_id).access_control_list or []
        job_levels = [p for entry in job_acl for p in entry.all_permissions or []]
        assert any(not p.inherited and getattr(p.permission_level, "value", "") != "IS_OWNER"
                   for p in job_levels), job_id
        assert any(p.inherited for p in job_levels), job_id
    for made_id in made.ids("Permissions"):
        object_type, object_id = made_id.split("/", 1)
        acl = sdk.permissions.get(object_type, object_id).access_control_list or []
        levels = [p for entry in acl for p in entry.all_permissions or []]
        assert any(not p.inherited for p in levels), made_id
        assert any(p.inherited for p in levels), made_id


def listed_names(sdk: WorkspaceClient) -> dict[str, list[str]]:
    """The names of the workspace's objects per kind, as the SDK's list calls show them."""
    groups = list(sdk.groups.list())
    scopes = [s for s in sdk.secrets.list_scopes()
              if getattr(s.backend_type, "value", "") != "AZURE_KEYVAULT"]
    return {
        "ServicePrincipal": sorted(str(p.display_name) for p in sdk.service_principals.list()),
        "Group": sorted(str(g.display_name) for g in groups),
        "GroupMember": sorted(f"{g.display_name}|{m.display}"
                              for g in groups for m in g.members or []),
        "SecretScope": sorted(str(s.name) for s in sdk.secrets.list_scopes()),
        "Secret": sorted(f"{s.name}/{secret.key}" for s in scopes
                         for secret in sdk.secrets.list_secrets(str(s.name))),
        "SecretAcl": sorted(f"{s.name}/{acl.principal}:{getattr(acl.permission, 'value', '')}"
                            for s in scopes for acl in sdk.secrets.list_acls(str(s.name))),
        "ClusterPolicy": sorted(str(p.name) for p in sdk.cluster_policies.list()),
        "Cluster": sorted(str(c.cluster_name) for c in sdk.clusters.list()),
        "Repo": sorted(f"{r.path}@{r.branch}" for r in sdk.repos.list()),
        "Job": sorted(str(j.settings.name) for j in sdk.jobs.list() if j.settings),
        "IpAccessList": sorted(str(i.label) for i in sdk.ip_access_lists.list()),
    }


def test_the_same_random_state_makes_the_same_names_on_a_fresh_workspace(
        filled: FilledWorkspace, sdk: WorkspaceClient) -> None:
    first = listed_names(sdk)
    with fresh_emulator() as info:
        again = fill_emulator(info, DEFAULT_SIZE, RANDOM_STATE).filled
        listed_again = listed_names(
            WorkspaceClient(host=info.base_url, token=fetch_token(info), auth_type="pat"))
    assert listed_again == first
    assert {k: again.names(k) for k in KINDS} == {k: filled.filled.names(k) for k in KINDS}
    assert again.families == filled.filled.families
    # another random_state, other names
    with fresh_emulator() as info:
        other = fill_emulator(info, MIN_SIZE, RANDOM_STATE + 1).filled
    assert other.total == MIN_SIZE
    assert not set(other.names("Job")) & set(filled.filled.names("Job"))


def test_plan_counts_scale_with_size() -> None:
    for size in (MIN_SIZE, DEFAULT_SIZE, 200, 1000):
        counts = plan_counts(size)
        assert sum(counts.values()) == size and all(counts[kind] > 0 for kind in KINDS)
    assert sum(plan_counts(1).values()) == MIN_SIZE
    assert plan_counts(1000)["Job"] > 5 * plan_counts(DEFAULT_SIZE)["Job"]


def test_the_command_fills_from_an_emulator_info_file(tmp_path) -> None:
    info_file = tmp_path / "info.json"
    with fresh_emulator(info_file=str(info_file)) as info:
        result = subprocess.run(
            [sys.executable, "-m", "tools.fill_workspace", "--token-from-emulator-info",
             str(info_file), "--size", str(MIN_SIZE), "--random-state", "5", "--json"],
            capture_output=True, text=True, timeout=300, check=False)
        assert result.returncode == 0, result.stderr
        summary = json.loads(result.stdout)
        assert summary["base_url"].rstrip("/") == info.base_url.rstrip("/")
        assert summary["total"] == MIN_SIZE
        assert summary["job_families"] == sorted(JOB_FAMILIES)
        assert "Job:" in result.stderr  # progress per kind


# --- MORE_KINDS, asked for ----------------------------------------------------------------


@pytest.fixture(scope="module")
def filled_all() -> Iterator[FilledWorkspace]:
    with fresh_emulator() as info:
        yield FilledWorkspace(info, fill(info, size=ALL_KINDS_SIZE, random_state=RANDOM_STATE,
                                         kinds=ALL_KINDS))


def test_all_kinds_are_made_through_the_public_api(filled_all: FilledWorkspace) -> None:
    made = filled_all.filled
    assert made.counts() == plan_counts(ALL_KINDS_SIZE, ALL_KINDS)
    assert made.total == ALL_KINDS_SIZE and all(made.counts()[kind] > 0 for kind in ALL_KINDS)
    writes = [r for r in request_log(filled_all.info)
              if r["service"] == "platform" and r["method"] != "GET"]
    assert all(r["status"] < 300 for r in writes), [r for r in writes if r["status"] >= 300]
    assert {r["client"] for r in writes} == {filled_all.info.client_id}


def test_people_compute_notebooks_and_git_credentials(filled_all: FilledWorkspace) -> None:
    made = filled_all.filled
    sdk = WorkspaceClient(host=filled_all.base_url, token=fetch_token(filled_all.info),
                          auth_type="pat")
    users = {u.id: u.user_name for u in sdk.users.list()}
    assert [users[i] for i in made.ids("User")] == made.names("User")
    pools = {p.instance_pool_id: p.instance_pool_name for p in sdk.instance_pools.list()}
    assert [pools[i] for i in made.ids("InstancePool")] == made.names("InstancePool")
    warehouses = {w.id: w.name for w in sdk.warehouses.list()}
    assert [warehouses[i] for i in made.ids("SqlWarehouse")] == made.names("SqlWarehouse")
    credentials = {str(c.credential_id): f"{c.git_provider}/{c.git_username}"
                   for c in sdk.git_credentials.list()}
    assert [credentials[i] for i in made.ids("GitCredential")] == made.names("GitCredential")
    for path in made.ids("Notebook"):
        status = sdk.workspace.get_status(path)
        assert status.object_type is not None and status.object_type.value == "NOTEBOOK"
    # With Git credentials asked for, the private remote is cloned too (with one of them).
    repos = {r.url for r in sdk.repos.list() if str(r.id) in made.ids("Repo")}
    assert set(PRIVATE_REMOTES) <= repos


def test_unity_catalog(filled_all: FilledWorkspace) -> None:
    made = filled_all.filled
    sdk = WorkspaceClient(host=filled_all.base_url, token=fetch_token(filled_all.info),
                          auth_type="pat")
    assert set(made.ids("StorageCredential")) <= {c.name for c in sdk.storage_credentials.list()}
    locations = {x.name: x for x in sdk.external_locations.list()}
    assert set(made.ids("ExternalLocation")) <= set(locations)
    assert {locations[n].credential_name for n in made.ids("ExternalLocation")} <= set(
        made.ids("StorageCredential"))
    assert set(made.ids("Catalog")) <= {c.name for c in sdk.catalogs.list()}
    for full_name in made.ids("Schema"):
        assert sdk.schemas.get(full_name).full_name == full_name
    volume_types = {sdk.volumes.read(full_name).volume_type for full_name in made.ids("Volume")}
    assert {t.value for t in volume_types if t is not None} == {"MANAGED", "EXTERNAL"}
    for grants_id in made.ids("Grants"):
        securable_type, full_name = grants_id.split("/", 1)
        assignments = sdk.grants.get(securable_type, full_name).privilege_assignments or []
        assert any(a.privileges for a in assignments), grants_id


def test_kinds_are_checked_and_counted() -> None:
    assert set(plan_counts(min_size(ALL_KINDS), ALL_KINDS)) == set(ALL_KINDS)
    assert sum(plan_counts(1, ALL_KINDS).values()) == min_size(ALL_KINDS) > MIN_SIZE
    assert plan_counts(DEFAULT_SIZE) == plan_counts(DEFAULT_SIZE, KINDS)
    with pytest.raises(ValueError, match="Volume needs Schema"):
        plan_counts(DEFAULT_SIZE, (*KINDS, "Catalog", "Volume"))
    with pytest.raises(ValueError, match="missing"):
        plan_counts(DEFAULT_SIZE, MORE_KINDS)
    with pytest.raises(ValueError, match="not made here"):
        plan_counts(DEFAULT_SIZE, (*KINDS, "JobRun"))
    # Without Git credentials no repo is of a remote that needs one.
    urls = {repo["url"] for repo in make_plan(400, RANDOM_STATE, ()).repos}
    assert len(urls) > 1 and not urls & set(PRIVATE_REMOTES)
    with_credentials = make_plan(400, RANDOM_STATE, (), ALL_KINDS)
    assert set(PRIVATE_REMOTES) <= {repo["url"] for repo in with_credentials.repos}
    assert with_credentials.git_credentials[0]["git_provider"] == "azureDevOpsServices"


def test_the_command_plans_all_kinds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--plan", "--all-kinds", "--size", str(ALL_KINDS_SIZE)]) == 0
    printed = dict(line.split() for line in capsys.readouterr().out.splitlines())
    assert {kind: int(count) for kind, count in printed.items()} == plan_counts(
        ALL_KINDS_SIZE, ALL_KINDS)
