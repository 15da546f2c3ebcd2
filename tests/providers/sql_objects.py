"""What the provider tests of the SQL objects and dashboards share: a warehouse, a folder,
a project directory holding files, and the update bodies a provider sends."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from providers.client import WorkspaceClient
from providers.sql.sql_warehouses_api import SqlWarehousesApi
from providers.workspace.workspace_objects_api import WorkspaceObjectsApi


def make_warehouse(client: WorkspaceClient) -> str:
    return SqlWarehousesApi(client).create(
        {"name": f"wh-{uuid.uuid4().hex[:8]}", "cluster_size": "2X-Small"})


def make_folder(client: WorkspaceClient) -> str:
    path = f"/Shared/analytics-{uuid.uuid4().hex[:8]}"
    WorkspaceObjectsApi(client).mkdirs(path)
    return path


def project(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, files: dict[str, str]) -> Path:
    """A project directory (Pulumi.yaml and `files`) as the working directory."""
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def patches_sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """(path, body) of every PATCH the client sends from now on."""
    real_patch = WorkspaceClient.patch
    sent: list[tuple[str, Any]] = []

    def patch(self: WorkspaceClient, path: str, body: Any) -> Any:
        sent.append((path, body))
        return real_patch(self, path, body)

    monkeypatch.setattr(WorkspaceClient, "patch", patch)
    return sent
