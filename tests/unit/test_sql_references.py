"""In-place references to the SQL objects and dashboards of a stack (issue 43): a job's
task naming a Query, Alert or Dashboard item at the API's own field, an alert's query, a
query's or dashboard's warehouse, and Permissions on them, each a reference to the item
named; any other value an id as the service gives it."""

from __future__ import annotations

from typing import Any

from providers.core.kind import Reference, reference_for
from providers.core.kind import with_nested_references as resolved
from providers.core.registry import kind_named
from stacks import adopt, adoption

JOB = kind_named("Job")
NAMES = {"queries": {"orders"}, "alerts": {"few-orders"}, "dashboards": {"sales"},
         "sqlWarehouses": {"bi"}}


def value_of(reference: Any, name: Any) -> Any:
    return f"id-of-{name}" if reference.names_item(name, NAMES) else name


def sql_job(query: str, alert: str, dashboard: str) -> dict[str, Any]:
    return {"name": "refresh", "tasks": [
        {"task_key": "q", "sql_task": {"warehouse_id": "bi", "query": {"query_id": query}}},
        {"task_key": "a", "sql_task": {"warehouse_id": "bi", "alert": {"alert_id": alert}}},
        {"task_key": "d", "dashboard_task": {"dashboard_id": dashboard}},
    ]}


def test_a_jobs_tasks_name_queries_alerts_and_dashboards_of_the_stack() -> None:
    tasks = resolved(sql_job("orders", "few-orders", "sales"), JOB, value_of)["tasks"]
    assert tasks[0]["sql_task"]["query"] == {"query_id": "id-of-orders"}
    assert tasks[1]["sql_task"]["alert"] == {"alert_id": "id-of-few-orders"}
    assert tasks[2]["dashboard_task"] == {"dashboard_id": "id-of-sales"}


def test_a_jobs_tasks_keep_pasted_ids() -> None:
    ids = ("6f0c1a2e-0000-4000-8000-000000000001", "6f0c1a2e-0000-4000-8000-000000000002",
           "01ef0123456789abcdef0123456789ab")
    tasks = resolved(sql_job(*ids), JOB, value_of)["tasks"]
    assert [tasks[0]["sql_task"]["query"]["query_id"], tasks[1]["sql_task"]["alert"][
        "alert_id"], tasks[2]["dashboard_task"]["dashboard_id"]] == list(ids)


def test_the_kinds_name_their_warehouse_and_query_in_place() -> None:
    warehouse = Reference("sqlWarehouses", "warehouse_id", in_place=True)
    assert kind_named("Query").item_references == {"warehouse_id": warehouse}
    assert kind_named("Dashboard").item_references == {"warehouse_id": warehouse}
    assert kind_named("Alert").item_references == {
        "query_id": Reference("queries", "query_id", in_place=True)}


def test_permissions_name_queries_alerts_and_dashboards() -> None:
    declared = kind_named("Permissions").item_references["object_id"]
    for object_type, target in (("sql/queries", "queries"), ("sql/alerts", "alerts"),
                                ("dashboards", "dashboards")):
        holder = {"object_type": object_type, "object_id": "x"}
        assert reference_for(declared, holder) == Reference(target, "object_id",
                                                            in_place=True)


def test_adoption_writes_the_names_of_adopted_queries_in_a_jobs_tasks() -> None:
    item = sql_job("6f0c-q", "6f0c-a", "01ef-d")
    known = adopt.Known(by_id={"queries": {"6f0c-q": "orders"}, "alerts": {"6f0c-a": "few"},
                               "dashboards": {"01ef-d": "sales"}})
    named = adopt.with_nested_names(JOB, adoption.references_of(JOB, item), known, item)
    assert named["tasks"][0]["sql_task"]["query"] == {"query_id": "orders"}
    assert named["tasks"][1]["sql_task"]["alert"] == {"alert_id": "few"}
    assert named["tasks"][2]["dashboard_task"] == {"dashboard_id": "sales"}
