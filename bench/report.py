"""bench/RESULTS.md and its plot from the results of bench/deploy_cost.py.

.venv/bin/python bench/report.py bench/out/deploy_cost.json bench/RESULTS.md [notes.md]

(A run cut short leaves bench/out/deploy_cost.partial.json, written after each N of each
round; the report takes it too.)
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.summary import EMULATOR_RATE_LIMIT, FIXED_RATE_LIMIT, summarise  # noqa: E402
from stacks.pulumi_cli import engine_bin_dir  # noqa: E402

OPERATION_NAMES = {
    "up": "`pulumi up` (create N)",
    "preview_noop": "no-op `pulumi preview`",
    "up_noop": "no-op `pulumi up`",
    "refresh": "`pulumi refresh`",
    "destroy": "`pulumi destroy`",
}
STATE_LIMIT_BYTES = 2048
# The N the ratio targets are judged at (issue 16), and each operation's limit over the floor.
TARGET_N = 200
RATIO_LIMITS = {"up": 1.15, "refresh": 1.5, "destroy": 1.1, "preview_noop": 1.1, "up_noop": 1.1}
CALLS_PER_CREATE_LIMIT = 1.25
# Per-resource time may wobble on a shared machine; quadratic work would double it and more.
LINEAR_LIMIT = 1.5


def machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = "unknown"
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f"{kib / 2**20:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    try:
        engine = subprocess.run(
            ["pulumi", "version"],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PATH": _engine_path()},
        ).stdout.strip()
    except OSError:
        engine = "unknown"
    return {
        "os": f"{platform.system()} {platform.release()}",
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "memory": memory,
        "python": platform.python_version(),
        "engine": engine or "unknown",
    }


def _engine_path() -> str:
    return f"{engine_bin_dir()}{os.pathsep}{os.environ.get('PATH', '')}"


def timing_table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| operation | N | ours (s) | floor (s) | ours/floor | per round | ours ms/resource "
        "| floor ms/resource | ours - floor, ms/resource |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        # Each round's ratio, side by side: their spread is the noise of the shared machine.
        per_round = ", ".join(f"{r:.2f}" for r in row.get("round_ratios", []))
        lines.append(
            f"| {OPERATION_NAMES[row['operation']]} | {row['count']} | {row['ours_seconds']:.2f} "
            f"| {row['floor_seconds']:.2f} | {row['ratio']:.2f} | {per_round} "
            f"| {row['ours_per_resource_ms']:.0f} | {row['floor_per_resource_ms']:.0f} "
            f"| {_extra_ms(row):.0f} |"
        )
    return lines


def floor_same_table(rows: list[dict[str, Any]]) -> list[str]:
    """Ours over floor_same (the floor with ours' mix and state) beside ours over the floor:
    the first is our own cost, the second adds the engine's cost of writing ours' state."""
    lines = [
        "| operation | N | ours (s) | floor_same (s) | floor (s) | ours/floor | ours/floor_same "
        "| per round | floor_same/floor | ours - floor_same, ms/resource |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        if "floor_same_seconds" not in row:
            continue
        per_round = ", ".join(f"{r:.2f}" for r in row["over_floor_same_round_ratios"])
        own_ms = 1000 * (row["ours_seconds"] - row["floor_same_seconds"]) / row["count"]
        lines.append(
            f"| {OPERATION_NAMES[row['operation']]} | {row['count']} | {row['ours_seconds']:.2f} "
            f"| {row['floor_same_seconds']:.2f} | {row['floor_seconds']:.2f} | {row['ratio']:.2f} "
            f"| {row['over_floor_same']:.2f} | {per_round} | {row['floor_same_ratio']:.2f} "
            f"| {own_ms:.0f} |"
        )
    return lines


def floor_declared_section(rows: list[dict[str, Any]]) -> list[str]:
    """floor_declared beside floor_same, where the run measured it: the engine's cost of the
    declaration alone against its cost of ours' whole state."""
    measured = [row for row in rows if "floor_declared_seconds" in row]
    if not measured:
        return []
    lines = [
        "`floor_declared`: floor_same whose outputs repeat no input, only what the service "
        "computes and what a delete needs. Every provider records the declaration as the "
        "resource's inputs, so floor_declared/floor is the least any provider of this mix "
        "can cost on this engine:",
        "",
        "| operation | N | floor (s) | floor_declared (s) | floor_same (s) | ours (s) "
        "| floor_declared/floor | floor_same/floor | ours/floor |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in measured:
        same_s, same_ratio = row.get("floor_same_seconds"), row.get("floor_same_ratio")
        lines.append(
            f"| {OPERATION_NAMES[row['operation']]} | {row['count']} "
            f"| {row['floor_seconds']:.2f} | {row['floor_declared_seconds']:.2f} "
            f"| {_or_dash(same_s)} | {row['ours_seconds']:.2f} "
            f"| {row['floor_declared_ratio']:.2f} | {_or_dash(same_ratio)} | {row['ratio']:.2f} |"
        )
    return [*lines, ""]


def _or_dash(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def fixed_section(rows: list[dict[str, Any]]) -> list[str]:
    """The fixed-limit variant beside ours, where the run measured it."""
    measured = [row for row in rows if "fixed_seconds" in row]
    if not measured:
        return []
    lines = [
        f"`fixed`: ours with the client's former fixed limit, a ceiling of {FIXED_RATE_LIMIT} "
        "calls per second per endpoint family (`rate_limit_per_second`), measured in the same "
        "rounds:",
        "",
        f"| operation | N | ours (s) | fixed {FIXED_RATE_LIMIT}/s (s) | floor (s) | ours/floor "
        "| fixed/floor | fixed platform calls |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in measured:
        lines.append(
            f"| {OPERATION_NAMES[row['operation']]} | {row['count']} | {row['ours_seconds']:.2f} "
            f"| {row['fixed_seconds']:.2f} | {row['floor_seconds']:.2f} | {row['ratio']:.2f} "
            f"| {row['fixed_ratio']:.2f} | {row['fixed_platform_calls']} |"
        )
    return [*lines, ""]


def throttled_section(rows: list[dict[str, Any]]) -> list[str]:
    """Ours against the throttling emulator, where the run measured it."""
    measured = [row for row in rows if "throttled_seconds" in row]
    if not measured:
        return []
    lines = [
        f"`throttled`: ours against a second emulator started with `--rate-limit "
        f"{EMULATOR_RATE_LIMIT}` ({EMULATOR_RATE_LIMIT} calls per second per client in all, "
        "then 429 with Retry-After), up and destroy only, in the same rounds; the client's "
        "adaptive limit learns the pace from the 429s:",
        "",
        "| operation | N | ours, throttling emulator (s) | floor (s) | ratio "
        "| platform calls (429s included) | 429s per round | ours, plain emulator (s) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in measured:
        lines.append(
            f"| {OPERATION_NAMES[row['operation']]} | {row['count']} "
            f"| {row['throttled_seconds']:.2f} | {row['floor_seconds']:.2f} "
            f"| {row['throttled_ratio']:.2f} | {row['throttled_platform_calls']} "
            f"| {', '.join(map(str, row['throttled_429s']))} | {row['ours_seconds']:.2f} |"
        )
    return [*lines, ""]


PEER_COMMAND_NAMES = {
    "up": "`tofu apply`",
    "preview_noop": "`tofu plan -detailed-exitcode`",
    "up_noop": "`tofu apply`, no changes",
    "refresh": "`tofu apply -refresh-only`",
    "destroy": "`tofu destroy`",
}


def peer_section(results: dict[str, Any], rows: list[dict[str, Any]]) -> list[str]:
    """Ours beside the service's Terraform provider under OpenTofu, where the run measured
    it; else why not, when the run asked for it."""
    measured = [row for row in rows if "peer_seconds" in row]
    peer = results.get("peer") or {}
    title = ["## Beside the peer: the service's Terraform provider under OpenTofu", ""]
    if not measured:
        asked = "peer" in results.get("variants", []) or "provider" in peer
        skipped = peer.get("skipped")
        return [*title, f"Not measured: {skipped}.", ""] if skipped and asked else []
    counts = ",".join(str(c) for c in sorted({row["count"] for row in measured}))
    lines = [
        *title,
        f"The service's Terraform provider ({peer.get('provider', '?')}) under OpenTofu "
        f"({peer.get('tofu', '?')}), both built from the Go module proxy by "
        "bench/peer/ensure.sh, on the same emulator in the same rounds as ours, each "
        "operation timed as a whole `tofu` process. Its configuration is ours' mix "
        "(bench/programs/mix.py) written by bench/programs/mix_hcl.py: `Job` as "
        "`databricks_job` (its job cluster, five chained tasks and schedule as blocks), "
        "`JobPermissions` as `databricks_permissions` on the job before it, `SecretScope` as "
        "`databricks_secret_scope`, `ServicePrincipal` as `databricks_service_principal` with "
        "the same application ids. What differs: the provider signs in with a personal "
        "access token (no token requests) and speaks the Jobs 2.2 API where ours' stack "
        "speaks the legacy wire form; each tool runs at its defaults (the engine unbounded "
        "and ours' adaptive limit; OpenTofu 10 operations at a time and the provider's SDK "
        "15 calls per second); the peer reads each object back after creating it, and "
        "refreshes before a plan, an apply and a destroy. The refresh is "
        "`tofu apply -refresh-only -auto-approve`: like `pulumi refresh` it reads every "
        "object and writes what it read to the state.",
        "",
        f"Reproduce: `.venv/bin/python bench/deploy_cost.py --counts {counts} --rounds "
        f"{results['rounds']} --variants ours,floor,peer"
        + (" --single-write" if results.get("single_write") else "") + "` (or any "
        "`--variants` list with `peer`; the first use on a machine builds both tools, without "
        "Go the run skips the peer and says why).",
        "",
        "| operation | the peer's command | N | ours (s) | peer (s) | peer/ours | per round "
        "| ours platform calls | peer platform calls | ours writes | peer writes | peer 429s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in measured:
        per_round = ", ".join(f"{r:.2f}" for r in row.get("peer_over_ours_round_ratios", []))
        lines.append(
            f"| {OPERATION_NAMES[row['operation']]} | {PEER_COMMAND_NAMES[row['operation']]} "
            f"| {row['count']} | {row['ours_seconds']:.2f} | {row['peer_seconds']:.2f} "
            f"| {row['peer_over_ours']:.2f} | {per_round} | {row['platform_calls']} "
            f"| {row['peer_platform_calls']} | {row['platform_writes']} "
            f"| {row['peer_platform_writes']} | {max(row['peer_429s'])} |"
        )
    outside = [row for row in measured if "changed outside" in (row.get("peer_summary") or "")]
    if outside:
        lines += [
            "",
            "OpenTofu found objects changed outside it (and wrote what it read to the state) "
            "in: " + ", ".join(
                f"{PEER_COMMAND_NAMES[row['operation']]} at N={row['count']}" for row in outside
            ) + ".",
        ]
    largest = max(row["count"] for row in measured)
    lines += ["", f"| the peer's command | calls by route (N={largest}) |", "|---|---|"]
    for row in measured:
        if row["count"] != largest:
            continue
        routes = ", ".join(f"`{route}` x{n}" for route, n in row["peer_by_route"].items())
        lines.append(f"| {PEER_COMMAND_NAMES[row['operation']]} | {routes or 'none'} |")
    return [*lines, ""]


def _seconds(row: dict[str, Any], variant: str) -> str:
    value = row.get("ours_seconds" if variant == "ours" else f"{variant}_seconds")
    return "-" if value is None else f"{value:.2f}"


def _ratio(row: dict[str, Any], key: str) -> str:
    value = row.get(key)
    return "-" if value is None else f"{value:.2f}"


def scale_section(results: dict[str, Any], rows: list[dict[str, Any]]) -> list[str]:
    """Ours, in the default and the single-write mode, beside the floor in both modes and
    the peer, with the ratios the issue's targets name, and the growth exponents."""
    single = [row for row in rows if "ours_single_seconds" in row]
    exponents = (results.get("summary") or {}).get("growth") or []
    if not single and not exponents:
        return []
    lines = [
        "## Single-write mode and growth with N",
        "",
        "`ours_single` and `floor_single`: ours and the floor with the engine writing the state "
        "once per run (`PULUMI_SKIP_CHECKPOINTS`, docs/state.md, \"Single-write mode\"), in the "
        "same rounds. Ratios are medians of per-round pairs.",
        "",
        "| operation | N | ours (s) | ours_single (s) | floor_single (s) | floor (s) | "
        "peer (s) | ours/peer | ours_single/peer | ours_single/floor_single |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in single or rows:
        lines.append(
            f"| {OPERATION_NAMES[row['operation']]} | {row['count']} | {_seconds(row, 'ours')} | "
            f"{_seconds(row, 'ours_single')} | {_seconds(row, 'floor_single')} | "
            f"{row['floor_seconds']:.2f} | {_seconds(row, 'peer')} | "
            f"{_ratio(row, 'ours_over_peer')} | {_ratio(row, 'ours_single_over_peer')} | "
            f"{_ratio(row, 'single_over_floor_single')} |"
        )
    lines += ["", *scale_targets(single, exponents)]
    if exponents:
        lines += [
            "",
            "Growth exponent k of the time, t ~ N^k, between two sizes (1: linear):",
            "",
            "| variant | operation | from N | to N | k |",
            "|---|---|---:|---:|---:|",
            *[
                f"| {e['variant']} | {OPERATION_NAMES[e['operation']]} | {e['from']} | {e['to']} | "
                f"{e['exponent']:.2f} |"
                for e in exponents
            ],
        ]
    return [*lines, ""]


# Issue 45's targets at the largest N, ours in the single-write mode the project's runs use.
PEER_LIMITS = {"up": 0.5, "destroy": 0.5, "refresh": 0.1}
SINGLE_OVER_FLOOR_SINGLE_LIMIT = 1.3
GROWTH_LIMIT = 1.15


def scale_targets(single: list[dict[str, Any]], exponents: list[dict[str, Any]]) -> list[str]:
    if not single:
        return []
    largest = max(row["count"] for row in single)
    at = {row["operation"]: row for row in single if row["count"] == largest}
    checks: list[tuple[str, float | None, float]] = []
    for operation, limit in PEER_LIMITS.items():
        row = at.get(operation, {})
        checks.append((f"{OPERATION_NAMES[operation]} at N={largest}: ours_single/peer",
                       row.get("ours_single_over_peer"), limit))
    for operation in ("up", "destroy"):
        row = at.get(operation, {})
        checks.append((f"{OPERATION_NAMES[operation]} at N={largest}: ours_single/floor_single",
                       row.get("single_over_floor_single"), SINGLE_OVER_FLOOR_SINGLE_LIMIT))
    for e in exponents:
        if e["variant"] == "ours_single" and e["to"] == largest and e["from"] == 500 \
                and e["operation"] in ("up", "destroy"):
            checks.append((f"growth of {OPERATION_NAMES[e['operation']]} (ours_single) "
                           f"500->{largest}", e["exponent"], GROWTH_LIMIT))
    lines = ["| target (issue 45) | limit | figure | met |", "|---|---:|---:|---|"]
    for name, figure, limit in checks:
        met = "-" if figure is None else ("yes" if figure <= limit else "**no**")
        shown = "not measured" if figure is None else f"{figure:.2f}"
        lines.append(f"| {name} | {limit} | {shown} | {met} |")
    return lines


def _extra_ms(row: dict[str, Any]) -> float:
    return 1000 * (row["ours_seconds"] - row["floor_seconds"]) / row["count"]


def measured_counts(results: dict[str, Any]) -> list[int]:
    """The N values with measurements (a run cut short lacks the last ones)."""
    return sorted({row["count"] for row in results["summary"]["rows"]})


def rounds_measured(results: dict[str, Any]) -> str:
    rounds: dict[int, set[int]] = {}
    for sample in results["samples"]:
        rounds.setdefault(sample["count"], set()).add(sample["round"])
    return ", ".join(f"N={count} x{len(found)}" for count, found in sorted(rounds.items()))


def targets(results: dict[str, Any]) -> list[str]:
    """Each target of the issue with the figure that decides it."""
    rows = results["summary"]["rows"]
    measured = measured_counts(results)
    largest = max(measured)
    at = {(r["operation"], r["count"]): r for r in rows}
    checks: list[tuple[str, bool, str]] = []
    judged = TARGET_N if TARGET_N in measured else largest
    for operation, limit in RATIO_LIMITS.items():
        row = at.get((operation, judged))
        if row is None:
            continue
        fixed = (
            f" (fixed {FIXED_RATE_LIMIT}/s: {row['fixed_ratio']:.2f}x)"
            if "fixed_ratio" in row
            else ""
        )
        checks.append(
            (
                f"{OPERATION_NAMES[operation]} at N={judged} within {limit}x the floor",
                row["ratio"] <= limit,
                f"{row['ratio']:.2f}x{fixed}",
            )
        )
    for operation in ("preview_noop", "up_noop"):
        worst = max(r["platform_calls"] for r in rows if r["operation"] == operation)
        checks.append((f"{OPERATION_NAMES[operation]}: no platform calls", worst == 0, str(worst)))
    creates = [r for r in rows if r["operation"] == "up"]
    if creates:
        per_create = max(r["platform_calls"] / r["count"] for r in creates)
        checks.append(
            (
                f"calls per create at most {CALLS_PER_CREATE_LIMIT}",
                per_create <= CALLS_PER_CREATE_LIMIT,
                f"{per_create:.3f} (worst N)",
            )
        )
    refresh = [r for r in rows if r["operation"] == "refresh"]
    per_resource = max(r["platform_calls"] / r["count"] for r in refresh)
    checks.append(
        ("refresh: at most one call per resource", per_resource <= 1, f"{per_resource:.2f}")
    )
    throttled = [r for r in rows if r["operation"] == "up" and "throttled_seconds" in r]
    if throttled:
        # deploy_cost.py fails the run when an up fails: every round here converged.
        checks.append(
            (
                f"against the emulator with `--rate-limit {EMULATOR_RATE_LIMIT}`, the up "
                "converges in one run",
                True,
                "; ".join(
                    f"N={r['count']}: {r['throttled_seconds']:.1f} s, "
                    f"429s {'/'.join(map(str, r['throttled_429s']))}"
                    for r in throttled
                ),
            )
        )
    tokens = max(r["token_requests"] for r in rows)
    checks.append(
        (
            "at most one token request per run (one token resource in use)",
            tokens <= 1,
            f"at most {tokens} per operation",
        )
    )
    entry = max(s["entry_bytes_per_resource"] for s in results["state"] if s["variant"] == "ours")
    checks.append(
        (
            f"at most {STATE_LIMIT_BYTES} bytes of state per resource",
            entry <= STATE_LIMIT_BYTES,
            f"{entry:.0f} bytes per resource entry",
        )
    )
    counts = measured
    if len(counts) >= 2:
        # Our cost is what we add to the floor (the engine's own growth is the floor's).
        growth = {}
        for operation in ("up", "preview_noop", "up_noop", "refresh", "destroy"):
            small, large = at.get((operation, counts[-2])), at.get((operation, counts[-1]))
            if small and large and _extra_ms(small) > 0:
                growth[operation] = max(0.0, _extra_ms(large)) / _extra_ms(small)
        worst = max(growth, key=growth.__getitem__, default=None)
        if worst is not None:
            checks.append(
                (
                    f"linear: our cost over the floor per resource from N={counts[-2]} to "
                    f"N={counts[-1]} grows at most {LINEAR_LIMIT}x",
                    growth[worst] <= LINEAR_LIMIT,
                    ", ".join(f"{op} {g:.2f}x" for op, g in growth.items()),
                )
            )
    lines = ["| target | met | figure |", "|---|---|---|"]
    lines += [f"| {name} | {'yes' if ok else '**no**'} | {figure} |" for name, ok, figure in checks]
    return lines


def calls_table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| operation | N | platform calls | per resource | writes | writes per resource "
        f"| token requests | floor platform calls | calls at {FIXED_RATE_LIMIT:g}/s (s) "
        "| emulator ms per call |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        n = row["count"]
        lines.append(
            f"| {OPERATION_NAMES[row['operation']]} | {n} | {row['platform_calls']} "
            f"| {row['platform_calls'] / n:.2f} | {row['platform_writes']} "
            f"| {row['platform_writes'] / n:.2f} | {row['token_requests']} "
            f"| {row['floor_platform_calls']} | {row['platform_calls'] / FIXED_RATE_LIMIT:.1f} "
            f"| {row.get('server_ms_per_call', 0.0):.1f} |"
        )
    return lines


def routes_table(rows: list[dict[str, Any]], count: int) -> list[str]:
    lines = [f"| operation | calls by route (N={count}) |", "|---|---|"]
    for row in rows:
        if row["count"] != count:
            continue
        routes = ", ".join(f"`{route}` x{n}" for route, n in row["by_route"].items()) or "none"
        lines.append(f"| {OPERATION_NAMES[row['operation']]} | {routes} |")
    return lines


def state_table(state: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| variant | N | export bytes | export bytes / N | one resource's entry "
        "| a job's entry (5 tasks) | of which `__provider` | of which `connection` |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size in state:
        lines.append(
            f"| {size['variant']} | {size['count']} | {size['total_bytes']} "
            f"| {size['bytes_per_resource']:.0f} | {size['entry_bytes_per_resource']:.0f} "
            f"| {size.get('entry_bytes_per_job', 0):.0f} "
            f"| {size['provider_bytes_per_resource']:.0f} "
            f"| {size['connection_bytes_per_resource']:.0f} |"
        )
    return lines


def state_by_kind_table(state: list[dict[str, Any]]) -> list[str]:
    """One resource's entry by kind (the floor's resources are all `Resource`)."""
    kinds = sorted({kind for size in state for kind in size.get("entry_bytes_by_kind", {})})
    lines = [
        "| variant | N | " + " | ".join(f"`{kind}` entry" for kind in kinds) + " |",
        "|---|---:|" + "---:|" * len(kinds),
    ]
    for size in state:
        by_kind = size.get("entry_bytes_by_kind", {})
        cells = [f"{by_kind[kind]:.0f}" if kind in by_kind else "-" for kind in kinds]
        lines.append(f"| {size['variant']} | {size['count']} | " + " | ".join(cells) + " |")
    return lines


def throughput_table(throughput: dict[str, dict[str, dict[str, float]]]) -> list[str]:
    lines = [
        "| storage | operation | emulator req/s | hello world req/s | ratio "
        "| emulator p50 / p99 ms | hello world p50 / p99 ms |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for storage, figures in throughput.items():
        for operation in ("list", "create"):
            mine, base = figures[f"emulator/{operation}"], figures[f"baseline/{operation}"]
            lines.append(
                f"| {storage} | {operation} | {mine['rps']:.0f} | {base['rps']:.0f} "
                f"| {mine['rps'] / base['rps']:.2f} | {mine['p50_ms']:.1f} / {mine['p99_ms']:.1f} "
                f"| {base['p50_ms']:.1f} / {base['p99_ms']:.1f} |"
            )
    return lines


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    operations = [op for op in OPERATION_NAMES if any(r["operation"] == op for r in rows)]
    figure, axes = plt.subplots(1, len(operations), figsize=(4 * len(operations), 3.6))
    if len(operations) == 1:
        axes = [axes]
    for axis, operation in zip(axes, operations, strict=True):
        mine = sorted((r for r in rows if r["operation"] == operation), key=lambda r: r["count"])
        counts = [r["count"] for r in mine]
        axis.plot(counts, [r["ours_seconds"] for r in mine], "o-", color="C0", label="ours")
        if all("fixed_seconds" in r for r in mine):
            fixed = [r["fixed_seconds"] for r in mine]
            axis.plot(counts, fixed, "^:", color="C1", label=f"fixed {FIXED_RATE_LIMIT}/s")
        if mine and all("throttled_seconds" in r for r in mine):
            throttled = [r["throttled_seconds"] for r in mine]
            axis.plot(counts, throttled, "v-.", color="C2", label="ours, throttling emulator")
        if mine and all("peer_seconds" in r for r in mine):
            peer = [r["peer_seconds"] for r in mine]
            axis.plot(counts, peer, "x-", color="C5", label="peer: provider under OpenTofu")
        if mine and all("floor_same_seconds" in r for r in mine):
            same = [r["floor_same_seconds"] for r in mine]
            axis.plot(counts, same, "D--", color="C4", label="floor_same")
        axis.plot(counts, [r["floor_seconds"] for r in mine], "s--", color="C3", label="floor")
        axis.set_title(operation.replace("_", " "))
        axis.set_xlabel("N resources")
        axis.set_ylabel("seconds (median)")
        axis.set_ylim(bottom=0)
        axis.grid(alpha=0.3)
    axes[0].legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def write_report(results: dict[str, Any], path: Path, notes: str = "") -> Path:
    """Writes RESULTS.md at `path` and the plot beside it; returns the plot's path."""
    rows = results["summary"]["rows"]
    path.parent.mkdir(parents=True, exist_ok=True)
    # RESULTS.md's plot keeps its name; another report (a scale run's) has its own beside it.
    image = path.with_name("deploy_cost.png" if path.name == "RESULTS.md" else f"{path.stem}.png")
    plot(rows, image)
    info = machine()
    largest = max(measured_counts(results))
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(results["started"]))
    lines = [
        "# Benchmark results: deployment cost against the engine's floor",
        "",
        f"Run {when}, {results['rounds']} interleaved round(s) per N planned, "
        f"{results['seconds'] / 60:.1f} min in all; rounds measured: {rounds_measured(results)}. "
        "Medians; ratios are the median of per-round ours/floor pairs measured back to back.",
        "",
        "Reproduce: `.venv/bin/pip install -e '.[bench]'` then "
        f"`.venv/bin/python bench/deploy_cost.py --counts {','.join(map(str, results['counts']))} "
        f"--rounds {results['rounds']}"
        + (f" --variants {','.join(results['variants'])}" if "variants" in results else "")
        + (" --single-write" if results.get("single_write") else "")
        + (" --throughput" if results.get("throughput") else "")
        + f" --report bench/{path.name}` (the closing note is written by hand).",
        "",
        "Machine: " + ", ".join(f"{k} {v}" for k, v in info.items()) + ".",
        "",
        *(["**Mode: single-write.** `ours` and `floor` below ran in the single-write mode "
           "(the engine writes the state once per run, stacks/single_write.py), the mode the "
           "project's own runs use; the peer runs as OpenTofu does by default."]
          if results.get("single_write") else []),
        "",
        "`ours`: N workspace objects (jobs, job permissions, secret scopes, service principals "
        "in turn) and one WorkspaceAuth against the emulator. `floor`: N dynamic resources "
        "whose provider does nothing, on the same engine and host. `floor_same`: N dynamic "
        "resources whose providers do nothing either, declared with ours' mix (the same kinds, "
        "inputs and dependencies) and recording about ours' state per resource (the table by "
        "kind below)."
        + (
            " `peer`: the same mix as a configuration of the service's Terraform provider "
            "under OpenTofu, on the same emulator ([below](#beside-the-peer-the-services-"
            "terraform-provider-under-opentofu); its state file in the state tables)."
            if any("peer_seconds" in row for row in rows)
            else ""
        ),
        "",
        "## Targets",
        "",
        *targets(results),
        "",
        "## Time",
        "",
        *timing_table(rows),
        "",
        f"![time against N]({image.name})",
        "",
        "The engine writes the whole state after every step, so its cost grows with the bytes "
        "each resource records; ours records real declarations, the floor one number. "
        "Ours/floor_same, against a floor that records as much as ours, is our own cost alone "
        "(program, provider host, HTTP, emulator); floor_same/floor is the engine's for ours' "
        "state:",
        "",
        *floor_same_table(rows),
        "",
        *floor_declared_section(rows),
        *fixed_section(rows),
        *throttled_section(rows),
        *peer_section(results, rows),
        *scale_section(results, rows),
        "## Platform calls (emulator request log, ours)",
        "",
        *calls_table(rows),
        "",
        *routes_table(rows, largest),
        "",
        "## State size (`pulumi stack export`, after the first up)",
        "",
        *state_table(results["state"]),
        "",
        "One resource's entry by kind (bytes of compact JSON):",
        "",
        *state_by_kind_table(results["state"]),
        "",
        f"Limit: {STATE_LIMIT_BYTES} bytes per resource.",
        "",
    ]
    if results.get("throughput"):
        lines += [
            "## Emulator throughput against hello world",
            "",
            "bench/emulator_throughput.py: the same uvicorn serving, 4 client threads, "
            "interleaved rounds of 3 s.",
            "",
            *throughput_table(results["throughput"]),
            "",
        ]
    if notes:
        lines += [notes.rstrip(), ""]
    path.write_text("\n".join(lines))
    return image


if __name__ == "__main__":
    results_path, out = Path(sys.argv[1]), Path(sys.argv[2])
    notes = Path(sys.argv[3]).read_text() if len(sys.argv) > 3 else ""
    results = json.loads(results_path.read_text())
    if "summary" not in results:  # a partial run's results (deploy_cost.py's .partial.json)
        results["summary"] = summarise(results)
    write_report(results, out, notes)
