"""Drill: interrupted deployments of the whole `local` stack.

    .venv/bin/python -m tools.drills.interruption [--trials 10] [--random-state 1]
                                                  [--emulator-trials 3]
                                                  [--single-write-trials 0]

Pulumi trials: SIGKILL the `pulumi` process at a random point of an up (right
after its n-th platform request, n uniform over the requests an uninterrupted up makes,
drawn from a fixed random state: `--random-state`, one more for each next trial), take the
steps a user takes (tools/drills/interrupt.py), and require the next up to converge: the
emulator holds exactly the declared objects, nothing twice, and a further up changes
nothing. Emulator trials: SIGKILL the emulator (SQLite data dir) in the middle of an up
and restart it on the same ports; every object the stack's state records (writes the
emulator acknowledged) must still be there, and the next up must converge.

Single-write trials (`--single-write-trials`): Pulumi trials whose up runs in the
single-write mode (stacks/single_write.py): the killed up has written nothing to the state,
so everything it made is adopted by the next one.

The emulator adds 150 ms to each request so that an up lasts long enough for a kill to
land between its first and its last call.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from stacks import single_write as single_write_mode
from stacks.pulumi_cli import PulumiCli
from tools.drills import interrupt, inventory
from tools.drills.local_stack import local_objects, repoint, scratch_stack
from workspace_emulator.testing import (
    EmulatorInfo,
    EmulatorProcess,
    clear_request_log,
    free_port_block,
    request_log,
    running_emulator,
    set_faults,
)

LATENCY_MS = 150
CATALOGS = ("finance",)
OUTAGE_SECONDS = 3.0
# Longer than kill_pulumi's orphan grace, so the killed up never hears the held answer.
HELD_ANSWER_MS = 5000
HELD_CREATE_PATHS = ["/api/2.0/jobs/create", "/api/2.0/secrets/scopes/create"]
WAIT_LIMIT_SECONDS = 600.0


@dataclass(kw_only=True)
class Outcome:
    """What a kill drill's trial showed after the kill: what the state recorded, the user's
    recovery (tools/drills/interrupt.py) and the verdict on the workspace."""
    killed_mid_up: bool = False
    resources_recorded_after_kill: int = 0
    made_but_unrecorded: int = 0  # objects an interrupted create made: the up must adopt them
    recovery_steps: list[str] = field(default_factory=list)
    checkpoint_restored: bool = False
    pending_after_crash: int = 0
    pending_after_refresh: int = 0
    pending_after_up: int = 0
    converged: bool = False
    second_up_no_changes: bool = False
    preview_no_changes: bool = False
    duplicates: int = 0
    lost: int = 0  # declared objects missing
    orphans: int = 0
    lost_permissions: int = 0
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    output: str = field(default="", repr=False)


@dataclass(kw_only=True)
class Trial(Outcome):
    kind: str
    random_state: int
    kill_after_request: int  # the n-th platform request of the up; 0: the first create
    acknowledged_lost: int = 0


def take_at_rest(info: EmulatorInfo) -> inventory.Inventory:
    """The inventory, read between ups with the faults off (as `inventory.take` asks: a
    hundred reads at LATENCY_MS each would add a quarter of a minute), the drill's latency
    on again after it for the ups to come."""
    set_faults(info)
    try:
        return inventory.take(info, CATALOGS)
    finally:
        set_faults(info, latency_ms=LATENCY_MS)


def platform_requests(info: EmulatorInfo) -> int:
    return sum(e["service"] == "platform" for e in request_log(info))


def reference_platform_requests(workdir: Path) -> int:
    """How many platform requests an uninterrupted up of the local stack makes. A kill
    point is "after the n-th of them", n drawn from 1..this: a point of the up's progress,
    not of the clock, so it holds on a loaded machine too."""
    with running_emulator(fault_latency_ms=LATENCY_MS) as info:
        cli = scratch_stack(workdir, info)
        cli.up()
        return platform_requests(info)


def managed_resources(cli: PulumiCli) -> list[dict]:
    if interrupt.checkpoint_broken(cli):
        return []
    deployment = cli.export().get("deployment") or {}
    return [r for r in deployment.get("resources") or []
            if r.get("type", "").startswith("pulumi-python:dynamic/workspace:")]


def record_recovery(outcome: Outcome, recovery: interrupt.Recovery) -> None:
    outcome.recovery_steps = recovery.steps
    outcome.checkpoint_restored = recovery.checkpoint_restored
    outcome.pending_after_crash = recovery.pending_after_crash
    outcome.pending_after_refresh = recovery.pending_after_refresh
    outcome.pending_after_up = recovery.pending_after_up


def finish(outcome: Outcome, cli: PulumiCli, info: EmulatorInfo, before: inventory.Inventory,
           result: subprocess.CompletedProcess[str]) -> None:
    """Judges the recovery's last up: converged, a second up changes nothing, and the
    workspace holds exactly the local stack's objects."""
    outcome.converged = result.returncode == 0
    outcome.output = result.stdout[-4000:] + result.stderr[-2000:]
    second = cli.up("--expect-no-changes", check=False)
    outcome.second_up_no_changes = second.returncode == 0
    outcome.preview_no_changes = cli.preview("--expect-no-changes", check=False).returncode == 0
    verdict = inventory.judge(before, take_at_rest(info), local_objects(),
                              f"workspace/{cli.stack}/")
    outcome.duplicates, outcome.lost = verdict.duplicates, verdict.missing
    outcome.orphans, outcome.lost_permissions = verdict.orphans, verdict.lost_permissions
    outcome.problems = verdict.problems


def recover_after_killed_pulumi(outcome: Outcome, cli: PulumiCli, info: EmulatorInfo,
                                before: inventory.Inventory) -> None:
    """What the killed up left (recorded, made but unrecorded), the user's recovery, and
    its verdict."""
    recorded = managed_resources(cli)
    outcome.resources_recorded_after_kill = len(recorded)
    outcome.made_but_unrecorded = len(made_but_unrecorded(take_at_rest(info), before,
                                                          recorded))
    recovery, result = interrupt.resume(cli)
    record_recovery(outcome, recovery)
    finish(outcome, cli, info, before, result)


def kill_condition(info: EmulatorInfo, random_state: int, total_requests: int,
                   at_first_create: bool) -> tuple[int, Callable[[], bool]]:
    """(n, condition): right after the n-th platform request (n in 1..total, drawn from
    `random_state`), or (`at_first_create`, n = 0) the moment the emulator acknowledges the
    first create."""
    if at_first_create:
        return 0, lambda: interrupt.first_create_acknowledged(info)
    n = random.Random(random_state).randint(1, total_requests)
    return n, lambda: platform_requests(info) >= n


def pulumi_kill_condition(info: EmulatorInfo, before: inventory.Inventory, random_state: int,
                          total_requests: int, at_first_create: bool
                          ) -> tuple[int, Callable[[], bool]]:
    """As `kill_condition`, but `at_first_create` means while the first create's answer is
    on its way: the emulator applies creates of jobs and scopes at once and holds their
    answers (after-write latency), so the kill lands before the engine can record the
    object however loaded the machine is. `set_faults(info, latency_ms=LATENCY_MS)` after
    the kill lets the recovery's creates through."""
    if not at_first_create:
        return kill_condition(info, random_state, total_requests, at_first_create)
    set_faults(info, latency_ms=HELD_ANSWER_MS, after_write=True, paths=HELD_CREATE_PATHS)
    return 0, lambda: any(not made.startswith("principal ")
                          for made in made_but_unrecorded(inventory.take(info, CATALOGS),
                                                          before, []))


def pulumi_kill_trial(workdir: Path, random_state: int, total_requests: int,
                      at_first_create: bool = False, single_write: bool = False) -> Trial:
    """`single_write`: the up runs in the single-write mode (stacks/single_write.py)."""
    started = time.monotonic()
    with running_emulator(fault_latency_ms=LATENCY_MS) as info:
        cli = scratch_stack(workdir, info)
        if single_write:
            single_write_mode.enable(cli)
        before = take_at_rest(info)
        clear_request_log(info)  # count the up's own requests only
        n, condition = pulumi_kill_condition(info, before, random_state, total_requests,
                                             at_first_create)
        up = interrupt.start_up(cli)
        trial = Trial(kind="pulumi-single-write" if single_write else "pulumi",
                      random_state=random_state, kill_after_request=n,
                      killed_mid_up=interrupt.kill_pulumi(up, WAIT_LIMIT_SECONDS, condition))
        set_faults(info, latency_ms=LATENCY_MS)
        recover_after_killed_pulumi(trial, cli, info, before)
    trial.seconds = round(time.monotonic() - started, 1)
    return trial


def made_but_unrecorded(now: inventory.Inventory, before: inventory.Inventory,
                        recorded: list[dict]) -> list[str]:
    """Jobs, principals and scopes the emulator holds (`now`) since the up began that the
    stack's state does not record: made by creates the kill interrupted."""
    ids = {str(r.get("id")) for r in recorded}
    old_jobs = {j["job_id"] for j in before.jobs}
    old_principals = {p["id"] for p in before.principals}
    made = [f"job {j['job_id']}" for j in now.jobs
            if j["job_id"] not in old_jobs and str(j["job_id"]) not in ids]
    made += [f"principal {p['id']}" for p in now.principals
             if p["id"] not in old_principals and str(p["id"]) not in ids]
    made += [f"scope {name}" for name in set(now.scopes) - set(before.scopes)
             if name not in ids]
    return made


def acknowledged_missing(cli: PulumiCli, info: EmulatorInfo) -> list[str]:
    """Objects the stack's state records as made (the emulator acknowledged them) that the
    emulator no longer holds."""
    now = take_at_rest(info)
    present = {
        "Job": {str(j["job_id"]) for j in now.jobs},
        "ServicePrincipal": {str(p["id"]) for p in now.principals},
        "SecretScope": set(now.scopes),
    }
    missing = []
    for resource in managed_resources(cli):
        kind = resource["type"].rsplit(":", 1)[-1]
        if kind in present and str(resource.get("id")) not in present[kind]:
            missing.append(f"{kind} {resource.get('id')}")
    return missing


def emulator_kill_trial(workdir: Path, random_state: int, total_requests: int,
                        at_first_create: bool = False) -> Trial:
    started = time.monotonic()
    options: dict[str, Any] = {"data_dir": workdir / "emulator", "port": free_port_block(),
               "fault_latency_ms": LATENCY_MS}
    first = EmulatorProcess(**options)
    info = first.start()
    second: EmulatorProcess | None = None
    try:
        cli = scratch_stack(workdir, info)
        before = take_at_rest(info)
        clear_request_log(info)  # count the up's own requests only
        n, condition = kill_condition(info, random_state, total_requests, at_first_create)
        up = interrupt.start_up(cli)
        trial = Trial(kind="emulator", random_state=random_state, kill_after_request=n,
                      killed_mid_up=interrupt.wait_until(up, WAIT_LIMIT_SECONDS, condition))
        first.kill()
        time.sleep(OUTAGE_SECONDS)
        second = EmulatorProcess(**options)
        info = second.start()
        repoint(cli, info)  # same ports: a no-op, kept so the config follows the process
        output, _ = up.communicate(timeout=900)
        trial.resources_recorded_after_kill = len(managed_resources(cli))
        trial.acknowledged_lost = len(acknowledged_missing(cli, info))
        trial.recovery_steps = ["(the interrupted up itself)"]
        result = subprocess.CompletedProcess(up.args, up.returncode, output, "")
        if up.returncode != 0:
            recovery, result = interrupt.resume(cli)
            record_recovery(trial, recovery)
        finish(trial, cli, info, before, result)
    finally:
        first.close()
        if second is not None:
            second.close()
    trial.seconds = round(time.monotonic() - started, 1)
    return trial


def single_write_trial(workdir: Path, random_state: int, total_requests: int) -> Trial:
    return pulumi_kill_trial(workdir, random_state, total_requests, single_write=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--emulator-trials", type=int, default=3)
    parser.add_argument("--random-state", type=int, default=1,
                        help="random state of the first trial's kill point")
    parser.add_argument("--single-write-trials", type=int, default=0,
                        help="Pulumi trials more, the up in the single-write mode")
    args = parser.parse_args(argv)
    trials: list[Trial] = []
    with tempfile.TemporaryDirectory(prefix="drill-interruption-") as tmp:
        total = reference_platform_requests(Path(tmp) / "reference")
        print(json.dumps({"reference_platform_requests": total}), flush=True)
        runs: list[tuple[Callable[[Path, int, int], Trial], int]] = [
            (pulumi_kill_trial, args.random_state + n) for n in range(args.trials)]
        runs += [(emulator_kill_trial, 1000 + args.random_state + n)
                 for n in range(args.emulator_trials)]
        runs += [(single_write_trial, 2000 + args.random_state + n)
                 for n in range(args.single_write_trials)]
        for index, (run, random_state) in enumerate(runs):
            trial = run(Path(tmp) / f"trial-{index}", random_state, total)
            trials.append(trial)
            print(json.dumps({k: v for k, v in asdict(trial).items() if k != "output"}),
                  flush=True)
    summary = {
        kind: {
            "trials": len(group),
            "killed_mid_up": sum(t.killed_mid_up for t in group),
            "converged": sum(t.converged and t.second_up_no_changes and t.preview_no_changes
                             and not t.problems
                             for t in group),
            "duplicates": sum(t.duplicates for t in group),
            "lost": sum(t.lost for t in group),
            "orphans": sum(t.orphans for t in group),
            "lost_permissions": sum(t.lost_permissions for t in group),
            "acknowledged_writes_lost": sum(t.acknowledged_lost for t in group),
            "pending_operations_seen": sum(t.pending_after_crash for t in group),
            "interrupted_creates_adopted": sum(t.made_but_unrecorded for t in group),
            "checkpoints_restored": sum(t.checkpoint_restored for t in group),
            "pending_left_after_up": sum(t.pending_after_up for t in group),
        }
        for kind in ("pulumi", "emulator", "pulumi-single-write")
        if (group := [t for t in trials if t.kind == kind])
    }
    print(json.dumps({"summary": summary}, indent=2))
    if any(s["converged"] != s["trials"] for s in summary.values()):
        raise SystemExit("not every trial converged")


if __name__ == "__main__":
    main()
