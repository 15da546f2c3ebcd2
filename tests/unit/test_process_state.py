"""The process state (providers/client/process.py): each state holds its own stores, made once
on first use whichever thread asks; a new state starts with none."""

from __future__ import annotations

import threading
from concurrent import futures

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
