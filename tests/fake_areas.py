"""Unit tests whose fake client stands for the API's areas (`client.jobs`, a fake with the
jobs area's methods), not for HTTP: within such a test, each area a module makes from a
client (`JobsApi(client)`, `job_permissions_api(client)`), the test's own module included,
is the fake client's attribute of the area's name."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from providers.core.registry import kinds
from providers.jobs import job_permissions_api as job_permissions_module

_PACKAGES = ("providers.", "stacks.", "tools.", "tests.")


def _area_of(value: Any) -> str | None:
    """`jobs` for the class JobsApi of providers/jobs/jobs_api.py; None for anything else."""
    if value is job_permissions_module.job_permissions_api:
        return "job_permissions"
    module = getattr(value, "__module__", "") or ""
    if isinstance(value, type) and module.endswith("_api") and value.__name__.endswith("Api"):
        return module.rsplit(".", 1)[1].removesuffix("_api")
    return None


def areas_from_the_fake_client(monkeypatch: pytest.MonkeyPatch) -> None:
    kinds()  # every kind's module loaded, so that its areas are the fakes too
    for name, module in list(sys.modules.items()):
        if not name.startswith(_PACKAGES) or name.endswith("_api") or module is None:
            continue
        for attribute, value in list(vars(module).items()):
            area = _area_of(value)
            if area is not None:
                monkeypatch.setattr(
                    module, attribute, lambda client, area=area: getattr(client, area)
                )


@pytest.fixture
def fake_areas(monkeypatch: pytest.MonkeyPatch) -> None:
    areas_from_the_fake_client(monkeypatch)
