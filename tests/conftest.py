"""Session-wide test settings, and what every test folder shares: emulator fixtures made by
one factory.

A folder's conftest (or a test module needing other emulator options) names its emulator:

    emulator = emulator_fixture("session")
    emulator = emulator_fixture("module", transition_seconds=1)
"""

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from typing import Any, Literal

import pytest

from emulator.testing import EmulatorInfo, running_emulator
from providers.auth.token_store import CACHE_DIR_ENV

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
        with running_emulator(**options) as info:
            yield info

    return emulator
