"""The order of a stack's Unity Catalog objects: what may lie under an external location
(a catalog's or a schema's storage_root, an EXTERNAL volume's storage_location) waits for
the stack's external locations, so an up makes the location first and a destroy deletes it
last; the service refuses both the other way round (tests/e2e/test_unity_catalog.py)."""

from __future__ import annotations

import pytest

from providers.core.registry import kind_named, kinds


@pytest.mark.parametrize("name", ["Catalog", "Schema", "Volume"])
def test_what_lies_under_a_location_waits_for_the_locations(name: str) -> None:
    assert "externalLocations" in kind_named(name).after


def test_the_locations_are_declared_before_what_waits_for_them() -> None:
    # The stack program declares kinds in the registry's order; a kind waits only for the
    # lists declared before it.
    order = [kind.config_key for kind in kinds()]
    for name in ("Catalog", "Schema", "Volume"):
        assert order.index("externalLocations") < order.index(kind_named(name).config_key)
