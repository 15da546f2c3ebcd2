"""Drill: the whole `local` stack deployed while the emulator injects faults on every
endpoint (platform and identity provider), side by side with a fault-free deployment.

    .venv/bin/python -m tools.drills.faults [--runs 3] [--rate 0.2] [--random-state 1]

`--rate` is the share of requests that get a fault, split evenly between 429 (with
Retry-After), 500, 503 and a dropped connection. The faults are drawn from a fixed random
state (`--random-state` for the first faulty run, one more for each next), so a run can be
repeated. Each run deploys on a fresh emulator:
one `pulumi up` must converge, the emulator must then hold exactly the declared objects,
and a second up (faults still on) must report no changes.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tools.drills import inventory
from tools.drills.local_stack import local_objects, scratch_stack
from workspace_emulator.testing import clear_request_log, request_log, running_emulator, set_faults

CATALOGS = ("finance",)
FAULT_KINDS = ("429", "500", "503", "drop")


@dataclass
class Deployment:
    random_state: int | None
    rate: float
    up_ok: bool
    up_seconds: float
    requests: int
    faults: dict[str, int]
    second_up_no_changes: bool
    second_up_seconds: float
    duplicates: int
    orphans: int
    lost_permissions: int
    problems: list[str] = field(default_factory=list)
    up_output: str = field(default="", repr=False)

    @property
    def converged(self) -> bool:
        return self.up_ok and self.second_up_no_changes and not self.problems


def fault_settings(rate: float, random_state: int | None) -> dict[str, Any]:
    share = rate / len(FAULT_KINDS)
    return {"rate_429": share, "rate_500": share, "rate_503": share, "rate_drop": share,
            "random_state": random_state}


def deploy(workdir: Path, rate: float, random_state: int | None) -> Deployment:
    """One deployment of the local stack on a fresh emulator, faults at `rate`."""
    objects = local_objects()
    with running_emulator() as info:
        cli = scratch_stack(workdir, info, objects)
        before = inventory.take(info, CATALOGS)
        clear_request_log(info)
        if rate:
            set_faults(info, **fault_settings(rate, random_state))
        started = time.monotonic()
        up = cli.up(check=False)
        up_seconds = time.monotonic() - started
        log = request_log(info)
        started = time.monotonic()
        second = cli.up("--expect-no-changes", check=False)
        second_seconds = time.monotonic() - started
        set_faults(info)
        verdict = inventory.judge(before, inventory.take(info, CATALOGS), objects,
                                  f"workspace/{cli.stack}/")
    faults = Counter(entry["fault"] for entry in log if entry["fault"])
    return Deployment(
        random_state=random_state, rate=rate, up_ok=up.returncode == 0,
        up_seconds=round(up_seconds, 2),
        requests=len(log), faults={kind: faults.get(kind, 0) for kind in FAULT_KINDS},
        second_up_no_changes=second.returncode == 0, second_up_seconds=round(second_seconds, 2),
        duplicates=verdict.duplicates, orphans=verdict.orphans,
        lost_permissions=verdict.lost_permissions, problems=verdict.problems,
        up_output=up.stdout + up.stderr,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rate", type=float, default=0.2)
    parser.add_argument("--random-state", type=int, default=1,
                        help="random state of the faults of the first faulty run")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="drill-faults-") as tmp:
        for run in range(args.runs):
            # Interleaved, so drift on a shared machine hits both alike.
            for rate, random_state in ((0.0, None), (args.rate, args.random_state + run)):
                result = deploy(Path(tmp) / f"{run}-{rate}", rate, random_state)
                row = {k: v for k, v in asdict(result).items() if k != "up_output"}
                row["converged"] = result.converged
                rows.append(row)
                print(json.dumps(row), flush=True)
    clean = [r for r in rows if not r["rate"]]
    faulty = [r for r in rows if r["rate"]]

    def mean(values: list[float]) -> float:
        return round(sum(values) / len(values), 2)

    summary = {
        "runs": args.runs,
        "rate": args.rate,
        "faulty_converged": sum(r["converged"] for r in faulty),
        "clean_converged": sum(r["converged"] for r in clean),
        "faults_injected": dict(sum((Counter(r["faults"]) for r in faulty), Counter())),
        "requests_clean_mean": mean([r["requests"] for r in clean]),
        "requests_faulty_mean": mean([r["requests"] for r in faulty]),
        "up_seconds_clean_mean": mean([r["up_seconds"] for r in clean]),
        "up_seconds_faulty_mean": mean([r["up_seconds"] for r in faulty]),
        "duplicates": sum(r["duplicates"] for r in rows),
        "orphans": sum(r["orphans"] for r in rows),
        "lost_permissions": sum(r["lost_permissions"] for r in rows),
    }
    print(json.dumps({"summary": summary}, indent=2))
    if summary["faulty_converged"] != args.runs or summary["clean_converged"] != args.runs:
        raise SystemExit("not every run converged")


if __name__ == "__main__":
    main()
