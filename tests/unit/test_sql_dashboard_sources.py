"""A Query's and a Dashboard's `source` (issue 43): a file of the project, read at its real
path; a symbolic link out of the project is refused by check, naming `source`; the checked
inputs, which the state records, hold the content's digest, never the content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from providers.core.lifecycle import CONNECTION_KEY
from providers.dashboards.dashboard import DashboardProvider, normal_digest
from providers.sql.query import QueryProvider, text_digest

CONNECTION = {"host": "https://ws.example.com"}
SECRET_TEXT = "token=dapi-not-for-the-state"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "queries").mkdir(parents=True)
    (root / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    outside = tmp_path / "outside.txt"
    outside.write_text(json.dumps({"pages": [], "note": SECRET_TEXT}))
    (root / "queries/linked.sql").symlink_to(outside)
    (root / "linked.lvdash.json").symlink_to(outside)
    monkeypatch.chdir(root)
    return root


def query(source: str) -> dict[str, Any]:
    return {"display_name": "q", "source": source, CONNECTION_KEY: CONNECTION}


def dashboard(source: str) -> dict[str, Any]:
    return {"display_name": "d", "source": source, CONNECTION_KEY: CONNECTION}


def test_a_source_linked_out_of_the_project_is_refused(project: Path) -> None:
    for provider, inputs in ((QueryProvider(), query("queries/linked.sql")),
                             (DashboardProvider(), dashboard("linked.lvdash.json"))):
        failures = provider.check({}, inputs).failures
        assert [f.property for f in failures] == ["source"]
        assert "outside the project directory" in failures[0].reason
        assert SECRET_TEXT not in failures[0].reason


def test_the_checked_inputs_hold_the_digest_not_the_content(project: Path) -> None:
    (project / "queries/orders.sql").write_text(f"SELECT '{SECRET_TEXT}'")
    (project / "sales.lvdash.json").write_text(json.dumps({"pages": [], "n": SECRET_TEXT}))
    checked = QueryProvider().check({}, query("queries/orders.sql")).inputs
    assert checked["query_sha256"] == text_digest(f"SELECT '{SECRET_TEXT}'")
    assert SECRET_TEXT not in json.dumps(checked)
    checked = DashboardProvider().check({}, dashboard("sales.lvdash.json")).inputs
    assert checked["serialized_sha256"] == normal_digest(json.dumps({"n": SECRET_TEXT,
                                                                     "pages": []}))
    assert SECRET_TEXT not in json.dumps(checked)
