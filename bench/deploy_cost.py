"""Deployment cost of the workspace providers against the engine's floor, in one run.

For each N, stacks walk the same scenario side by side: `ours` (bench/programs/ours:
N workspace objects of mixed kinds against a running emulator), `floor`
(bench/programs/floor: N dynamic resources whose provider does nothing) and `floor_same`
(bench/programs/floor_same: N dynamic resources whose providers do nothing, declared with
ours' mix, bench/programs/mix.py, and recording about ours' state per resource). The
engine's cost grows with the bytes of state it writes after every step, so ours/floor mixes
that cost of ours' state with our own; ours/floor_same is our own alone. Each operation runs
for one stack, then the next (the order flips every round), so drift on a shared machine
hits all alike:

    up (creates N) | no-op preview | no-op up | refresh | destroy

Beside them, by default too: `fixed`, our program with the client's former fixed limit (a
ceiling of 20 calls per second per endpoint family), and `throttled`, our program against a
second emulator that throttles (`--rate-limit 20`: 20 calls per second per client in all,
then 429 with Retry-After), which runs only the up and the destroy: it shows the adaptive
limit converging, and how many 429s it took. On request (`--variants`): `floor_declared`,
floor_same whose outputs repeat no input (only what the service computes and what a delete
needs), the engine's cost of the declaration alone, which every provider records.

`peer`, by default too: the service's Terraform provider under OpenTofu on the same
emulator, with ours' mix as an OpenTofu configuration (bench/programs/mix_hcl.py), each
operation its OpenTofu command: `tofu apply` (create N), `tofu plan -detailed-exitcode`
(no-op preview), `tofu apply` (no-op up), `tofu apply -refresh-only` (refresh: reads every
object and writes what it read to the state, as `pulumi refresh` does) and `tofu destroy`,
each with `-auto-approve` where it applies. The provider signs in with a personal access
token of the emulator's admin (no token requests); each tool at its own defaults
(OpenTofu's 10 operations at a time, the provider's SDK's 15 calls per second). Both tools
are built by bench/peer/ensure.sh from the Go module proxy on first use (about 25 minutes
on 2 cores); without Go the run says why and goes on without the peer.

`ours_single` and `floor_single`, on request (and in `--scale`): ours and the floor with the
engine writing the state once per run, not after every step (the single-write mode,
stacks/single_write.py, docs/state.md), side by side with the rest: each row gets
ours_single/floor_single and, where the peer ran, ours/peer and ours_single/peer. The summary
also gives each variant's growth exponent per operation (t ~ N^k) between sizes.

`--scale`: N = 200, 500, 1,000 and 2,000, one round, ours, floor, floor_same, the peer,
ours_single and floor_single: the sizes teams have after adopt, outside the test suite
(hours on 2 cores; the partial results are saved after each N).

Per operation it records the wall time of the `pulumi` command and the emulator's request
log (platform calls by method, 429s, token requests); after the first up, the state size
(`pulumi stack export`). Results go to a JSON file; bench/report.py turns that into
bench/RESULTS.md and the plot.

    .venv/bin/python bench/deploy_cost.py [--counts 10,50,200,500] [--rounds 2] [--quick]
                                          [--variants ours,fixed,floor,floor_same,throttled,peer]
                                          (floor_declared, ours_single, floor_single on request)
                                          [--scale]
                                          [--report bench/RESULTS.md] [--throughput]
"""

from __future__ import annotations

import argparse
import json
import re
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

from bench.peer_tofu import (  # noqa: E402
    ensure_peer,
    peer_env,
    personal_access_token,
    timed,
    tofu_env,
    version_of,
)
from bench.programs.floor_same.echo import MODULE as FLOOR_SAME_MODULE  # noqa: E402
from bench.programs.mix import principals_in  # noqa: E402
from bench.programs.mix_hcl import RESOURCE_TYPE, configuration  # noqa: E402
from bench.summary import (  # noqa: E402
    DEFAULT_VARIANTS,
    EMULATOR_RATE_LIMIT,
    FIXED_RATE_LIMIT,
    OPERATIONS,
    OPERATIONS_OF,
    PEER,
    SCALE_COUNTS,
    SCALE_VARIANTS,
    SINGLE_WRITE_VARIANTS,
    VARIANTS,
    summarise,
)
from providers.client.token_store import CACHE_DIR_ENV  # noqa: E402
from providers.core.kind import TYPE_PREFIX  # noqa: E402
from stacks.pulumi_cli import PulumiCli, project_settings  # noqa: E402
from workspace_emulator.testing import (  # noqa: E402
    EmulatorInfo,
    clear_request_log,
    register_application,
    request_log,
    running_emulator,
)

PROGRAMS = ROOT / "bench" / "programs"
PROGRAM_OF = {
    "ours": "ours",
    "fixed": "ours",
    "throttled": "ours",
    "floor": "floor",
    "floor_same": "floor_same",
    "floor_declared": "floor_same",
    "ours_single": "ours",
    "floor_single": "floor",
}
# The type tokens of each program's own resources (not the stack's, providers' or components').
TYPE_PREFIX_OF = {
    "ours": TYPE_PREFIX,
    "floor": "pulumi-python:dynamic:",
    "floor_same": f"pulumi-python:dynamic/{FLOOR_SAME_MODULE}:",
}
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
DEFAULT_OUT = ROOT / "bench" / "out" / "deploy_cost.json"


@dataclass
class Calls:
    """What one operation asked of the emulator."""

    platform_reads: int = 0
    platform_writes: int = 0
    token_requests: int = 0
    # Platform calls answered 429 (the emulator's rate limit), counted in the reads/writes.
    throttled: int = 0
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
                calls.throttled += entry.get("status") == 429
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
    # peer: OpenTofu's closing line (and whether a refresh found changes made outside it).
    summary: str | None = None


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
    # One job's entry (ours, floor_same: a 5-task job with a job cluster and a schedule).
    entry_bytes_per_job: float
    # One resource's entry by kind (the type token's last part; the floor's are `Resource`).
    entry_bytes_by_kind: dict[str, float] = field(default_factory=dict)


# --- stacks --------------------------------------------------------------------------------


def make_stack(workdir: Path, variant: str, count: int, emulator: EmulatorInfo,
               single_write: bool = False) -> PulumiCli:
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
            # The program and the provider host import this checkout's providers, not those
            # an editable install of another checkout would find.
            "PYTHONPATH": str(ROOT),
        },
    )
    # Ours and the floor alike: the engine's variables alone (stacks/single_write.py's check
    # of the state is for the project's stacks; the floor's resources are no workspace kind).
    cli.single_write = single_write or variant in SINGLE_WRITE_VARIANTS
    cli.select_or_init()
    config: dict[str, Any] = {"bench:count": str(count)}
    if variant == "floor_declared":
        config["bench:outputs"] = "declared"
    if PROGRAM_OF[variant] == "ours":
        # A service principal needs an application registered with the identity provider.
        principals = principals_in(count)
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
                "workspace:wireForm": "legacy",
                "workspace:allowInsecureHttp": "true",
            }
        )
        if variant == "fixed":
            config["bench:rateLimit"] = str(FIXED_RATE_LIMIT)
    (project / f"Pulumi.{cli.stack}.yaml").write_text(yaml.safe_dump({"config": config}))
    if PROGRAM_OF[variant] == "ours":
        cli.set_config("workspace:clientSecret", emulator.client_secret, secret=True)
    return cli


@dataclass(frozen=True)
class PeerTools:
    provider: Path
    tofu: Path

    def versions(self) -> dict[str, str]:
        return {"provider": version_of(self.provider), "tofu": version_of(self.tofu)}


def peer_tools(progress=print) -> tuple[PeerTools | None, str]:
    """The provider and OpenTofu (built by bench/peer/ensure.sh on first use), or None and
    why not."""
    progress("peer: the Terraform provider and OpenTofu (bench/peer/ensure.sh; the first "
             "use on a machine builds them from the Go module proxy, about 25 minutes on "
             "2 cores)")
    said = lambda line: progress(f"  {line}")  # noqa: E731
    provider, why = ensure_peer("provider", progress=said)
    if provider is None:
        return None, why
    tofu, why = ensure_peer("tofu", progress=said)
    if tofu is None:
        return None, why
    return PeerTools(provider, tofu), ""


# Each operation as OpenTofu's command; a no-op that plans changes exits 2 and fails the run.
PEER_COMMANDS = {
    "up": ("apply", "-auto-approve"),
    "preview_noop": ("plan", "-detailed-exitcode"),
    "up_noop": ("apply", "-auto-approve"),
    "refresh": ("apply", "-refresh-only", "-auto-approve"),
    "destroy": ("destroy", "-auto-approve"),
}
TOFU_SUMMARY = re.compile(r"^((?:Apply|Destroy) complete!.*|No changes\..*|Plan: .*)$",
                          re.MULTILINE)
CHANGED_OUTSIDE = "Objects have changed outside of OpenTofu"
# Ours' stacks register their applications and sign in at the start of the run; the peer's
# token has to outlast the longest run.
PEER_TOKEN_SECONDS = 12 * 3600


class PeerStack:
    """The peer's stack: a directory holding ours' mix as an OpenTofu configuration of the
    service's Terraform provider (bench/programs/mix_hcl.py) and its state file, and the
    environment OpenTofu runs in (the emulator's address and a personal access token)."""

    def __init__(self, workdir: Path, count: int, emulator: EmulatorInfo, tools: PeerTools):
        self.tofu = tools.tofu
        self.directory = workdir / f"peer-{count}"
        home = workdir / f"peer-home-{count}"
        self.directory.mkdir(parents=True)
        home.mkdir(parents=True)
        application_ids = [
            register_application(emulator, f"bench-peer-{count}-{i}")["client_id"]
            for i in range(principals_in(count))
        ]
        (self.directory / "main.tf").write_text(
            configuration(count, f"bench-peer-n{count}", application_ids)
        )
        token = personal_access_token(emulator, "bench: deploy_cost's peer", PEER_TOKEN_SECONDS)
        self.env = tofu_env(peer_env(emulator, token, home), tools.provider,
                            workdir / f"peer-{count}.tofurc")
        self.runs = 0

    def run(self, operation: str) -> str:
        """Runs the operation; OpenTofu's closing line (its output is kept beside the
        configuration, `<n>-<operation>.log`)."""
        result, _ = timed(
            [str(self.tofu), *PEER_COMMANDS[operation], "-input=false", "-no-color"],
            self.env, cwd=self.directory, timeout=3600,
        )
        output = result.stdout + result.stderr
        self.runs += 1
        (self.directory / f"{self.runs}-{operation}.log").write_text(output)
        if result.returncode != 0:
            raise RuntimeError(
                f"peer {operation} in {self.directory}: tofu exited {result.returncode} "
                f"({'it plans changes' if result.returncode == 2 else 'failed'}):\n"
                + output[-3000:]
            )
        found = TOFU_SUMMARY.findall(output)
        summary = found[-1] if found else ""
        if CHANGED_OUTSIDE in output:
            summary = f"{summary} ({CHANGED_OUTSIDE.lower()})"
        return summary

    def state(self) -> dict[str, Any]:
        return json.loads((self.directory / "terraform.tfstate").read_text())


def peer_state_size(stack: PeerStack, count: int) -> StateSize:
    """The bytes of the peer's state file, per resource and by kind (ours' kind names)."""
    state = stack.state()
    kind_of = {resource_type: kind for kind, resource_type in RESOURCE_TYPE.items()}
    mine = [r for r in state.get("resources") or [] if r.get("mode") == "managed"]
    instances = sum(len(r.get("instances") or []) for r in mine)
    if instances != count:
        raise RuntimeError(f"peer N={count}: {instances} resources in state, not {count}")
    by_kind: dict[str, list[int]] = {}
    for r in mine:
        by_kind.setdefault(kind_of.get(r["type"], r["type"]), []).append(_size(r))
    return StateSize(
        variant="peer",
        count=count,
        total_bytes=_size(state),
        resources=instances,
        bytes_per_resource=_size(state) / count,
        entry_bytes_per_resource=sum(_size(r) for r in mine) / count,
        provider_bytes_per_resource=0.0,
        connection_bytes_per_resource=0.0,
        entry_bytes_per_job=_mean(by_kind.get("Job", [])),
        entry_bytes_by_kind={kind: _mean(sizes) for kind, sizes in sorted(by_kind.items())},
    )


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
    prefix = TYPE_PREFIX_OF[PROGRAM_OF[variant]]
    return [r for r in export["deployment"].get("resources") or [] if r["type"].startswith(prefix)]


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

    by_kind: dict[str, list[int]] = {}
    for r in mine:
        by_kind.setdefault(r["type"].rsplit(":", 1)[-1], []).append(_size(r))

    return StateSize(
        variant=variant,
        count=count,
        total_bytes=total,
        resources=len(mine),
        bytes_per_resource=total / count,
        entry_bytes_per_resource=sum(_size(r) for r in mine) / count,
        provider_bytes_per_resource=bytes_of("__provider"),
        connection_bytes_per_resource=bytes_of("connection"),
        entry_bytes_per_job=_mean(by_kind.get("Job", [])),
        entry_bytes_by_kind={kind: _mean(sizes) for kind, sizes in sorted(by_kind.items())},
    )


def _mean(values: list[int]) -> float:
    return sum(values) / len(values) if values else 0.0


def _size(value: Any) -> int:
    # `pulumi stack export` indents; count the compact JSON, what the backend has to hold.
    return len(json.dumps(value, separators=(",", ":")))


# --- the run -------------------------------------------------------------------------------


@contextmanager
def bench_environment(
    keep: Path | None, throttled: bool
) -> Iterator[tuple[Path, EmulatorInfo, EmulatorInfo | None]]:
    with tempfile.TemporaryDirectory(prefix="bench-", dir=keep) as workdir:
        with running_emulator() as emulator:
            if not throttled:
                yield Path(workdir), emulator, None
                return
            with running_emulator(rate_limit=EMULATOR_RATE_LIMIT) as throttling:
                yield Path(workdir), emulator, throttling


def run(
    counts: list[int],
    rounds: int,
    progress=print,
    variants: tuple[str, ...] = DEFAULT_VARIANTS,
    after_each_count=lambda partial: None,
    single_write: bool = False,
) -> dict[str, Any]:
    """The samples of every round; `after_each_count` gets the results so far after each N of
    each round (a long run interrupted still leaves its measurements)."""
    samples: list[Sample] = []
    sizes: list[StateSize] = []
    started = time.time()
    tools: PeerTools | None = None
    peer: dict[str, Any] = {"skipped": "not requested (--variants)"}
    if PEER in variants:
        tools, why = peer_tools(progress)
        if tools is None:
            peer = {"skipped": why}
            progress(f"peer skipped: {why}")
            variants = tuple(v for v in variants if v != PEER)
        else:
            peer = tools.versions()

    def results_so_far() -> dict[str, Any]:
        return {
            "counts": counts,
            "rounds": rounds,
            "variants": list(variants),
            # True: every variant of ours and the floor ran in the single-write mode.
            "single_write": single_write,
            "peer": peer,
            "started": started,
            "seconds": time.time() - started,
            "samples": [asdict(s) for s in samples],
            "state": [asdict(s) for s in sizes],
        }

    with bench_environment(None, "throttled" in variants) as (workdir, emulator, throttling):

        def emulator_of(variant: str) -> EmulatorInfo:
            if variant == "throttled":
                assert throttling is not None
                return throttling
            return emulator

        stacks: dict[tuple[str, int], PulumiCli | PeerStack] = {
            (variant, count): (
                PeerStack(workdir, count, emulator, tools)
                if variant == PEER and tools is not None
                else make_stack(workdir, variant, count, emulator_of(variant), single_write)
            )
            for count in counts
            for variant in variants
        }
        for round_ in range(rounds):
            order = variants if round_ % 2 == 0 else tuple(reversed(variants))
            for count in counts:
                for operation in OPERATIONS:
                    for variant in order:
                        if operation not in OPERATIONS_OF.get(variant, OPERATIONS):
                            continue
                        cli = stacks[variant, count]
                        serving = emulator_of(variant)
                        clear_request_log(serving)
                        began = time.perf_counter()
                        if isinstance(cli, PeerStack):
                            summary: str | None = cli.run(operation)
                        else:
                            summary = None
                            run_operation(cli, operation)
                        seconds = time.perf_counter() - began
                        calls = Calls.from_log(request_log(serving))
                        sample = Sample(variant, count, round_, operation, seconds, calls,
                                        summary=summary)
                        if operation == "up" and round_ == 0:
                            sizes.append(
                                peer_state_size(cli, count) if isinstance(cli, PeerStack)
                                else state_size(cli, variant, count)
                            )
                            sample.resources_in_state = sizes[-1].resources
                        samples.append(sample)
                        progress(
                            f"round {round_} N={count:<4} {operation:<13} {variant:<10} "
                            f"{seconds:7.2f}s  platform={calls.platform:<4} "
                            f"writes={calls.platform_writes:<4} tokens={calls.token_requests} "
                            f"429s={calls.throttled}" + (f"  {summary}" if summary else "")
                        )
                after_each_count(results_so_far())
    return results_so_far()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--counts", default="10,50,200", help="comma-separated N values")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="N=10, one round")
    parser.add_argument(
        "--scale", action="store_true",
        help="N=" + ",".join(map(str, SCALE_COUNTS)) + ", one round, "
        + ",".join(SCALE_VARIANTS) + " (outside the test suite: about two hours on 2 cores)",
    )
    parser.add_argument(
        "--variants",
        default=",".join(DEFAULT_VARIANTS),
        help="comma-separated, of " + ", ".join(VARIANTS) + " (ours and floor are always run)",
    )
    parser.add_argument(
        "--single-write", action="store_true",
        help="ours and the floor run in the single-write mode too, the mode the project's own "
        "runs use (at N=2,000 the default mode's per-step checkpoints cost a quarter of an "
        "hour per operation): every ratio is then of one mode",
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
    chosen = {v.strip() for v in args.variants.split(",") if v.strip()} | {"ours", "floor"}
    if args.scale:
        counts, rounds, chosen = list(SCALE_COUNTS), 1, set(SCALE_VARIANTS)
    unknown = chosen - set(VARIANTS)
    if unknown:
        parser.error(f"--variants: unknown {', '.join(sorted(unknown))}; choose of {VARIANTS}")
    variants = tuple(v for v in VARIANTS if v in chosen)
    args.out.parent.mkdir(parents=True, exist_ok=True)

    def save_partial(partial: dict[str, Any]) -> None:
        args.out.with_suffix(".partial.json").write_text(json.dumps(partial, indent=1))

    results = run(
        counts,
        rounds,
        progress=lambda line: print(line, flush=True),
        variants=variants,
        after_each_count=save_partial,
        single_write=args.single_write,
    )
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
