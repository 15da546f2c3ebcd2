"""Where the project keeps what it caches per user (tokens, the SDK's shapes)."""

from __future__ import annotations

import os
from pathlib import Path

OFF = "off"


def cache_dir(variable: str, leaf: str) -> Path | None:
    """`$<variable>` where set (None for `off` or empty: keep in memory only), else
    `$XDG_CACHE_HOME/workspace-iac/<leaf>`, else `~/.cache/workspace-iac/<leaf>`. Read each
    time: tests and tools set it per run."""
    configured = os.environ.get(variable)
    if configured is not None:
        return None if configured.strip().lower() in ("", OFF) else Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "workspace-iac" / leaf
