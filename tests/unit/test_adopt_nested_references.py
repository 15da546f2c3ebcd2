"""Adopt writes the ids inside an adopted item's nested objects as references by name, as it
does its own (docs/adopt.md, "What is written"): a job's cluster specs name their pools and
policy, its tasks their cluster and warehouse, by the adopted items' names; an id naming
nothing the stack holds stays an id. The `--python` module declares the same with the ids of
its own resources. (Under the engine: tests/e2e/test_adopt_nested_references.py.)"""

from __future__ import annotations

import copy
import types
from collections.abc import Iterator
from typing import Any

from providers.core.kind import Kind
from providers.core.registry import kind_named
from stacks import adopt, adopt_python, adoption

JOB = kind_named("Job")
JOB_PERMISSIONS = kind_named("JobPermissions")
POOL = kind_named("InstancePool")
POLICY = kind_named("ClusterPolicy")
CLUSTER = kind_named("Cluster")
WAREHOUSE = kind_named("SqlWarehouse")
KINDS = [POOL, POLICY, CLUSTER, WAREHOUSE, JOB, JOB_PERMISSIONS]

POOL_ID, DRIVER_POOL_ID, POLICY_ID = "0101-pool-etl", "0101-pool-driver", "E0A1B2C3D4F50001"
CLUSTER_ID, WAREHOUSE_ID, ELSEWHERE = "0101-shared01", "5a1e2b3c4d5e6f70", "0101-not-adopted"


def job_item() -> dict[str, Any]:
    """A job whose compute is everywhere a job may name it."""
    return {
        "name": "nightly",
        "job_clusters": [{"job_cluster_key": "main", "new_cluster": {
            "spark_version": "15.4.x-scala2.12", "instance_pool_id": POOL_ID,
            "policy_id": POLICY_ID, "num_workers": 2}}],
        "tasks": [
            {"task_key": "ingest", "job_cluster_key": "main",
             "spark_python_task": {"python_file": "dbfs:/jobs/ingest.py"}},
            {"task_key": "own", "new_cluster": {
                "spark_version": "15.4.x-scala2.12", "instance_pool_id": ELSEWHERE,
                "driver_instance_pool_id": DRIVER_POOL_ID, "num_workers": 1},
             "spark_python_task": {"python_file": "dbfs:/jobs/own.py"}},
            {"task_key": "shared", "existing_cluster_id": CLUSTER_ID,
             "notebook_task": {"notebook_path": "/Shared/report"}},
            {"task_key": "report", "sql_task": {"warehouse_id": WAREHOUSE_ID,
                                                "query": {"query_id": "q-1"}}},
            {"task_key": "models", "dbt_task": {"warehouse_id": WAREHOUSE_ID,
                                                "commands": ["dbt run"]}},
        ],
    }


def candidate(kind: Kind, import_id: str, name: str, item: dict[str, Any]) -> adoption.Candidate:
    """A candidate as stacks.adoption makes it: its references read from its item."""
    return adoption.Candidate(kind, import_id, name, item, None,
                              adoption.references_of(kind, item))


def compute() -> list[adoption.Candidate]:
    return [
        candidate(POOL, POOL_ID, "ETL pool", {"instance_pool_name": "ETL pool"}),
        candidate(POOL, DRIVER_POOL_ID, "Driver pool", {"instance_pool_name": "Driver pool"}),
        candidate(POLICY, POLICY_ID, "etl-policy", {"name": "etl-policy"}),
        candidate(CLUSTER, CLUSTER_ID, "Shared", {"cluster_name": "Shared"}),
        candidate(WAREHOUSE, WAREHOUSE_ID, "bi", {"name": "bi"}),
    ]


def fake(*found: adoption.Candidate) -> adopt.Source:
    def listed(client: Any, kind: Kind) -> Iterator[adoption.Listed]:
        yield from (adoption.Listed(c.import_id, c.display_name, None)
                    for c in found if c.kind is kind)

    def candidate_of(client: Any, kind: Kind, id_: str, name: str) -> adoption.Candidate:
        return next(c for c in found if c.kind is kind and c.import_id == id_)

    return adopt.Source(listed, candidate_of)


def run(*found: adoption.Candidate,
        lists: dict[str, list[dict[str, Any]]] | None = None) -> adopt.Plan:
    known = adopt.known_of(lists or {}, {}, "dev", KINDS)
    return adopt.plan(None, adopt.select(KINDS), known,  # type: ignore[arg-type]
                      source=fake(*found))


def adopted_job(result: adopt.Plan) -> dict[str, Any]:
    [job] = result.additions["jobs"]
    return job


def test_the_nested_ids_are_read_by_path() -> None:
    assert adoption.references_of(JOB, job_item()) == {
        "job_clusters[0].new_cluster.instance_pool_id": POOL_ID,
        "job_clusters[0].new_cluster.policy_id": POLICY_ID,
        "tasks[1].new_cluster.instance_pool_id": ELSEWHERE,
        "tasks[1].new_cluster.driver_instance_pool_id": DRIVER_POOL_ID,
        "tasks[2].existing_cluster_id": CLUSTER_ID,
        "tasks[3].sql_task.warehouse_id": WAREHOUSE_ID,
        "tasks[3].sql_task.query.query_id": "q-1",  # in place: a Query of the stack
        "tasks[4].dbt_task.warehouse_id": WAREHOUSE_ID,
    }


def test_a_job_cluster_names_its_pool_and_policy_in_place_of_their_ids() -> None:
    job = adopted_job(run(*compute(), candidate(JOB, "42", "nightly", job_item())))
    [cluster] = job["job_clusters"]
    # The name takes the id's place: same position in the nested object.
    assert list(cluster["new_cluster"].items()) == [
        ("spark_version", "15.4.x-scala2.12"), ("instance_pool", "etl-pool"),
        ("policy", "etl-policy"), ("num_workers", 2)]


def test_tasks_name_their_cluster_pools_and_warehouse() -> None:
    job = adopted_job(run(*compute(), candidate(JOB, "42", "nightly", job_item())))
    tasks = {task["task_key"]: task for task in job["tasks"]}
    assert tasks["own"]["new_cluster"] == {
        "spark_version": "15.4.x-scala2.12",
        "instance_pool_id": ELSEWHERE,  # names no pool the stack holds: stays an id
        "driver_instance_pool": "driver-pool", "num_workers": 1}
    assert tasks["shared"]["existing_cluster"] == "shared"
    assert "existing_cluster_id" not in tasks["shared"]
    assert tasks["report"]["sql_task"] == {"warehouse": "bi", "query": {"query_id": "q-1"}}
    assert tasks["models"]["dbt_task"] == {"warehouse": "bi", "commands": ["dbt run"]}
    # Nothing else of the job changed.
    assert tasks["ingest"] == job_item()["tasks"][0]
    assert (job["name"], job["import"]) == ("nightly", "42")


def test_ids_naming_nothing_adopted_stay_ids() -> None:
    job = adopted_job(run(candidate(JOB, "42", "nightly", job_item())))
    assert {k: v for k, v in job.items() if k not in ("import",)} == job_item()


def test_an_item_the_config_already_holds_is_named_too() -> None:
    """As for a top-level reference: the pool the stack's config imports is named by its
    item, though not adopted in this run."""
    lists = {"instancePools": [{"name": "team-pool", "import": POOL_ID,
                                "instance_pool_name": "ETL pool"}]}
    job = adopted_job(run(candidate(JOB, "42", "nightly", job_item()), lists=lists))
    new_cluster = job["job_clusters"][0]["new_cluster"]
    assert new_cluster["instance_pool"] == "team-pool"
    assert new_cluster["policy_id"] == POLICY_ID  # no policy item: the id stays


def test_top_level_references_are_unchanged() -> None:
    permissions = candidate(JOB_PERMISSIONS, "42", "nightly", {
        "job_id": 42,
        "access_controls": [{"group_name": "analysts", "permission_level": "CAN_VIEW"}]})
    result = run(*compute(), candidate(JOB, "42", "nightly", job_item()), permissions)
    [item] = result.additions["jobPermissions"]
    assert item == {"name": "nightly", "import": "42", "job": "nightly",
                    "access_controls": [{"group_name": "analysts",
                                         "permission_level": "CAN_VIEW"}]}


def test_the_candidates_item_is_left_as_it_was() -> None:
    job = candidate(JOB, "42", "nightly", job_item())
    before = copy.deepcopy(job.item)
    run(*compute(), job)
    assert job.item == before


def test_a_nested_name_given_already_is_kept() -> None:
    """A nested object that names its pool (both the name and the id would be refused by
    the config's rules) keeps what it has."""
    item = job_item()
    item["job_clusters"][0]["new_cluster"]["instance_pool"] = "chosen"
    job = adopt.with_nested_names(JOB, adoption.references_of(JOB, item),
                                  adopt.Known(by_id={"instancePools": {POOL_ID: "etl-pool"}}),
                                  item)
    new_cluster = job["job_clusters"][0]["new_cluster"]
    assert (new_cluster["instance_pool"], new_cluster["instance_pool_id"]) == (
        "chosen", POOL_ID)


# --- the Python module -----------------------------------------------------------------------


class Declared:
    """Stands for a resource the module declares: its name, args and id."""

    def __init__(self, name: str, args: dict[str, Any], **_: Any) -> None:
        self.name, self.args, self.id = name, args, f"id-of-{name}"


def executed(text: str) -> dict[str, dict[str, Declared]]:
    """The module run, its package's kinds standing in: what declare() made."""
    namespace: dict[str, Any] = {}
    exec(compile(text, "adopted.py", "exec"), namespace)
    stand_ins: dict[str, Any] = {f"{kind.name}Args": dict for kind in KINDS}
    stand_ins |= {kind.name: Declared for kind in KINDS}
    namespace["providers"] = types.SimpleNamespace(**stand_ins)
    made: dict[str, dict[str, Declared]] = namespace["declare"]({"host": "https://ws"})
    return made


def test_the_python_module_declares_nested_references_as_its_resources_ids() -> None:
    result = run(*compute(), candidate(JOB, "42", "nightly", job_item()))
    kinds = {k.config_key: k for k in KINDS if k.config_key}
    text = adopt_python.module_text(result.additions, kinds, "https://ws")
    assert "'instance_pool_id': made['instancePools']['etl-pool'].id" in text
    assert "'warehouse_id': made['sqlWarehouses']['bi'].id" in text
    assert "'instance_pool':" not in text and "'warehouse':" not in text
    made = executed(text)
    job = made["jobs"]["nightly"].args
    new_cluster = job["job_clusters"][0]["new_cluster"]
    assert new_cluster["instance_pool_id"] == made["instancePools"]["etl-pool"].id
    assert new_cluster["policy_id"] == made["clusterPolicies"]["etl-policy"].id
    tasks = {task["task_key"]: task for task in job["tasks"]}
    assert tasks["own"]["new_cluster"]["instance_pool_id"] == ELSEWHERE
    assert tasks["own"]["new_cluster"]["driver_instance_pool_id"] == "id-of-driver-pool"
    assert tasks["shared"]["existing_cluster_id"] == "id-of-shared"
    assert tasks["report"]["sql_task"]["warehouse_id"] == "id-of-bi"
    assert tasks["models"]["dbt_task"]["warehouse_id"] == "id-of-bi"
