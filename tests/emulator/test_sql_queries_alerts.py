"""The official SDK, unchanged, drives the emulator's SQL queries and alerts: create, get,
list, update by mask, delete to the trash, the service's refusals, and their permissions."""

from __future__ import annotations

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import InvalidParameterValue, NotFound
from databricks.sdk.service import iam, sql

from tests.emulator.support import unique
from workspace_emulator.testing import EmulatorInfo, fetch_token


@pytest.fixture(scope="module")
def sdk(emulator: EmulatorInfo) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


@pytest.fixture(scope="module")
def warehouse_id(sdk: WorkspaceClient) -> str:
    made: object = sdk.warehouses.create(name=unique("queries"), cluster_size="2X-Small").response
    assert isinstance(made, sql.CreateWarehouseResponse) and made.id is not None
    return made.id


@pytest.fixture(scope="module")
def folder(sdk: WorkspaceClient) -> str:
    path = f"/Shared/{unique('analytics')}"
    sdk.workspace.mkdirs(path)
    return path


class Made(sql.Query):
    id: str  # a made query has one


def make_query(sdk: WorkspaceClient, warehouse_id: str, folder: str, **extra) -> Made:
    made = sdk.queries.create(query=sql.CreateQueryRequestQuery(
        display_name=unique("orders"), query_text="SELECT count(*) AS n FROM orders",
        warehouse_id=warehouse_id, parent_path=folder, **extra))
    assert made.id is not None
    return made  # type: ignore[return-value]  # its id is there


def test_query_lifecycle(sdk: WorkspaceClient, warehouse_id: str, folder: str) -> None:
    parameter = sql.QueryParameter(name="day", text_value=sql.TextValue(value="monday"))
    made = make_query(sdk, warehouse_id, folder, catalog="main", schema="sales",
                      description="orders per day", tags=["finance"], parameters=[parameter],
                      run_as_mode=sql.RunAsMode.VIEWER)
    assert made.id and made.lifecycle_state == sql.LifecycleState.ACTIVE
    found = sdk.queries.get(made.id)
    assert (found.parent_path, found.catalog, found.schema, found.tags) == (
        folder, "main", "sales", ["finance"])
    assert found.parameters == [parameter] and found.run_as_mode == sql.RunAsMode.VIEWER
    assert found.owner_user_name and found.create_time

    # Only the masked fields change: description is masked but left out, so it is cleared.
    updated = sdk.queries.update(made.id, update_mask="query_text,description",
                                 query=sql.UpdateQueryRequestQuery(
                                     query_text="SELECT 1 AS n", catalog="other"))
    assert (updated.query_text, updated.catalog, updated.description) == (
        "SELECT 1 AS n", "main", None)
    assert made.id in {q.id for q in sdk.queries.list()}

    sdk.queries.delete(made.id)
    assert sdk.queries.get(made.id).lifecycle_state == sql.LifecycleState.TRASHED
    assert made.id not in {q.id for q in sdk.queries.list()}
    with pytest.raises(NotFound):
        sdk.queries.delete(made.id)
    with pytest.raises(NotFound):
        sdk.queries.update(made.id, update_mask="description",
                           query=sql.UpdateQueryRequestQuery(description="x"))


def test_query_refusals(sdk: WorkspaceClient, warehouse_id: str, folder: str) -> None:
    with pytest.raises(InvalidParameterValue, match="display_name"):
        sdk.queries.create(query=sql.CreateQueryRequestQuery(query_text="SELECT 1"))
    with pytest.raises(NotFound, match="warehouse"):
        make_query(sdk, "0123456789abcdef", folder)
    with pytest.raises(NotFound, match="doesn't exist"):
        make_query(sdk, warehouse_id, f"{folder}/missing")
    twice = [sql.QueryParameter(name="d", text_value=sql.TextValue(value="a"))] * 2
    with pytest.raises(InvalidParameterValue, match="declared twice"):
        make_query(sdk, warehouse_id, folder, parameters=twice)
    made = make_query(sdk, warehouse_id, folder)
    with pytest.raises(InvalidParameterValue, match="update_mask"):
        sdk.queries.update(made.id, update_mask="", query=sql.UpdateQueryRequestQuery())
    with pytest.raises(InvalidParameterValue, match="parent_path"):
        sdk.queries.update(made.id, update_mask="parent_path",
                           query=sql.UpdateQueryRequestQuery())


def test_queries_list_by_pages(sdk: WorkspaceClient, warehouse_id: str, folder: str) -> None:
    made = {make_query(sdk, warehouse_id, folder).id for _ in range(3)}
    assert made <= {q.id for q in sdk.queries.list(page_size=1)}


def condition(op: sql.AlertOperator, threshold: float | None) -> sql.AlertCondition:
    return sql.AlertCondition(
        op=op,
        operand=sql.AlertConditionOperand(column=sql.AlertOperandColumn(name="n")),
        threshold=None if threshold is None else sql.AlertConditionThreshold(
            value=sql.AlertOperandValue(double_value=threshold)))


def test_alert_lifecycle(sdk: WorkspaceClient, warehouse_id: str, folder: str) -> None:
    query = make_query(sdk, warehouse_id, folder)
    made = sdk.alerts.create(alert=sql.CreateAlertRequestAlert(
        display_name=unique("too-few-orders"), query_id=query.id,
        condition=condition(sql.AlertOperator.LESS_THAN, 10), custom_subject="few orders",
        notify_on_ok=True, seconds_to_retrigger=600, parent_path=folder))
    assert made.id and made.state == sql.AlertState.UNKNOWN
    found = sdk.alerts.get(made.id)
    assert (found.query_id, found.seconds_to_retrigger, found.custom_subject) == (
        query.id, 600, "few orders")
    assert found.condition == condition(sql.AlertOperator.LESS_THAN, 10)

    updated = sdk.alerts.update(made.id, update_mask="condition,custom_subject",
                                alert=sql.UpdateAlertRequestAlert(
                                    condition=condition(sql.AlertOperator.IS_NULL, None)))
    assert updated.condition == condition(sql.AlertOperator.IS_NULL, None)
    assert updated.custom_subject is None and updated.notify_on_ok is True

    sdk.alerts.delete(made.id)
    assert sdk.alerts.get(made.id).lifecycle_state == sql.LifecycleState.TRASHED
    assert made.id not in {a.id for a in sdk.alerts.list()}


def test_alert_refusals(sdk: WorkspaceClient, warehouse_id: str, folder: str) -> None:
    query = make_query(sdk, warehouse_id, folder)

    def create(**fields) -> None:
        sdk.alerts.create(alert=sql.CreateAlertRequestAlert(
            **{"display_name": "a", "query_id": query.id,
               "condition": condition(sql.AlertOperator.EQUAL, 1), **fields}))

    with pytest.raises(InvalidParameterValue, match="threshold"):
        create(condition=condition(sql.AlertOperator.EQUAL, None))
    with pytest.raises(InvalidParameterValue, match="operand.column.name"):
        create(condition=sql.AlertCondition(op=sql.AlertOperator.EQUAL))
    with pytest.raises(InvalidParameterValue, match="seconds_to_retrigger"):
        create(seconds_to_retrigger=-1)
    sdk.queries.delete(query.id)
    with pytest.raises(NotFound, match=query.id or ""):
        create()


def test_permissions_of_queries_and_alerts(sdk: WorkspaceClient, warehouse_id: str,
                                           folder: str) -> None:
    query = make_query(sdk, warehouse_id, folder)
    alert = sdk.alerts.create(alert=sql.CreateAlertRequestAlert(
        display_name="a", query_id=query.id, condition=condition(sql.AlertOperator.EQUAL, 1)))
    grant = [iam.AccessControlRequest(group_name="users",
                                      permission_level=iam.PermissionLevel.CAN_RUN)]
    for object_type, object_id in (("sql/queries", query.id), ("sql/alerts", alert.id)):
        assert object_id is not None
        held = sdk.permissions.set(object_type, object_id, access_control_list=grant)
        assert any(entry.group_name == "users" for entry in held.access_control_list or [])
    sdk.alerts.delete(alert.id or "")
    with pytest.raises(NotFound):
        sdk.permissions.get("sql/alerts", alert.id or "")
