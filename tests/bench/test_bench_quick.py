"""The deployment-cost bench in quick mode (N=10, one round): proves it measures for real.

The full bench (N = 10, 50, 200, several rounds) is not part of the tests; it writes
bench/RESULTS.md. Timings are not asserted here (shared machines); what is asserted is
that every operation ran on both stacks, the request log was read, the state was measured
and the report and its plot were written, plus the call counts the design promises.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.deploy_cost import OPERATIONS, VARIANTS, run, summarise
from bench.report import write_report

pytestmark = pytest.mark.engine

N = 10


@pytest.fixture(scope="module")
def results() -> dict:
    measured = run([N], rounds=1, progress=lambda line: None)
    measured["summary"] = summarise(measured)
    return measured


def samples(results: dict, variant: str) -> dict[str, dict]:
    return {s["operation"]: s for s in results["samples"] if s["variant"] == variant}


def test_every_operation_ran_on_both_stacks(results: dict):
    for variant in VARIANTS:
        ran = samples(results, variant)
        assert sorted(ran) == sorted(OPERATIONS)
        assert all(sample["seconds"] > 0 for sample in ran.values())
        assert ran["up"]["resources_in_state"] == N


def test_the_floor_calls_nobody(results: dict):
    for sample in samples(results, "floor").values():
        calls = sample["calls"]
        assert calls["platform_reads"] == calls["platform_writes"] == calls["token_requests"] == 0


def test_ours_writes_once_per_create_and_delete(results: dict):
    ours = samples(results, "ours")
    assert ours["up"]["calls"]["platform_writes"] == N
    assert ours["destroy"]["calls"]["platform_writes"] >= N


def test_no_op_preview_and_up_make_no_platform_calls(results: dict):
    ours = samples(results, "ours")
    for operation in ("preview_noop", "up_noop"):
        calls = ours[operation]["calls"]
        assert calls["platform_reads"] + calls["platform_writes"] == 0, calls["by_route"]


def test_refresh_reads_at_most_once_per_resource(results: dict):
    calls = samples(results, "ours")["refresh"]["calls"]
    assert 0 < calls["platform_reads"] < N and calls["platform_writes"] == 0
    # Every scope is read from one list call.
    assert calls["by_route"]["GET /api/2.0/secrets/scopes/list"] == 1


def test_at_most_one_token_request_per_run(results: dict):
    for operation, sample in samples(results, "ours").items():
        assert sample["calls"]["token_requests"] <= 1, operation


def test_state_is_measured_per_resource(results: dict):
    sizes = {size["variant"]: size for size in results["state"]}
    assert sizes.keys() == set(VARIANTS)
    ours = sizes["ours"]
    assert ours["resources"] == N
    assert 0 < ours["entry_bytes_per_resource"] < ours["total_bytes"]
    # Bound to the WorkspaceAuth's provider, no resource records the connection or its code;
    # the floor's dynamic resources still carry `__provider`.
    assert ours["connection_bytes_per_resource"] == 0 and ours["provider_bytes_per_resource"] == 0
    assert ours["entry_bytes_per_resource"] < 2048
    # A job of the mix has 5 tasks, a shared job cluster and a schedule.
    assert 0 < ours["entry_bytes_per_job"] <= 4096
    assert sizes["floor"]["provider_bytes_per_resource"] > 0


def test_the_report_has_the_tables_and_the_plot(results: dict, tmp_path: Path):
    report = tmp_path / "RESULTS.md"
    image = write_report(results, report)

    text = report.read_text()
    for heading in ("## Time", "## Platform calls", "## State size", "Machine:"):
        assert heading in text
    assert f"| `pulumi up` (create N) | {N} |" in text
    assert image.read_bytes().startswith(b"\x89PNG")
