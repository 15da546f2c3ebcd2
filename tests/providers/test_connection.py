"""Connection against the emulator: create, read, update in place (options, owner), a
changed credential seen only through its digest, drift, import with no diff, delete,
replacement, an interrupted create adopted rather than duplicated, and a foreign Catalog
on it (an unknown connection refused by the service)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from providers.client import NotFound
from providers.core.lifecycle import CONNECTION_KEY
from providers.unity_catalog.catalog import CatalogProvider
from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.unity_catalog.connection import DIGEST_KEY, ConnectionProvider
from providers.unity_catalog.connections_api import CONNECTIONS_PATH, ConnectionsApi
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.unity_catalog import fresh

PASSWORD = "pw-Secret-1"


@pytest.fixture
def provider() -> ConnectionProvider:
    return ConnectionProvider()


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": fresh("Orders"), "connection_type": "postgresql",
        "options": {"host": "orders.example.com", "port": "5432", "user": "reader",
                    "password": PASSWORD},
        "comment": "orders db", CONNECTION_KEY: connection,
    }


def test_create_read_update_delete(provider, props, client) -> None:
    made = provider.create(props)
    name = props["name"].lower()
    assert made.id == name
    found = ConnectionsApi(client).get(name)
    assert (found["connection_type"], found["comment"]) == ("POSTGRESQL", "orders db")
    assert made.outs["options"] == {"host": "orders.example.com", "port": "5432",
                                    "user": "reader"}
    assert PASSWORD not in json.dumps(made.outs)  # only its digest is recorded
    assert made.outs[DIGEST_KEY]
    assert not provider.diff(made.id, made.outs, props).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    changed = {**props, "owner": "data-engineers",
               "options": {**props["options"], "host": "orders2.example.com"}}
    diff = provider.diff(made.id, made.outs, changed)
    assert set(diff.changed_keys) == {"owner", "options"} and not diff.replaces
    updated = provider.update(made.id, made.outs, changed)
    found = ConnectionsApi(client).get(name)
    assert (found["owner"], found["options"]["host"]) == ("data-engineers",
                                                          "orders2.example.com")
    assert not provider.diff(made.id, updated.outs, changed).changes

    # A new credential: a change seen through the digest alone, sent in place.
    rotated = {**changed, "options": {**changed["options"], "password": "pw-Secret-2"}}
    diff = provider.diff(made.id, updated.outs, rotated)
    assert diff.changed_keys == ["options"] and not diff.replaces
    after = provider.update(made.id, updated.outs, rotated)
    assert after.outs[DIGEST_KEY] != updated.outs[DIGEST_KEY]
    assert "pw-Secret-2" not in json.dumps(after.outs)
    assert not provider.diff(made.id, after.outs, rotated).changes

    # Drift: an option changed outside the stack is seen by a refresh.
    ConnectionsApi(client).update(name, {"options": {"host": "elsewhere", "port": "5432",
                                                     "user": "reader"}})
    drifted = provider.read(made.id, after.outs)
    assert provider.diff(made.id, drifted.outs, rotated).changed_keys == ["options"]

    assert provider.diff(made.id, made.outs, {**props, "comment": "x"}).replaces == [
        "comment"]
    provider.delete(made.id, after.outs)
    with pytest.raises(NotFound):
        ConnectionsApi(client).get(name)


def test_import_with_no_diff(provider, props) -> None:
    made = provider.create({**props, "owner": "data-engineers"})
    imported = provider.read(made.id.upper(), {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["name"] == made.id and PASSWORD not in json.dumps(imported.outs)
    declared = {**props, "owner": "data-engineers"}
    assert not provider.diff(made.id, imported.outs, declared, old_inputs={}).changes
    provider.delete(made.id, made.outs)


def test_a_lost_create_answer_adopts_the_connection(provider, props, client, monkeypatch
                                                    ) -> None:
    lost = lose_the_answer_to(monkeypatch, CONNECTIONS_PATH)
    made = provider.create(props)
    assert lost == [CONNECTIONS_PATH]
    assert [c["name"] for c in ConnectionsApi(client).list()].count(made.id) == 1
    provider.delete(made.id, made.outs)


def test_each_rule_names_its_field() -> None:
    base = {"name": "c", "connection_type": "MYSQL", "options": {"user": "u"}}
    failures = ConnectionProvider.input_failures(base)
    assert [(f.property, f.reason) for f in failures] == [(
        "options.host", "required for a MYSQL connection: the host name of the database it "
        "reaches")]
    failures = ConnectionProvider.input_failures({**base, "connection_type": "NOSQL"})
    assert [f.property for f in failures] == ["connection_type"]
    assert "'NOSQL' is not a connection type" in failures[0].reason
    failures = ConnectionProvider.input_failures({**base, "name": "a.b"})
    assert [f.property for f in failures] == ["name"]
    failures = ConnectionProvider.input_failures({"name": "c", "connection_type": "MYSQL"})
    assert [f.property for f in failures] == ["options"]


@pytest.fixture
def catalogs() -> CatalogProvider:
    return CatalogProvider()


def test_a_foreign_catalog_on_the_connection(provider, catalogs, props, client) -> None:
    made = provider.create(props)
    catalog = {"name": fresh("fed"), "connection_name": made.id,
               "options": {"database": "orders"}, CONNECTION_KEY: props[CONNECTION_KEY]}
    foreign = catalogs.create(catalog)
    found = CatalogsApi(client).get(foreign.id)
    assert (found["catalog_type"], found["connection_name"], found["options"]) == (
        "FOREIGN_CATALOG", made.id, {"database": "orders"})
    assert not catalogs.diff(foreign.id, foreign.outs, catalog).changes
    with pytest.raises(NotFound, match="Connection 'nowhere' does not exist"):
        catalogs.create({**catalog, "name": fresh("fed"), "connection_name": "nowhere"})
    catalogs.delete(foreign.id, foreign.outs)
    provider.delete(made.id, made.outs)
