"""providers.jobs.job_settings.check_settings: one check names every problem (a refused value and
the rules across fields together, nothing that only the refused value's absence causes), and
the size rules of a cluster."""

from __future__ import annotations

from typing import Any

import pytest

from providers.jobs.job_settings import check_settings

UNSIZED = {"spark_version": "15.4.x-scala2.12", "node_type_id": "i3.xlarge"}
CLUSTER = {**UNSIZED, "num_workers": 2}


def task(key: str, **fields: Any) -> dict[str, Any]:
    return {"task_key": key, "notebook_task": {"notebook_path": "/Workspace/etl/nb"}, **fields}


def paths(settings: dict[str, Any]) -> set[str]:
    return {path for path, _ in check_settings(settings)[1]}


def test_refused_values_and_rules_across_fields_are_named_together():
    settings = {
        "name": " ",
        "max_concurrent_runs": 5000,
        "tasks": [
            task("a", libraries=[{"pypi": {"package": "requests"}}], timeout_seconds=-1),
            task("b", depends_on=[{"task_key": "c"}]),
        ],
    }
    assert paths(settings) == {
        "name",
        "tasks[a].libraries[0].pypi.package",
        "tasks[a].timeout_seconds",
        "tasks[b].depends_on[0].task_key",
        "max_concurrent_runs",
    }


def test_a_legacy_job_names_them_where_they_were_written():
    settings = {
        "name": "",
        "new_cluster": {**CLUSTER, "autoscale": {"min_workers": 5, "max_workers": 2}},
        "spark_python_task": {"python_file": "etl.py"},
        "libraries": [{"pypi": {"package": "pandas>=2"}}],
        "max_retries": -3,
    }
    assert paths(settings) == {
        "name",
        "new_cluster.autoscale",
        "libraries[0].pypi.package",
        "spark_python_task.python_file",
        "max_retries",
    }


@pytest.mark.parametrize(
    ("settings", "only"),
    [
        # Without the refused autoscale the cluster has no size: not reported.
        (
            {"name": "j", "tasks": [task("a", new_cluster={
                **UNSIZED, "autoscale": {"min_workers": 4, "max_workers": 1}})]},
            {"tasks[a].new_cluster.autoscale"},
        ),
        # Without the refused source the path would be judged against another source.
        (
            {"name": "j", "tasks": [task("a", notebook_task={"notebook_path": "etl/nb",
                                                             "source": "GITHUB"})]},
            {"tasks[a].notebook_task.source"},
        ),
        # The tasks rely on the job's git_source: nothing else is judged without it.
        (
            {"name": "j", "git_source": {"git_url": "https://github.com/a/b", "git_branch": "m",
                                         "git_provider": "nowhere"},
             "tasks": [task("a", notebook_task={"notebook_path": "etl/nb", "source": "GIT"})]},
            {"git_source.git_provider"},
        ),
        # A task without its key: judging the others would renumber them.
        (
            {"name": "j", "tasks": [{"notebook_task": {"notebook_path": "/x"}},
                                    task("b", depends_on=[{"task_key": "zz"}])]},
            {"tasks[0].task_key"},
        ),
    ],
    ids=["cluster size", "source", "git source", "task key"],
)  # fmt: skip
def test_nothing_only_the_refused_value_causes_is_reported(settings, only):
    assert paths(settings) == only


@pytest.mark.parametrize(
    ("cluster", "path", "reason"),
    [
        ({"num_workers": None}, "job_clusters[etl].new_cluster", "give num_workers"),
        ({"num_workers": -1}, "job_clusters[etl].new_cluster.num_workers", "at least 0"),
        (
            {"num_workers": None, "autoscale": {"min_workers": -1, "max_workers": 2}},
            "job_clusters[etl].new_cluster.autoscale.min_workers",
            "must be at least 0, got -1",
        ),
        (
            {"num_workers": None, "autoscale": {"min_workers": 0, "max_workers": 0}},
            "job_clusters[etl].new_cluster.autoscale.max_workers",
            "must be at least 1, got 0",
        ),
    ],
)
def test_a_cluster_has_a_size(cluster, path, reason):
    new_cluster = {k: v for k, v in {**CLUSTER, **cluster}.items() if v is not None}
    settings = {
        "name": "j",
        "job_clusters": [{"job_cluster_key": "etl", "new_cluster": new_cluster}],
        "tasks": [task("a")],
    }
    [(found, why)] = check_settings(settings)[1]
    assert found == path and reason in why


def test_a_policy_or_the_autoscale_range_sizes_a_cluster():
    for size in ({"policy_id": "ABC123"}, {"autoscale": {"min_workers": 0, "max_workers": 2}}):
        cluster = {**UNSIZED, **size}
        settings = {"name": "j", "tasks": [task("a", new_cluster=cluster)]}
        assert check_settings(settings)[1] == []
