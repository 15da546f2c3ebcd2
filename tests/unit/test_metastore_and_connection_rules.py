"""Every validation rule of Metastore, MetastoreAssignment, MetastoreDataAccess and
Connection, judged without a network call: each failure names its field and what it takes."""

from __future__ import annotations

from typing import Any

import pytest

from providers.unity_catalog.connection import ConnectionProvider
from providers.unity_catalog.metastore import MetastoreProvider
from providers.unity_catalog.metastore_assignment import MetastoreAssignmentProvider
from providers.unity_catalog.metastore_data_access import MetastoreDataAccessProvider

METASTORE = {"name": "primary"}
ASSIGNMENT = {"workspace_id": "1234567890123456", "metastore_id": "m-1"}
DATA_ACCESS = {"metastore_id": "m-1", "storage_root_credential_id": "c-1"}
CONNECTION = {"name": "orders", "connection_type": "POSTGRESQL",
              "options": {"host": "db.example.com", "password": "x"}}


def failures(provider: Any, inputs: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f.property, f.reason) for f in provider.input_failures(inputs)]


@pytest.mark.parametrize(("provider", "inputs"), [
    (MetastoreProvider, METASTORE), (MetastoreAssignmentProvider, ASSIGNMENT),
    (MetastoreDataAccessProvider, DATA_ACCESS), (ConnectionProvider, CONNECTION)])
def test_the_valid_inputs_pass(provider: Any, inputs: dict[str, Any]) -> None:
    assert failures(provider, inputs) == []


def test_metastore_rules() -> None:
    assert failures(MetastoreProvider, {**METASTORE, "name": " "}) == [
        ("name", "must not be empty")]
    assert failures(MetastoreProvider, {**METASTORE, "owner": ""}) == [
        ("owner", "must not be empty")]
    [(path, reason)] = failures(MetastoreProvider, {**METASTORE, "storage_root": "lake/root"})
    assert path == "storage_root" and "is not a storage URL (e.g. abfss://" in reason
    [(path, reason)] = failures(MetastoreProvider, {**METASTORE,
                                                   "delta_sharing_scope": "PUBLIC"})
    assert path == "delta_sharing_scope" and "'INTERNAL' or 'INTERNAL_AND_EXTERNAL'" in reason
    assert failures(MetastoreProvider, {**METASTORE, "delta_sharing_scope":
                                        "INTERNAL_AND_EXTERNAL"}) == [(
        "delta_sharing_recipient_token_lifetime_in_seconds",
        "required with delta_sharing_scope INTERNAL_AND_EXTERNAL: how long a recipient's "
        "token lasts, in seconds (0: it never expires)")]
    [(path, _)] = failures(MetastoreProvider, {
        **METASTORE, "delta_sharing_recipient_token_lifetime_in_seconds": -1})
    assert path == "delta_sharing_recipient_token_lifetime_in_seconds"
    [(path, _)] = failures(MetastoreProvider, {**METASTORE, "force_destroy": "yes"})
    assert path == "force_destroy"
    [(path, _)] = failures(MetastoreProvider, {**METASTORE, "comment": "x"})
    assert path == "comment"  # a metastore has none: an unknown field


def test_metastore_assignment_rules() -> None:
    assert failures(MetastoreAssignmentProvider, {**ASSIGNMENT, "workspace_id": "12x"}) == [
        ("workspace_id", "must be a positive integer or a string of digits")]
    assert failures(MetastoreAssignmentProvider, {**ASSIGNMENT, "metastore_id": " "}) == [
        ("metastore_id", "must not be empty")]
    assert failures(MetastoreAssignmentProvider, {
        **ASSIGNMENT, "default_catalog_name": ""}) == [
        ("default_catalog_name", "must not be empty")]
    assert failures(MetastoreAssignmentProvider, {"metastore_id": "m"}) == [
        ("workspace_id", "Field required")]


def test_metastore_data_access_rules() -> None:
    assert failures(MetastoreDataAccessProvider, {**DATA_ACCESS, "metastore_id": ""}) == [
        ("metastore_id", "must not be empty")]
    assert failures(MetastoreDataAccessProvider, {"metastore_id": "m"}) == [
        ("storage_root_credential_id", "Field required")]


def test_connection_rules() -> None:
    assert failures(ConnectionProvider, {**CONNECTION, "options": {"user": "u"}}) == [(
        "options.host", "required for a POSTGRESQL connection: the host name of the "
        "database it reaches")]
    [(path, reason)] = failures(ConnectionProvider, {**CONNECTION, "connection_type": "NOSQL"})
    assert path == "connection_type" and reason.startswith("'NOSQL' is not a connection type")
    [(path, _)] = failures(ConnectionProvider, {**CONNECTION, "name": "a b"})
    assert path == "name"
    [(path, _)] = failures(ConnectionProvider, {**CONNECTION, "options": {"port": 5432}})
    assert path == "options.port"
    [(path, _)] = failures(ConnectionProvider, {**CONNECTION, "read_only": "no"})
    assert path == "read_only"
    # Any case of a type: the service's spelling.
    assert failures(ConnectionProvider, {**CONNECTION, "connection_type": "postgresql"}) == []
