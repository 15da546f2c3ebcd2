"""The deployment-cost bench in quick mode (N=10, one round): proves it measures for real.

The full bench (N = 10, 50, 200, 500, several rounds, the fixed-limit variant too) is not
part of the tests; it writes bench/RESULTS.md. Here: ours, the floor, the floor with ours'
mix and state (floor_same), floor_same recording the declaration once (floor_declared), and
ours against an emulator that throttles (up and destroy), and ours in the single-write mode.
Timings are not asserted (shared machines); what is asserted is that every operation ran on
each stack, the request log was read, the state was measured (floor_same's about ours' for
each kind) and the report and its plot were written, plus the call counts the design
promises.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.deploy_cost import OPERATIONS, OPERATIONS_OF, run, summarise
from bench.programs.mix import JOB, JOB_PERMISSIONS, KINDS, SECRET_SCOPE, SERVICE_PRINCIPAL
from bench.report import write_report

pytestmark = pytest.mark.engine

N = 10
VARIANTS = ("ours", "floor", "floor_same", "floor_declared", "throttled", "ours_single")


@pytest.fixture(scope="module")
def results() -> dict:
    measured = run([N], rounds=1, progress=lambda line: None, variants=VARIANTS)
    measured["summary"] = summarise(measured)
    return measured


def samples(results: dict, variant: str) -> dict[str, dict]:
    return {s["operation"]: s for s in results["samples"] if s["variant"] == variant}


def test_every_operation_ran_on_both_stacks(results: dict):
    for variant in VARIANTS:
        ran = samples(results, variant)
        assert sorted(ran) == sorted(OPERATIONS_OF.get(variant, OPERATIONS))
        assert all(sample["seconds"] > 0 for sample in ran.values())
        assert ran["up"]["resources_in_state"] == N


def test_the_floors_call_nobody(results: dict):
    for variant in ("floor", "floor_same", "floor_declared"):
        for sample in samples(results, variant).values():
            calls = sample["calls"]
            assert calls["platform_reads"] == calls["platform_writes"] == 0, variant
            assert calls["token_requests"] == 0, variant


def test_floor_same_records_about_ours_state_for_each_kind(results: dict):
    sizes = {size["variant"]: size for size in results["state"]}
    ours, same = sizes["ours"], sizes["floor_same"]
    assert ours["entry_bytes_by_kind"].keys() == same["entry_bytes_by_kind"].keys() == set(KINDS)
    # What differs: the project's name in the urns, and floor_same's `__provider` (no
    # secret) for ours' provider reference (ours' bound resources record no provider code
    # and name no secret outputs).
    code = same["provider_bytes_per_resource"]
    assert code > 0 and ours["provider_bytes_per_resource"] == 0
    for kind, entry in ours["entry_bytes_by_kind"].items():
        assert abs(same["entry_bytes_by_kind"][kind] - code - entry) <= 0.2 * entry, kind
    mean = ours["entry_bytes_per_resource"]
    assert abs(same["entry_bytes_per_resource"] - code - mean) <= 0.1 * mean
    # The floor's one number per resource is far less.
    assert sizes["floor"]["entry_bytes_per_resource"] < 0.8 * ours["entry_bytes_per_resource"]


def test_floor_declared_records_the_declaration_once(results: dict):
    sizes = {size["variant"]: size["entry_bytes_by_kind"] for size in results["state"]}
    declared, same = sizes["floor_declared"], sizes["floor_same"]
    assert declared.keys() == same.keys() == set(KINDS)
    # A job's settings are most of its entry: recorded once, not twice.
    assert declared[JOB] < 0.7 * same[JOB]
    assert declared[JOB_PERMISSIONS] < same[JOB_PERMISSIONS]
    # A scope's or a principal's declaration is a name or two, about what floor_declared's
    # longer project name adds to its urns, ids and names: the two entries come out within
    # a few bytes of each other, either way.
    for kind in (SECRET_SCOPE, SERVICE_PRINCIPAL):
        assert declared[kind] <= same[kind] + 16, kind


def test_ours_writes_once_per_create_and_delete(results: dict):
    for variant in ("ours", "ours_single"):
        ours = samples(results, variant)
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
    # Every scope, job and principal is read from one list call of its kind; a job's
    # permissions have no list.
    routes = calls["by_route"]
    assert routes["GET /api/2.0/secrets/scopes/list"] == 1
    assert routes["GET /api/2.0/jobs/list"] == 1
    assert routes["GET /api/2.0/preview/scim/v2/ServicePrincipals"] == 1
    assert "GET /api/2.0/jobs/get" not in routes


def test_the_throttled_up_converges(results: dict):
    throttled = samples(results, "throttled")
    assert throttled["up"]["resources_in_state"] == N
    assert throttled["up"]["calls"]["platform_writes"] - throttled["up"]["calls"]["throttled"] >= N


def test_at_most_one_token_request_per_run(results: dict):
    for operation, sample in samples(results, "ours").items():
        assert sample["calls"]["token_requests"] <= 1, operation


def test_state_is_measured_per_resource(results: dict):
    sizes = {size["variant"]: size for size in results["state"]}
    assert sizes.keys() == set(VARIANTS)
    ours = sizes["ours"]
    assert ours["resources"] == N
    assert sizes["throttled"]["resources"] == N
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
    # Each round's ratio stands beside the median (one round here: the median itself).
    up = next(r for r in results["summary"]["rows"] if r["operation"] == "up")
    assert up["round_ratios"] == [up["ratio"]]
    assert f"| {up['ratio']:.2f} | {up['ratio']:.2f} |" in text
    # Ours over floor_same beside ours over the floor, per operation.
    assert up["over_floor_same_round_ratios"] == [up["over_floor_same"]]
    assert (
        f"| {up['floor_same_seconds']:.2f} | {up['floor_seconds']:.2f} | {up['ratio']:.2f} "
        f"| {up['over_floor_same']:.2f} | {up['over_floor_same']:.2f} "
        f"| {up['floor_same_ratio']:.2f} |"
    ) in text
    assert image.read_bytes().startswith(b"\x89PNG")
