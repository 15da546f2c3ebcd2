"""What one process keeps between calls, held by one object: the `ProcessState`.

A process keeps things it learned from the workspaces and its own runs: the token cache,
the HTTP sessions, each endpoint family's rate limit, the writes it sent, its clients, the
listings that answer a refresh's reads, the jobs it made, the inline content it checked.
Each is a `Store`, declared in the module that uses it:

    tokens = Store("tokens", lambda: TokenCache(store=SharedTokenStore()))
    tokens().get(connection)  # the cache of the state in force

and made by the state in force on first use. The program (stacks/__main__.py) and the
provider host (providers/core/host.py) each start a state of their own (`start`); library
use without one gets one made on first use. A test starts one per test (tests/conftest.py):
a new process of the same deployment, with nothing to reset by hand.

Memos of code alone (what the installed SDK's classes look like, a settings' normal form,
the registry) are not stores: they hold nothing a process learned, and stay module-level.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Store(Generic[T]):
    """One store of a process: each `ProcessState` holds its own, made by `make` on first
    use. Calling the store gives the one of the state in force."""

    def __init__(self, name: str, make: Callable[[], T]) -> None:
        self.name = name
        self._make = make

    def __call__(self) -> T:
        return current().get(self)

    def make(self) -> T:
        return self._make()

    def __repr__(self) -> str:
        return f"Store({self.name!r})"


class ProcessState:
    """The stores of one process (see the module's docstring). Thread-safe: the provider
    host's workers share one state, and a store is made once whoever asks first."""

    def __init__(self) -> None:
        self._lock = threading.RLock()  # a store's maker may ask for another store
        self._stores: dict[Store[Any], Any] = {}

    def get(self, store: Store[T]) -> T:
        found = self._stores.get(store)
        if found is None:
            with self._lock:
                found = self._stores.get(store)
                if found is None:
                    found = self._stores[store] = store.make()
        return found  # type: ignore[no-any-return]

    def made(self) -> list[str]:
        """The names of the stores made so far (reports and tests)."""
        with self._lock:
            return sorted(store.name for store in self._stores)


_current: ProcessState | None = None
_current_lock = threading.Lock()


def current() -> ProcessState:
    """The state in force: the one last started, else one made now."""
    global _current
    state = _current
    if state is None:
        with _current_lock:
            if _current is None:
                _current = ProcessState()
            state = _current
    return state


def start() -> ProcessState:
    """A new state, in force from now on for every thread of the process."""
    global _current
    with _current_lock:
        _current = ProcessState()
        return _current
