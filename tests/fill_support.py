"""A workspace filled like a team's (tools/fill_workspace.py), for the tests of adoption.

    def test_adopt(filled_workspace: FilledWorkspace, workspace_stack) -> None:
        filled_workspace.info                    # the emulator (the folder's `emulator`)
        filled_workspace.filled.names("Job")     # what was made, per kind

`filled_workspace` fills the `emulator` fixture of the test's folder (tests/e2e: one per
class, so a class of steps adopts one filled workspace), once per class, at
`FILL_SIZE`/`FILL_RANDOM_STATE`. Do not use it where that emulator is shared by tests that expect
the initial data only (tests/emulator's is the session's): make a fixture of a fresh
emulator with `filled_emulator_fixture` instead, as `emulator_fixture` does.

A class may fill at another size or random_state: `filled_workspace` reads the class attributes
`fill_size` and `fill_random_state` when given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from workspace_emulator.testing import EmulatorInfo

if TYPE_CHECKING:
    from tools.fill_workspace import Filled

FILL_SIZE = 80
FILL_RANDOM_STATE = 33


@dataclass(frozen=True)
class FilledWorkspace:
    """An emulator and what `fill` made in it."""

    info: EmulatorInfo
    filled: Filled

    @property
    def base_url(self) -> str:
        return self.info.base_url


def fill_emulator(info: EmulatorInfo, size: int = FILL_SIZE, random_state: int = FILL_RANDOM_STATE
                  ) -> FilledWorkspace:
    from tools.fill_workspace import fill

    return FilledWorkspace(info, fill(info, size=size, random_state=random_state))


@pytest.fixture(scope="class")
def filled_workspace(request: pytest.FixtureRequest, emulator: EmulatorInfo) -> FilledWorkspace:
    """The folder's `emulator`, filled by tools/fill_workspace.py through the official SDK
    (the class's `fill_size` and `fill_random_state`, else FILL_SIZE and FILL_RANDOM_STATE)."""
    size = getattr(request.cls, "fill_size", FILL_SIZE)
    random_state = getattr(request.cls, "fill_random_state", FILL_RANDOM_STATE)
    return fill_emulator(emulator, size, random_state)


def filled_emulator_fixture(scope: str = "class", size: int = FILL_SIZE,
                            random_state: int = FILL_RANDOM_STATE,
                            **options: Any) -> Callable[..., Iterator[FilledWorkspace]]:
    """A fixture of a fresh emulator of its own per `scope` (started with `options`, the
    keyword flags of `running_emulator`), filled at `size` and `random_state`."""
    from tests.conftest import fresh_emulator

    @pytest.fixture(scope=scope)  # type: ignore[call-overload]  # scope checked by pytest
    def filled() -> Iterator[FilledWorkspace]:
        with fresh_emulator(**options) as info:
            yield fill_emulator(info, size, random_state)

    return filled
