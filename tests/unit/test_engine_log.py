"""What the provider code logs while the host serves a resource reaches the engine as a
diagnostic of that resource (providers/core/engine_log.py): a fake engine (the engine's gRPC
service) receives each line with the request's URN and its severity; without an engine, or
where the engine fails, the lines go to stderr as before and the request still succeeds.
The end-to-end proof under the real engine is tests/e2e/test_warnings.py."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pulumi.log
import pytest
from google.protobuf import empty_pb2, struct_pb2
from pulumi.dynamic.dynamic import serialize_provider
from pulumi.runtime import proto, rpc
from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc, provider_pb2_grpc

from providers.core import engine_log
from providers.core.host import WorkspaceProviderHost
from providers.core.lifecycle import PROVIDER_KEY
from tests.unit.engine_log_providers import LogsAroundAnother, LogsEverySeverity
from workspace_emulator.testing import free_port_block

ROOT = Path(__file__).resolve().parents[2]
GRANTS_URN = "urn:pulumi:dev::app::pulumi-python:dynamic/workspace:Grants::catalog-grants"
TEAM_URN = "urn:pulumi:dev::app::pulumi-python:dynamic:Resource::note"
SEVERITY_LINES = [
    (engine_pb2.DEBUG, "debug line"),
    (engine_pb2.INFO, "info line"),
    (engine_pb2.WARNING, "warning line"),
    (engine_pb2.ERROR, "error line"),
]


class FakeEngine(engine_pb2_grpc.EngineServicer):
    """The engine's Log service: keeps each request, or refuses each with `failure`."""

    def __init__(self, failure: grpc.StatusCode | None = None) -> None:
        self.logged: list[engine_pb2.LogRequest] = []
        self.failure = failure
        self._lock = threading.Lock()

    def Log(self, request: engine_pb2.LogRequest, context: grpc.ServicerContext) -> Any:
        with self._lock:
            self.logged.append(request)
        if self.failure is not None:
            context.abort(self.failure, "the engine refuses this line")
        return empty_pb2.Empty()

    def lines(self) -> list[tuple[str, int, str, bool]]:
        """(urn, severity, message, ephemeral) of each request, in the order received."""
        with self._lock:
            return [(r.urn, r.severity, r.message, r.ephemeral) for r in self.logged]


def serve(servicer: Any, add: Any, interceptors: list[Any] | None = None) -> tuple[Any, int]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), interceptors=interceptors)
    add(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, port


@pytest.fixture
def engine() -> Iterator[tuple[FakeEngine, str]]:
    fake = FakeEngine()
    server, port = serve(fake, engine_pb2_grpc.add_EngineServicer_to_server)
    yield fake, f"127.0.0.1:{port}"
    server.stop(None)


@pytest.fixture(autouse=True)
def sdk_log_functions_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test routes `pulumi.log` anew; the SDK's functions come back after it."""
    for name in ("debug", "info", "warn", "error"):
        monkeypatch.setattr(pulumi.log, name, getattr(pulumi.log, name))
    monkeypatch.setattr(engine_log, "_sdk_functions", {})
    monkeypatch.setattr(engine_log, "_fallback_said", False)
    # As in a provider host, the SDK holds no engine of a program: a test of a program with
    # Pulumi's mocks, run before in the same worker, leaves its mock engine in the SDK's
    # settings, and the SDK's functions would log there instead of to stderr.
    monkeypatch.setattr(pulumi.log, "get_engine", lambda: None)


@contextlib.contextmanager
def host_started_with(argv: list[str]) -> Iterator[Any]:
    """A stub of a provider host served as `providers.core.host.main` serves it, started with
    `argv`."""
    server, port = serve(
        WorkspaceProviderHost(),
        provider_pb2_grpc.add_ResourceProviderServicer_to_server,
        engine_log.interceptors(argv),
    )
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield provider_pb2_grpc.ResourceProviderStub(channel)
    finally:
        server.stop(None)


def struct(values: dict[str, Any]) -> struct_pb2.Struct:
    return asyncio.new_event_loop().run_until_complete(rpc.serialize_properties(values, {}))


def diff_request(urn: str, name: str, provider: Any) -> Any:
    props = struct({"name": name, PROVIDER_KEY: serialize_provider(provider)})
    return proto.DiffRequest(urn=urn, id=name, olds=props, news=props)


@pytest.mark.parametrize(
    ("argv", "address"),
    [
        (["127.0.0.1:4321"], "127.0.0.1:4321"),
        (["--logtostderr", "-v=9", "127.0.0.1:4321"], "127.0.0.1:4321"),
        (["--tracing", "127.0.0.1:9411", "127.0.0.1:4321"], "127.0.0.1:4321"),
        (["--tracing", "127.0.0.1:9411"], None),
        ([], None),
    ],
)
def test_the_engine_address_is_the_last_argument_that_is_no_flag(
    argv: list[str], address: str | None
) -> None:
    assert engine_log.engine_address(argv) == address


@pytest.mark.parametrize("urn", [GRANTS_URN, TEAM_URN], ids=["workspace-kind", "teams-own"])
def test_each_line_reaches_the_engine_with_the_resource_urn_and_its_severity(
    engine: tuple[FakeEngine, str], urn: str
) -> None:
    fake, address = engine
    with host_started_with(["--logtostderr", address]) as host:
        answer = host.Diff(diff_request(urn, "a", LogsEverySeverity()))
        assert answer.changes == proto.DiffResponse.DIFF_NONE
    assert fake.lines() == [
        (urn, severity, f"a: {line}", False) for severity, line in SEVERITY_LINES
    ]


def test_two_requests_served_at_once_keep_their_own_urns(
    engine: tuple[FakeEngine, str],
) -> None:
    fake, address = engine
    urns = {name: f"{GRANTS_URN[: -len('catalog-grants')]}{name}" for name in ("a", "b")}
    with host_started_with([address]) as host:
        calls = {
            name: host.Diff.future(diff_request(urn, name, LogsAroundAnother()))
            for name, urn in urns.items()
        }
        for call in calls.values():
            assert call.result(timeout=30).changes == proto.DiffResponse.DIFF_NONE
    lines = fake.lines()
    # Both first lines were logged before either second one: the two calls overlapped.
    assert {message for _, _, message, _ in lines[:2]} == {"a: first", "b: first"}
    assert sorted((urn, message) for urn, _, message, _ in lines) == [
        (urns["a"], "a: first"), (urns["a"], "a: second"),
        (urns["b"], "b: first"), (urns["b"], "b: second"),
    ]


def test_without_an_engine_the_lines_go_to_stderr_as_before(
    capfd: pytest.CaptureFixture[str],
) -> None:
    sdk_warn = pulumi.log.warn
    assert engine_log.interceptors(["--logtostderr", "-v=9"]) == []
    assert pulumi.log.warn is sdk_warn, "no engine: pulumi.log is left as the SDK has it"
    with host_started_with([]) as host:
        assert host.Diff(diff_request(GRANTS_URN, "a", LogsEverySeverity())).changes == (
            proto.DiffResponse.DIFF_NONE)
    err = capfd.readouterr().err
    for line in ("info: a: info line", "warning: a: warning line", "error: a: error line"):
        assert line in err, err


def test_outside_a_resource_call_the_lines_go_to_stderr(
    engine: tuple[FakeEngine, str], capfd: pytest.CaptureFixture[str]
) -> None:
    fake, address = engine
    engine_log.interceptors([address])
    pulumi.log.warn("no resource is being served")
    assert "warning: no resource is being served" in capfd.readouterr().err
    assert fake.lines() == []


def test_a_line_the_engine_refuses_goes_to_stderr_and_the_request_succeeds(
    capfd: pytest.CaptureFixture[str],
) -> None:
    refusing = FakeEngine(failure=grpc.StatusCode.INTERNAL)
    server, port = serve(refusing, engine_pb2_grpc.add_EngineServicer_to_server)
    try:
        with host_started_with([f"127.0.0.1:{port}"]) as host:
            answer = host.Diff(diff_request(GRANTS_URN, "a", LogsEverySeverity()))
            assert answer.changes == proto.DiffResponse.DIFF_NONE
    finally:
        server.stop(None)
    assert len(refusing.lines()) == len(SEVERITY_LINES), "each line was offered to the engine"
    err = capfd.readouterr().err
    assert "the engine did not take a log line (StatusCode.INTERNAL)" in err, err
    assert "warning: a: warning line" in err and "error: a: error line" in err, err


def test_an_engine_that_is_gone_leaves_the_lines_on_stderr(
    capfd: pytest.CaptureFixture[str],
) -> None:
    nobody = f"127.0.0.1:{free_port_block(size=1)}"
    with host_started_with([nobody]) as host:
        answer = host.Diff(diff_request(GRANTS_URN, "a", LogsEverySeverity()))
        assert answer.changes == proto.DiffResponse.DIFF_NONE
    err = capfd.readouterr().err
    assert "StatusCode.UNAVAILABLE" in err and "warning: a: warning line" in err, err


def test_the_host_the_engine_starts_routes_its_lines(engine: tuple[FakeEngine, str]) -> None:
    """`providers.core.host.main` as the plugin launcher runs it, with the engine's arguments."""
    fake, address = engine
    host = subprocess.Popen(
        [sys.executable, "-u", "-c", "from providers import host; host.main()",
         "--logtostderr", "-v=9", address],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert host.stdout is not None
        port = host.stdout.readline().strip()
        assert port.isdigit(), f"the host printed no port: {port!r}"
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = provider_pb2_grpc.ResourceProviderStub(channel)
            answer = stub.Diff(diff_request(GRANTS_URN, "a", LogsEverySeverity()), timeout=60)
        assert answer.changes == proto.DiffResponse.DIFF_NONE
    finally:
        host.kill()
        _, err = host.communicate(timeout=30)
    assert fake.lines() == [
        (GRANTS_URN, severity, f"a: {line}", False) for severity, line in SEVERITY_LINES
    ]
    assert "warning line" not in err, err
