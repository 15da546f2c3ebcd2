"""References held inside a config item's nested objects: a job's cluster specs name an
instance pool of the stack by its item (`instance_pool:`, `driver_instance_pool:`), judged by
the config check with the path of the object and filled with the pool's id."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from providers.core.kind import Reference, nested_holders, with_nested_references
from providers.core.registry import kind_named
from stacks.config_rules import problems

POOL = {"name": "etl-pool", "instance_pool_name": "etl-pool", "node_type_id": "Standard_DS3_v2"}
SPEC = {"spark_version": "15.4.x-scala2.12", "num_workers": 1}
SCRIPT = {"spark_python_task": {"python_file": "dbfs:/jobs/etl.py"}}


def job(**cluster: Any) -> dict[str, Any]:
    """A job whose job cluster and second task's own cluster take `cluster`'s keys."""
    return {
        "name": "nightly",
        "job_clusters": [{"job_cluster_key": "etl", "new_cluster": {**SPEC, **cluster}}],
        "tasks": [
            {"task_key": "a", "job_cluster_key": "etl", **SCRIPT},
            {"task_key": "b", "new_cluster": {**SPEC, **cluster}, **SCRIPT},
        ],
    }


def config(*jobs: dict[str, Any], pools: tuple[dict[str, Any], ...] = (POOL,)) -> dict[str, Any]:
    return {
        "baseUrl": "http://127.0.0.1:8765",
        "authUrl": "http://127.0.0.1:8766",
        "tenantId": "dd523c38-5331-469f-bb30-6ee31e3da8ff",
        "clientId": "1251fa57-177d-41f0-84cd-847f7a048462",
        "resource": "2ff814a6-3304-4ab8-85cb-cd0e6f879c1d",
        "allowInsecureHttp": "true",
        "instancePools": list(pools),
        "jobs": list(jobs),
    }


def job_problems(*jobs: dict[str, Any], **options: Any) -> list[str]:
    return [p for p in problems(config(*jobs, **options)) if p.startswith("workspace:jobs")]


# --- where the references are -------------------------------------------------------------


def test_the_job_declares_its_compute_references_in_every_place_that_names_compute() -> None:
    references = kind_named("Job").nested_references
    assert set(references) == {
        f"{spec}.{key}"
        for spec in ("new_cluster", "job_clusters[].new_cluster", "tasks[].new_cluster")
        for key in ("instance_pool", "driver_instance_pool", "policy")
    } | {
        "tasks[].existing_cluster",
        "tasks[].sql_task.warehouse",
        "tasks[].dbt_task.warehouse",
        "tasks[].pipeline_task.pipeline_id",  # in place (tests/unit/test_in_place_references.py)
        # in place too: queries, alerts, dashboards (tests/unit/test_sql_references.py)
        "tasks[].sql_task.query.query_id",
        "tasks[].sql_task.alert.alert_id",
        "tasks[].dashboard_task.dashboard_id",
    } | {  # in place too: a volume file of the stack
        f"{libraries}[].{field}"
        for libraries in ("libraries", "tasks[].libraries")
        for field in ("whl", "jar", "requirements")
    } | {
        f"{spec}.init_scripts[].volumes.destination"
        for spec in ("new_cluster", "job_clusters[].new_cluster", "tasks[].new_cluster")
    } | {  # in place too: a notification destination of the stack
        f"{holder}webhook_notifications.{event}[].id"
        for holder in ("", "tasks[].")
        for event in ("on_start", "on_success", "on_failure",
                      "on_duration_warning_threshold_exceeded", "on_streaming_backlog_exceeded")
    }
    assert references["tasks[].new_cluster.driver_instance_pool"] == Reference(
        target_key="instancePools", field="driver_instance_pool_id"
    )
    assert references["job_clusters[].new_cluster.policy"] == Reference(
        target_key="clusterPolicies", field="policy_id"
    )
    assert references["tasks[].sql_task.warehouse"] == Reference(
        target_key="sqlWarehouses", field="warehouse_id"
    )
    # The single-task shape's cluster is the job's own.
    assert kind_named("Job").item_references == {
        "existing_cluster": Reference(target_key="clusters", field="existing_cluster_id")
    }


def test_what_a_job_names_by_item_is_made_before_the_jobs() -> None:
    from providers.core.registry import kinds

    order = [kind.config_key for kind in kinds()]
    for target in ("instancePools", "clusterPolicies", "clusters", "sqlWarehouses"):
        assert order.index(target) < order.index("jobs"), target


def test_holders_are_found_by_path_with_each_element_of_a_list() -> None:
    item = job(instance_pool="etl-pool")
    found = nested_holders(item, "tasks[].new_cluster.instance_pool")
    assert [path for path, _ in found] == ["tasks[1].new_cluster"]
    assert found[0][1] is item["tasks"][1]["new_cluster"]
    assert [p for p, _ in nested_holders(item, "job_clusters[].new_cluster.x")] == [
        "job_clusters[0].new_cluster"
    ]
    # Missing parts, and parts of another shape, reach nothing.
    assert nested_holders(item, "new_cluster.instance_pool") == []
    assert nested_holders({"tasks": {"not": "a list"}}, "tasks[].new_cluster.x") == []
    assert nested_holders({"tasks": ["text"]}, "tasks[].new_cluster.x") == []


# --- resolution ---------------------------------------------------------------------------


def test_each_name_is_replaced_by_the_id_it_stands_for_in_a_copy() -> None:
    item = job(instance_pool="etl-pool", driver_instance_pool="driver-pool")
    original = copy.deepcopy(item)
    ids = {"etl-pool": "pool-1", "driver-pool": "pool-2"}

    resolved = with_nested_references(
        item, kind_named("Job"), lambda reference, name: (reference.field, ids[name])
    )

    assert item == original  # the config item itself is left as it is
    for spec in (resolved["job_clusters"][0]["new_cluster"], resolved["tasks"][1]["new_cluster"]):
        assert spec == {
            **SPEC,
            "instance_pool_id": ("instance_pool_id", "pool-1"),
            "driver_instance_pool_id": ("driver_instance_pool_id", "pool-2"),
        }
    assert "new_cluster" not in resolved["tasks"][0]


def test_inputs_without_names_are_left_alone() -> None:
    item = job(instance_pool_id="0101-000000-pool01")
    resolved = with_nested_references(item, kind_named("Job"), lambda *_: pytest.fail("asked"))
    assert resolved == item


def test_the_legacy_single_task_cluster_is_resolved_too() -> None:
    item = {"name": "old", "new_cluster": {**SPEC, "instance_pool": "etl-pool"}, **SCRIPT}
    resolved = with_nested_references(item, kind_named("Job"), lambda _, name: f"id-of-{name}")
    assert resolved["new_cluster"] == {**SPEC, "instance_pool_id": "id-of-etl-pool"}


# --- the config check ---------------------------------------------------------------------


def test_a_pool_of_the_stack_named_in_job_clusters_is_accepted() -> None:
    assert job_problems(job(instance_pool="etl-pool", driver_instance_pool="etl-pool")) == []
    assert job_problems(job(instance_pool_id="0101-000000-pool01")) == []


def test_an_unknown_pool_is_refused_with_its_path_and_a_suggestion() -> None:
    found = job_problems(job(driver_instance_pool="etl-pol"))
    assert found == [
        "workspace:jobs[0].job_clusters[0].new_cluster.driver_instance_pool: no instance pool "
        "named 'etl-pol' in workspace:instancePools (did you mean 'etl-pool'?)",
        "workspace:jobs[0].tasks[1].new_cluster.driver_instance_pool: no instance pool "
        "named 'etl-pol' in workspace:instancePools (did you mean 'etl-pool'?)",
    ]


def test_a_pool_named_where_the_stack_declares_none_lists_what_is_declared() -> None:
    found = job_problems(job(instance_pool="etl-pool"), pools=())
    assert (
        "workspace:jobs[0].job_clusters[0].new_cluster.instance_pool: no instance pool named "
        "'etl-pool' in workspace:instancePools (instancePools declared: none)" in found
    )


def test_the_name_and_the_id_together_are_refused() -> None:
    item = job()
    item["tasks"][1]["new_cluster"].update(instance_pool="etl-pool", instance_pool_id="x")
    assert job_problems(item) == [
        "workspace:jobs[0].tasks[1].new_cluster: give either instance_pool or "
        "instance_pool_id, not both"
    ]


def test_a_misspelt_reference_key_is_an_unknown_key_with_a_suggestion() -> None:
    found = job_problems(job(instance_pol="etl-pool"))
    # The job's own rules name a job cluster and a task by its key.
    assert found == [
        "workspace:jobs[0].job_clusters[etl].new_cluster.instance_pol: unknown key (did you "
        "mean 'instance_pool_id'?)",
        "workspace:jobs[0].tasks[b].new_cluster.instance_pol: unknown key (did you mean "
        "'instance_pool_id'?)",
    ]


def test_the_cluster_keeps_its_top_level_pool_references() -> None:
    cluster = {
        "name": "etl",
        "cluster_name": "etl",
        "spark_version": "15.4.x-scala2.12",
        "num_workers": 1,
        "instance_pool": "etl-pool",
        "driver_instance_pool": "etl-pol",
    }
    found = problems({**config(), "clusters": [cluster]})
    assert (
        "workspace:clusters[0].driver_instance_pool: no instance pool named 'etl-pol' in "
        "workspace:instancePools (did you mean 'etl-pool'?)" in found
    )
    assert not [p for p in found if "clusters[0].instance_pool:" in p]


def test_the_items_after_one_with_nested_references_keep_their_list_in_problems() -> None:
    found = job_problems(job(instance_pool="etl-pool"), job(instance_pool="etl-pool"))
    assert found == ["workspace:jobs[1].name: 'nightly' is declared twice (first at jobs[0])"]


def test_a_tasks_cluster_policy_and_warehouse_are_named_by_item_and_resolved() -> None:
    item = {
        "name": "reports",
        "job_clusters": [{"job_cluster_key": "etl",
                          "new_cluster": {**SPEC, "policy": "small-jobs"}}],
        "tasks": [
            {"task_key": "ingest", "existing_cluster": "shared", **SCRIPT},
            {"task_key": "kpis", "sql_task": {"warehouse": "bi", "query": {"query_id": "q1"}}},
            {"task_key": "models", "dbt_task": {"warehouse": "bi", "commands": ["dbt run"]}},
        ],
    }
    # A query id naming no Query item of the stack (none here) is an id, kept as it is.
    resolved = with_nested_references(
        item, kind_named("Job"),
        lambda reference, name: name if isinstance(reference, Reference)
        and not reference.names_item(name, {}) else f"id-of-{name}")
    assert resolved["job_clusters"][0]["new_cluster"] == {**SPEC, "policy_id": "id-of-small-jobs"}
    assert resolved["tasks"][0] == {"task_key": "ingest", "existing_cluster_id": "id-of-shared",
                                    **SCRIPT}
    assert resolved["tasks"][1]["sql_task"] == {"warehouse_id": "id-of-bi",
                                                "query": {"query_id": "q1"}}
    assert resolved["tasks"][2]["dbt_task"] == {"warehouse_id": "id-of-bi",
                                                "commands": ["dbt run"]}


def test_an_unknown_warehouse_or_policy_is_refused_with_its_path() -> None:
    item = job()
    item["tasks"][0] = {"task_key": "a", "sql_task": {"warehouse": "bi",
                                                      "query": {"query_id": "q1"}}}
    item["job_clusters"][0]["new_cluster"]["policy"] = "small"
    found = job_problems(item)
    assert "workspace:jobs[0].tasks[0].sql_task.warehouse: no sql warehouse named 'bi' in " \
        "workspace:sqlWarehouses (sqlWarehouses declared: none)" in found
    assert "workspace:jobs[0].job_clusters[0].new_cluster.policy: no cluster policy named " \
        "'small' in workspace:clusterPolicies (clusterPolicies declared: none)" in found
