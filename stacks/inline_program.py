"""Serves a Pulumi program from this process, as the Automation API does for an inline
program: the engine, started with `--client=<address>`, asks this server to run it instead of
starting a language host. The modern engine (tools/engine, WORKSPACE_IAC_ENGINE=modern) has
no Python language host, so its stacks run their programs this way."""

from __future__ import annotations

import builtins
import sys
from collections.abc import Callable, Iterator
from concurrent import futures
from contextlib import contextmanager
from pathlib import Path

import grpc
from pulumi.automation._server import LanguageServer
from pulumi.runtime.proto import language_pb2_grpc

# As the Automation API sizes its server: a program's registrations can be large.
MAX_MESSAGE_BYTES = 400 * 1024 * 1024


@contextmanager
def serving(program: Callable[[], None]) -> Iterator[str]:
    """The address of a language server running `program`, until the block ends."""
    language_server = LanguageServer(program)
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=4),
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ],
    )
    language_pb2_grpc.add_LanguageRuntimeServicer_to_server(language_server, server)
    port = server.add_insecure_port(address="127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        # SDKs before the run's settings lived in context variables reset them here.
        reset = getattr(language_server, "on_pulumi_exit", None)
        if reset is not None:
            reset()
        server.stop(0)


def program_at(main: Path) -> Callable[[], None]:
    """The program at `main` (a file, or a directory with __main__.py), as the language host
    would run it: named `__main__`, its directory on the import path.

    Each run executes the program's code in a namespace of its own. `runpy.run_path` would
    put a module of its own in `sys.modules["__main__"]` for the run and restore it after;
    the fleet runs several stacks' programs at once in one process (threads), and one run's
    restore took `__main__` away from another mid-run (`KeyError: '__main__'`)."""
    path = main / "__main__.py" if main.is_dir() else main
    directory = str(path.parent)

    def run() -> None:
        if directory not in sys.path:
            sys.path.insert(0, directory)  # the program's own modules, as the host has them
        code = compile(path.read_bytes(), str(path), "exec")
        exec(code, {"__name__": "__main__", "__file__": str(path), "__builtins__": builtins})

    return run
