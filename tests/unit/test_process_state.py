"""The process state (providers/client/process.py): each state holds its own stores, made once
on first use whichever thread asks; a new state starts with none."""

from __future__ import annotations

import ast
import threading
from concurrent import futures
from pathlib import Path

import providers
from providers.client import process
from providers.client.process import ProcessState, Store


class Box:
    def __init__(self) -> None:
        self.items: list[str] = []


def test_a_store_is_made_once_per_state_and_a_new_state_starts_without_it() -> None:
    made: list[Box] = []

    def make() -> Box:
        made.append(Box())
        return made[-1]

    boxes = Store("boxes", make)
    boxes().items.append("first")
    assert boxes() is made[0] and boxes().items == ["first"]

    process.start()
    assert boxes().items == [] and boxes() is made[1]
    assert len(made) == 2


def test_threads_asking_at_once_get_one_store() -> None:
    barrier = threading.Barrier(8)
    made: list[Box] = []

    def make() -> Box:
        made.append(Box())
        return made[-1]

    boxes = Store("boxes", make)
    state = ProcessState()

    def ask(_: int) -> Box:
        barrier.wait()
        return state.get(boxes)

    with futures.ThreadPoolExecutor(8) as pool:
        found = list(pool.map(ask, range(8)))
    assert len(made) == 1 and all(box is made[0] for box in found)


def test_a_store_made_by_another_store_joins_the_same_state() -> None:
    inner = Store("inner", Box)
    outer = Store("outer", lambda: (inner(), Box()))
    state = process.current()
    assert outer()[0] is inner()
    assert state.made() == ["inner", "outer"]


def test_the_state_in_force_is_the_one_last_started() -> None:
    first = process.start()
    assert process.current() is first
    second = process.start()
    assert process.current() is second is not first


def test_the_tokens_are_a_store_of_the_state() -> None:
    from providers.client.token import TokenCache, tokens

    cache = tokens()
    assert isinstance(cache, TokenCache) and tokens() is cache
    assert "tokens" in process.current().made()
    process.start()
    assert tokens() is not cache


# Module-level holders that keep nothing a process learned from a workspace or a run, each
# with why (docs/architecture.md, "Process-wide state").
NOT_STORES = {
    ("providers/client/process.py", "_current_lock"): "guards the state in force itself",
    ("providers/client/ratelimit.py", "_current"): "the limit of the call in progress on a "
    "thread, for urllib3's retries of that call",
    ("providers/client/sdk_services.py", "_LOADING"): "serialises loading the SDK's modules",
    ("providers/client/sdk_shapes.py", "_LOCK"): "guards the memo of the SDK's shapes",
    ("providers/client/sdk_shapes.py", "_LOADED"): "a memo of the installed SDK's shapes",
    ("providers/core/engine_log.py", "_sdk_functions"): "the SDK's own functions, kept when "
    "the routed ones replace them",
    ("providers/core/sdk_schema.py", "_by_rules"): "a memo of models built from the SDK",
    ("providers/jobs/job_diff.py", "_FORMS"): "a memo of settings' normal forms",
    ("providers/jobs/job_diff.py", "_FORMS_LOCK"): "guards that memo",
}
# Classes whose instances keep what a process learned: made only by a store.
STATEFUL_CLASSES = {"TokenCache", "SharedTokenStore", "AdaptiveLimit", "Listing", "TaggedJobs",
                    "WorkspaceClient", "Session"}
EMPTY_CONTAINERS = {"dict", "set", "list", "defaultdict", "OrderedDict", "deque", "Counter",
                    "Lock", "RLock", "local", "WeakKeyDictionary", "WeakValueDictionary"}


def module_level_holders(path: Path) -> list[str]:
    """The names a module binds at its top level to an empty container, a lock, or an
    instance of a stateful class."""
    found = []
    for statement in ast.parse(path.read_text()).body:
        if not isinstance(statement, ast.Assign | ast.AnnAssign) or statement.value is None:
            continue
        value = statement.value
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        if isinstance(value, ast.Dict):
            holds = not value.keys
        elif isinstance(value, ast.List | ast.Set):
            holds = not value.elts
        elif isinstance(value, ast.Call):
            called = value.func
            name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
            holds = (name in EMPTY_CONTAINERS and not value.args) or name in STATEFUL_CLASSES
        else:
            holds = False
        if holds:
            found += [target.id for target in targets if isinstance(target, ast.Name)]
    return found


def test_no_module_keeps_what_a_process_learned_outside_the_process_state() -> None:
    root = Path(providers.__file__).parent
    held = {
        (path.relative_to(root.parent).as_posix(), name)
        for path in sorted(root.rglob("*.py"))
        for name in module_level_holders(path)
    }
    assert held - NOT_STORES.keys() == set(), "make each a Store (providers/client/process.py)"
    assert NOT_STORES.keys() - held == set(), "no longer there: drop it from NOT_STORES"
