"""A client area is found by its module's name, with nothing else written for it: every
module of providers/client that names an AREA is `client.<module>`, made once per client;
a name with no such module is refused by name."""

from __future__ import annotations

import pkgutil
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest

import providers.client
from providers.client.ip_access_lists import IpAccessListsApi
from providers.client.permissions import JOBS, PermissionsApi
from providers.client.workspace import WorkspaceClient
from tests.unit.client_support import connection

pytestmark = pytest.mark.usefixtures("fresh_client_caches")


def area_modules() -> list[str]:
    """The modules of providers/client that name an AREA."""
    names = []
    for info in pkgutil.iter_modules(providers.client.__path__):
        module = __import__(f"providers.client.{info.name}", fromlist=["AREA"])
        if hasattr(module, "AREA"):
            names.append(info.name)
    return names


class WidgetsApi:
    def __init__(self, client: Any) -> None:
        self.client = client


@pytest.fixture()
def widgets_module() -> Iterator[None]:
    """An area module added beside the others: providers/client/widgets.py."""
    module = types.ModuleType("providers.client.widgets")
    module.AREA = WidgetsApi  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    yield
    del sys.modules[module.__name__]


def test_every_area_module_is_an_attribute_made_once() -> None:
    client = WorkspaceClient(connection())
    found = area_modules()
    assert {"jobs", "job_permissions", "ip_access_lists", "groups", "users"} <= set(found)
    for name in found:
        area = getattr(client, name)
        assert getattr(client, name) is area, name
        assert area.client is client, name


def test_the_areas_are_the_ones_the_kinds_call() -> None:
    client = WorkspaceClient(connection())
    assert isinstance(client.ip_access_lists, IpAccessListsApi)
    assert isinstance(client.job_permissions, PermissionsApi)
    assert client.job_permissions.object_type == JOBS


def test_a_new_area_module_needs_no_wiring(widgets_module: None) -> None:
    client = WorkspaceClient(connection())
    assert isinstance(client.widgets, WidgetsApi) and client.widgets.client is client
    assert client.area("widgets") is not client.widgets  # a fresh one each time asked


@pytest.mark.parametrize("name", ["jbos", "http", "wire_table"])
def test_a_name_with_no_area_is_refused_by_name(name: str) -> None:
    client = WorkspaceClient(connection())
    with pytest.raises(AttributeError, match=f"no area '{name}'"):
        getattr(client, name)
