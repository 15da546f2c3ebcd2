"""A workspace split across stacks, offline (docs/split.md): `workspace:owns` selects domains
or kinds, a list outside the stack's part is refused naming the remedy, two stacks of one
workspace owning a kind are refused by the project's check, and a reference to an item of a
used stack (`workspace:uses`) passes the config check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from stacks.config_rules import problems as config_problems
from stacks.split import domains, overlaps, owned_keys

BASE = {"baseUrl": "https://w.example"}
# A whole connection (the client secret a config secret), so only the split's problems show.
CONNECTED = {**BASE, "authType": "oauth-m2m", "clientId": "c"}


def problems(values: dict) -> list[str]:
    return config_problems(values, ["clientSecret"])


def test_owns_takes_domains_and_kinds() -> None:
    assert owned_keys({}) is None
    assert owned_keys({"owns": ["identity", "catalogs", "Grants"]}) == {
        *domains()["identity"], "catalogs", "grants"}
    # a domain named as one of its kinds is the domain
    assert owned_keys({"owns": '["jobs"]'}) == set(domains()["jobs"]) >= {
        "jobs", "jobPermissions", "jobRuns"}


def test_a_list_outside_the_stacks_part_is_refused() -> None:
    found = problems({**CONNECTED, "owns": ["jobs", "pipelines"],
                      "groups": [{"name": "g", "display_name": "g"}]})
    assert found == [
        "workspace:groups: the stack owns jobs, pipelines (workspace:owns), not groups: declare "
        "them in the stack that owns them, and name them here by name, by lookup, or by "
        "reference through workspace:uses (docs/split.md)"]
    assert problems({**CONNECTED, "owns": ["job"]})[0].startswith(
        "workspace:owns: 'job' is no domain or kind; one of ")
    assert problems({**CONNECTED, "uses": "platform"}) == [
        "workspace:uses: must be a list of stack names (`platform`, or "
        "`organization/project/stack`)"]


JOB = {"name": "nightly", "tasks": [{"task_key": "main", "existing_cluster": "shared",
                                     "notebook_task": {"notebook_path": "/Shared/etl"}}]}


def test_a_reference_to_a_used_stacks_item_passes_the_check() -> None:
    alone = problems({**CONNECTED, "jobs": [JOB]})
    assert alone == ["workspace:jobs[0].tasks[0].existing_cluster: no cluster named 'shared' "
                     "in workspace:clusters (clusters declared: none)"]
    assert problems({**CONNECTED, "owns": ["jobs"], "uses": ["platform"], "jobs": [JOB]}) == []
    # without `uses`, or where the stack owns the clusters itself, the name must be declared
    assert problems({**CONNECTED, "owns": ["jobs"], "jobs": [JOB]}) == alone
    assert problems({**CONNECTED, "owns": ["jobs", "compute"], "uses": ["platform"],
                     "jobs": [JOB]}) == alone


def test_two_stacks_owning_one_kind_of_one_workspace_are_refused(tmp_path: Path) -> None:
    assert overlaps({
        "platform": {**BASE, "owns": ["identity", "jobs"]},
        "data": {**BASE, "owns": ["jobs"]},
        "other": {"baseUrl": "https://other.example", "owns": ["jobs"]},
        "whole": BASE,  # not split
    }) == [
        (name, f"workspace:owns: takes {key}, which the stack(s) {other} also own on "
               "https://w.example: one stack owns each kind of a workspace")
        for key in sorted(domains()["jobs"])
        for name, other in (("data", "platform"), ("platform", "data"))
    ]
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    for name, owns in (("platform", ["identity", "catalogs"]), ("data", ["jobs", "catalogs"])):
        (tmp_path / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump({"config": {
            **{f"workspace:{k}": v for k, v in CONNECTED.items()},
            "workspace:clientSecret": {"secure": "v1:c2VjcmV0"}, "workspace:owns": owns}}))
    result = subprocess.run([sys.executable, "-m", "stacks.cli", "check", "--project-dir",
                             str(tmp_path)], capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "Pulumi.data.yaml: workspace:owns: takes catalogs, which the stack(s) platform also "
        "own on https://w.example: one stack owns each kind of a workspace",
        "Pulumi.platform.yaml: workspace:owns: takes catalogs, which the stack(s) data also "
        "own on https://w.example: one stack owns each kind of a workspace",
    ]


# docs/split.md, "The local stack in two"
LOCAL_PARTS = {
    "local-platform": (["identity", "secrets", "workspace", "unity_catalog", "compute"], []),
    "local-data": (["jobs", "pipelines", "sql", "dashboards", "serving", "applications", "ml",
                    "access"], ["local-platform"]),
}


def test_the_documented_split_of_the_local_stack_passes_the_check() -> None:
    from providers.core.registry import by_config_key
    from stacks.config import file_values
    from stacks.pulumi_cli import REPO_ROOT

    doc = (REPO_ROOT / "docs" / "split.md").read_text()
    values, secret_keys = file_values(REPO_ROOT / "Pulumi.local.yaml")
    lists = {key for key in by_config_key() if values.get(key)}
    parts: dict[str, set[str]] = {}
    for name, (owns, uses) in LOCAL_PARTS.items():
        assert f"| `{name}` | `[{', '.join(owns)}]` |" in doc
        owned = owned_keys({"owns": owns}) or set()
        part = {k: v for k, v in values.items() if k not in by_config_key() or k in owned}
        assert config_problems({**part, "owns": owns, "uses": uses}, secret_keys) == [], name
        parts[name] = lists & owned
    assert parts["local-platform"] | parts["local-data"] == lists
    assert not parts["local-platform"] & parts["local-data"]
    assert overlaps({name: {**BASE, "owns": owns}
                     for name, (owns, _) in LOCAL_PARTS.items()}) == []
