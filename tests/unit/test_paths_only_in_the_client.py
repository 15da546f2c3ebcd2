"""The client and its areas own the API: no module of providers/ but the client package and
the domains' area modules (`<domain>/<area>_api.py`, with the jobs' wire forms beside
them) names a path or calls the client's HTTP verbs, and nothing else reads the wire-form
table (`client.wire`). A kind calls `JobsApi(client).create(...)`,
`CatalogsApi(client).bind(...)` and the like instead."""

from __future__ import annotations

import re
from pathlib import Path

from stacks.pulumi_cli import REPO_ROOT

CLIENT = REPO_ROOT / "providers" / "client"
# An API path, or a call of one of the client's verbs.
RAW_CALL = re.compile(r"/api/|\bclient\.(?:get|post|put|patch|delete|request)\(")
# The wire-form table, read off a client (`client.wire.x`, `self.client.wire`).
WIRE_TABLE = re.compile(r"\.wire\b")


def python_files(*packages: str) -> list[Path]:
    return sorted(path for package in packages for path in (REPO_ROOT / package).rglob("*.py"))


def is_an_area(path: Path) -> bool:
    return path.name.endswith("_api.py") or path.name == "job_wire.py"


def outside_the_client(paths: list[Path]) -> list[Path]:
    return [path for path in paths if not path.is_relative_to(CLIENT) and not is_an_area(path)]


def lines_matching(pattern: re.Pattern[str], paths: list[Path]) -> list[str]:
    return [
        f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}"
        for path in paths
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]


def test_no_kind_names_a_path_or_calls_a_verb() -> None:
    kinds = outside_the_client(python_files("providers"))
    assert REPO_ROOT / "providers" / "jobs" / "job.py" in kinds
    assert REPO_ROOT / "providers" / "jobs" / "jobs_api.py" not in kinds
    assert lines_matching(RAW_CALL, kinds) == [], (
        "call the client's area (JobsApi(client), CatalogsApi(client), ...); a missing operation "
        "goes into its area module (<domain>/<area>_api.py)"
    )


def test_only_the_client_reads_the_wire_table() -> None:
    outside = outside_the_client(python_files("providers", "stacks", "tools", "bench"))
    assert REPO_ROOT / "stacks" / "audit.py" in outside
    assert lines_matching(WIRE_TABLE, outside) == [], (
        "a wire-form difference belongs in an area module (<domain>/<area>_api.py), which "
        "reads providers/client/wire.py"
    )


def test_the_patterns_catch_what_they_forbid() -> None:
    an_area = REPO_ROOT / "providers" / "unity_catalog" / "bindings_api.py"
    inside = [*python_files("providers/client"), an_area]
    assert lines_matching(RAW_CALL, inside) and lines_matching(WIRE_TABLE, inside)
    caught = [
        'client.get(f"{SCIM}/{id_}")',
        "client.post(path, body)",
        "client.request(method, path)",
        'PATH = "/api/2.0/repos"',
    ]
    assert all(RAW_CALL.search(line) for line in caught)
    assert not RAW_CALL.search("JobsApi(client).get(job_id)")
    assert WIRE_TABLE.search("body = client.wire.bind_body(ids)")
    assert not WIRE_TABLE.search('connection["wire_form"]')
