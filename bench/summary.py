"""The bench's variants and operations, and the summary of its samples (medians, ratios to
the floor and to floor_same, calls), shared by bench/deploy_cost.py, which measures, and
bench/report.py, which writes bench/RESULTS.md."""

from __future__ import annotations

import math
import statistics
from typing import Any

VARIANTS = ("ours", "fixed", "floor", "floor_same", "floor_declared", "throttled", "peer",
            "ours_single", "floor_single")
# What a run measures unless told otherwise.
DEFAULT_VARIANTS = ("ours", "fixed", "floor", "floor_same", "throttled", "peer")
# `peer`: the service's Terraform provider under OpenTofu, ours' mix as its configuration
# (bench/programs/mix_hcl.py), on the same emulator: each row also gets peer/ours.
PEER = "peer"
# `floor_same`: the floor with ours' mix and about ours' state per resource (the engine's
# cost per byte of state without our own).
# `floor_declared`: floor_same whose outputs repeat no input (only the computed outputs and
# what a delete needs): the engine's cost of the declared inputs, which every provider
# records, and so the least any provider of this mix can cost on this engine.
# `ours_single`, `floor_single`: ours and the floor in the single-write mode (the engine
# writes the state once per run: stacks/single_write.py), side by side.
SINGLE_WRITE_VARIANTS = ("ours_single", "floor_single")
# `--scale`: the sizes teams have after adopt, outside the test suite (issue 45).
SCALE_COUNTS = (200, 500, 1000, 2000)
SCALE_VARIANTS = ("ours", "floor", "floor_same", "peer", "ours_single", "floor_single")
# `fixed`: the client's former fixed limit, now a configured ceiling.
FIXED_RATE_LIMIT = 20
# `throttled`: the rate limit of the second emulator, calls per second per client.
EMULATOR_RATE_LIMIT = 20
# The variants measured beside ours and the floor: each gets its time and ratio in a row.
BESIDE_OURS = tuple(variant for variant in VARIANTS if variant not in ("ours", "floor"))
OPERATIONS = ("up", "preview_noop", "up_noop", "refresh", "destroy")
OPERATIONS_OF = {"throttled": ("up", "destroy")}


def summarise(results: dict[str, Any]) -> dict[str, Any]:
    """Medians per (operation, N, variant), ratios ours/floor (and each other variant's over
    the floor, `<variant>_ratio`), ours/floor_same, calls per resource."""
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
            paired = per_round_ratios(ours, floor)
            calls = [s["calls"] for s in ours]
            extra: dict[str, Any] = {}
            for variant in BESIDE_OURS:
                theirs = by_key.get((operation, count, variant), [])
                if not theirs:
                    continue
                extra[f"{variant}_seconds"] = statistics.median(s["seconds"] for s in theirs)
                extra[f"{variant}_ratio"] = statistics.median(per_round_ratios(theirs, floor))
                extra[f"{variant}_platform_calls"] = max(
                    s["calls"]["platform_reads"] + s["calls"]["platform_writes"] for s in theirs
                )
                extra[f"{variant}_429s"] = [s["calls"].get("throttled", 0) for s in theirs]
                extra[f"{variant}_platform_writes"] = max(
                    s["calls"]["platform_writes"] for s in theirs
                )
            peer = by_key.get((operation, count, PEER), [])
            if peer:
                extra["peer_over_ours_round_ratios"] = per_round_ratios(peer, ours)
                extra["peer_over_ours"] = statistics.median(extra["peer_over_ours_round_ratios"])
                extra["peer_summary"] = peer[-1].get("summary")
                extra["peer_by_route"] = peer[-1]["calls"]["by_route"]
            if peer:
                for variant in ("ours", *SINGLE_WRITE_VARIANTS):
                    mine = by_key.get((operation, count, variant), [])
                    if mine:
                        extra[f"{variant}_over_peer"] = statistics.median(
                            per_round_ratios(mine, peer))
            single = by_key.get((operation, count, "ours_single"), [])
            floor_single = by_key.get((operation, count, "floor_single"), [])
            if single and floor_single:
                extra["single_over_floor_single"] = statistics.median(
                    per_round_ratios(single, floor_single))
            same = by_key.get((operation, count, "floor_same"), [])
            if same:
                # Our own cost: ours over the floor that records as much state.
                own = per_round_ratios(ours, same)
                extra["over_floor_same_round_ratios"] = own
                extra["over_floor_same"] = statistics.median(own)
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
    return {"rows": rows, "growth": growth(by_key, results["counts"])}


def exponent(n1: int, t1: float, n2: int, t2: float) -> float:
    """k of t ~ N^k between two sizes: 1 is linear, 2 quadratic."""
    return math.log(t2 / t1) / math.log(n2 / n1)


def growth(by_key: dict[tuple[str, int, str], list[dict[str, Any]]],
           counts: list[int]) -> list[dict[str, Any]]:
    """Per variant and operation, the growth exponent of the median time between each two
    consecutive sizes and from the second size (500 in `--scale`) to the largest."""
    sizes = sorted(counts)
    pairs = list(zip(sizes, sizes[1:], strict=False))
    if len(sizes) > 2:
        pairs.append((sizes[1], sizes[-1]))
    found = []
    variants = sorted({variant for _, _, variant in by_key})
    for variant in variants:
        for operation in OPERATIONS:
            for n1, n2 in pairs:
                first = by_key.get((operation, n1, variant))
                second = by_key.get((operation, n2, variant))
                if not first or not second:
                    continue
                t1 = statistics.median(s["seconds"] for s in first)
                t2 = statistics.median(s["seconds"] for s in second)
                if t1 <= 0 or t2 <= 0:
                    continue
                found.append({"variant": variant, "operation": operation, "from": n1, "to": n2,
                              "exponent": exponent(n1, t1, n2, t2)})
    return found


def per_round_ratios(samples: list[dict[str, Any]], base: list[dict[str, Any]]) -> list[float]:
    """Each round's time over the base's in that round: side by side, then their median, is
    less sensitive to drift on a shared machine than a ratio of medians."""
    return [s["seconds"] / b["seconds"] for s in samples for b in base if b["round"] == s["round"]]
