"""Adoption of queries, alerts and dashboards made outside the stack (issue 43): each listed
by the audit's inventory, turned into an item that declares it exactly (an import of it
shows no change), a dashboard's content exported as a project file its `source` names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from providers.client import WorkspaceClient
from providers.core.project_files import source_roots
from providers.core.registry import kind_named
from providers.dashboards.lakeview_api import LakeviewApi
from providers.sql.alerts_api import AlertsApi
from providers.sql.queries_api import QueriesApi
from stacks.adoption import Candidate, candidate_of, listed
from tests.providers.sql_objects import make_folder, make_warehouse
from tests.providers.test_adoption_candidates import assert_no_change, written


def adopted(client: WorkspaceClient, connection: dict[str, Any], kind_name: str,
            import_id: str, project: Path) -> Candidate:
    kind = kind_named(kind_name)
    assert import_id in {found.import_id for found in listed(client, kind)}
    candidate = candidate_of(client, kind, import_id, import_id)
    assert candidate is not None and candidate.problem is None, candidate
    assert candidate.item is not None
    written(candidate, project)
    with source_roots(project):
        assert_no_change(kind, connection, import_id, candidate.item)
    return candidate


def test_a_query_an_alert_and_a_dashboard_are_adopted_exactly(client, connection,
                                                              tmp_path: Path) -> None:
    folder, warehouse = make_folder(client), make_warehouse(client)
    query = QueriesApi(client).create({
        "display_name": "orders", "query_text": "SELECT 1 AS n", "warehouse_id": warehouse,
        "parent_path": folder, "tags": ["sales"]})
    alert = AlertsApi(client).create({
        "display_name": "few", "query_id": query["id"], "parent_path": folder,
        "condition": {"op": "EQUAL", "operand": {"column": {"name": "n"}},
                      "threshold": {"value": {"double_value": 0}}}})
    content = {"pages": [{"name": "p", "displayName": "P"}]}
    dashboard = LakeviewApi(client).create({
        "display_name": "Sales", "parent_path": folder, "warehouse_id": warehouse,
        "serialized_dashboard": json.dumps(content)})
    LakeviewApi(client).publish(dashboard["dashboard_id"], True, None)

    item = adopted(client, connection, "Query", query["id"], tmp_path).item
    assert item is not None and item["query_text"] == "SELECT 1 AS n"
    assert "query_sha256" not in item
    item = adopted(client, connection, "Alert", alert["id"], tmp_path).item
    assert item is not None and item["query_id"] == query["id"]
    candidate = adopted(client, connection, "Dashboard", dashboard["dashboard_id"], tmp_path)
    assert candidate.item is not None
    assert (candidate.item["source"], candidate.item["published"]) == (
        "dashboards/Sales.lvdash.json", True)
    assert json.loads(candidate.files["dashboards/Sales.lvdash.json"]) == content
