"""The bench's variants and operations, and the summary of its samples (medians, ratios to
the floor, calls), shared by bench/deploy_cost.py, which measures, and bench/report.py, which
writes bench/RESULTS.md."""

from __future__ import annotations

import statistics
from typing import Any

VARIANTS = ("ours", "fixed", "floor", "throttled")
# `fixed`: the client's former fixed limit, now a configured ceiling.
FIXED_RATE_LIMIT = 20
# `throttled`: the rate limit of the second emulator, calls per second per client.
EMULATOR_RATE_LIMIT = 20
OPERATIONS = ("up", "preview_noop", "up_noop", "refresh", "destroy")
OPERATIONS_OF = {"throttled": ("up", "destroy")}


def summarise(results: dict[str, Any]) -> dict[str, Any]:
    """Medians per (operation, N, variant), ratios ours/floor, calls per resource."""
    by_key: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
    for sample in results["samples"]:
        key = (sample["operation"], sample["count"], sample["variant"])
        by_key.setdefault(key, []).append(sample)
    rows = []
    for operation in OPERATIONS:
        for count in results["counts"]:
            ours = by_key.get((operation, count, "ours"), [])
            floor = by_key.get((operation, count, "floor"), [])
            if not ours or not floor:
                continue
            ours_s = statistics.median(s["seconds"] for s in ours)
            floor_s = statistics.median(s["seconds"] for s in floor)
            # Per round ratios, side by side, then their median: less sensitive to drift.
            paired = [
                o["seconds"] / f["seconds"] for o in ours for f in floor if f["round"] == o["round"]
            ]
            calls = [s["calls"] for s in ours]
            extra: dict[str, Any] = {}
            for variant in ("fixed", "throttled"):
                theirs = by_key.get((operation, count, variant), [])
                if not theirs:
                    continue
                extra[f"{variant}_seconds"] = statistics.median(s["seconds"] for s in theirs)
                extra[f"{variant}_ratio"] = statistics.median(
                    t["seconds"] / f["seconds"]
                    for t in theirs
                    for f in floor
                    if f["round"] == t["round"]
                )
                extra[f"{variant}_platform_calls"] = max(
                    s["calls"]["platform_reads"] + s["calls"]["platform_writes"] for s in theirs
                )
                extra[f"{variant}_429s"] = [s["calls"].get("throttled", 0) for s in theirs]
            rows.append(
                {
                    **extra,
                    "operation": operation,
                    "count": count,
                    "ours_seconds": ours_s,
                    "floor_seconds": floor_s,
                    "ratio": statistics.median(paired),
                    "round_ratios": paired,
                    "ours_per_resource_ms": 1000 * ours_s / count,
                    "floor_per_resource_ms": 1000 * floor_s / count,
                    "platform_calls": max(
                        c["platform_reads"] + c["platform_writes"] for c in calls
                    ),
                    "platform_writes": max(c["platform_writes"] for c in calls),
                    "throttled": max(c.get("throttled", 0) for c in calls),
                    "token_requests": max(c["token_requests"] for c in calls),
                    "server_ms_per_call": statistics.median(
                        c.get("platform_server_ms", 0.0)
                        / max(1, c["platform_reads"] + c["platform_writes"])
                        for c in calls
                    ),
                    "floor_platform_calls": max(
                        s["calls"]["platform_reads"] + s["calls"]["platform_writes"] for s in floor
                    ),
                    "by_route": calls[0]["by_route"],
                }
            )
    return {"rows": rows}
