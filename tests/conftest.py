"""Session-wide test settings, and what every test folder shares: emulator fixtures made by
one factory, the bootstrap principal's connection to an emulator, a fresh process state for
each test, and scenarios written as ordered steps.

A folder's conftest (or a test module needing other emulator options) names its emulator:

    emulator = emulator_fixture("session")
    emulator = emulator_fixture("module", transition_seconds=1)
"""

import atexit
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from typing import Any, Literal

import pytest
from pydantic import SecretStr

from providers.client import Connection, WireForm, WorkspaceClient, client_for, process
from providers.client.token import tokens
from providers.client.token_store import CACHE_DIR_ENV
from stacks import pulumi_cli
from tests.fake_areas import fake_areas  # noqa: F401  (a fixture for every folder)
from tests.fill_support import filled_workspace  # noqa: F401  (a fixture for every folder)
from tools import databricks_cli
from tools.object_store import ObjectStore, running_object_store
from workspace_emulator.testing import EmulatorInfo, running_emulator

# Tokens shared between processes live in a directory of this test session only, so tests
# (and the engines they start) never reuse a token of another run or of the user.
_token_dir = tempfile.mkdtemp(prefix="workspace-tokens-")
os.environ[CACHE_DIR_ENV] = _token_dir
atexit.register(shutil.rmtree, _token_dir, ignore_errors=True)

Scope = Literal["session", "package", "module", "class", "function"]


def emulator_fixture(scope: Scope, **options: Any) -> Callable[..., Iterator[EmulatorInfo]]:
    """A fixture of one emulator per `scope`, started with `options` (the keyword flags of
    `running_emulator`, e.g. transition_seconds=1). The fixture's name is the name it is
    assigned to in a conftest or test module."""

    @pytest.fixture(scope=scope)
    def emulator() -> Iterator[EmulatorInfo]:
        with fresh_emulator(**options) as info:
            yield info

    return emulator


@contextmanager
def fresh_emulator(**options: Any) -> Iterator[EmulatorInfo]:
    """`running_emulator(**options)`, with nothing the client cached for an earlier emulator
    of this process: the new one may listen on an address an earlier one had, and a token
    cached for that address is unknown to it (a 401, then a retry the test would count)."""
    with running_emulator(**options) as info:
        forget_what_clients_cached_per_address()
        yield info


@pytest.fixture(scope="session")
def object_store() -> Iterator[ObjectStore]:
    """One S3-compatible server on loopback for the session (tools/object_store.py); each
    test keeps its state under a prefix of its own."""
    with running_object_store() as store:
        yield store


def emulator_connection(info: EmulatorInfo, wire_form: str = "legacy") -> Connection:
    """The bootstrap principal's connection to the emulator: plain HTTP, unthrottled."""
    return Connection(
        base_url=info.base_url,
        auth_url=info.auth_url,
        tenant_id=info.tenant_id,
        client_id=info.client_id,
        client_secret=SecretStr(info.client_secret),
        resource=info.resource,
        wire_form=WireForm(wire_form),
        allow_insecure_http=True,
        rate_limit_per_second=0,
    )


def emulator_client(info: EmulatorInfo, wire_form: str = "legacy") -> WorkspaceClient:
    """A client of the emulator's platform API on `emulator_connection`, for a test's own
    look at the workspace."""
    return client_for(emulator_connection(info, wire_form))


@pytest.fixture(autouse=True)
def fresh_process_state() -> process.ProcessState:
    """Each test runs as a new process of the same deployment would: in a process state of
    its own (providers/client/process.py), with no token, session, rate limit, client,
    listing or job of a test before it in memory. Tokens shared on disk between the
    processes of a deployment stay (`fresh_client_caches` forgets them too)."""
    return process.start()


def forget_what_clients_cached_per_address() -> None:
    """A new process state, and no token shared on disk: nothing the client cached for a
    workspace's or an identity provider's address is left."""
    process.start()
    tokens().clear()


@pytest.fixture
def fresh_client_caches() -> Iterator[None]:
    """The test starts with a new process state and no token shared on disk, and leaves
    none on disk."""
    forget_what_clients_cached_per_address()
    yield
    forget_what_clients_cached_per_address()


# --- scenarios in steps ----------------------------------------------------------------------
#
# A long scenario is a class marked `steps`: each test method is one step, run in the order
# written, sharing class-scoped fixtures (the deployed stack). A failure names its step, and
# each later step fails at once naming the step it waits for instead of running on a
# workspace left half-way.

STEPS_MARKER = "steps"
_passed_steps = pytest.StashKey[set[tuple[str, str, str]]]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{STEPS_MARKER}: the class's test methods are the steps of one scenario, run in the "
        "order written; a step runs only once every step before it has passed",
    )
    config.stash[_passed_steps] = set()


def _step_key(item: pytest.Function, name: str) -> tuple[str, str, str]:
    """The step `name` of the same class and the same parameters as `item`."""
    callspec = getattr(item, "callspec", None)
    return item.parent.nodeid if item.parent else "", name, callspec.id if callspec else ""


def _steps_before(item: pytest.Function) -> list[str]:
    """The names of the steps written before `item` in its class (base classes first)."""
    names: list[str] = []
    for cls in reversed(item.cls.__mro__ if item.cls else ()):
        names += [name for name in vars(cls) if name.startswith("test") and name not in names]
    return names[: names.index(item.originalname)]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if not isinstance(item, pytest.Function) or item.get_closest_marker(STEPS_MARKER) is None:
        return
    passed = item.config.stash[_passed_steps]
    for name in _steps_before(item):
        if _step_key(item, name) not in passed:
            pytest.fail(f"not run: the step before it, {name}, did not pass", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if (
        report.when == "call"
        and report.passed
        and isinstance(item, pytest.Function)
        and item.get_closest_marker(STEPS_MARKER) is not None
    ):
        item.config.stash[_passed_steps].add(_step_key(item, item.originalname))
    return report


# --- what a test may start ---------------------------------------------------------------------
#
# A test that runs the Pulumi engine is marked `engine`, one that drives the service's CLI
# `cli` (all of tests/cli). `make check` leaves both out, so it builds no Go binary and starts
# no engine: a test without the mark that asks for either fails, naming the mark it needs.


def _refused(what: str, marker: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        pytest.fail(f"this test uses {what}: mark it `{marker}` (`make check` leaves those "
                    "out)", pytrace=False)

    return refuse


@pytest.fixture(autouse=True)
def engine_and_cli_only_where_marked(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    if request.node.get_closest_marker("engine") is None:
        monkeypatch.setattr(pulumi_cli, "engine_bin_dir", _refused("the Pulumi engine", "engine"))
    if request.node.get_closest_marker("cli") is None:
        monkeypatch.setattr(databricks_cli, "binary", _refused("the service's CLI", "cli"))


# The marks of the long tests: the engine's, and the minutes of CPU of the OpenAPI fuzz run.
LONG_MARKS = ("engine", "slow")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files of tests marked `engine` or `slow` first, each file's tests in their order:
    they are the long ones, so with several workers (`make test`: one file at a time per
    worker, in this order) none starts last and ends the run alone."""
    long_files = {item.path for item in items
                  if any(item.get_closest_marker(mark) for mark in LONG_MARKS)}
    items.sort(key=lambda item: item.path not in long_files)
    # Schemathesis names each operation's test `test_x[GET /path]` but gives them all the id
    # `...::test_x`; pytest-xdist knows a test by its id and would run one of them only. They
    # get the id pytest gives any other test, and a repeated id left is an error.
    repeated = Counter(item.nodeid for item in items)
    for item in items:
        if repeated[item.nodeid] > 1 and item.parent is not None:
            item._id = item.parent.id.child(item.name)
    repeated = Counter(item.nodeid for item in items)
    if twice := sorted(nodeid for nodeid, count in repeated.items() if count > 1):
        raise pytest.UsageError(f"tests with the same id (pytest-xdist would run one): {twice}")
