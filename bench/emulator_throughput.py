"""Throughput and latency of the emulator against a hello-world FastAPI app.

Both are served the same way (uvicorn, h11, one process, one event loop, no access log)
and driven by the same load: a pool of threads with keep-alive `requests` sessions. Runs
are interleaved (emulator, baseline, emulator, ...) so drift hits both alike.

    .venv/bin/python bench/emulator_throughput.py [--seconds 3] [--rounds 3] [--threads 4]
                                                   [--storage disk|memory|both]

The client shares the machine with the servers, so absolute numbers are a floor; the
ratios are the point. On a loaded machine a request's wall time is mostly waiting to be
scheduled, so each row also gives the server's own CPU time per request (Linux: from
/proc/<pid>/stat), which the load does not inflate.

The issue's target: single client thread, on disk, emulator req/s >= 0.8x the baseline's:

    .venv/bin/python bench/emulator_throughput.py --threads 1 --storage disk --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
import uvicorn
from fastapi import FastAPI, Request

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workspace_emulator.testing import EmulatorProcess, fetch_token  # noqa: E402

LIST = "/api/2.0/jobs/list"
CREATE = "/api/2.0/jobs/create"
JOB_BODY: dict[str, Any] = {
    "name": "bench-job",
    "new_cluster": {
        "spark_version": "13.3.x-scala2.12",
        "node_type_id": "Standard_DS3_v2",
        "num_workers": 2,
        "timeout_seconds": 600,
        "spark_python_task": {"python_file": "dbfs:/jobs/main.py"},
    },
}


# the baseline: hello world, served like the emulator


def baseline_app() -> FastAPI:
    app = FastAPI()
    counter = iter(range(1, 10**12))

    @app.get(LIST)
    async def list_jobs() -> dict:
        return {"jobs": [], "has_more": False}

    @app.post(CREATE)
    async def create_job(request: Request) -> dict:
        await request.json()
        return {"job_id": next(counter)}

    return app


def serve_baseline(port: int) -> None:
    config = uvicorn.Config(
        baseline_app(),
        host="127.0.0.1",
        port=port,
        log_config=None,
        access_log=False,
        http="h11",
        ws="none",
        # the emulator's runner (workspace_emulator/runner.py) sets no proxy either
        proxy_headers=False,
        log_level="warning",
    )
    uvicorn.Server(config).run()


def start_baseline() -> tuple[subprocess.Popen, str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, __file__, "--serve-baseline", str(port)])
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            requests.get(url + LIST, timeout=1)
            return process, url
        except requests.ConnectionError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("baseline did not start")


# load


@dataclass
class Sample:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    elapsed: float = 0.0
    server_cpu: float = 0.0  # seconds of CPU the server process used during the sample


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (0 where /proc is missing)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def drive(call: Callable[[requests.Session], requests.Response], headers: dict[str, str],
          threads: int, seconds: float, server_pid: int | None = None) -> Sample:
    sample = Sample()
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds

    def worker() -> None:
        session = requests.Session()
        session.headers.update(headers)
        latencies, errors = [], 0
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            response = call(session)
            latencies.append(time.perf_counter() - started)
            if response.status_code != 200:
                errors += 1
        with lock:
            sample.latencies += latencies
            sample.errors += errors

    started = time.perf_counter()
    cpu_before = cpu_seconds(server_pid) if server_pid else 0.0
    with ThreadPoolExecutor(threads) as pool:
        for future in [pool.submit(worker) for _ in range(threads)]:
            future.result()
    sample.elapsed = time.perf_counter() - started
    sample.server_cpu = cpu_seconds(server_pid) - cpu_before if server_pid else 0.0
    return sample


def scenarios(url: str) -> dict[str, Callable[[requests.Session], requests.Response]]:
    return {
        "list": lambda s: s.get(url + LIST, timeout=10),
        "create": lambda s: s.post(url + CREATE, json=JOB_BODY, timeout=10),
    }


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def summary(samples: list[Sample]) -> dict[str, Any]:
    latencies = [v for s in samples for v in s.latencies]
    elapsed = sum(s.elapsed for s in samples)
    return {
        "requests": len(latencies),
        "errors": sum(s.errors for s in samples),
        "rps": len(latencies) / elapsed,
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "mean_ms": statistics.fmean(latencies) * 1000,
        "server_cpu_ms": sum(s.server_cpu for s in samples) / len(latencies) * 1000,
        "rps_by_round": [len(s.latencies) / s.elapsed for s in samples],
    }


def run(storage: str, seconds: float, rounds: int, threads: int) -> dict[str, dict]:
    data_dir = tempfile.mkdtemp(prefix="emulator-bench-")
    options: dict[str, Any] = {"in_memory": True} if storage == "memory" else {"data_dir": data_dir}
    emulator = EmulatorProcess(**options)
    info = emulator.start()
    baseline, baseline_url = start_baseline()
    try:
        headers = {"Authorization": f"Bearer {fetch_token(info)}"}
        session = requests.Session()
        session.headers.update(headers)
        for _ in range(20):  # a full first page for every list
            session.post(info.base_url + CREATE, json=JOB_BODY, timeout=10).raise_for_status()
        targets = {"emulator": scenarios(info.base_url), "baseline": scenarios(baseline_url)}
        assert emulator.process is not None
        pids = {"emulator": emulator.process.pid, "baseline": baseline.pid}
        samples: dict[tuple[str, str], list[Sample]] = {}
        for target in targets.values():  # warm up
            for call in target.values():
                drive(call, headers, threads, 0.3)
        for _ in range(rounds):
            for operation in ("list", "create"):
                for name, target in targets.items():
                    sample = drive(target[operation], headers, threads, seconds, pids[name])
                    samples.setdefault((name, operation), []).append(sample)
        return {
            f"{name}/{operation}": summary(values) for (name, operation), values in samples.items()
        }
    finally:
        emulator.close()
        baseline.terminate()
        baseline.wait(10)


def print_table(storage: str, results: dict[str, dict]) -> None:
    print(f"\nstorage: {storage}")
    print(f"{'server/operation':<20}{'requests':>10}{'errors':>8}{'req/s':>10}"
          f"{'p50 ms':>10}{'p99 ms':>10}{'server CPU ms/req':>19}")
    for key, row in results.items():
        print(f"{key:<20}{row['requests']:>10}{row['errors']:>8}{row['rps']:>10.0f}"
              f"{row['p50_ms']:>10.2f}{row['p99_ms']:>10.2f}{row['server_cpu_ms']:>19.2f}")
    for operation in ("list", "create"):
        emulator, baseline = results[f"emulator/{operation}"], results[f"baseline/{operation}"]
        print(f"ratio workspace_emulator/baseline {operation:<7}"
              f" req/s {emulator['rps'] / baseline['rps']:.2f}"
              f"   p50 {emulator['p50_ms'] / baseline['p50_ms']:.2f}"
              f"   p99 {emulator['p99_ms'] / baseline['p99_ms']:.2f}"
              f"   server CPU/req {emulator['server_cpu_ms'] / baseline['server_cpu_ms']:.2f}")
        # Rounds ran back to back (emulator, then baseline), so each pair shares its load.
        pairs = zip(emulator["rps_by_round"], baseline["rps_by_round"], strict=True)
        by_round = [e / b for e, b in pairs]
        print(f"  req/s ratio by round {operation:<7}"
              f" {' '.join(f'{r:.2f}' for r in by_round)}"
              f"   (median {statistics.median(by_round):.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="length of one run")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--threads", type=int, default=4, help="client threads")
    parser.add_argument("--storage", choices=["disk", "memory", "both"], default="both")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--serve-baseline", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_baseline:
        serve_baseline(args.serve_baseline)
        return
    print(
        f"{os.cpu_count()} CPUs; {args.threads} client threads; {args.rounds} rounds of "
        f"{args.seconds}s per server and operation"
    )
    storages = ["disk", "memory"] if args.storage == "both" else [args.storage]
    report = {}
    for storage in storages:
        report[storage] = run(storage, args.seconds, args.rounds, args.threads)
        print_table(storage, report[storage])
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
