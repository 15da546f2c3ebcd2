"""Fixtures of the CLI compatibility suite: the pinned CLI (built on first use on this
machine), one emulator per test module, and the CLI signed in to it. Every test here is
marked `cli`, which `make check` leaves out (the CLI is a Go build)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.cli import Cli
from tests.conftest import emulator_fixture
from tools import databricks_cli
from workspace_emulator.testing import EmulatorInfo, fetch_token

emulator = emulator_fixture("module")
HERE = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.cli)


@pytest.fixture(scope="session")
def cli_binary() -> Path:
    return databricks_cli.binary()


@pytest.fixture(scope="module")
def cli_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cli-home")


@pytest.fixture(scope="module")
def cli(cli_binary: Path, cli_home: Path, emulator: EmulatorInfo) -> Cli:
    """The CLI as the emulator's bootstrap service principal (a workspace admin)."""
    return Cli(cli_binary, cli_home, emulator.base_url, fetch_token(emulator))


@pytest.fixture(scope="module")
def cli_as(cli_binary: Path, cli_home: Path, emulator: EmulatorInfo
           ) -> Callable[[dict[str, str]], Cli]:
    """The CLI as another registered application (from `register_application`)."""

    def signed_in(application: dict[str, str]) -> Cli:
        token = fetch_token(emulator, application["client_id"], application["client_secret"])
        return Cli(cli_binary, cli_home, emulator.base_url, token)

    return signed_in
