"""Drill: two `pulumi up` of one stack started together on the shared backend, and the one
holding the stack's lock SIGKILLed at a random point.

    .venv/bin/python -m tools.drills.concurrent_ups [--trials 10] [--random-state 1]

Each trial: a fresh emulator (150 ms per request, so an up lasts long enough to be
interrupted anywhere), a fresh prefix of one S3 object store (tools/object_store.py), the
whole `local` stack. Two ups start together; the engine lets one take the stack's lock and
refuses the other with its lock message before that one runs the program. The holder is
SIGKILLed right after the up's n-th platform request (n uniform over the requests an
uninterrupted up makes, drawn from `--random-state`, one more for each next trial). Then
the user's recovery (tools/drills/interrupt.py: `workspace-iac recover` for the lock the kill
left, refresh and clearing pending creates when the CLI shows them, `pulumi up`), and the
checks: the workspace holds exactly the declared objects, none twice and none lost, and one
more up changes nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from stacks.pulumi_cli import ENGINE_LOCK_MESSAGE, PulumiCli
from tools.drills import interrupt
from tools.drills.interruption import (
    LATENCY_MS,
    WAIT_LIMIT_SECONDS,
    Outcome,
    pulumi_kill_condition,
    recover_after_killed_pulumi,
    reference_platform_requests,
    take_at_rest,
)
from tools.drills.local_stack import scratch_stack
from tools.object_store import ObjectStore, running_object_store
from workspace_emulator.testing import clear_request_log, running_emulator, set_faults

# What `pulumi up` prints once it holds the lock (3.79 takes it before anything else).
HOLDING_LOCK = "Updating ("
RACE_ROUNDS = 5  # each race refuses both ups about one time in seven (drill 7)
REFUSAL_SECONDS = 120.0


@dataclass
class Up:
    """A `pulumi up` running in its own session, its output going to a file."""

    process: subprocess.Popen[str]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def refused(self) -> bool:
        return self.process.poll() is not None and ENGINE_LOCK_MESSAGE in self.output()

    def holds_lock(self) -> bool:
        return HOLDING_LOCK in self.output()


def start_up(cli: PulumiCli, log: Path) -> Up:
    with log.open("w") as out:  # the child keeps its own descriptor
        process = subprocess.Popen(
            ["pulumi", "up", "--yes", "--skip-preview", "--non-interactive",
             "--stack", cli.stack],
            cwd=cli.project_dir, env=cli.env(), stdout=out, stderr=subprocess.STDOUT,
            text=True, start_new_session=True,
        )
    return Up(process, log)


@dataclass
class Race:
    holder: Up  # took the lock; may still be running
    refused: Up  # refused with the engine's lock message
    both_refused_rounds: int = 0  # rounds in which the engine refused both (see race)


def race(cli: PulumiCli, logs: Path) -> Race:
    """Starts two ups of `cli`'s stack together and returns once one holds the lock and the
    other was refused. The 3.79 lock is write-then-list: an up writes its lock file, then
    lists the stack's lock files and gives up if another is there. Two ups whose writes
    both land before either lists refuse each other, and neither changes anything; then
    the race is run again (at most RACE_ROUNDS times)."""
    both_refused = 0
    for round_ in range(RACE_ROUNDS):
        ups = [start_up(cli, logs / f"up-{round_}-{n}.log") for n in (1, 2)]
        deadline = time.monotonic() + REFUSAL_SECONDS
        while time.monotonic() < deadline:
            refused = [up for up in ups if up.refused()]
            if len(refused) == 2:
                both_refused += 1
                break
            holding = [up for up in ups if up.holds_lock()]
            if refused and holding:
                return Race(holding[0], refused[0], both_refused)
            finished = [up for up in ups if up.process.poll() is not None and not up.refused()]
            if finished and not holding:
                raise RuntimeError(f"an up failed before the lock:\n{finished[0].output()}")
            time.sleep(0.05)
        else:
            for up in ups:
                up.process.kill()
            raise RuntimeError("neither up was refused: "
                               + "\n---\n".join(up.output()[-2000:] for up in ups))
    raise RuntimeError(f"the engine refused both ups in {RACE_ROUNDS} rounds")


def lock_keys(store: ObjectStore, prefix: str) -> list[str]:
    return [k for k in store.keys(f"{prefix}/.pulumi/locks/") if k.endswith(".json")]


@dataclass(kw_only=True)
class Trial(Outcome):
    random_state: int
    kill_after_request: int
    both_refused_rounds: int = 0
    refused_with_lock_message: bool = False
    refused_ran_program: bool = False
    locks_left_after_kill: int = 0


def trial(workdir: Path, store: ObjectStore, random_state: int, total_requests: int,
          at_first_create: bool = False) -> Trial:
    """One trial; the kill lands after the n-th platform request (n drawn from
    `random_state` in 1..`total_requests`), or (`at_first_create`) while the emulator holds
    the answer to the first create it applied."""
    started = time.monotonic()
    prefix = f"{workdir.name}-{random_state}"
    with running_emulator(fault_latency_ms=LATENCY_MS) as info:
        cli = scratch_stack(workdir, info, backend_url=store.backend_url(prefix),
                            extra_env=store.env())
        before = take_at_rest(info)
        clear_request_log(info)  # count the ups' own requests only
        n, condition = pulumi_kill_condition(info, before, random_state, total_requests,
                                             at_first_create)
        result = Trial(random_state=random_state, kill_after_request=n)
        contest = race(cli, workdir)
        result.both_refused_rounds = contest.both_refused_rounds
        refused_output = contest.refused.output()
        result.refused_with_lock_message = ENGINE_LOCK_MESSAGE in refused_output
        result.refused_ran_program = HOLDING_LOCK in refused_output
        result.killed_mid_up = interrupt.kill_pulumi(
            contest.holder.process, WAIT_LIMIT_SECONDS, condition)
        set_faults(info, latency_ms=LATENCY_MS)
        result.locks_left_after_kill = len(lock_keys(store, prefix))
        recover_after_killed_pulumi(result, cli, info, before)
    result.seconds = round(time.monotonic() - started, 1)
    return result


def summary(trials: list[Trial]) -> dict[str, object]:
    return {
        "trials": len(trials),
        "kill_after_request": [t.kill_after_request for t in trials],
        "refused_with_lock_message": sum(t.refused_with_lock_message for t in trials),
        "refused_ran_program": sum(t.refused_ran_program for t in trials),
        "both_refused_rounds": sum(t.both_refused_rounds for t in trials),
        "killed_mid_up": sum(t.killed_mid_up for t in trials),
        "stale_locks_left": sum(t.locks_left_after_kill for t in trials),
        "resources_recorded_after_kill": [t.resources_recorded_after_kill for t in trials],
        "interrupted_creates_adopted": sum(t.made_but_unrecorded for t in trials),
        "pending_operations_seen": sum(t.pending_after_crash for t in trials),
        "converged": sum(t.converged and t.second_up_no_changes and not t.problems
                         for t in trials),
        "duplicates": sum(t.duplicates for t in trials),
        "lost": sum(t.lost for t in trials),
        "orphans": sum(t.orphans for t in trials),
        "lost_permissions": sum(t.lost_permissions for t in trials),
        "pending_left_after_up": sum(t.pending_after_up for t in trials),
        "seconds": [t.seconds for t in trials],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--random-state", type=int, default=1,
                        help="random state of the first trial's kill point")
    args = parser.parse_args(argv)
    trials: list[Trial] = []
    with tempfile.TemporaryDirectory(prefix="drill-concurrent-") as tmp, \
            running_object_store() as store:
        total = reference_platform_requests(Path(tmp) / "reference")
        print(json.dumps({"reference_platform_requests": total}), flush=True)
        for index in range(args.trials):
            done = trial(Path(tmp) / f"trial-{index}", store, args.random_state + index, total)
            trials.append(done)
            print(json.dumps({k: v for k, v in asdict(done).items() if k != "output"}),
                  flush=True)
    result = summary(trials)
    print(json.dumps({"summary": result}, indent=2))
    if result["converged"] != len(trials) or result["duplicates"] or result["lost"]:
        raise SystemExit("not every trial converged without duplicates and losses")


if __name__ == "__main__":
    main()
