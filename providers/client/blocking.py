"""Blocking calls made from a Pulumi program: the one way to run them.

`Output.apply` callbacks run on the event loop that runs the whole program; a request made
right there would stall every other resource's registration until it returns. A callback
that needs the workspace (or any other service) returns `in_thread(call, ...)` instead:
apply waits for the awaitable it returns.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar, TypeVarTuple

Result = TypeVar("Result")
Args = TypeVarTuple("Args")


def in_thread(call: Callable[[*Args], Result], *args: *Args) -> Awaitable[Result]:
    """`call(*args)` in the running loop's default thread pool. Call it from a coroutine or
    an apply callback (there is a running loop then)."""
    return asyncio.get_running_loop().run_in_executor(None, call, *args)
