"""The stack's clusterStates and jobRuns lists are judged without a call to the workspace:
each problem is one line naming the item's key and the reason."""

from __future__ import annotations

import json

import pytest

from providers.core.registry import by_config_key
from stacks.config_rules import problems as config_problems

ACTION_LISTS = ("clusterStates", "jobRuns")


def problems(values: dict, job_names: set[str]) -> list[str]:
    """The problems of the two action lists, beside a stack that declares `job_names`."""
    jobs = [
        {"name": n, "existing_cluster_id": "c", "spark_python_task": {"python_file": "dbfs:/x.py"}}
        for n in sorted(job_names)
    ]
    found = config_problems({**values, "jobs": jobs})
    return [p for p in found if p.startswith(tuple(f"workspace:{k}" for k in ACTION_LISTS))]

GOOD = {
    "clusterStates": [
        {"name": "etl-up", "cluster_name": "etl-nightly", "state": "RUNNING"},
        {"name": "gpu-down", "cluster_id": "0101-120000-mlgpu004", "state": "TERMINATED"},
    ],
    "jobRuns": [
        {"name": "smoke", "job": "nightly-etl", "python_params": ["--x"], "trigger": 3},
        {"name": "other", "job_id": 1000000000001, "timeout_seconds": 60},
    ],
}


def test_good_lists_have_no_problems() -> None:
    assert problems(GOOD, {"nightly-etl"}) == []
    # The engine passes lists as JSON text.
    assert problems({k: json.dumps(v) for k, v in GOOD.items()}, {"nightly-etl"}) == []


def test_the_stack_config_knows_both_keys() -> None:
    assert {"clusterStates", "jobRuns"} <= set(by_config_key())
    unknown = [p for p in config_problems(GOOD) if "unknown key" in p]
    assert unknown == []


def test_the_stack_config_judges_both_lists_with_the_rest() -> None:
    jobs = [
        {
            "name": "nightly-etl",
            "existing_cluster_id": "c",
            "spark_python_task": {"python_file": "dbfs:/x.py"},
        }
    ]
    found = config_problems({**GOOD, "jobs": jobs, "jobRuns": [{"name": "r", "job": "nightly"}]})
    assert "workspace:jobRuns[0].job: no job named 'nightly' in workspace:jobs" in "\n".join(found)
    assert not [p for p in config_problems({**GOOD, "jobs": jobs}) if "jobRuns" in p]


@pytest.mark.parametrize(
    ("key", "item", "expected"),
    [
        (
            "clusterStates",
            {"name": "a", "cluster_name": "x", "state": "STOPPED"},
            "workspace:clusterStates[0].state: Input should be 'RUNNING' or 'TERMINATED'",
        ),
        (
            "clusterStates",
            {"name": "a", "state": "RUNNING"},
            "workspace:clusterStates[0].cluster_name: required (or cluster_id)",
        ),
        (
            "clusterStates",
            {"name": "a", "cluster_name": "x", "cluster_id": "y", "state": "RUNNING"},
            "workspace:clusterStates[0]: give either cluster_name or cluster_id, not both",
        ),
        (
            "clusterStates",
            {"name": "a", "cluster_id": "y", "state": "RUNNING", "timout_seconds": 5},
            "workspace:clusterStates[0].timout_seconds: unknown key "
            "(did you mean 'timeout_seconds'?)",
        ),
        (
            "jobRuns",
            {"name": "r", "job": "nightly-etl-x"},
            "workspace:jobRuns[0].job: no job named 'nightly-etl-x' in workspace:jobs "
            "(did you mean 'nightly-etl'?)",
        ),
        (
            "jobRuns",
            {"name": "r", "job_id": 7, "python_params": "--x"},
            "workspace:jobRuns[0].python_params: Input should be a valid list",
        ),
        ("jobRuns", {"job_id": 7}, "workspace:jobRuns[0].name: required"),
        (
            "jobRuns",
            {"name": "r", "job_id": 7, "timeout_seconds": 0},
            "workspace:jobRuns[0].timeout_seconds: Input should be greater than or equal to 1",
        ),
    ],
)
def test_each_problem_names_its_key(key: str, item: dict, expected: str) -> None:
    found = problems({key: [item]}, {"nightly-etl"})
    assert any(line.startswith(expected) for line in found), found


def test_names_are_unique_per_list() -> None:
    runs = [{"name": "r", "job_id": 1}, {"name": "r", "job_id": 2}]
    assert problems({"jobRuns": runs}, set()) == [
        "workspace:jobRuns[1].name: 'r' is declared twice (first at jobRuns[0])"
    ]


def test_a_list_that_is_not_a_list() -> None:
    assert problems({"clusterStates": {"name": "a"}}, set()) == [
        "workspace:clusterStates: must be a list of objects, got an object"
    ]
