"""An inline program (stacks/inline_program.py) runs as the language host would run it, and
several run at once in one process, as the fleet runs its stacks' programs in threads."""

from __future__ import annotations

import importlib
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from stacks.inline_program import program_at

PROGRAM = """
import time
import inline_program_probe  # a module beside the program, as the language host finds it

time.sleep(0.01)
inline_program_probe.RUNS.append((__name__, __file__))
"""


def test_programs_run_at_once_in_threads_each_as_main(tmp_path: Path) -> None:
    """Before: runpy swapped the process's `__main__` for each run, and one run's restore
    took it away from another (`KeyError: '__main__'`)."""
    (tmp_path / "__main__.py").write_text(PROGRAM)
    (tmp_path / "inline_program_probe.py").write_text("RUNS = []\n")
    run = program_at(tmp_path)
    main_before = sys.modules["__main__"]
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(lambda _: run(), range(64)))  # a run that fails raises here
        runs = importlib.import_module("inline_program_probe").RUNS
    finally:
        sys.modules.pop("inline_program_probe", None)
        sys.path.remove(str(tmp_path))
    assert runs == [("__main__", str(tmp_path / "__main__.py"))] * 64
    assert sys.modules["__main__"] is main_before
