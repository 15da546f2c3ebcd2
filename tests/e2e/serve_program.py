"""Serves the Pulumi program at argv[1] to an engine, as the Automation API serves an inline
program, until standard input closes; prints the server's address first. Run with another
checkout's tree first on PYTHONPATH, the program runs that checkout's packages
(tests/e2e/previous_code.py)."""

import importlib.util
import sys
from pathlib import Path

INLINE_PROGRAM = Path(__file__).resolve().parents[2] / "stacks" / "inline_program.py"


def main() -> None:
    # By its path: the `stacks` package on the path may be the other checkout's.
    spec = importlib.util.spec_from_file_location("inline_program", INLINE_PROGRAM)
    assert spec is not None and spec.loader is not None
    inline_program = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(inline_program)
    with inline_program.serving(inline_program.program_at(Path(sys.argv[1]))) as address:
        print(address, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
