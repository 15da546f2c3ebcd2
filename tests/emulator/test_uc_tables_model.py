"""The tables area's model, without HTTP: the tests' hook that puts a table of any type (as
SQL and pipelines make views and materialized views), and who may make and delete one."""

from __future__ import annotations

import pytest

from tests.emulator.test_unity_catalog_model import ADMIN, ALICE, BOB
from tests.emulator.test_unity_catalog_model import uc as uc  # noqa: F401 (the fixture)
from workspace_emulator.errors import InvalidParameter, PermissionDenied
from workspace_emulator.platform.areas.unity_catalog.tables.model import (
    TABLES,
    Functions,
    Tables,
)
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.model import UnityCatalog


@pytest.fixture
def tables(uc: UnityCatalog) -> Tables:  # noqa: F811
    uc._db.create_tables(TABLES)
    Functions(uc._db, uc)
    uc.create_schema({"name": "s", "catalog_name": "main"}, ADMIN)
    return Tables(uc._db, uc)


@pytest.mark.parametrize("table_type", ["MANAGED", "VIEW", "MATERIALIZED_VIEW",
                                        "STREAMING_TABLE"])
def test_the_hook_puts_a_table_of_any_type_that_grants_reach(tables, uc, table_type):  # noqa: F811
    made = tables.add({"catalog_name": "main", "schema_name": "s", "name": "Daily",
                       "table_type": table_type}, ADMIN)
    assert (made["full_name"], made["table_type"]) == ("main.s.daily", table_type)
    uc.update_permissions("table", "main.s.daily", [
        {"principal": "analysts", "add": ["SELECT", "REFRESH"]}], ADMIN)
    assert uc.permissions("table", "main.s.daily") == [
        {"principal": "analysts", "privileges": ["REFRESH", "SELECT"]}]


def test_the_api_refuses_what_the_service_refuses(tables):
    with pytest.raises(InvalidParameter, match="external Delta tables only"):
        tables.create({"catalog_name": "main", "schema_name": "s", "name": "v",
                       "table_type": "VIEW", "data_source_format": "DELTA",
                       "storage_location": "abfss://lake@emulated.dfs.core.windows.net/v"}, ADMIN)
    with pytest.raises(InvalidParameter, match="table_type must be one of"):
        tables.add({"catalog_name": "main", "schema_name": "s", "name": "x",
                    "table_type": "SNAPSHOT"}, ADMIN)


def test_making_and_deleting_a_table_needs_its_privileges(tables, uc):  # noqa: F811
    spec = {"catalog_name": "main", "schema_name": "s", "name": "t"}
    with pytest.raises(PermissionDenied, match="USE_CATALOG and USE_SCHEMA and CREATE_TABLE"):
        tables.add(spec, ALICE)
    uc.update_permissions("catalog", "main", [
        {"principal": "analysts", "add": ["USE_CATALOG", "USE_SCHEMA", "CREATE_TABLE"]}], ADMIN)
    made = tables.add(spec, ALICE)
    assert made["owner"] == ALICE.application_id
    with pytest.raises(PermissionDenied, match="MANAGE"):
        tables.delete("main.s.t", BOB)
    tables.delete("main.s.t", ALICE)  # its owner
    assert not tables.exists("main.s.t")
