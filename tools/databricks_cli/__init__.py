"""The service's official command-line tool (the Databricks CLI), built once per machine.

`binary()` returns the path of the pinned CLI, building it from the Go module proxy on
first use on this machine (tools/databricks_cli/ensure.sh; minutes the first time, then
instant).
"""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

ENSURE_SCRIPT = Path(__file__).resolve().parent / "ensure.sh"


@cache
def binary() -> Path:
    """The pinned CLI's executable; builds it first if this machine has none yet."""
    result = subprocess.run([str(ENSURE_SCRIPT)], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{ENSURE_SCRIPT} failed ({result.returncode}): "
                           f"{result.stderr[-2000:]}")
    return Path(result.stdout.strip().splitlines()[-1])
