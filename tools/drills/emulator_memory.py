"""Drill: the emulator's memory under a sustained load of ordinary and abusive requests.

    .venv/bin/python -m tools.drills.emulator_memory [--rounds 6] [--requests 3000]
                                                     [--threads 4] [--storage disk|memory]

Each round sends the same mix from a pool of threads: lists, gets, a job created and
deleted, token requests, malformed JSON, a 2 MB body (refused with 413) and a SCIM filter.
The mix leaves the stored data as it found it (every job made is deleted); what may grow
is bounded by design: the request log keeps the last 20,000 requests (about 6 rounds of
the default mix) and expired tokens are purged after an hour. The resident set size
(VmRSS) is read after each round; the drill fails when the last round ends more than
--max-growth-mb above the round by which the request log is full (--settled-round).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import requests

from workspace_emulator.testing import EmulatorInfo, EmulatorProcess, fetch_token

JOB: dict[str, Any] = {"name": "memory-drill", "new_cluster": {
    "spark_version": "13.3.x-scala2.12", "node_type_id": "Standard_DS3_v2", "num_workers": 1}}
BIG_BODY = b'{"name": "' + b"x" * (2 * 1024 * 1024) + b'"}'

_local = threading.local()


def session() -> requests.Session:
    if not hasattr(_local, "session"):
        _local.session = requests.Session()
    return _local.session


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def one_request(info: EmulatorInfo, headers: dict[str, str], index: int) -> int:
    base, s = info.base_url, session()
    kind = index % 8
    if kind == 0:
        return s.get(f"{base}/api/2.0/jobs/list", headers=headers, timeout=30).status_code
    if kind == 1:
        return s.get(f"{base}/api/2.0/clusters/list", headers=headers, timeout=30).status_code
    if kind == 2:
        made = s.post(f"{base}/api/2.0/jobs/create", json=JOB, headers=headers, timeout=30)
        s.post(f"{base}/api/2.0/jobs/delete", json={"job_id": made.json()["job_id"]},
               headers=headers, timeout=30)
        return made.status_code
    if kind == 3:
        return s.post(info.token_url, timeout=30, data={
            "grant_type": "client_credentials", "client_id": info.client_id,
            "client_secret": info.client_secret, "resource": info.resource}).status_code
    if kind == 4:
        return s.post(f"{base}/api/2.0/jobs/create", data=b'{"name": ', timeout=30,
                      headers={**headers, "Content-Type": "application/json"}).status_code
    if kind == 5:
        return s.post(f"{base}/api/2.0/jobs/create", data=BIG_BODY, timeout=30,
                      headers={**headers, "Content-Type": "application/json"}).status_code
    if kind == 6:
        return s.get(f"{base}/api/2.0/preview/scim/v2/ServicePrincipals", headers=headers,
                     params={"filter": 'displayName co "a"'}, timeout=30).status_code
    return s.get(f"{base}/api/2.0/jobs/get", params={"job_id": "not-a-number"},
                 headers=headers, timeout=30).status_code


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--storage", choices=("disk", "memory"), default="disk")
    parser.add_argument("--max-growth-mb", type=float, default=4.0)
    parser.add_argument("--settled-round", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="drill-memory-") as tmp:
        options: dict[str, Any] = {"data_dir": Path(tmp)} if args.storage == "disk" else {}
        emulator = EmulatorProcess(**options)
        info = emulator.start()
        try:
            assert emulator.process is not None
            pid = emulator.process.pid
            headers = {"Authorization": f"Bearer {fetch_token(info)}"}
            rows: list[dict[str, Any]] = [{"round": 0, "rss_mb": round(rss_mb(pid), 1)}]
            print(json.dumps(rows[0]), flush=True)
            for round_ in range(1, args.rounds + 1):
                started = time.monotonic()
                with ThreadPoolExecutor(args.threads) as pool:
                    statuses = Counter(pool.map(
                        lambda i: one_request(info, headers, i), range(args.requests)))
                row = {"round": round_, "rss_mb": round(rss_mb(pid), 1),
                       "seconds": round(time.monotonic() - started, 1),
                       "statuses": dict(sorted(statuses.items()))}
                rows.append(row)
                print(json.dumps(row), flush=True)
            server_errors = sum(n for r in rows[1:] for code, n in r["statuses"].items()
                                if code >= 500)
        finally:
            emulator.close()
    settled = rows[min(args.settled_round, len(rows) - 1)]["rss_mb"]
    growth = rows[-1]["rss_mb"] - settled
    summary = {"storage": args.storage, "requests": args.rounds * args.requests,
               "rss_start_mb": rows[0]["rss_mb"], "rss_peak_mb": max(r["rss_mb"] for r in rows),
               "rss_end_mb": rows[-1]["rss_mb"], "rss_settled_mb": settled,
               "growth_after_settled_mb": round(growth, 1),
               "server_errors": server_errors}
    print(json.dumps({"summary": summary}, indent=2))
    if growth > args.max_growth_mb or server_errors:
        raise SystemExit("memory kept growing or the server answered 5xx")


if __name__ == "__main__":
    main()
