"""The listings the audit and adopt share for the kinds whose objects sit under others: the
securables whose direct grants are adopted as Grants items (every level of Unity Catalog,
each parent listed once)."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace
from typing import Any

from providers.registry import kind_named


class Calls(Counter):
    """How many times each stand-in list or read was called."""

    def answer(self, name: str, value: Any) -> Any:
        self[name] += 1
        return value


def unity_catalog(grants: dict[tuple[str, str], list[dict[str, Any]]]) -> tuple[Any, Calls]:
    """A stand-in client with two catalogs of its own and the service's `system`, their
    schemas (each with an `information_schema`) and volumes, and the `grants` given."""
    calls = Calls()
    schemas = {"main": ["default", "sales", "information_schema"], "lab": ["information_schema"],
               "system": ["access"]}
    volumes = {("main", "sales"): ["landing", "exports"]}
    client = SimpleNamespace(
        catalogs=SimpleNamespace(list=lambda: calls.answer("catalogs", [
            {"name": "main"}, {"name": "lab"},
            {"name": "system", "catalog_type": "SYSTEM_CATALOG"}])),
        schemas=SimpleNamespace(list=lambda catalog: calls.answer(
            f"schemas {catalog}", [{"name": n} for n in schemas[catalog]])),
        volumes=SimpleNamespace(list=lambda catalog, schema: calls.answer(
            f"volumes {catalog}.{schema}",
            [{"name": n, "full_name": f"{catalog}.{schema}.{n}"}
             for n in volumes.get((catalog, schema), [])])),
        storage_credentials=SimpleNamespace(list=lambda: calls.answer("credentials",
                                                                        [{"name": "cred"}])),
        external_locations=SimpleNamespace(list=lambda: calls.answer("locations", [])),
        grants=SimpleNamespace(get=lambda securable_type, name: calls.answer(
            "grants", grants.get((securable_type, name), []))),
    )
    return client, calls


READERS = [{"principal": "analysts", "privileges": ["SELECT"]}]


def test_grants_are_listed_on_schemas_and_volumes_with_one_list_call_per_parent() -> None:
    client, calls = unity_catalog({
        ("catalog", "main"): READERS,
        ("schema", "main.sales"): READERS,
        ("volume", "main.sales.exports"): READERS,
        ("storage_credential", "cred"): READERS,
    })
    listed = list(kind_named("Grants").inventory(client))  # type: ignore[misc]
    assert listed == [
        ("catalog/main", "catalog main"),
        ("schema/main.sales", "schema main.sales"),
        ("volume/main.sales.exports", "volume main.sales.exports"),
        ("storage_credential/cred", "storage_credential cred"),
    ]
    # Each parent listed once; the service's catalog's schemas and every
    # information_schema are not walked; one grants read per securable.
    assert calls["catalogs"] == 1
    assert {k: v for k, v in calls.items() if k.startswith(("schemas", "volumes"))} == {
        "schemas main": 1, "schemas lab": 1,
        "volumes main.default": 1, "volumes main.sales": 1,
    }
    securables = 3 + 2 + 2 + 1  # catalogs, schemas, volumes, the credential
    assert calls["grants"] == securables


def test_securables_without_direct_grants_are_not_listed() -> None:
    client, _ = unity_catalog({("schema", "main.default"): []})
    assert list(kind_named("Grants").inventory(client)) == []  # type: ignore[misc]
