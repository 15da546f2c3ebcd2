"""bench/RESULTS.md from a synthetic results dict (no engine: the machine section's engine
version is a fixed one): ours over floor_same beside ours over the floor, and floor_same in
the state tables."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from bench import report as bench_report
from bench.deploy_cost import OPERATIONS, Calls, Sample, StateSize
from bench.report import write_report
from bench.summary import summarise

COUNTS = (10, 50)
# Seconds per round of every operation, by variant: ours/floor_same is 1.5 in both rounds,
# ours/floor 3.0 then 2.0, floor_same/floor 2.0 then 1.33.
SECONDS = {
    "ours": (3.0, 3.0),
    "floor": (1.0, 1.5),
    "floor_same": (2.0, 2.0),
    "floor_declared": (1.2, 1.8),
    "fixed": (4.0, 4.0),
    # peer/ours 2.0 then 1.5.
    "peer": (6.0, 4.5),
}
ENTRY_BYTES = {
    "ours": {"Job": 3044.0, "JobPermissions": 1091.0, "SecretScope": 836.0},
    "floor": {"Resource": 1060.0},
    "floor_same": {"Job": 3123.0, "JobPermissions": 1225.0, "SecretScope": 937.0},
    "floor_declared": {"Job": 1788.0, "JobPermissions": 1001.0, "SecretScope": 840.0},
}
# The fixed-limit variant is ours with a ceiling: it records what ours records.
ENTRY_BYTES["fixed"] = ENTRY_BYTES["ours"]
ENTRY_BYTES["peer"] = {"Job": 6700.0, "JobPermissions": 990.0, "SecretScope": 410.0}


@pytest.fixture(autouse=True)
def machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine the report names, without asking the engine for its version (which would
    build the engine on a machine that has none)."""
    monkeypatch.setattr(bench_report, "machine", lambda: {
        "os": "Linux", "cpu": "test", "cores": "2", "memory": "24 GiB", "python": "3.11.7",
        "engine": "v3.79.0"})


def state(variant: str, count: int) -> dict[str, Any]:
    by_kind = ENTRY_BYTES[variant]
    entry = sum(by_kind.values()) / len(by_kind)
    return asdict(
        StateSize(
            variant=variant,
            count=count,
            total_bytes=int(entry * count) + 2000,
            resources=count,
            bytes_per_resource=entry + 2000 / count,
            entry_bytes_per_resource=entry,
            provider_bytes_per_resource=0.0,
            connection_bytes_per_resource=0.0,
            entry_bytes_per_job=by_kind.get("Job", 0.0),
            entry_bytes_by_kind=by_kind,
        )
    )


def results(variants: tuple[str, ...]) -> dict[str, Any]:
    samples = [
        asdict(Sample(variant, count, round_, operation, SECONDS[variant][round_], Calls()))
        for variant in variants
        for count in COUNTS
        for round_ in (0, 1)
        for operation in OPERATIONS
    ]
    made = {
        "counts": list(COUNTS),
        "rounds": 2,
        "variants": list(variants),
        "started": 0.0,
        "seconds": 60.0,
        "samples": samples,
        "state": [state(variant, count) for count in COUNTS for variant in variants],
    }
    made["summary"] = summarise(made)
    return made


def test_the_summary_pairs_ours_with_floor_same_round_by_round():
    rows = results(("ours", "floor", "floor_same"))["summary"]["rows"]
    assert len(rows) == len(OPERATIONS) * len(COUNTS)
    for row in rows:
        assert row["over_floor_same_round_ratios"] == [1.5, 1.5]
        assert row["over_floor_same"] == 1.5
        assert row["floor_same_seconds"] == 2.0
        assert row["floor_same_ratio"] == (2.0 / 1.0 + 2.0 / 1.5) / 2
        assert row["round_ratios"] == [3.0, 2.0] and row["ratio"] == 2.5


def test_the_report_puts_ours_over_floor_same_beside_ours_over_the_floor(tmp_path: Path):
    report = tmp_path / "RESULTS.md"
    write_report(results(("ours", "floor", "floor_same")), report)
    text = report.read_text()

    assert "| ours/floor | ours/floor_same | per round | floor_same/floor |" in text
    for count in COUNTS:
        own_ms = 1000 * (3.0 - 2.0) / count
        assert (
            f"| `pulumi up` (create N) | {count} | 3.00 | 2.00 | 1.25 | 2.50 | 1.50 "
            f"| 1.50, 1.50 | 1.67 | {own_ms:.0f} |"
        ) in text
    # floor_same in the state table, and each kind's entry side by side.
    assert "| floor_same | 10 | " in text.split("## State size")[1]
    assert "| variant | N | `Job` entry | `JobPermissions` entry | `Resource` entry " in text
    assert "| ours | 50 | 3044 | 1091 | - | 836 |" in text
    assert "| floor | 50 | - | - | 1060 | - |" in text
    assert "| floor_same | 50 | 3123 | 1225 | - | 937 |" in text
    assert "--variants ours,floor,floor_same" in text


def test_without_floor_same_its_table_has_no_rows(tmp_path: Path):
    measured = results(("ours", "floor"))
    assert all("over_floor_same" not in row for row in measured["summary"]["rows"])
    report = tmp_path / "RESULTS.md"
    write_report(measured, report)
    table = report.read_text().split("| ours - floor_same, ms/resource |")[1].split("\n\n")[0]
    assert table.strip().splitlines() == ["|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]


def test_floor_declared_sits_beside_floor_same_where_it_was_measured(tmp_path: Path):
    report = tmp_path / "RESULTS.md"
    write_report(results(("ours", "floor", "floor_same", "floor_declared")), report)
    text = report.read_text()
    assert "| floor_declared/floor | floor_same/floor | ours/floor |" in text
    for count in COUNTS:
        assert (
            f"| `pulumi refresh` | {count} | 1.25 | 1.50 | 2.00 | 3.00 | 1.20 | 1.67 | 2.50 |"
        ) in text
    assert "| floor_declared | 50 | 1788 | 1001 | - | 840 |" in text

    without = tmp_path / "WITHOUT.md"
    write_report(results(("ours", "floor", "floor_same")), without)
    assert "floor_declared" not in without.read_text()


def test_a_variant_the_run_did_not_measure_gets_no_section(tmp_path: Path):
    report = tmp_path / "RESULTS.md"
    write_report(results(("ours", "floor", "floor_same")), report)
    text = report.read_text()
    assert "`fixed`:" not in text and "`throttled`:" not in text

    with_fixed = tmp_path / "FIXED.md"
    write_report(results(("ours", "fixed", "floor")), with_fixed)
    text = with_fixed.read_text()
    assert "`fixed`:" in text and "`throttled`:" not in text
    # ours 3.00 s, fixed 4.00 s, the floor's median 1.25 s; fixed/floor 4.0 then 2.67.
    assert "| `pulumi refresh` | 10 | 3.00 | 4.00 | 1.25 | 2.50 | 3.33 | 0 |" in text


def test_the_peer_sits_beside_ours_with_its_ratio_calls_and_command(tmp_path: Path):
    measured = results(("ours", "floor", "peer"))
    for row in measured["summary"]["rows"]:
        assert row["peer_over_ours_round_ratios"] == [2.0, 1.5]
        assert row["peer_over_ours"] == 1.75
    measured["peer"] = {"provider": "v1.84.0", "tofu": "v1.12.6"}
    report = tmp_path / "RESULTS.md"
    write_report(measured, report)
    text = report.read_text()
    section = text.split("## Beside the peer")[1].split("\n## ")[0]
    assert "(v1.84.0) under OpenTofu (v1.12.6)" in section
    assert "--counts 10,50 --rounds 2 --variants ours,floor,peer" in section
    for count in COUNTS:
        assert (
            f"| `pulumi refresh` | `tofu apply -refresh-only` | {count} | 3.00 | 5.25 | 1.75 "
            "| 2.00, 1.50 | 0 | 0 | 0 | 0 | 0 |"
        ) in section
    assert "| peer | 50 | 6700 | 990 | - | 410 |" in text


def test_a_peer_the_run_could_not_build_is_named_with_why(tmp_path: Path):
    measured = results(("ours", "floor"))
    measured["peer"] = {"skipped": "bench/peer/ensure.sh provider failed (1): peer: Go is "
                        "required to build terraform-provider-databricks (v1.84.0)"}
    measured["variants"] = ["ours", "floor", "peer"]
    report = tmp_path / "RESULTS.md"
    write_report(measured, report)
    assert "Not measured: bench/peer/ensure.sh provider failed (1): peer: Go is required" in (
        report.read_text())
    quiet = tmp_path / "QUIET.md"
    write_report(results(("ours", "floor")), quiet)
    assert "Beside the peer" not in quiet.read_text()


def scale_results() -> dict[str, Any]:
    """N=500 and 2000, one round: ours and the floor take 4x as long at 4x N (linear), ours
    in the single-write mode 8x (N^1.5); the peer 6 s then 24 s."""
    times = {"ours": (2.0, 8.0), "floor": (1.0, 4.0), "ours_single": (1.0, 8.0),
             "floor_single": (0.5, 4.0), "peer": (6.0, 24.0)}
    samples = [
        asdict(Sample(variant, count, 0, operation, seconds, Calls()))
        for variant, pair in times.items()
        for count, seconds in zip((500, 2000), pair, strict=True)
        for operation in OPERATIONS
    ]
    made: dict[str, Any] = {"counts": [500, 2000], "rounds": 1, "variants": list(times),
                            "started": 0.0, "seconds": 60.0, "samples": samples,
                            "state": [state(v, n) for n in (500, 2000)
                                      for v in ("ours", "floor", "peer")]}
    made["summary"] = summarise(made)
    return made


def test_the_summary_gives_ratios_to_the_peer_and_the_growth_exponents():
    summary = scale_results()["summary"]
    row = next(r for r in summary["rows"] if r["operation"] == "up" and r["count"] == 2000)
    assert row["ours_over_peer"] == 8.0 / 24.0
    assert row["ours_single_over_peer"] == 8.0 / 24.0
    assert row["single_over_floor_single"] == 2.0
    growth = {(g["variant"], g["operation"]): g["exponent"] for g in summary["growth"]}
    assert growth["ours", "up"] == pytest.approx(1.0)
    assert growth["ours_single", "destroy"] == pytest.approx(1.5)
    assert growth["peer", "refresh"] == pytest.approx(1.0)


def test_the_report_judges_the_scale_targets(tmp_path: Path):
    report = tmp_path / "RESULTS.md"
    write_report(scale_results(), report)
    text = report.read_text()
    assert "## Single-write mode and growth with N" in text
    assert "| `pulumi up` (create N) | 2000 | 8.00 | 8.00 | 4.00 | 4.00 | 24.00 | 0.33 | " \
        "0.33 | 2.00 |" in text
    assert "| `pulumi up` (create N) at N=2000: ours_single/peer | 0.5 | 0.33 | yes |" in text
    assert "| `pulumi refresh` at N=2000: ours_single/peer | 0.1 | 0.33 | **no** |" in text
    assert "| `pulumi up` (create N) at N=2000: ours_single/floor_single | 1.3 | 2.00 | " \
        "**no** |" in text
    assert "| growth of `pulumi up` (create N) (ours_single) 500->2000 | 1.15 | 1.50 | " \
        "**no** |" in text
