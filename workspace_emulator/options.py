"""Start-up options of the emulator, from command-line flags or EMULATOR_* variables."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workspace_emulator.clock import MODES as CLOCK_MODES
from workspace_emulator.clock import REAL as REAL_CLOCK
from workspace_emulator.faults import FaultSettings, parse_path_globs

DEFAULT_PORT = 8765
DEFAULT_DATA_DIR = Path(".emulator")
ENV_PREFIX = "EMULATOR_"
TRUE_WORDS = ("1", "true", "yes", "on")


@dataclass(frozen=True)
class EmulatorOptions:
    port: int = DEFAULT_PORT
    data_dir: Path = DEFAULT_DATA_DIR
    in_memory: bool = False
    fsync: bool = False
    initial_data: Path | None = None
    transition_seconds: float = 3.0
    clock: str = REAL_CLOCK
    token_lifetime: int = 3599
    faults: FaultSettings = field(default_factory=FaultSettings)
    rate_limit: float | None = None
    info_file: Path | None = None
    log_level: str = "warning"
    # Take the caller's address from X-Forwarded-For (tests of IP access lists), not from
    # the connection.
    trust_forwarded_for: bool = False


def _env_name(flag: str) -> str:
    return ENV_PREFIX + flag.lstrip("-").replace("-", "_").upper()


def build_parser(env: Mapping[str, str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="workspace-emulator",
        description="Local emulator of the workspace REST API, its identity provider, the "
                    "sample app and the flow controller. Every flag can also be set through "
                    "an EMULATOR_* environment variable (e.g. EMULATOR_PORT); flags win.",
    )

    def option(flag: str, **kwargs) -> None:
        name = _env_name(flag)
        if name in env:
            if kwargs.get("action") == "store_true":
                kwargs["default"] = env[name].strip().lower() in TRUE_WORDS
            else:
                kwargs["default"] = env[name]
        kwargs["help"] = f"{kwargs.get('help', '')} [env {name}]"
        parser.add_argument(flag, **kwargs)

    option("--port", type=int, default=DEFAULT_PORT,
           help="platform port; the identity provider, sample app, sample admin and flow "
                "controller take the next four. 0 gives each service a free port")
    option("--data-dir", type=Path, default=DEFAULT_DATA_DIR,
           help="directory of the SQLite database (default .emulator/)")
    option("--in-memory", action="store_true", help="keep state in memory only")
    option("--fsync", action="store_true",
           help="sync every commit to the disk (SQLite synchronous=FULL), so an acknowledged "
                "write survives a power loss too; without it a write survives a kill of the "
                "emulator, not of the machine")
    option("--initial-data", type=Path, default=None,
           help="the workspace's initial objects (JSON), applied when the database is new "
                "(default: the packaged initial_data.json)")
    option("--transition-seconds", type=float, default=3.0,
           help="time a cluster state move or a job run takes (0 = immediate)")
    option("--clock", default=REAL_CLOCK, choices=CLOCK_MODES,
           help="real: the wall clock; manual: time stands still from the start and moves "
                "only by POST /_emulator/clock/advance {\"seconds\": n}, so cluster state "
                "moves, job runs and token expiry step when a test says")
    option("--token-lifetime", type=int, default=3599, help="access token lifetime, seconds")
    option("--fault-rate-429", type=float, default=0.0, help="share of requests answered 429")
    option("--fault-rate-500", type=float, default=0.0, help="share of requests answered 500")
    option("--fault-rate-503", type=float, default=0.0, help="share of requests answered 503")
    option("--fault-rate-drop", type=float, default=0.0,
           help="share of requests whose connection is closed without a response")
    option("--fault-latency-ms", type=float, default=0.0, help="latency added to requests")
    option("--fault-random-state", type=int, default=None,
           help="fixed random state of the fault draws, so a run repeats (default: random)")
    option("--fault-paths", default="",
           help="comma-separated path globs the faults apply to (default: all paths)")
    option("--fault-after-write", action="store_true",
           help="answer the 500, 503 and drop faults after the request was applied "
                "(its answer is lost), not before it reached the handler")
    option("--rate-limit", type=float, default=None,
           help="requests per second per client before real 429s (default: no limit)")
    option("--info-file", type=Path, default=None,
           help="also write the start-up JSON line to this file")
    option("--log-level", default="warning", choices=["debug", "info", "warning", "error"],
           help="log level of messages on stderr")
    option("--trust-forwarded-for", action="store_true",
           help="take the caller's address (for IP access lists) from the first entry of the "
                "X-Forwarded-For header instead of the connection; for tests only")
    return parser


def parse_options(argv: Sequence[str] | None = None,
                  env: Mapping[str, str] | None = None) -> EmulatorOptions:
    parser = build_parser(os.environ if env is None else env)
    args = parser.parse_args(argv)

    def convert(name: str, kind: type):
        value = getattr(args, name)
        try:
            return None if value is None else kind(value)
        except (TypeError, ValueError):
            parser.error(f"invalid value for {name}: {value!r}")

    try:
        faults = FaultSettings(
            rate_429=convert("fault_rate_429", float),
            rate_500=convert("fault_rate_500", float),
            rate_503=convert("fault_rate_503", float),
            rate_drop=convert("fault_rate_drop", float),
            latency_ms=convert("fault_latency_ms", float),
            random_state=convert("fault_random_state", int),
            paths=parse_path_globs(args.fault_paths or ""),
            after_write=bool(args.fault_after_write),
        )
    except ValueError as exc:
        parser.error(str(exc))
    port = convert("port", int)
    if not 0 <= port <= 65531:
        parser.error("--port must be 0 or a port with four free ports above it")
    rate_limit = convert("rate_limit", float)
    if rate_limit is not None and rate_limit <= 0:
        parser.error("--rate-limit must be positive")
    if args.clock not in CLOCK_MODES:  # a default from the environment skips `choices`
        parser.error(f"--clock must be one of {', '.join(CLOCK_MODES)}, not {args.clock!r}")
    transition = convert("transition_seconds", float)
    lifetime = convert("token_lifetime", int)
    if transition < 0 or lifetime <= 0:
        parser.error("--transition-seconds must be >= 0 and --token-lifetime > 0")
    return EmulatorOptions(
        port=port,
        data_dir=Path(args.data_dir),
        in_memory=bool(args.in_memory),
        fsync=bool(args.fsync),
        initial_data=None if args.initial_data is None else Path(args.initial_data),
        transition_seconds=transition,
        clock=args.clock,
        token_lifetime=lifetime,
        faults=faults,
        rate_limit=rate_limit,
        info_file=None if args.info_file is None else Path(args.info_file),
        log_level=args.log_level,
        trust_forwarded_for=bool(args.trust_forwarded_for),
    )
