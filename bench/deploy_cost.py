"""Deployment cost of the workspace providers against the engine's floor, in one run.

For each N, two stacks walk the same scenario side by side: `ours` (bench/programs/ours:
N workspace objects of mixed kinds against a running emulator) and `floor`
(bench/programs/floor: N dynamic resources whose provider does nothing). Each operation
runs for one, then the other (the order flips every round), so drift on a shared machine
hits both alike:

    up (creates N) | no-op preview | no-op up | refresh | destroy

Per operation it records the wall time of the `pulumi` command and the emulator's request
log (platform calls by method, token requests); after the first up, the state size
(`pulumi stack export`). Results go to a JSON file; bench/report.py turns that into
bench/RESULTS.md and the plot.

    .venv/bin/python bench/deploy_cost.py [--counts 10,50,200] [--rounds 3] [--quick]
                                          [--report bench/RESULTS.md] [--throughput]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from emulator.testing import (  # noqa: E402
    EmulatorInfo,
    clear_request_log,
    register_application,
    request_log,
    running_emulator,
)
from providers.client.token_store import CACHE_DIR_ENV  # noqa: E402
from tools.pulumi_cli import PulumiCli, project_settings  # noqa: E402

PROGRAMS = ROOT / "bench" / "programs"
VARIANTS = ("ours", "floor")
# `unlimited`: our program with the client's rate limit switched off (`--unlimited`), to
# show how much of our time is the limiter's.
PROGRAM_OF = {"ours": "ours", "unlimited": "ours", "floor": "floor"}
OPERATIONS = ("up", "preview_noop", "up_noop", "refresh", "destroy")
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
DEFAULT_OUT = ROOT / "bench" / "out" / "deploy_cost.json"


@dataclass
class Calls:
    """What one operation asked of the emulator."""

    platform_reads: int = 0
    platform_writes: int = 0
    token_requests: int = 0
    by_route: dict[str, int] = field(default_factory=dict)
    # Time the emulator spent answering the platform calls (its request log's durations).
    platform_server_ms: float = 0.0

    @property
    def platform(self) -> int:
        return self.platform_reads + self.platform_writes

    @classmethod
    def from_log(cls, entries: list[dict[str, Any]]) -> Calls:
        calls = cls()
        routes: Counter[str] = Counter()
        for entry in entries:
            path = entry["path"]
            if path.startswith("/_emulator"):
                continue
            if entry["service"] == "identity" and path.endswith("/oauth2/token"):
                calls.token_requests += 1
            elif entry["service"] == "platform":
                calls.platform_server_ms += entry.get("duration_ms") or 0.0
                if entry["method"] in WRITE_METHODS:
                    calls.platform_writes += 1
                else:
                    calls.platform_reads += 1
            else:
                continue
            routes[f"{entry['method']} {_route(path)}"] += 1
        calls.by_route = dict(sorted(routes.items()))
        return calls


ID_IN_PATH = re.compile(r"^(\d+|[0-9a-fA-F-]{32,36})$")


def _route(path: str) -> str:
    # Ids in paths (SCIM principals, the tenant) would make every call its own route.
    return "/".join("{id}" if ID_IN_PATH.match(part) else part for part in path.split("/"))


@dataclass
class Sample:
    variant: str
    count: int
    round: int
    operation: str
    seconds: float
    calls: Calls
    resources_in_state: int | None = None


@dataclass
class StateSize:
    """Bytes of `pulumi stack export` per workspace resource, and what they are made of."""

    variant: str
    count: int
    total_bytes: int
    resources: int
    # The whole export over N: the stack, the auth component and the provider shared out.
    bytes_per_resource: float
    # One resource's own entry in the export (inputs, outputs, urn, dependencies...).
    entry_bytes_per_resource: float
    provider_bytes_per_resource: float
    connection_bytes_per_resource: float
    # One job's entry (ours: a 5-task job with a job cluster and a schedule).
    entry_bytes_per_job: float


# --- stacks --------------------------------------------------------------------------------


def make_stack(workdir: Path, variant: str, count: int, emulator: EmulatorInfo) -> PulumiCli:
    project = workdir / f"{variant}-{count}"
    project.mkdir(parents=True)
    (project / "Pulumi.yaml").write_text(
        yaml.safe_dump(project_settings(f"bench-{variant}", PROGRAMS / PROGRAM_OF[variant]))
    )
    cli = PulumiCli(
        project_dir=project,
        stack=f"n{count}",
        state_dir=workdir / f"state-{variant}-{count}",
        extra_env={
            # Tokens shared by program and host stay within this bench run.
            CACHE_DIR_ENV: str(workdir / "tokens"),
            # Bytecode cached as on a user's machine (some shells switch it off; then every
            # program and host process compiles the providers from source again).
            "PYTHONDONTWRITEBYTECODE": "",
        },
    )
    cli.select_or_init()
    config: dict[str, Any] = {"bench:count": str(count)}
    if PROGRAM_OF[variant] == "ours":
        # A service principal needs an application registered with the identity provider.
        principals = len([i for i in range(count) if i % 4 == 3])
        config.update(
            {
                "bench:applicationIds": [
                    register_application(emulator, f"bench-{count}-{i}")["client_id"]
                    for i in range(principals)
                ],
                "workspace:baseUrl": emulator.base_url,
                "workspace:authUrl": emulator.auth_url,
                "workspace:tenantId": emulator.tenant_id,
                "workspace:clientId": emulator.client_id,
                "workspace:resource": emulator.resource,
                "workspace:wireForm": "seed",
                "workspace:allowInsecureHttp": "true",
            }
        )
        if variant == "unlimited":
            config["bench:rateLimit"] = "0"
    (project / f"Pulumi.{cli.stack}.yaml").write_text(yaml.safe_dump({"config": config}))
    if PROGRAM_OF[variant] == "ours":
        cli.set_config("workspace:clientSecret", emulator.client_secret, secret=True)
    return cli


def run_operation(cli: PulumiCli, operation: str) -> None:
    # A no-op that found changes fails the run: the bench would be measuring something else.
    if operation == "up":
        cli.up()
    elif operation == "up_noop":
        cli.up("--expect-no-changes")
    elif operation == "preview_noop":
        cli.preview("--expect-no-changes")
    elif operation == "refresh":
        cli.refresh("--expect-no-changes")
    elif operation == "destroy":
        cli.destroy()
    else:
        raise ValueError(f"unknown operation {operation!r}")


def resources_of(export: dict[str, Any], variant: str) -> list[dict[str, Any]]:
    """The stack's own resources (not the stack, providers or the auth component)."""
    kinds = "pulumi-python:dynamic" if variant == "floor" else "pulumi-python:dynamic/workspace:"
    return [r for r in export["deployment"].get("resources") or [] if r["type"].startswith(kinds)]


def state_size(cli: PulumiCli, variant: str, count: int) -> StateSize:
    export = cli.export()
    mine = resources_of(export, variant)
    if len(mine) != count:
        raise RuntimeError(f"{variant} N={count}: {len(mine)} resources in state, not {count}")
    total = _size(export)

    def bytes_of(key: str) -> float:
        sizes = [
            _size(section.get(key))
            for r in mine
            for section in (r.get("inputs") or {}, r.get("outputs") or {})
            if key in section
        ]
        return sum(sizes) / len(mine)

    return StateSize(
        variant=variant,
        count=count,
        total_bytes=total,
        resources=len(mine),
        bytes_per_resource=total / count,
        entry_bytes_per_resource=sum(_size(r) for r in mine) / count,
        provider_bytes_per_resource=bytes_of("__provider"),
        connection_bytes_per_resource=bytes_of("connection"),
        entry_bytes_per_job=_mean([_size(r) for r in mine if r["type"].endswith(":Job")]),
    )


def _mean(values: list[int]) -> float:
    return sum(values) / len(values) if values else 0.0


def _size(value: Any) -> int:
    # `pulumi stack export` indents; count the compact JSON, what the backend has to hold.
    return len(json.dumps(value, separators=(",", ":")))


# --- the run -------------------------------------------------------------------------------


@contextmanager
def bench_environment(keep: Path | None) -> Iterator[tuple[Path, EmulatorInfo]]:
    with tempfile.TemporaryDirectory(prefix="bench-", dir=keep) as workdir:
        with running_emulator() as emulator:
            yield Path(workdir), emulator


def run(
    counts: list[int], rounds: int, progress=print, variants: tuple[str, ...] = VARIANTS
) -> dict[str, Any]:
    samples: list[Sample] = []
    sizes: list[StateSize] = []
    started = time.time()
    with bench_environment(None) as (workdir, emulator):
        stacks = {
            (variant, count): make_stack(workdir, variant, count, emulator)
            for count in counts
            for variant in variants
        }
        for round_ in range(rounds):
            order = variants if round_ % 2 == 0 else tuple(reversed(variants))
            for count in counts:
                for operation in OPERATIONS:
                    for variant in order:
                        cli = stacks[variant, count]
                        clear_request_log(emulator)
                        began = time.perf_counter()
                        run_operation(cli, operation)
                        seconds = time.perf_counter() - began
                        calls = Calls.from_log(request_log(emulator))
                        sample = Sample(variant, count, round_, operation, seconds, calls)
                        if operation == "up" and round_ == 0:
                            sizes.append(state_size(cli, variant, count))
                            sample.resources_in_state = sizes[-1].resources
                        samples.append(sample)
                        progress(
                            f"round {round_} N={count:<4} {operation:<13} {variant:<9} "
                            f"{seconds:7.2f}s  platform={calls.platform:<4} "
                            f"writes={calls.platform_writes:<4} tokens={calls.token_requests}"
                        )
    return {
        "counts": counts,
        "rounds": rounds,
        "started": started,
        "seconds": time.time() - started,
        "samples": [asdict(s) for s in samples],
        "state": [asdict(s) for s in sizes],
    }


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
            unlimited = by_key.get((operation, count, "unlimited"), [])
            extra = {}
            if unlimited:
                extra = {
                    "unlimited_seconds": statistics.median(s["seconds"] for s in unlimited),
                    "unlimited_ratio": statistics.median(
                        u["seconds"] / f["seconds"]
                        for u in unlimited
                        for f in floor
                        if f["round"] == u["round"]
                    ),
                }
            rows.append(
                {
                    **extra,
                    "operation": operation,
                    "count": count,
                    "ours_seconds": ours_s,
                    "floor_seconds": floor_s,
                    "ratio": statistics.median(paired),
                    "ours_per_resource_ms": 1000 * ours_s / count,
                    "floor_per_resource_ms": 1000 * floor_s / count,
                    "platform_calls": max(
                        c["platform_reads"] + c["platform_writes"] for c in calls
                    ),
                    "platform_writes": max(c["platform_writes"] for c in calls),
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--counts", default="10,50,200", help="comma-separated N values")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="N=10, one round")
    parser.add_argument(
        "--unlimited",
        action="store_true",
        help="also run our program with the client's rate limit off",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results JSON")
    parser.add_argument("--report", type=Path, help="also write this RESULTS.md (and its plot)")
    parser.add_argument(
        "--throughput",
        action="store_true",
        help="also measure the emulator against hello world (bench/emulator_throughput.py)",
    )
    args = parser.parse_args(argv)
    counts = [10] if args.quick else [int(n) for n in args.counts.split(",")]
    rounds = 1 if args.quick else args.rounds
    variants = ("ours", "unlimited", "floor") if args.unlimited else VARIANTS
    results = run(counts, rounds, progress=lambda line: print(line, flush=True), variants=variants)
    results["summary"] = summarise(results)
    if args.throughput:
        from bench import emulator_throughput

        results["throughput"] = {
            storage: emulator_throughput.run(storage, seconds=3.0, rounds=3, threads=4)
            for storage in ("memory", "disk")
        }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    print(f"results: {args.out}")
    if args.report is not None:
        from bench.report import write_report

        write_report(results, args.report)
        print(f"report: {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
