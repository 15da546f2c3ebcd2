"""Two checkouts of the project side by side in one run: ours and the floor, each in the
single-write mode, each checkout against an emulator of its own, every operation run for
each stack in turn (the order flips every round), so drift on a shared machine hits all
alike. Before and after a change, that gives each checkout's ours/floor on the same clock.

Per operation it records the wall time, the platform calls (the emulator's request log) and
the CPU seconds of the processes the operation ran, by process: the program, the engine
(`pulumi`), the provider host, the emulator (read from /proc while it runs: Linux only).

    .venv/bin/python bench/side_by_side.py --other /path/to/other/checkout [--count 2000]
                                           [--rounds 1] [--out bench/out/side_by_side.json]

The other checkout runs from its own source through this checkout's virtualenv
(PYTHONPATH), so it needs no setup of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import deploy_cost  # noqa: E402
from workspace_emulator.testing import (  # noqa: E402
    EmulatorInfo,
    clear_request_log,
    request_log,
    running_emulator,
)

OPERATIONS = ("up", "refresh", "destroy")
VARIANTS = ("ours_single", "floor_single")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Sample:
    checkout: str
    variant: str
    operation: str
    round: int
    seconds: float
    platform_calls: int
    cpu_seconds: dict[str, float] = field(default_factory=dict)


def _parent_of(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _descends_from_us(pid: int) -> bool:
    us = os.getpid()
    while pid > 1:
        if pid == us:
            return True
        pid = _parent_of(pid)
    return False


def _role(pid: int) -> str:
    try:
        parts = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "gone"
    command = b" ".join(parts).decode(errors="replace")
    if "workspace_emulator" in command:
        return "emulator"
    if "language-python-exec" in command:
        return "program"
    if "import providers" in command or "pulumi.dynamic" in command:
        return "provider host"
    if " -m pip" in command:
        return "language host's pip"
    return parts[0].decode(errors="replace").rsplit("/", 1)[-1] or "other"


class CpuWatch:
    """The CPU seconds each of our descendant processes spends while the block runs, by
    role; a process that ends between two looks loses at most its last 20 ms."""

    def __init__(self) -> None:
        self.seen: dict[int, list] = {}  # pid -> [role, cpu at first look, cpu at last look]
        self._stop = threading.Event()

    def _look(self) -> None:
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            pid = int(entry)
            if pid not in self.seen and not _descends_from_us(pid):
                continue
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            cpu = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
            if pid not in self.seen:
                self.seen[pid] = [_role(pid), cpu, cpu]
            self.seen[pid][2] = cpu
            # Looked at again: a process first seen between its fork and its exec (the
            # language host's program, a launcher's host) takes the role of what it runs.
            role = _role(pid)
            if role != "gone":
                self.seen[pid][0] = role

    def _watch(self) -> None:
        while not self._stop.wait(0.02):
            self._look()

    @contextmanager
    def watching(self) -> Iterator[None]:
        self._look()
        thread = threading.Thread(target=self._watch, daemon=True)
        thread.start()
        try:
            yield
        finally:
            self._stop.set()
            thread.join()
            self._look()

    def by_role(self) -> dict[str, float]:
        roles: dict[str, float] = {}
        for role, first, last in self.seen.values():
            roles[role] = roles.get(role, 0.0) + last - first
        return {role: round(s, 2) for role, s in sorted(roles.items()) if s >= 0.01}


@contextmanager
def checkout_emulator(root: Path) -> Iterator[EmulatorInfo]:
    with running_emulator(env={"PYTHONPATH": str(root)}) as emulator:
        yield emulator


def make_stack(workdir: Path, root: Path, label: str, variant: str, count: int,
               emulator: EmulatorInfo):
    """deploy_cost's stack, with the program and the source of checkout `root`."""
    saved = deploy_cost.ROOT, deploy_cost.PROGRAMS
    deploy_cost.ROOT, deploy_cost.PROGRAMS = root, root / "bench" / "programs"
    try:
        place = workdir / label
        place.mkdir(exist_ok=True)
        return deploy_cost.make_stack(place, variant, count, emulator)
    finally:
        deploy_cost.ROOT, deploy_cost.PROGRAMS = saved


def run(checkouts: dict[str, Path], count: int, rounds: int, progress=print) -> list[Sample]:
    samples: list[Sample] = []
    with tempfile.TemporaryDirectory(prefix="side-by-side-") as workdir, ExitStack() as stack:
        emulators = {label: stack.enter_context(checkout_emulator(root))
                     for label, root in checkouts.items()}
        stacks = {
            (label, variant): make_stack(Path(workdir), root, label, variant, count,
                                         emulators[label])
            for label, root in checkouts.items()
            for variant in VARIANTS
        }
        order = list(stacks)
        for round_ in range(rounds):
            turn = order if round_ % 2 == 0 else list(reversed(order))
            for operation in OPERATIONS:
                for label, variant in turn:
                    emulator = emulators[label]
                    clear_request_log(emulator)
                    watch = CpuWatch()
                    with watch.watching():
                        began = time.perf_counter()
                        deploy_cost.run_operation(stacks[label, variant], operation)
                        seconds = time.perf_counter() - began
                    calls = deploy_cost.Calls.from_log(request_log(emulator))
                    sample = Sample(label, variant, operation, round_, seconds, calls.platform,
                                    watch.by_role())
                    samples.append(sample)
                    progress(f"round {round_} N={count} {operation:<8} {label:<7} {variant:<13}"
                             f" {seconds:7.2f}s  platform={calls.platform:<5} cpu "
                             + " ".join(f"{k}={v}" for k, v in sample.cpu_seconds.items()))
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--other", type=Path, required=True, help="the other checkout")
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "side_by_side.json")
    args = parser.parse_args(argv)
    checkouts = {"other": args.other.resolve(), "this": ROOT}
    samples = run(checkouts, args.count, args.rounds,
                  progress=lambda line: print(line, flush=True))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"checkouts": {k: str(v) for k, v in checkouts.items()},
                                    "count": args.count, "rounds": args.rounds,
                                    "samples": [asdict(s) for s in samples]}, indent=1))
    print(f"results: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
