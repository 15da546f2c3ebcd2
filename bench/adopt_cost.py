"""Adoption cost: `python -m stacks.adopt` on a workspace filled like a team's, against the
floor of listing its objects once, and (on request) the service's Terraform provider's
exporter on the same objects, side by side in one run.

For each N, a fresh in-memory emulator is filled through the official SDK with N mixed
objects (tools/fill_workspace.py: jobs, permissions, principals, groups and members, scopes,
secrets and ACLs, policies, clusters, repos and branches, IP access lists, catalog
bindings). Then, each round, on that emulator:

- `ours`: `python -m stacks.adopt --stack bench` on a scratch stack of the project's
  program that declares nothing (tools/drills/local_stack.scratch_stack, as the adopt e2e
  tests make theirs; public wire form), timed as a whole process. Its items are written
  to the scratch stack's config, so every round gets a stack of its own.
- `floor`: every object listed once: each adoptable kind's listing (stacks.adoption.listed:
  the kind's `adoption.objects` or `inventory`), signed in as the stack does, timed as a
  whole process too (`--list-once`, the same imports and config read as adopt) and, inside
  it, the listing alone.
- `peer` (`--peer`): the Terraform provider's exporter (`terraform-provider-databricks
  exporter -skip-interactive`, bench/peer/ensure.sh builds it from the Go module proxy) with
  a personal access token of the emulator's bootstrap principal, listing the services that
  match our kinds (PEER_SERVICES), writing import blocks (`-native-import`) and the
  secrets' values it reads (`-export-secrets`: without them its output cannot be
  planned). Its wall time (and of that, its HCL generation), the resources it wrote per
  type and its errors. With `--peer-plan`, whether its
  output plans no changes: `tofu plan` on it (OpenTofu, built by bench/peer/ensure.sh tofu),
  the provider built here standing in for the registry's (dev_overrides).

Per run: wall time, objects read/adopted/refused, platform calls (the emulator's request
log: reads, writes, token requests, by route) and calls per object. Results go to a JSON
file; `--report` also writes bench/ADOPT_RESULTS.md (the closing note is written by hand).

    .venv/bin/python bench/adopt_cost.py [--counts 200,1000] [--rounds 1]
                                         [--peer [--peer-plan]] [--profile DIR] [--all-kinds]
                                         [--random-state 33] [--report bench/ADOPT_RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.deploy_cost import Calls  # noqa: E402
from bench.peer_tofu import (  # noqa: E402
    ensure_peer,
    peer_env,
    personal_access_token,
    timed,
    tofu_env,
)
from providers.client.token_store import CACHE_DIR_ENV  # noqa: E402
from stacks.pulumi_cli import PulumiCli  # noqa: E402
from workspace_emulator.testing import (  # noqa: E402
    EmulatorInfo,
    clear_request_log,
    request_log,
    running_emulator,
)

DEFAULT_COUNTS = (200, 1000)
DEFAULT_RANDOM_STATE = 33
STACK = "bench"
DEFAULT_OUT = ROOT / "bench" / "out" / "adopt_cost.json"
# The exporter's services that hold our kinds: jobs; clusters; cluster policies; repos;
# scopes, secrets and ACLs; groups and their members; users and service principals;
# permissions and IP access lists (access); catalog bindings (uc-catalogs).
PEER_SERVICES = "jobs,compute,policies,repos,secrets,groups,users,access,uc-catalogs"
SUMMARY_READ = re.compile(
    r"read (\d+) object\(s\) in ([\d.]+) s: (\d+) already managed, (\d+) left out, "
    r"(\d+) cannot be adopted"
)
SUMMARY_ADDED = re.compile(r"(?:would add|added) (\d+) item\(s\)")
HCL_RESOURCE = re.compile(r'^resource "([^"]+)" "([^"]+)"', re.MULTILINE)
# A path segment that names one object (ids with digits, a catalog's name), folded so that
# every object's call is one route; API versions (`2.0`) are kept.
NAMED_AFTER = frozenset({"catalog", "catalogs"})


def route_of(route: str) -> str:
    """`GET /api/2.0/permissions/clusters/0101-120000-shared01` -> `.../clusters/{id}`."""
    method, _, path = route.partition(" ")
    parts = path.split("/")
    folded = [
        "{id}" if part != "{id}" and (
            (any(c.isdigit() for c in part) and re.fullmatch(r"[0-9A-Za-z-]{6,}", part)
             and not re.fullmatch(r"[a-z]+\d", part))
            or (i > 0 and parts[i - 1] in NAMED_AFTER and part)
        ) else part
        for i, part in enumerate(parts)
    ]
    return f"{method} {'/'.join(folded)}"


def by_route(calls: dict[str, int]) -> dict[str, int]:
    folded: Counter[str] = Counter()
    for route, n in calls.items():
        folded[route_of(route)] += n
    return dict(folded)


@dataclass
class AdoptRun:
    """One run of one variant on one filled workspace."""

    variant: str  # ours | floor | peer
    count: int  # N objects filled
    round: int
    seconds: float
    calls: Calls
    # ours: objects adopt read, items it added, objects it refused; floor: objects listed.
    objects_read: int = 0
    objects_adopted: int = 0
    objects_refused: int = 0
    objects_managed: int = 0
    objects_left_out: int = 0
    # ours: adopt's own figure for reading and planning (its summary line), without the
    # process start, the config read and the file write; floor: the listing alone.
    inner_seconds: float | None = None
    exit_code: int = 0
    # peer: resources written per Terraform type, and the lines it logged as errors.
    resources_by_type: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    added_by_key: dict[str, int] = field(default_factory=dict)
    # peer: `tofu plan` of what it wrote (plan_summary), when OpenTofu is at hand.
    plan: dict[str, Any] | None = None

    @property
    def calls_per_object(self) -> float:
        """Platform calls per object filled (N)."""
        return self.calls.platform / self.count if self.count else 0.0


# --- the workspace and the stack -------------------------------------------------------------


@contextmanager
def filled_emulator(size: int, random_state: int, all_kinds: bool = False
                    ) -> Iterator[tuple[EmulatorInfo, Any]]:
    """A fresh in-memory emulator filled with `size` objects through the official SDK (of
    every kind the filler makes, `all_kinds`, or of its default kinds)."""
    from tools.fill_workspace import ALL_KINDS, KINDS, fill

    with running_emulator() as info:
        yield info, fill(info, size=size, random_state=random_state,
                         kinds=ALL_KINDS if all_kinds else KINDS)


def adopt_stack(workdir: Path, info: EmulatorInfo) -> PulumiCli:
    """A scratch stack of the project's program declaring nothing, on `info`'s emulator, in
    the public wire form: what the adopt e2e tests make (tests/e2e/conftest.workspace_stack)."""
    from tools.drills.local_stack import scratch_stack

    workdir.mkdir(parents=True)
    return scratch_stack(
        workdir, info, objects={}, stack=STACK, wire_form="public",
        extra_env={CACHE_DIR_ENV: str(workdir / "tokens"), "PYTHONDONTWRITEBYTECODE": ""},
    )


@contextmanager
def scratch_content_dir() -> Iterator[str]:
    """A folder of the checkout (relative to it) for adopt's exported notebook and file
    content, removed afterwards: a scratch stack runs this checkout's program, so adopt
    writes the content into the checkout, by default under `workspace/`."""
    relative = f"build/bench-adopt/{uuid.uuid4().hex[:8]}"
    try:
        yield relative
    finally:
        shutil.rmtree(ROOT / relative, ignore_errors=True)


def stack_flags(stack: PulumiCli) -> list[str]:
    return ["--project-dir", str(stack.project_dir), "--stack", stack.stack,
            "--state-dir", str(stack.state_dir)]


# --- ours --------------------------------------------------------------------------------


def run_ours(stack: PulumiCli, info: EmulatorInfo, count: int, round_: int) -> AdoptRun:
    # The adopt e2e tests' own way of running it, on the stack's project and state.
    from tests.e2e.team_support import run_tool

    clear_request_log(info)
    with scratch_content_dir() as content_dir:
        began = time.perf_counter()
        # A refusal (exit 1) is a result too: the bench counts what adopt read and added.
        result = run_tool("adopt", stack, "--stack", stack.stack, "--content-dir", content_dir)
        seconds = time.perf_counter() - began
    calls = Calls.from_log(request_log(info))
    if result.returncode not in (0, 1):
        raise RuntimeError(f"adopt N={count} failed ({result.returncode}):\n{result.stderr}")
    run = AdoptRun("ours", count, round_, seconds, calls, exit_code=result.returncode)
    parse_adopt_summary(result.stdout, run)
    return run


def parse_adopt_summary(stdout: str, run: AdoptRun) -> None:
    """Objects read, added and refused, and adopt's own seconds, from its summary lines."""
    read = SUMMARY_READ.search(stdout)
    added = SUMMARY_ADDED.search(stdout)
    if read is None or added is None:
        raise RuntimeError(f"no summary in adopt's output:\n{stdout[-2000:]}")
    run.objects_read = int(read[1])
    run.inner_seconds = float(read[2])
    run.objects_managed = int(read[3])
    run.objects_left_out = int(read[4])
    run.objects_refused = int(read[5])
    run.objects_adopted = int(added[1])
    counts = stdout[added.end():].split("\n", 1)[0]
    run.added_by_key = {
        key: int(n) for n, key in re.findall(r"(\d+) (\w+)", counts.lstrip(": "))
    }


def profile_ours(stack: PulumiCli, out: Path, top: int = 30) -> list[str]:
    """adopt run once more under cProfile (untimed, on a stack of its own): its profile is
    written to `out` (pstats), and the `top` functions by cumulative time returned."""
    import io
    import pstats

    with scratch_content_dir() as content_dir:
        result = subprocess.run(
            [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "stacks.adopt",
             *stack_flags(stack), "--content-dir", content_dir],
            cwd=ROOT, env=stack.env(), capture_output=True, text=True, timeout=1800,
        )
    if result.returncode not in (0, 1):
        raise RuntimeError(f"adopt under cProfile failed:\n{result.stderr}")
    text = io.StringIO()
    pstats.Stats(str(out), stream=text).sort_stats("cumulative").print_stats(top)
    return [line for line in text.getvalue().splitlines() if line.strip()]


# --- the floor: every object listed once --------------------------------------------------------


def list_once(project_dir: Path, stack: str, state_dir: Path) -> dict[str, Any]:
    """Signs in as the stack does (the audit's and adopt's connection from its config) and
    lists every adoptable kind's objects once; the listing's own time and count."""
    from providers.client import WorkspaceClient
    from stacks import adoption, audit

    cli = audit.cli_for(argparse.Namespace(project_dir=project_dir, stack=stack,
                                           state_dir=state_dir))
    connection = audit.connection_of(audit.config_values(cli, show_secrets=True))
    client = WorkspaceClient(connection)
    began = time.perf_counter()
    by_kind = {
        kind.name: sum(1 for _ in adoption.listed(client, kind))
        for kind in adoption.adoptable_kinds()
    }
    return {"seconds": time.perf_counter() - began, "objects": sum(by_kind.values()),
            "by_kind": by_kind}


def run_floor(stack: PulumiCli, info: EmulatorInfo, count: int, round_: int) -> AdoptRun:
    clear_request_log(info)
    result, seconds = timed(
        [sys.executable, str(Path(__file__).resolve()), "--list-once", *stack_flags(stack)],
        stack.env(),
    )
    calls = Calls.from_log(request_log(info))
    if result.returncode != 0:
        raise RuntimeError(f"listing N={count} failed:\n{result.stderr}")
    listed = json.loads(result.stdout.strip().splitlines()[-1])
    return AdoptRun("floor", count, round_, seconds, calls, objects_read=listed["objects"],
                    inner_seconds=listed["seconds"])


# --- the peer: the Terraform provider's exporter -----------------------------------------------


def fold_error(line: str) -> str:
    """An exporter error with the user or group it names folded to `<name>`."""
    line = re.sub(r"'[^']*'", "'<name>'", line)
    line = re.sub(r"user_name: [^)\s]+", "user_name: <name>", line)
    return re.sub(r"with name \S+", "with name <name>", line)


def resources_written(directory: Path) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for path in directory.glob("*.tf"):
        counts.update(m[1] for m in HCL_RESOURCE.finditer(path.read_text(errors="replace")))
    return dict(sorted(counts.items()))


def error_lines(output: str) -> list[str]:
    """The exporter's [ERROR] lines (and a Go panic), deduplicated, ids folded to {id}."""
    seen: dict[str, None] = {}
    for line in output.splitlines():
        if "[ERROR]" in line or line.startswith(("panic:", "Error:")):
            text = line.split("[ERROR]", 1)[-1].strip()
            # The exporter's own timestamp, then the message.
            text = re.sub(r"^\S*\d{2}:\d{2}:\d{2}\S*: ", "", text)
            seen[re.sub(r"\b\d{3,}\b", "{id}", text)[:300]] = None
    return list(seen)


def run_peer(binary: Path, info: EmulatorInfo, count: int, round_: int, workdir: Path,
             tofu: Path | None = None) -> AdoptRun:
    out = workdir / f"peer-{count}-{round_}"
    home = workdir / f"peer-home-{count}-{round_}"
    out.mkdir(parents=True)
    home.mkdir(parents=True)
    env = peer_env(info, personal_access_token(info, "bench: the Terraform exporter"), home)
    clear_request_log(info)
    result, seconds = timed(
        [str(binary), "exporter", "-skip-interactive", "-directory", str(out),
         "-listing", PEER_SERVICES, "-services", PEER_SERVICES, "-noformat",
         "-native-import", "-export-secrets"],
        env, cwd=out,
    )
    calls = Calls.from_log(request_log(info))
    (workdir / f"peer-{count}-{round_}.log").write_text(result.stdout + result.stderr)
    written = resources_written(out)
    measured = AdoptRun("peer", count, round_, seconds, calls, exit_code=result.returncode,
                        objects_adopted=sum(written.values()), resources_by_type=written,
                        errors=error_lines(result.stdout + result.stderr))
    generation = GENERATION.search(result.stdout + result.stderr)
    # Its listing and reading come before the generation of HCL; "inner" is the latter.
    measured.inner_seconds = float(generation[1]) if generation else None
    if tofu is not None:
        stem = workdir / f"peer-{count}-{round_}"
        measured.plan = plan_peer(tofu, binary, out, env, info, stem)
        if measured.plan["exit_code"] == 1 and set(measured.plan["errors"]) <= {EMPTY_PAUSE}:
            # The emulator answers a schedule made without a pause status without one (the
            # service says UNPAUSED), and the exporter writes `pause_status = ""`, which the
            # provider refuses: planned again without those lines, the rest is judged too.
            for path in out.glob("*.tf"):
                path.write_text(EMPTY_PAUSE_LINE.sub("", path.read_text()))
            measured.plan["again_without_empty_pause_status"] = plan_peer(
                tofu, binary, out, env, info, stem.with_name(stem.name + "-again"))
    return measured


EMPTY_PAUSE = 'expected schedule.0.pause_status to be one of ["PAUSED" "UNPAUSED"], got'
EMPTY_PAUSE_LINE = re.compile(r'^\s*pause_status\s*=\s*""\n', re.MULTILINE)


def plan_peer(tofu: Path, provider: Path, directory: Path, env: dict[str, str],
              info: EmulatorInfo, log_stem: Path) -> dict[str, Any]:
    """`tofu plan` of what the exporter wrote (its import blocks: -native-import), the
    provider built here standing in for the registry's (dev_overrides): does it plan no
    changes? Its wall time, summary line, resources per action and platform writes."""
    plan_env = tofu_env(env, provider, directory.parent / f"{directory.name}.tofurc")
    clear_request_log(info)
    result, seconds = timed(
        [str(tofu), "plan", "-input=false", "-no-color", "-lock=false", "-detailed-exitcode"],
        plan_env, cwd=directory,
    )
    calls = Calls.from_log(request_log(info))
    output = result.stdout + result.stderr
    log_stem.with_suffix(".plan.log").write_text(output)
    return plan_summary(output, result.returncode, seconds, calls)


GENERATION = re.compile(r"Finished generation of configuration for \d+ resources "
                        r"\(took ([\d.]+) seconds\)")
PLAN_ACTION = re.compile(
    r"^  # (\S+?)\.\S+ (will be (?:created|destroyed|updated in-place|imported)|"
    r"must be replaced|will be read during apply)", re.MULTILINE
)
PLAN_LINE = re.compile(r"^(Plan: .*|No changes\..*)$", re.MULTILINE)


def plan_summary(output: str, exit_code: int, seconds: float, calls: Calls) -> dict[str, Any]:
    actions: dict[str, Counter[str]] = {}
    for resource_type, action in PLAN_ACTION.findall(output):
        actions.setdefault(action, Counter())[resource_type] += 1
    line = PLAN_LINE.search(output)
    errors = [m.strip() for m in re.findall(r"^Error: (.*)$", output, re.MULTILINE)]
    return {
        # 0: no changes, 2: changes, 1: failed (tofu plan -detailed-exitcode).
        "exit_code": exit_code,
        "seconds": seconds,
        "summary": line[1] if line else None,
        "actions": {action: dict(sorted(c.items())) for action, c in sorted(actions.items())},
        "errors": list(dict.fromkeys(errors))[:20],
        "error_count": len(errors),
        "platform_reads": calls.platform_reads,
        "platform_writes": calls.platform_writes,
    }


# --- the run -----------------------------------------------------------------------------------


@contextmanager
def _workdir(keep: Path | None) -> Iterator[Path]:
    """A scratch directory, removed afterwards unless it is made under `keep`."""
    if keep is not None:
        yield Path(tempfile.mkdtemp(prefix="bench-adopt-", dir=keep))
        return
    with tempfile.TemporaryDirectory(prefix="bench-adopt-") as tmp:
        yield Path(tmp)


def run(counts: list[int], rounds: int, random_state: int = DEFAULT_RANDOM_STATE,
        peer: bool = False, progress=print, keep: Path | None = None,
        profile: Path | None = None, peer_plan: bool = False,
        all_kinds: bool = False) -> dict[str, Any]:
    """Every round of every N; `profile`: a directory where adopt's profile at each N is
    written (adopt_<N>.prof, after the timed rounds); `all_kinds`: the workspace filled with
    the filler's MORE_KINDS too (Unity Catalog, warehouses, pools, users, notebooks, Git
    credentials)."""
    runs: list[AdoptRun] = []
    profiles: dict[str, list[str]] = {}
    fills: list[dict[str, Any]] = []
    started = time.time()
    binary, peer_skipped = (None, "not requested (--peer)")
    tofu, plan_skipped = (None, "the peer was not run")
    if peer:
        binary, peer_skipped = ensure_peer()
        if binary is None:
            progress(f"peer skipped: {peer_skipped}")
        elif not peer_plan:
            plan_skipped = "not requested (--peer-plan)"
        else:
            tofu, plan_skipped = ensure_peer("tofu")
            if tofu is None:
                progress(f"the peer's plan skipped: {plan_skipped}")
    with _workdir(keep) as workdir:
        for count in counts:
            with filled_emulator(count, random_state, all_kinds) as (info, filled):
                fills.append({"count": count, "seconds": filled.seconds,
                              "total": filled.total, "by_kind": filled.counts()})
                progress(f"N={count}: filled {filled.total} objects in {filled.seconds:.1f}s")
                for round_ in range(rounds):
                    variants = ["ours", "floor"] + (["peer"] if binary is not None else [])
                    if round_ % 2:
                        variants.reverse()
                    for variant in variants:
                        if variant == "ours":
                            stack = adopt_stack(workdir / f"ours-{count}-{round_}", info)
                            measured = run_ours(stack, info, count, round_)
                        elif variant == "floor":
                            stack = adopt_stack(workdir / f"floor-{count}-{round_}", info)
                            measured = run_floor(stack, info, count, round_)
                        else:
                            assert binary is not None
                            measured = run_peer(binary, info, count, round_, workdir, tofu)
                        runs.append(measured)
                        progress(
                            f"round {round_} N={count:<5} {variant:<6} {measured.seconds:7.2f}s "
                            f"objects={measured.objects_adopted or measured.objects_read:<5} "
                            f"platform={measured.calls.platform:<5} "
                            f"writes={measured.calls.platform_writes} "
                            f"tokens={measured.calls.token_requests}"
                        )
                if profile is not None:
                    profile.mkdir(parents=True, exist_ok=True)
                    stack = adopt_stack(workdir / f"profile-{count}", info)
                    path = profile / f"adopt_{count}.prof"
                    profiles[str(count)] = profile_ours(stack, path)
                    progress(f"N={count}: adopt's profile: {path}")
    return {
        "counts": counts,
        "rounds": rounds,
        "random_state": random_state,
        "all_kinds": all_kinds,
        "started": started,
        "seconds": time.time() - started,
        "peer": {"binary": str(binary) if binary else None, "skipped": peer_skipped,
                 "services": PEER_SERVICES, "tofu": str(tofu) if tofu else None,
                 "plan_skipped": plan_skipped},
        "fills": fills,
        "runs": [dict(asdict(r), calls_per_object=r.calls_per_object) for r in runs],
        "profiles": profiles,
    }


# --- the report --------------------------------------------------------------------------------


def summarise(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Medians per (N, variant) and the ratios to the floor."""
    rows = []
    for count in results["counts"]:
        by_variant: dict[str, list[dict[str, Any]]] = {}
        for r in results["runs"]:
            if r["count"] == count:
                by_variant.setdefault(r["variant"], []).append(r)
        floor = statistics.median(r["seconds"] for r in by_variant.get("floor", [])) \
            if by_variant.get("floor") else None
        # Every object the workspace holds (the floor lists each once: N filled and the
        # emulator's initial objects), the denominator of calls per object.
        in_workspace = by_variant["floor"][-1]["objects_read"] if by_variant.get("floor") \
            else None
        for variant in ("ours", "floor", "peer"):
            measured = by_variant.get(variant)
            if not measured:
                continue
            seconds = statistics.median(r["seconds"] for r in measured)
            inner = [r["inner_seconds"] for r in measured if r["inner_seconds"] is not None]
            last = measured[-1]
            rows.append({
                "count": count,
                "variant": variant,
                "seconds": seconds,
                "round_seconds": [r["seconds"] for r in measured],
                "over_floor": seconds / floor if floor else None,
                "inner_seconds": statistics.median(inner) if inner else None,
                "objects_read": last["objects_read"],
                "objects_adopted": last["objects_adopted"],
                "objects_refused": last["objects_refused"],
                "platform_calls": last["calls"]["platform_reads"]
                + last["calls"]["platform_writes"],
                "platform_writes": last["calls"]["platform_writes"],
                "token_requests": last["calls"]["token_requests"],
                "calls_per_object": last["calls_per_object"],
                "objects_in_workspace": in_workspace,
                "calls_per_object_listed": (
                    (last["calls"]["platform_reads"] + last["calls"]["platform_writes"])
                    / in_workspace if in_workspace else None
                ),
                "by_route": by_route(last["calls"]["by_route"]),
                "resources_by_type": last["resources_by_type"],
                "errors": last["errors"],
                "exit_code": last["exit_code"],
                "added_by_key": last["added_by_key"],
                "plan": last.get("plan"),
            })
    return rows


VARIANT_NAMES = {
    "ours": "`python -m stacks.adopt`",
    "floor": "floor: list every object once",
    "peer": "Terraform exporter (v1.84.0)",
}


def render(results: dict[str, Any], notes: str = "") -> str:
    from bench.report import machine

    rows = summarise(results)
    m = machine()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(results["started"]))
    flags = f"--counts {','.join(map(str, results['counts']))} --rounds {results['rounds']}"
    if results["peer"]["binary"]:
        flags += " --peer"
    if results["peer"].get("tofu"):
        flags += " --peer-plan"
    lines = [
        "# Benchmark results: adopting a whole workspace against listing it once",
        "",
        f"Run {when}, {results['rounds']} round(s) per N, {results['seconds'] / 60:.1f} min "
        f"in all (fills included); the fill's random state {results['random_state']}. "
        "Medians of the rounds; calls from the last round.",
        "",
        f"Reproduce: `.venv/bin/python bench/adopt_cost.py {flags} "
        "--report bench/ADOPT_RESULTS.md` (the closing note is written by hand).",
        "",
        f"Machine: os {m['os']}, cpu {m['cpu']}, cores {m['cores']}, memory {m['memory']}, "
        f"python {m['python']}, engine {m['engine']}.",
        "",
        "Each N is a fresh in-memory emulator filled through the official SDK "
        "(tools/fill_workspace.py) beside its initial objects. `ours`: the whole "
        "`python -m stacks.adopt --stack bench` process on a scratch stack that declares "
        "nothing. `floor`: a process that signs in as the stack does and lists every "
        "adoptable kind once (stacks.adoption.listed). `peer`: the Terraform provider's "
        "exporter, `-skip-interactive`, listing " + f"`{results['peer']['services']}`"
        + " with a personal access token.",
        "",
        "## Time and calls",
        "",
        "| N | run | wall (s) | over the floor | per round | inner (s) | objects read "
        "| adopted / written | refused | platform calls | per object in the workspace "
        "| per object filled | writes | token requests |",
        "|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        ratio = f"{row['over_floor']:.2f}x" if row["over_floor"] is not None else "-"
        inner = f"{row['inner_seconds']:.2f}" if row["inner_seconds"] is not None else "-"
        rounds = ", ".join(f"{s:.2f}" for s in row["round_seconds"])
        per_listed = (f"{row['calls_per_object_listed']:.2f}"
                      if row["calls_per_object_listed"] is not None else "-")
        read = row["objects_read"] if row["variant"] != "peer" else "-"
        refused = row["objects_refused"] if row["variant"] == "ours" else "-"
        adopted = row["objects_adopted"] if row["variant"] != "floor" else "-"
        lines.append(
            f"| {row['count']} | {VARIANT_NAMES[row['variant']]} | {row['seconds']:.2f} "
            f"| {ratio} | {rounds} | {inner} | {read} | {adopted} | {refused} "
            f"| {row['platform_calls']} | {per_listed} | {row['calls_per_object']:.2f} "
            f"| {row['platform_writes']} | {row['token_requests']} |"
        )
    lines += [
        "",
        "Calls per object: platform calls (token requests apart) over the objects the "
        "workspace holds (the floor's count: the N filled and the emulator's initial "
        "objects), and over N. "
        "`inner`: adopt's own time for reading and planning (its summary line), without the "
        "process start, the stack's config read and the file write; the floor's listing alone "
        "inside its process; the exporter's generation of HCL (its log), after its listing and "
        "reading.",
        "",
        "## Calls by route (last round)",
        "",
        "| N | run | calls by route |",
        "|---:|---|---|",
    ]
    for row in rows:
        routes = ", ".join(f"`{route}` x{n}" for route, n in
                           sorted(row["by_route"].items(), key=lambda kv: (-kv[1], kv[0])))
        lines.append(f"| {row['count']} | {VARIANT_NAMES[row['variant']]} | {routes or 'none'} |")
    adopted_rows = [row for row in rows if row["variant"] == "ours"]
    if adopted_rows:
        lines += ["", "## What adopt added, per config list", "",
                  "| N | items per list |", "|---:|---|"]
        for row in adopted_rows:
            items = ", ".join(f"{key} {n}" for key, n in row["added_by_key"].items())
            lines.append(f"| {row['count']} | {items} |")
    peer_rows = [row for row in rows if row["variant"] == "peer"]
    lines += ["", "## The peer: the Terraform provider's exporter", ""]
    if not peer_rows:
        lines.append(f"Not measured: {results['peer']['skipped']}.")
    for row in peer_rows:
        written = ", ".join(f"`{t}` {n}" for t, n in row["resources_by_type"].items())
        folded = Counter(fold_error(e) for e in row["errors"])
        lines += [
            f"N={row['count']}: exit code {row['exit_code']}, {row['objects_adopted']} "
            f"resources written: {written or 'none'}.",
            "",
            f"Its errors ({len(row['errors'])} distinct; names folded):",
            "",
            *[f"- {n}x `{e}`" for e, n in folded.most_common()],
            "",
        ]
        plan = row["plan"]
        if plan is None:
            lines += [f"Whether its output plans no changes: not measured "
                      f"({results['peer'].get('plan_skipped')}).", ""]
            continue
        verdict = {0: "no changes", 2: "changes"}.get(plan["exit_code"], "the plan failed")
        lines += [
            f"`tofu plan` of its output (OpenTofu, the provider built here): **{verdict}** "
            f"(exit code {plan['exit_code']}) in {plan['seconds']:.1f} s, "
            f"{plan['platform_reads']} platform reads, {plan['platform_writes']} writes; "
            f"`{plan['summary'] or 'no summary line'}`",
            "",
            *[f"- {action}: " + ", ".join(f"`{t}` {n}" for t, n in types.items())
              for action, types in plan["actions"].items()],
            *([f"- {plan['error_count']} error(s), distinct: "
               + "; ".join(f"`{e}`" for e in plan["errors"])] if plan["errors"] else []),
            "",
        ]
        again = plan.get("again_without_empty_pause_status")
        if again is not None:
            verdict = {0: "no changes", 2: "changes"}.get(again["exit_code"], "the plan failed")
            lines += [
                "Planned again with its `pause_status = \"\"` lines removed: "
                f"**{verdict}** (exit code {again['exit_code']}) in {again['seconds']:.1f} s, "
                f"{again['platform_reads']} platform reads, {again['platform_writes']} writes; "
                f"`{again['summary'] or 'no summary line'}`",
                "",
                *[f"- {action}: " + ", ".join(f"`{t}` {n}" for t, n in types.items())
                  for action, types in again["actions"].items()],
                *([f"- {again['error_count']} error(s), distinct: "
                   + "; ".join(f"`{e}`" for e in again["errors"])] if again["errors"] else []),
                "",
            ]
    fills = results["fills"]
    lines += ["", "## The filled workspaces", "", "| N | objects made | fill (s) | by kind |",
              "|---:|---:|---:|---|"]
    for f in fills:
        kinds = ", ".join(f"{k} {n}" for k, n in f["by_kind"].items())
        lines.append(f"| {f['count']} | {f['total']} | {f['seconds']:.1f} | {kinds} |")
    if notes:
        lines += ["", notes.strip()]
    return "\n".join(lines) + "\n"


def write_report(results: dict[str, Any], path: Path) -> None:
    notes = ""
    if path.exists():
        # The closing note, written by hand below the marker, is kept.
        text = path.read_text()
        if NOTES_MARKER in text:
            notes = NOTES_MARKER + text.split(NOTES_MARKER, 1)[1]
    path.write_text(render(results, notes))


NOTES_MARKER = "## Closing note"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--counts", default=",".join(map(str, DEFAULT_COUNTS)),
                        help="comma-separated N values (objects filled)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--all-kinds", action="store_true",
                        help="fill with the filler's MORE_KINDS too (tools/fill_workspace.py)")
    parser.add_argument("--random-state", type=int, default=DEFAULT_RANDOM_STATE)
    parser.add_argument("--peer", action="store_true",
                        help="also run the Terraform provider's exporter (built on first use)")
    parser.add_argument("--peer-plan", action="store_true",
                        help="with --peer: plan the exporter's output with OpenTofu (built on "
                        "first use: 15 minutes and more on 2 cores)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results JSON")
    parser.add_argument("--report", type=Path, help="also write this report")
    parser.add_argument("--keep", type=Path, help="keep the work directories under this one")
    parser.add_argument("--profile", type=Path, metavar="DIR",
                        help="also run adopt once under cProfile at each N (untimed) and "
                        "write DIR/adopt_<N>.prof")
    # Internal: the floor's own process.
    parser.add_argument("--list-once", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--project-dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--stack", help=argparse.SUPPRESS)
    parser.add_argument("--state-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.list_once:
        print(json.dumps(list_once(args.project_dir, args.stack, args.state_dir)))
        return 0
    counts = [int(n) for n in args.counts.split(",")]
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    results = run(counts, args.rounds, args.random_state, args.peer,
                  progress=lambda line: print(line, flush=True), keep=args.keep,
                  profile=args.profile, peer_plan=args.peer_plan, all_kinds=args.all_kinds)
    results["summary"] = summarise(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    print(f"results: {args.out}")
    if args.report is not None:
        write_report(results, args.report)
        print(f"report: {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
