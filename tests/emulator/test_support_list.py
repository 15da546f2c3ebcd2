"""The support list of workspace_emulator/README.md: every route the platform serves has a fidelity
entry (the failure says how to add one), no entry outlives its route, nothing listed as
not served is served, and the README shows exactly what the tool renders now."""

from __future__ import annotations

from tools import emulator_support
from tools.emulator_support import Operation, problems, served_operations
from workspace_emulator.platform.support import SUPPORT, Fidelity


def test_every_route_has_a_fidelity_entry_and_every_entry_a_route():
    found = problems(served_operations())
    assert found == [], "\n".join(found)


def test_a_route_without_an_entry_fails_with_how_to_add_it():
    operations = [*served_operations(), Operation("POST /widgets/create", ("2.0",))]
    [message] = problems(operations)
    assert "route POST /widgets/create has no fidelity entry" in message
    assert "workspace_emulator/platform/support.py" in message \
        and "python -m tools.emulator_support" \
        in message


def test_stale_entries_and_served_unserved_operations_are_named(monkeypatch):
    monkeypatch.setitem(SUPPORT, "GET /gone", Fidelity("stateful", ""))
    monkeypatch.setitem(emulator_support.NOT_SERVED, "Test", ("GET /jobs/list",))
    found = problems(served_operations())
    assert any("a support entry names GET /gone, which no route serves" in f for f in found)
    assert any("GET /jobs/list is served now: remove it from its area's `not_served`" in f
               for f in found)


def test_versions_collapse_into_one_operation():
    by_key = {op.key: op for op in served_operations()}
    assert by_key["POST /jobs/create"].versions == ("2.0", "2.1", "2.2")
    assert by_key["GET /clusters/get"].versions == ("2.0", "2.1")
    assert by_key["GET /.well-known/databricks-config"].versions == ()
    assert not any(key.split(" ", 1)[1].startswith("/_emulator") for key in by_key)


def test_readme_is_current():
    assert emulator_support.main(["--check"]) == 0, (
        "workspace_emulator/README.md's support list is stale: "
        "run `python -m tools.emulator_support`")
